//! Compiles the device kernels (`kernels/*.c`) and the log library's
//! variadic entry points (`csrc/alog.c`) with `cc`. Warnings are
//! shown; `NPU_SIM_WERROR=1` (the project's CI) makes them errors, which a
//! user's compiler never gets.
use std::path::PathBuf;

fn main() {
    let kernels = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("kernels");
    println!("cargo:rerun-if-env-changed=NPU_SIM_WERROR");
    let werror = std::env::var("NPU_SIM_WERROR").is_ok_and(|v| v == "1");
    let mut build = cc::Build::new();
    build
        .include(&kernels)
        .std("c11")
        .opt_level(3)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(werror)
        // The arithmetic kernels round every multiply and add on its own
        // (docs/ops.md §8): a fused multiply-add would round once.
        .flag_if_supported("-ffp-contract=off");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&kernels)
        .expect("kernels/ folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("test_")
        })
        .collect();
    sources.sort();
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
        build.file(s);
    }
    for h in ["npu_kernels.h", "npu_walk.h", "npu_stream.h", "npu_half.h"] {
        println!("cargo:rerun-if-changed={}", kernels.join(h).display());
    }
    build.compile("npu_kernels");
    // The log library's variadic entry points (src/runtime/log.rs).
    let csrc = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("csrc");
    println!("cargo:rerun-if-changed={}", csrc.join("alog.c").display());
    cc::Build::new()
        .file(csrc.join("alog.c"))
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(werror)
        .compile("npu_sim_alog");
    let target = std::env::var("TARGET").unwrap();
    println!("cargo:rustc-env=NPU_SIM_TARGET={target}");
}
