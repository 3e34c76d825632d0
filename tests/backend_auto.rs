//! `Backend::Auto` never hides a broken CANN behind the simulator: a CANN
//! that is found but cannot be used, or that the environment names but
//! does not hold, is an error naming the cause; only a machine with no CANN
//! at all falls back (announced through `tracing`).

use npu_ops::{Backend, BackendKind, Error, Runtime};
use serial_test::serial;
use std::path::Path;

/// Runs `f` with the CANN variables set as given (and no override), then
/// restores them.
fn with_env(home: Option<&Path>, f: impl FnOnce()) {
    let keys = ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "NPU_OPS_BACKEND"];
    let saved: Vec<_> = keys.iter().map(std::env::var_os).collect();
    // SAFETY: the tests of this binary are serial and start no threads that
    // read the environment meanwhile.
    unsafe {
        for k in keys {
            std::env::remove_var(k);
        }
        if let Some(h) = home {
            std::env::set_var("ASCEND_HOME_PATH", h);
        }
    }
    f();
    // SAFETY: as above.
    unsafe {
        for (k, v) in keys.iter().zip(saved) {
            match v {
                Some(v) => std::env::set_var(k, v),
                None => std::env::remove_var(k),
            }
        }
    }
}

/// A fake CANN under `root`: `lib64/libascendcl.so` and `libnnopbase.so`
/// built from the C source `c`; `false` if no C compiler could.
fn fake_cann(root: &Path, c: &str) -> bool {
    let lib64 = root.join("lib64");
    std::fs::create_dir_all(&lib64).unwrap();
    let src = root.join("fake.c");
    std::fs::write(&src, c).unwrap();
    ["libascendcl.so", "libnnopbase.so"].iter().all(|name| {
        std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(lib64.join(name))
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn real_cann_installed() -> bool {
    [
        "/usr/local/Ascend/cann",
        "/usr/local/Ascend/ascend-toolkit/latest",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

#[test]
#[serial]
fn a_cann_the_environment_names_but_does_not_hold_is_an_error() {
    let empty = tempfile::tempdir().unwrap();
    with_env(Some(empty.path()), || match Runtime::new(Backend::Auto) {
        Err(Error::Load(e)) => {
            let m = e.to_string();
            assert!(
                m.contains("libascendcl.so") && m.contains(&empty.path().display().to_string()),
                "{m}"
            );
        }
        other => panic!("expected a load error, got {other:?}"),
    });
}

#[test]
#[serial]
fn a_library_the_loader_refuses_is_an_error_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let lib64 = root.path().join("lib64");
    std::fs::create_dir_all(&lib64).unwrap();
    std::fs::write(lib64.join("libascendcl.so"), b"not an ELF file").unwrap();
    std::fs::write(lib64.join("libnnopbase.so"), b"not an ELF file").unwrap();
    with_env(Some(root.path()), || match Runtime::new(Backend::Auto) {
        Err(Error::Load(e)) => {
            let m = e.to_string();
            assert!(
                m.contains("cannot load") && m.contains("libascendcl.so"),
                "{m}"
            );
        }
        other => panic!("expected a load error, got {other:?}"),
    });
}

#[test]
#[serial]
fn a_library_missing_a_symbol_is_an_error_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let c = "int npu_ops_test_nothing(void) { return 0; }\n";
    if !fake_cann(root.path(), c) {
        eprintln!("a_library_missing_a_symbol_is_an_error_naming_it: skipped: no C compiler");
        return;
    }
    with_env(Some(root.path()), || match Runtime::new(Backend::Auto) {
        Err(Error::Load(e)) => {
            let m = e.to_string();
            assert!(m.contains("does not export aclInit"), "{m}");
        }
        other => panic!("expected a load error, got {other:?}"),
    });
}

#[test]
#[serial]
fn a_cann_whose_acl_init_fails_is_an_error_naming_it() {
    // Every symbol the loader needs, each a stub; aclInit fails as a CANN
    // without a driver does (ACL_ERROR_RT_... codes are 107xxx / 507xxx).
    let root = tempfile::tempdir().unwrap();
    let mut c = String::new();
    for sym in cann_sys::RUNTIME_SYMBOLS
        .iter()
        .chain(cann_sys::META_SYMBOLS)
    {
        let ret = if *sym == "aclInit" { 507899 } else { 0 };
        c.push_str(&format!("int {sym}(void) {{ return {ret}; }}\n"));
    }
    if !fake_cann(root.path(), &c) {
        eprintln!("a_cann_whose_acl_init_fails_is_an_error_naming_it: skipped: no C compiler");
        return;
    }
    with_env(Some(root.path()), || match Runtime::new(Backend::Auto) {
        Err(e) => {
            let m = e.to_string();
            assert!(m.contains("aclInit") && m.contains("507899"), "{m}");
        }
        Ok(rt) => panic!("expected aclInit's failure, got a {} runtime", rt.backend()),
    });
}

#[test]
#[serial]
fn only_a_machine_without_cann_falls_back_to_the_simulator() {
    if real_cann_installed() {
        eprintln!("only_a_machine_without_cann_falls_back_to_the_simulator: skipped: CANN is installed here");
        return;
    }
    with_env(None, || {
        let rt = Runtime::new(Backend::Auto).unwrap();
        assert_eq!(rt.backend(), BackendKind::Simulator);
    });
}

#[test]
#[serial]
fn a_runtime_binds_no_device_it_was_not_asked_for() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("a_runtime_binds_no_device_it_was_not_asked_for: skipped: reads the simulator's binding");
        return;
    }
    std::thread::spawn(|| {
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let api = rt.api();
        let mut d = -7;
        // SAFETY: a valid out-pointer.
        let code = unsafe { (api.aclrtGetDevice)(&mut d) };
        assert!(
            code != 0 || d == -7,
            "device {d} was bound by creating a runtime"
        );
        assert_eq!(rt.device_count(), 1);
        assert!(!rt.soc().is_empty());
    })
    .join()
    .unwrap();
}
