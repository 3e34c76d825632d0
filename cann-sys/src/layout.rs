//! How a CANN installation is laid out, and where it is looked for: the
//! facts shared by the run-time loader ([`crate::Api::load`]) and the build
//! script's `link` feature, so the two always search the same places. Plain
//! `std` only (the build script compiles this file on its own).

use std::path::{Path, PathBuf};

/// Runtime libraries, in order of preference (CANN 9 adds `libacl_rt.so`
/// and keeps `libascendcl.so` for compatibility).
pub const RUNTIME_LIBRARIES: &[&str] = &["libascendcl.so", "libacl_rt.so"];
/// The aclnn meta library (tensors, arrays, scalars, executors).
pub const META_LIBRARY: &str = "libnnopbase.so";
/// The deprecated umbrella operator library, used only when no split
/// `libopapi_*.so` exists (the two must never be loaded together).
pub const UMBRELLA_OPERATOR_LIBRARY: &str = "libopapi.so";
/// Operator libraries of CANN releases before the `libopapi*` layout.
pub const LEGACY_OPERATOR_LIBRARIES: &[&str] = &[
    "libaclnn_ops_infer.so",
    "libaclnn_math.so",
    "libaclnn_ops_train.so",
];
/// Default CANN roots: CANN >= 8.5, then older releases.
pub const DEFAULT_ROOTS: &[&str] = &[
    "/usr/local/Ascend/cann",
    "/usr/local/Ascend/ascend-toolkit/latest",
];
/// Environment variables naming a CANN root (set by CANN's `set_env.sh`),
/// searched in this order before [`DEFAULT_ROOTS`].
pub const ROOT_VARIABLES: &[&str] = &["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"];
/// Split operator libraries that hold this project's operators, searched
/// before any other `libopapi_*.so`.
const PREFERRED_SPLIT: &[&str] = &["libopapi_math.so", "libopapi_nn.so"];

/// The library folders to search, in order and without duplicates:
/// `lib_dir`, then `<root>/lib64` and `<root>/<arch>-linux/lib64` for each
/// root.
pub fn library_dirs(lib_dir: Option<&Path>, roots: Vec<PathBuf>, arch: &str) -> Vec<PathBuf> {
    let arch_lib64 = Path::new(&format!("{arch}-linux")).join("lib64");
    let mut dirs: Vec<PathBuf> = lib_dir.map(Path::to_path_buf).into_iter().collect();
    for root in roots {
        dirs.push(root.join("lib64"));
        dirs.push(root.join(&arch_lib64));
    }
    let mut unique = Vec::with_capacity(dirs.len());
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// The first of `dirs` holding a runtime library, with that library.
pub fn find_runtime(dirs: &[PathBuf]) -> Option<(PathBuf, PathBuf)> {
    dirs.iter().find_map(|d| {
        RUNTIME_LIBRARIES
            .iter()
            .map(|n| d.join(n))
            .find(|p| p.is_file())
            .map(|p| (d.clone(), p))
    })
}

/// The operator libraries of `dir`, in search order: the split
/// `libopapi_*.so` (math and nn first), else `libopapi.so`, else legacy.
pub fn operator_candidates(dir: &Path) -> Vec<PathBuf> {
    let name_of = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    let mut split: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let n = name_of(p);
            n.starts_with("libopapi_") && n.ends_with(".so")
        })
        .collect();
    split.sort_by_key(|p| {
        let name = name_of(p);
        let rank = PREFERRED_SPLIT
            .iter()
            .position(|s| *s == name)
            .unwrap_or(PREFERRED_SPLIT.len());
        (rank, name)
    });
    if !split.is_empty() {
        return split;
    }
    let umbrella = dir.join(UMBRELLA_OPERATOR_LIBRARY);
    if umbrella.is_file() {
        return vec![umbrella];
    }
    LEGACY_OPERATOR_LIBRARIES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect()
}
