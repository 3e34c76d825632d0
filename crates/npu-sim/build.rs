//! Compiles the device kernels (`../../kernels/*.c`) with `cc`.
use std::path::PathBuf;

fn main() {
    let kernels = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../kernels");
    let mut build = cc::Build::new();
    build
        .include(&kernels)
        .std("c11")
        .opt_level(3)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true);
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
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("npu_kernels.h").display()
    );
    build.compile("npu_kernels");
    let target = std::env::var("TARGET").unwrap();
    println!("cargo:rustc-env=NPU_SIM_TARGET={target}");
}
