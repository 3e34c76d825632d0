//! `npu-ops sim install DIR`: the simulator laid out as a CANN
//! installation, so that aclnn programs written for CANN (its samples
//! included) build with CANN's documented lines and run on the simulator
//! unchanged (feature `cli`).
//!
//! The root holds:
//! - `include/`: CANN's header layout (`acl/acl.h`, `aclnn/aclnn_base.h`,
//!   `aclnnop/aclnn_slice.h`, ...), generated from `cann_sys.h`
//!   ([`cann_sys::headers`]), plus `npu_sim.h` (the simulator's own entry
//!   points);
//! - `lib64/`: `libnpu_sim_c.so`, the simulator, and CANN's libraries
//!   (`libascendcl.so`, `libacl_rt.so`, `libnnopbase.so`,
//!   `libopapi_math.so`, `libopapi_nn.so`, and the legacy `libopapi.so`),
//!   each with its SONAME and exporting only what its CANN counterpart
//!   exports, so a program linked against the wrong libraries fails to link
//!   as it would on an NPU host. They are ELF filters of the simulator: the
//!   dynamic loader takes every symbol from `libnpu_sim_c.so`, one copy of
//!   the simulator's state however many libraries a program loads;
//! - `set_env.sh`: `ASCEND_HOME_PATH`, `ASCEND_TOOLKIT_HOME`,
//!   `ASCEND_OPP_PATH` and `LD_LIBRARY_PATH`, as CANN's script sets them.
//!
//! Building the libraries needs a C compiler (`CC`, default `cc`), as
//! building an aclnn program does.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulator's shared library (`crates/npu-sim-c`).
pub const CORE_LIBRARY: &str = "libnpu_sim_c.so";

/// How to install.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The simulator's shared library; default: `$NPU_SIM_LIB`, else next
    /// to this program (where `cargo build --release` puts both).
    pub core: Option<PathBuf>,
    /// The C compiler; default `$CC`, else `cc`.
    pub cc: Option<String>,
}

/// What was installed.
#[derive(Clone, Debug)]
pub struct Installed {
    /// The root (absolute).
    pub root: PathBuf,
    /// Header files written, under `include/`.
    pub headers: Vec<String>,
    /// Libraries written under `lib64/`, with the symbols each exports.
    pub libraries: Vec<(String, usize)>,
}

/// Where the simulator's shared library is, by `opts` (see
/// [`Options::core`]).
pub fn find_core(opts: &Options) -> Result<PathBuf, String> {
    if let Some(p) = &opts.core {
        return existing(p);
    }
    if let Some(p) = std::env::var_os("NPU_SIM_LIB").filter(|v| !v.is_empty()) {
        return existing(Path::new(&p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this program: {e}"))?;
    // Next to the program, or (tests, examples) one folder up.
    let candidates: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(CORE_LIBRARY))
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "the simulator's shared library {CORE_LIBRARY} was not found (looked in {}); build \
                 it with `cargo build --release -p npu-sim-c`, or name it with --lib or NPU_SIM_LIB",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

fn existing(p: &Path) -> Result<PathBuf, String> {
    if p.is_file() {
        Ok(p.to_path_buf())
    } else {
        Err(format!("{} does not exist or is not a file", p.display()))
    }
}

fn io<'a>(what: &'a str, p: &'a Path) -> impl FnOnce(std::io::Error) -> String + 'a {
    move |e| format!("cannot {what} {}: {e}", p.display())
}

/// Lays out `dir` as a CANN installation backed by the simulator (see the
/// module documentation). `dir` is created if needed; files of an earlier
/// install are replaced.
pub fn install(dir: &Path, opts: &Options) -> Result<Installed, String> {
    let core = find_core(opts)?;
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let root = dir.canonicalize().map_err(io("resolve", dir))?;
    let (include, lib64, opp) = (root.join("include"), root.join("lib64"), root.join("opp"));
    for d in [&include, &lib64, &opp] {
        std::fs::create_dir_all(d).map_err(io("create", d))?;
    }
    let mut headers = Vec::new();
    for h in cann_sys::headers::cann_headers() {
        let path = include.join(h.path);
        let parent = path.parent().expect("a header has a folder");
        std::fs::create_dir_all(parent).map_err(io("create", parent))?;
        std::fs::write(&path, h.text).map_err(io("write", &path))?;
        headers.push(h.path.to_string());
    }
    let sim_h = include.join("npu_sim.h");
    std::fs::write(&sim_h, npu_sim::HEADER).map_err(io("write", &sim_h))?;
    headers.push("npu_sim.h".into());

    let core_dst = lib64.join(CORE_LIBRARY);
    // Replace, not overwrite in place: a running program may map the old.
    let _ = std::fs::remove_file(&core_dst);
    std::fs::copy(&core, &core_dst).map_err(io("copy the simulator to", &core_dst))?;

    let cc = opts
        .cc
        .clone()
        .or_else(|| std::env::var("CC").ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "cc".into());
    let work = std::env::temp_dir().join(format!("npu-sim-install-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(io("create", &work))?;
    let mut libraries = Vec::new();
    let result = (|| {
        for (lib, symbols) in cann_sys::headers::library_exports() {
            let src = work.join(format!("{lib}.c"));
            let mut c = format!(
                "/* {lib} of a simulated CANN root: a filter of {CORE_LIBRARY}, which \
                 provides every symbol at run time. */\n"
            );
            for s in &symbols {
                c.push_str(&format!("void {s}(void) {{}}\n"));
            }
            std::fs::write(&src, c).map_err(io("write", &src))?;
            let out = lib64.join(lib);
            let _ = std::fs::remove_file(&out);
            let run = Command::new(&cc)
                .args(["-shared", "-fPIC", "-o"])
                .arg(&out)
                .arg(&src)
                .arg(format!("-Wl,-soname,{lib}"))
                .arg(format!("-Wl,--filter={CORE_LIBRARY}"))
                .arg("-Wl,-rpath,$ORIGIN")
                .output()
                .map_err(|e| format!("cannot run the C compiler `{cc}` (set CC): {e}"))?;
            if !run.status.success() {
                return Err(format!(
                    "building {lib} with `{cc}` failed: {}",
                    String::from_utf8_lossy(&run.stderr).trim()
                ));
            }
            libraries.push((lib.to_string(), symbols.len()));
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result?;

    let env = root.join("set_env.sh");
    let r = root.display();
    std::fs::write(
        &env,
        format!(
            "# A simulated CANN installation (npu-ops sim install). Source it, as CANN's own\n\
             # set_env.sh: `source {r}/set_env.sh`.\n\
             export ASCEND_TOOLKIT_HOME={r}\n\
             export ASCEND_HOME_PATH={r}\n\
             export ASCEND_OPP_PATH={r}/opp\n\
             export LD_LIBRARY_PATH={r}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n"
        ),
    )
    .map_err(io("write", &env))?;
    Ok(Installed {
        root,
        headers,
        libraries,
    })
}
