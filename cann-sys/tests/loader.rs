//! Run-time loading against a fake CANN: small shared libraries compiled
//! here, laid out like CANN's `lib64/` in temporary folders.

use cann_sys::{
    Api, LoadConfig, LoadError, META_SYMBOLS, OPERATORS, REUSE_SYMBOLS, RUNTIME_SYMBOLS,
};
use serial_test::serial;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn compiler() -> Command {
    let target = env!("CANN_SYS_TARGET");
    cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .get_compiler()
        .to_command()
}

/// Compiles a shared library at `path` exporting `symbols`. `aclrtGetSocName`
/// returns `tag`; each `aclnn*GetWorkspaceSize` writes `op_id` to its
/// workspace-size argument, so a test can tell which library answered.
fn build_lib(path: &Path, symbols: &[&str], tag: &str, op_id: u64) {
    let mut src = String::from("#include <stdint.h>\n");
    for s in symbols {
        if *s == "aclrtGetSocName" {
            src.push_str(&format!(
                "const char *aclrtGetSocName(void) {{ return \"{tag}\"; }}\n"
            ));
        } else if s.ends_with("GetWorkspaceSize") {
            // Every first phase ends with (uint64_t *ws, void **executor); the
            // leading arguments differ, so each is declared exactly.
            let params = match *s {
                "aclnnSliceGetWorkspaceSize" => {
                    "const void *a, int64_t b, int64_t c, int64_t d, int64_t e, void *f"
                }
                "aclnnIndexSelectGetWorkspaceSize" => {
                    "const void *a, int64_t b, const void *c, void *d"
                }
                "aclnnInplaceCopyGetWorkspaceSize" => "void *a, const void *b",
                "aclnnConstantPadNdGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, void *d"
                }
                "aclnnAddGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, void *d"
                }
                "aclnnInplaceAddGetWorkspaceSize" => "const void *a, const void *b, const void *c",
                "aclnnMulGetWorkspaceSize" => "const void *a, const void *b, void *c",
                "aclnnInplaceMulGetWorkspaceSize" => "void *a, const void *b",
                "aclnnCatGetWorkspaceSize" | "aclnnStackGetWorkspaceSize" => {
                    "const void *a, int64_t b, void *c"
                }
                "aclnnInplaceFillScalarGetWorkspaceSize" => "void *a, const void *b",
                "aclnnInplaceZeroGetWorkspaceSize" => "void *a",
                "aclnnCastGetWorkspaceSize" => "const void *a, int32_t b, void *c",
                "aclnnPermuteGetWorkspaceSize"
                | "aclnnFlipGetWorkspaceSize"
                | "aclnnExpandGetWorkspaceSize"
                | "aclnnRepeatGetWorkspaceSize" => "const void *a, const void *b, void *c",
                "aclnnRollGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, void *d"
                }
                "aclnnTrilGetWorkspaceSize" | "aclnnTriuGetWorkspaceSize" => {
                    "const void *a, int64_t b, void *c"
                }
                "aclnnInplaceTrilGetWorkspaceSize" => "const void *a, int64_t b",
                "aclnnInplaceTriuGetWorkspaceSize" => "void *a, int64_t b",
                "aclnnSplitTensorGetWorkspaceSize" => {
                    "const void *a, uint64_t b, int64_t c, void *d"
                }
                "aclnnSplitWithSizeGetWorkspaceSize" => {
                    "const void *a, const void *b, int64_t c, void *d"
                }
                "aclnnEmbeddingGetWorkspaceSize" => "const void *a, const void *b, const void *c",
                "aclnnTakeGetWorkspaceSize" | "aclnnMaskedSelectGetWorkspaceSize" => {
                    "const void *a, const void *b, void *c"
                }
                "aclnnGatherNdGetWorkspaceSize" => "const void *a, const void *b, _Bool c, void *d",
                "aclnnIndexGetWorkspaceSize" => "const void *a, const void *b, void *c",
                "aclnnIndexCopyGetWorkspaceSize" => {
                    "void *a, int64_t b, const void *c, const void *d, void *e"
                }
                "aclnnInplaceIndexCopyGetWorkspaceSize" => {
                    "void *a, int64_t b, const void *c, const void *d"
                }
                "aclnnGatherV2GetWorkspaceSize" | "aclnnGatherGetWorkspaceSize" => {
                    "const void *a, int64_t b, const void *c, void *d"
                }
                "aclnnStridedSliceAssignV2GetWorkspaceSize" => {
                    "void *a, const void *b, const void *c, const void *d, const void *e, const void *f"
                }
                "aclnnStridedSliceGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, const void *d, int64_t e, int64_t f, int64_t g, int64_t h, int64_t i, void *j"
                }
                "aclnnViewCopyGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, const void *d, const void *e, const void *f, const void *g, const void *h, const void *i"
                }
                "aclnnAsStridedGetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, const void *d, void *e"
                }
                "aclnnSliceV3GetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, const void *d"
                }
                "aclnnSliceV2GetWorkspaceSize" => {
                    "const void *a, const void *b, const void *c, const void *d, const void *e, void *f"
                }
                "aclnnReflectionPad1dGetWorkspaceSize"
                | "aclnnReflectionPad2dGetWorkspaceSize"
                | "aclnnReflectionPad3dGetWorkspaceSize"
                | "aclnnReplicationPad1dGetWorkspaceSize"
                | "aclnnReplicationPad2dGetWorkspaceSize"
                | "aclnnReplicationPad3dGetWorkspaceSize"
                | "aclnnCircularPad2dGetWorkspaceSize"
                | "aclnnCircularPad3dGetWorkspaceSize" => "const void *a, const void *b, void *c",
                other => panic!("unknown operator {other}"),
            };
            src.push_str(&format!(
                "int32_t {s}({params}, uint64_t *ws, void **ex) {{ *ws = {op_id}u; *ex = 0; return 0; }}\n"
            ));
        } else {
            src.push_str(&format!("int {s}(void) {{ return 0; }}\n"));
        }
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = path.with_extension("c");
    std::fs::write(&c, src).unwrap();
    let status = compiler()
        .args(["-shared", "-fPIC", "-w", "-o"])
        .arg(path)
        .arg(&c)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling {}", path.display());
}

fn all_ops() -> Vec<&'static str> {
    OPERATORS
        .iter()
        .flat_map(|o| [o.get_workspace_size, o.run])
        .collect()
}

fn op_syms(names: &[&str]) -> Vec<&'static str> {
    OPERATORS
        .iter()
        .filter(|o| names.contains(&o.name))
        .flat_map(|o| [o.get_workspace_size, o.run])
        .collect()
}

fn runtime_syms() -> Vec<&'static str> {
    RUNTIME_SYMBOLS.to_vec()
}

fn meta_syms() -> Vec<&'static str> {
    META_SYMBOLS.iter().chain(REUSE_SYMBOLS).copied().collect()
}

/// A complete fake CANN 8.5 layout in `lib64`: runtime, meta and the split
/// operator libraries (Slice/InplaceCopy/ConstantPadNd in math, IndexSelect
/// in nn, with Flip).
fn fake_cann(lib64: &Path, tag: &str) {
    build_lib(&lib64.join("libascendcl.so"), &runtime_syms(), tag, 0);
    build_lib(&lib64.join("libnnopbase.so"), &meta_syms(), tag, 0);
    build_lib(
        &lib64.join("libopapi_math.so"),
        &op_syms(&[
            "Slice",
            "InplaceCopy",
            "ConstantPadNd",
            "Add",
            "InplaceAdd",
            "Mul",
            "InplaceMul",
            "Cat",
            "Stack",
            "InplaceFillScalar",
            "InplaceZero",
            "Cast",
            "Tril",
            "InplaceTril",
            "Triu",
            "InplaceTriu",
            "SplitTensor",
            "SplitWithSize",
            "ReflectionPad1d",
            "ReflectionPad2d",
            "ReflectionPad3d",
            "ReplicationPad1d",
            "ReplicationPad2d",
            "ReplicationPad3d",
            "CircularPad2d",
            "CircularPad3d",
            "Permute",
            "Roll",
            "Expand",
            "Repeat",
            "SliceV2",
            "SliceV3",
            "StridedSlice",
            "AsStrided",
            "ViewCopy",
            "StridedSliceAssignV2",
            "MaskedSelect",
        ]),
        tag,
        1,
    );
    build_lib(
        &lib64.join("libopapi_nn.so"),
        &op_syms(&[
            "IndexSelect",
            "Flip",
            "Embedding",
            "GatherV2",
            "Gather",
            "Take",
            "IndexCopy",
            "InplaceIndexCopy",
            "GatherNd",
            "Index",
        ]),
        tag,
        2,
    );
}

fn soc(api: &Api) -> String {
    // SAFETY: the fake's aclrtGetSocName returns a static NUL-terminated string.
    unsafe { CStr::from_ptr((api.aclrtGetSocName)()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn slice_ws(api: &Api) -> u64 {
    let op = api.slice().expect("Slice present");
    let mut ws = u64::MAX;
    let mut ex = std::ptr::null_mut();
    // SAFETY: the fake only writes the two out-pointers, which are valid.
    let rc = unsafe {
        (op.get_workspace_size)(
            std::ptr::null(),
            0,
            0,
            0,
            1,
            std::ptr::null_mut(),
            &mut ws,
            &mut ex,
        )
    };
    assert_eq!(rc, 0);
    ws
}

/// Sets (or clears) the CANN environment variables for one test.
struct Env;

impl Env {
    fn set(home: Option<&Path>, toolkit: Option<&Path>) -> Env {
        // SAFETY: tests that touch the environment are #[serial].
        unsafe {
            match home {
                Some(p) => std::env::set_var("ASCEND_HOME_PATH", p),
                None => std::env::remove_var("ASCEND_HOME_PATH"),
            }
            match toolkit {
                Some(p) => std::env::set_var("ASCEND_TOOLKIT_HOME", p),
                None => std::env::remove_var("ASCEND_TOOLKIT_HOME"),
            }
        }
        Env
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        // SAFETY: as in `set`.
        unsafe {
            std::env::remove_var("ASCEND_HOME_PATH");
            std::env::remove_var("ASCEND_TOOLKIT_HOME");
        }
    }
}

/// A config that never looks at the real default roots.
fn isolated() -> LoadConfig {
    LoadConfig::new().with_default_roots(vec![])
}

fn arch_lib64(root: &Path) -> PathBuf {
    root.join(format!("{}-linux", std::env::consts::ARCH))
        .join("lib64")
}

#[test]
#[serial]
fn search_order_is_explicit_then_home_then_toolkit_then_defaults() {
    let t = TempDir::new().unwrap();
    let (home, toolkit, def) = (
        t.path().join("home"),
        t.path().join("tk"),
        t.path().join("def"),
    );
    let _env = Env::set(Some(&home), Some(&toolkit));
    let cfg = LoadConfig::new()
        .with_lib_dir(t.path().join("explicit"))
        .with_default_roots(vec![def.clone()]);
    assert_eq!(
        cfg.search_dirs(),
        vec![
            t.path().join("explicit"),
            home.join("lib64"),
            arch_lib64(&home),
            toolkit.join("lib64"),
            arch_lib64(&toolkit),
            def.join("lib64"),
            arch_lib64(&def),
        ]
    );
}

#[test]
#[serial]
fn search_dirs_skip_empty_variables_and_duplicates() {
    let t = TempDir::new().unwrap();
    let root = t.path().join("cann");
    // set_env.sh exports the same value in both variables.
    let _env = Env::set(Some(&root), Some(&root));
    assert_eq!(
        isolated().search_dirs(),
        vec![root.join("lib64"), arch_lib64(&root)]
    );
    let _env = Env::set(Some(Path::new("")), None);
    assert!(isolated().search_dirs().is_empty());
}

#[test]
#[serial]
fn default_roots_are_the_cann_install_prefixes() {
    let _env = Env::set(None, None);
    let dirs = LoadConfig::new().search_dirs();
    assert_eq!(dirs[0], Path::new("/usr/local/Ascend/cann/lib64"));
    assert_eq!(dirs[1], arch_lib64(Path::new("/usr/local/Ascend/cann")));
    assert_eq!(
        dirs[2],
        Path::new("/usr/local/Ascend/ascend-toolkit/latest/lib64")
    );
    assert_eq!(dirs.len(), 4);
}

#[test]
#[serial]
fn explicit_folder_wins_over_environment() {
    let t = TempDir::new().unwrap();
    fake_cann(&t.path().join("explicit"), "explicit");
    fake_cann(&t.path().join("home/lib64"), "home");
    let _env = Env::set(Some(&t.path().join("home")), None);
    let api = Api::load(&isolated().with_lib_dir(t.path().join("explicit"))).unwrap();
    assert_eq!(soc(&api), "explicit");
    assert_eq!(
        api.origin().library_dir(),
        Some(t.path().join("explicit").as_path())
    );
}

#[test]
#[serial]
fn empty_explicit_folder_falls_through_to_environment() {
    let t = TempDir::new().unwrap();
    std::fs::create_dir_all(t.path().join("explicit")).unwrap();
    fake_cann(&t.path().join("home/lib64"), "home");
    let _env = Env::set(Some(&t.path().join("home")), None);
    let api = Api::load(&isolated().with_lib_dir(t.path().join("explicit"))).unwrap();
    assert_eq!(soc(&api), "home");
}

#[test]
#[serial]
fn ascend_home_path_wins_over_toolkit_home() {
    let t = TempDir::new().unwrap();
    fake_cann(&t.path().join("home/lib64"), "home");
    fake_cann(&t.path().join("tk/lib64"), "toolkit");
    let _env = Env::set(Some(&t.path().join("home")), Some(&t.path().join("tk")));
    assert_eq!(soc(&Api::load(&isolated()).unwrap()), "home");
    let _env = Env::set(None, Some(&t.path().join("tk")));
    assert_eq!(soc(&Api::load(&isolated()).unwrap()), "toolkit");
}

#[test]
#[serial]
fn environment_wins_over_default_roots_which_are_searched_last() {
    let t = TempDir::new().unwrap();
    fake_cann(&t.path().join("home/lib64"), "home");
    fake_cann(&t.path().join("def/lib64"), "default");
    let cfg = LoadConfig::new().with_default_roots(vec![t.path().join("def")]);
    let _env = Env::set(Some(&t.path().join("home")), None);
    assert_eq!(soc(&Api::load(&cfg).unwrap()), "home");
    let _env = Env::set(None, None);
    assert_eq!(soc(&Api::load(&cfg).unwrap()), "default");
}

#[test]
#[serial]
fn arch_linux_lib64_is_searched_after_lib64() {
    let t = TempDir::new().unwrap();
    let root = t.path().join("cann");
    fake_cann(&arch_lib64(&root), "arch");
    let _env = Env::set(Some(&root), None);
    assert_eq!(soc(&Api::load(&isolated()).unwrap()), "arch");
    fake_cann(&root.join("lib64"), "plain");
    assert_eq!(soc(&Api::load(&isolated()).unwrap()), "plain");
}

#[test]
#[serial]
fn not_found_lists_every_folder_searched() {
    let t = TempDir::new().unwrap();
    let _env = Env::set(Some(&t.path().join("home")), Some(&t.path().join("tk")));
    let cfg = LoadConfig::new()
        .with_lib_dir(t.path().join("explicit"))
        .with_default_roots(vec![t.path().join("def")]);
    let err = Api::load(&cfg).unwrap_err();
    let msg = err.to_string();
    match err {
        LoadError::LibraryNotFound { library, searched } => {
            assert_eq!(library, "libascendcl.so");
            assert_eq!(searched, cfg.search_dirs());
            assert_eq!(searched.len(), 7);
            for dir in &searched {
                assert!(
                    msg.contains(&dir.display().to_string()),
                    "{msg} lacks {}",
                    dir.display()
                );
            }
        }
        other => panic!("expected LibraryNotFound, got {other:?}"),
    }
    assert!(
        msg.contains("ASCEND_HOME_PATH"),
        "message tells what to set: {msg}"
    );
}

#[test]
#[serial]
fn missing_nnopbase_is_named() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    build_lib(&dir.join("libascendcl.so"), &runtime_syms(), "x", 0);
    let _env = Env::set(None, None);
    match Api::load(&isolated().with_lib_dir(&dir)).unwrap_err() {
        LoadError::LibraryNotFound { library, searched } => {
            assert_eq!(library, "libnnopbase.so");
            assert_eq!(searched, vec![dir]);
        }
        other => panic!("expected LibraryNotFound, got {other:?}"),
    }
}

#[test]
#[serial]
fn missing_runtime_symbol_names_symbol_and_library() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    let without: Vec<&str> = runtime_syms()
        .into_iter()
        .filter(|s| *s != "aclrtMemcpyAsync")
        .collect();
    build_lib(&dir.join("libascendcl.so"), &without, "x", 0);
    let _env = Env::set(None, None);
    let err = Api::load(&isolated().with_lib_dir(&dir)).unwrap_err();
    assert!(err.to_string().contains("aclrtMemcpyAsync"), "{err}");
    match err {
        LoadError::SymbolMissing { symbol, library } => {
            assert_eq!(symbol, "aclrtMemcpyAsync");
            assert_eq!(library, dir.join("libascendcl.so"));
        }
        other => panic!("expected SymbolMissing, got {other:?}"),
    }
}

#[test]
#[serial]
fn missing_tensor_symbol_names_symbol_and_library() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    let without: Vec<&str> = meta_syms()
        .into_iter()
        .filter(|s| *s != "aclCreateTensor")
        .collect();
    build_lib(&dir.join("libnnopbase.so"), &without, "x", 0);
    let _env = Env::set(None, None);
    match Api::load(&isolated().with_lib_dir(&dir)).unwrap_err() {
        LoadError::SymbolMissing { symbol, library } => {
            assert_eq!(symbol, "aclCreateTensor");
            assert_eq!(library, dir.join("libnnopbase.so"));
        }
        other => panic!("expected SymbolMissing, got {other:?}"),
    }
}

#[test]
#[serial]
fn absent_operator_loads_as_none_and_is_named_when_used() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    std::fs::remove_file(dir.join("libopapi_nn.so")).unwrap();
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert!(api.aclnnIndexSelectGetWorkspaceSize.is_none());
    assert!(api.aclnnIndexSelect.is_none());
    assert!(api.aclnnSliceGetWorkspaceSize.is_some());
    assert_eq!(
        api.available_operators(),
        vec![
            "Slice",
            "InplaceCopy",
            "ConstantPadNd",
            "Add",
            "InplaceAdd",
            "Mul",
            "InplaceMul",
            "Cat",
            "Stack",
            "InplaceFillScalar",
            "InplaceZero",
            "Cast",
            "Tril",
            "InplaceTril",
            "Triu",
            "InplaceTriu",
            "SplitTensor",
            "SplitWithSize",
            "ReflectionPad1d",
            "ReflectionPad2d",
            "ReflectionPad3d",
            "ReplicationPad1d",
            "ReplicationPad2d",
            "ReplicationPad3d",
            "CircularPad2d",
            "CircularPad3d",
            "Permute",
            "Roll",
            "Expand",
            "Repeat",
            "SliceV2",
            "SliceV3",
            "StridedSlice",
            "AsStrided",
            "ViewCopy",
            "StridedSliceAssignV2",
            "MaskedSelect"
        ]
    );
    let err = api.index_select().err().expect("IndexSelect missing");
    let msg = err.to_string();
    match err {
        LoadError::OperatorMissing {
            operator,
            symbol,
            searched,
        } => {
            assert_eq!(operator, "IndexSelect");
            assert_eq!(symbol, "aclnnIndexSelectGetWorkspaceSize");
            assert_eq!(searched, vec![dir.join("libopapi_math.so")]);
        }
        other => panic!("expected OperatorMissing, got {other:?}"),
    }
    assert!(msg.contains("IndexSelect"), "{msg}");
    assert_eq!(slice_ws(&api), 1);
}

#[test]
#[serial]
fn operator_with_only_one_phase_counts_as_absent() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    let ops: Vec<&str> = op_syms(&["Slice", "InplaceCopy", "ConstantPadNd"])
        .into_iter()
        .filter(|s| *s != "aclnnConstantPadNd")
        .collect();
    build_lib(&dir.join("libopapi_math.so"), &ops, "x", 1);
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert!(api.constant_pad_nd().is_err());
    assert!(api.aclnnConstantPadNdGetWorkspaceSize.is_none());
    assert!(api.inplace_copy().is_ok());
}

#[test]
#[serial]
fn split_libraries_win_and_the_umbrella_is_never_loaded_with_them() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    build_lib(&dir.join("libopapi.so"), &all_ops(), "x", 9);
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(slice_ws(&api), 1);
    assert_eq!(
        api.origin().operator_library("Slice"),
        Some(dir.join("libopapi_math.so").as_path())
    );
    assert_eq!(
        api.origin().operator_library("IndexSelect"),
        Some(dir.join("libopapi_nn.so").as_path())
    );
    assert!(!api.origin().libraries().contains(&dir.join("libopapi.so")));
}

#[test]
#[serial]
fn unneeded_operator_libraries_are_not_opened() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    // Sorted by name this would come first; math and nn are searched first.
    build_lib(&dir.join("libopapi_aaa.so"), &all_ops(), "x", 7);
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(slice_ws(&api), 1);
    assert_eq!(
        api.origin().libraries(),
        &[
            dir.join("libascendcl.so"),
            dir.join("libnnopbase.so"),
            dir.join("libopapi_math.so"),
            dir.join("libopapi_nn.so"),
        ]
    );
    // An operator found nowhere else is looked for in the other split libraries.
    std::fs::remove_file(dir.join("libopapi_nn.so")).unwrap();
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(
        api.origin().operator_library("IndexSelect"),
        Some(dir.join("libopapi_aaa.so").as_path())
    );
}

#[test]
#[serial]
fn umbrella_library_is_used_without_split_ones() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    build_lib(&dir.join("libascendcl.so"), &runtime_syms(), "x", 0);
    build_lib(&dir.join("libnnopbase.so"), &meta_syms(), "x", 0);
    build_lib(&dir.join("libopapi.so"), &all_ops(), "x", 9);
    build_lib(&dir.join("libaclnn_ops_infer.so"), &all_ops(), "x", 5);
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(slice_ws(&api), 9);
    assert_eq!(api.available_operators().len(), OPERATORS.len());
}

#[test]
#[serial]
fn legacy_operator_libraries_are_the_last_resort() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    build_lib(&dir.join("libascendcl.so"), &runtime_syms(), "x", 0);
    build_lib(&dir.join("libnnopbase.so"), &meta_syms(), "x", 0);
    build_lib(
        &dir.join("libaclnn_ops_infer.so"),
        &op_syms(&[
            "Slice",
            "IndexSelect",
            "Flip",
            "Embedding",
            "GatherV2",
            "Gather",
            "Take",
            "IndexCopy",
            "InplaceIndexCopy",
            "GatherNd",
            "Index",
        ]),
        "x",
        5,
    );
    build_lib(
        &dir.join("libaclnn_math.so"),
        &op_syms(&[
            "InplaceCopy",
            "ConstantPadNd",
            "Add",
            "InplaceAdd",
            "Mul",
            "InplaceMul",
            "Cat",
            "Stack",
            "InplaceFillScalar",
            "InplaceZero",
            "Cast",
            "Tril",
            "InplaceTril",
            "Triu",
            "InplaceTriu",
            "SplitTensor",
            "SplitWithSize",
            "ReflectionPad1d",
            "ReflectionPad2d",
            "ReflectionPad3d",
            "ReplicationPad1d",
            "ReplicationPad2d",
            "ReplicationPad3d",
            "CircularPad2d",
            "CircularPad3d",
            "Permute",
            "Roll",
            "Expand",
            "Repeat",
            "MaskedSelect",
            "SliceV2",
            "SliceV3",
            "StridedSlice",
            "AsStrided",
            "ViewCopy",
            "StridedSliceAssignV2",
        ]),
        "x",
        6,
    );
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(slice_ws(&api), 5);
    assert_eq!(
        api.origin().operator_library("ConstantPadNd"),
        Some(dir.join("libaclnn_math.so").as_path())
    );
    assert_eq!(api.available_operators().len(), OPERATORS.len());
}

#[test]
#[serial]
fn executor_reuse_is_optional() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    let _env = Env::set(None, None);
    assert!(Api::load(&isolated().with_lib_dir(&dir))
        .unwrap()
        .has_executor_reuse());
    build_lib(&dir.join("libnnopbase.so"), META_SYMBOLS, "x", 0);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert!(!api.has_executor_reuse());
    assert!(api.aclSetAclOpExecutorRepeatable.is_none());
}

#[test]
#[serial]
fn cann9_runtime_name_is_accepted() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    std::fs::rename(dir.join("libascendcl.so"), dir.join("libacl_rt.so")).unwrap();
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    assert_eq!(api.origin().libraries()[0], dir.join("libacl_rt.so"));
}

#[test]
#[serial]
fn unloadable_library_is_an_open_error_naming_it() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "x");
    std::fs::write(dir.join("libascendcl.so"), b"not an ELF file").unwrap();
    let _env = Env::set(None, None);
    let err = Api::load(&isolated().with_lib_dir(&dir)).unwrap_err();
    assert!(err.to_string().contains("LD_LIBRARY_PATH"), "{err}");
    match err {
        LoadError::Open { path, .. } => assert_eq!(path, dir.join("libascendcl.so")),
        other => panic!("expected Open, got {other:?}"),
    }
}

#[test]
#[serial]
fn a_clone_keeps_the_libraries_loaded() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("lib64");
    fake_cann(&dir, "kept");
    let _env = Env::set(None, None);
    let api = Api::load(&isolated().with_lib_dir(&dir)).unwrap();
    let clone = api.clone();
    drop(api);
    drop(t); // the files go; the mappings stay while `clone` lives
    assert_eq!(soc(&clone), "kept");
    assert_eq!(slice_ws(&clone), 1);
}

#[test]
fn header_compiles_as_c11_and_cxx() {
    let t = TempDir::new().unwrap();
    let src = t.path().join("use.c");
    std::fs::write(
        &src,
        "#include \"cann_sys.h\"\nint main(void) { aclDataType d = ACL_BF16; (void)d; \
         return ACL_SUCCESS + ACLNN_SUCCESS + ACL_RT_SUCCESS; }\n",
    )
    .unwrap();
    for lang in [
        ["-x", "c", "-std=c11"],
        ["-x", "c++", "-std=c++11"],
        ["-x", "c++", "-std=c++17"],
    ] {
        let out = compiler()
            .args(lang)
            .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"])
            .arg(format!("-I{}", cann_sys::HEADER_DIR))
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{lang:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
