//! The log library (`acl_log.h`, `libascendalog.so`) through the C ABI:
//! records and their levels, the files and standard output they go to,
//! hostile log folders, callbacks (the device's records), their handles
//! and misuses, from several threads.
//!
//! Its own test binary: the tests change the log's environment, so they
//! run one at a time.

use cann_sys::*;
use npu_sim::{
    acllogCheckDebugLevel, acllogRecord, acllogRegisterCallback, acllogUnregisterCallback,
    npu_sim_log_reload, DLOG_DEBUG, DLOG_ERROR, DLOG_INFO, DLOG_NULL, DLOG_WARN, MAX_LOG_CALLBACKS,
    OUTPUT_TYPE_BOTH, OUTPUT_TYPE_DEBUG, OUTPUT_TYPE_RUN, RUN_LOG_MASK,
};
use serial_test::serial;
use std::ffi::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::Mutex;

mod misuse_support;
use misuse_support::{api, finalize, hold, malloc, release, stream};

const USER: i32 = 0xff00;

/// `acllogRecord` as C calls it: variadic.
type Record = unsafe extern "C" fn(i32, i32, *const c_char, ...);

fn record_fn() -> Record {
    // SAFETY: the exported function is variadic (a jump to the C body);
    // its Rust declaration only names the fixed arguments.
    unsafe {
        std::mem::transmute::<unsafe extern "C" fn(i32, i32, *const c_char), Record>(acllogRecord)
    }
}

/// Sets the log's environment (others removed) and reloads it.
fn env(vars: &[(&str, &str)]) {
    for k in [
        "ASCEND_GLOBAL_LOG_LEVEL",
        "ASCEND_MODULE_LOG_LEVEL",
        "ASCEND_SLOG_PRINT_TO_STDOUT",
        "ASCEND_PROCESS_LOG_PATH",
        "ASCEND_WORK_PATH",
        "ASCEND_GLOBAL_EVENT_ENABLE",
    ] {
        std::env::remove_var(k);
    }
    for (k, v) in vars {
        std::env::set_var(k, v);
    }
    npu_sim_log_reload();
}

/// Every file under `dir`, with its text.
fn files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            out.extend(files(&p));
        } else if m.is_file() {
            out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out
}

#[test]
#[serial]
fn records_go_to_debug_and_run_plogs_by_level() {
    let dir = tempfile::tempdir().unwrap();
    env(&[
        ("ASCEND_PROCESS_LOG_PATH", dir.path().to_str().unwrap()),
        ("ASCEND_GLOBAL_LOG_LEVEL", "1"),
    ]);
    let rec = record_fn();
    // SAFETY: formats with matching arguments (or a null format, which
    // records nothing).
    unsafe {
        rec(USER, DLOG_DEBUG, c"hidden %d\n".as_ptr(), 0);
        rec(
            USER,
            DLOG_INFO,
            c"int %d str %s dbl %.2f\n".as_ptr(),
            7,
            c"x".as_ptr(),
            2.5f64,
        );
        rec(
            (USER as u32 | RUN_LOG_MASK) as i32,
            DLOG_INFO,
            c"run %u".as_ptr(),
            9u32,
        );
        rec(-1, DLOG_ERROR, c"negative module".as_ptr());
        rec(0x1234, DLOG_ERROR, c"unknown module".as_ptr());
        rec(USER, DLOG_NULL, c"null level".as_ptr());
        rec(USER, DLOG_ERROR, std::ptr::null());
    }
    npu_sim_log_reload(); // closes the files
    let all = files(dir.path());
    assert_eq!(all.len(), 2, "{all:?}");
    let debug = all
        .iter()
        .find(|(p, _)| p.to_string_lossy().contains("/debug/plog/plog-"))
        .unwrap();
    let run = all
        .iter()
        .find(|(p, _)| p.to_string_lossy().contains("/run/plog/plog-"))
        .unwrap();
    assert_eq!(debug.1.lines().count(), 1, "{}", debug.1);
    assert!(debug.1.starts_with("[INFO] 65280("), "{}", debug.1);
    assert!(debug.1.ends_with(" int 7 str x dbl 2.50\n"), "{}", debug.1);
    assert!(
        run.1.starts_with("[INFO] 65280(") && run.1.ends_with(" run 9\n"),
        "{}",
        run.1
    );
    let pid = std::process::id().to_string();
    assert!(debug.1.contains(&format!("({pid},")), "{}", debug.1);
}

#[test]
#[serial]
fn check_debug_level_follows_the_environment() {
    env(&[]);
    assert_eq!(acllogCheckDebugLevel(USER, DLOG_WARN), 0, "default: ERROR");
    assert_eq!(acllogCheckDebugLevel(USER, DLOG_ERROR), 1);
    assert_eq!(
        acllogCheckDebugLevel((USER as u32 | RUN_LOG_MASK) as i32, DLOG_INFO),
        1
    );
    env(&[
        ("ASCEND_GLOBAL_LOG_LEVEL", "1"),
        ("ASCEND_MODULE_LOG_LEVEL", "GE=0:RUNTIME=3"),
    ]);
    assert_eq!(acllogCheckDebugLevel(USER, DLOG_DEBUG), 0);
    assert_eq!(acllogCheckDebugLevel(USER, DLOG_INFO), 1);
    assert_eq!(acllogCheckDebugLevel(0xffff, DLOG_WARN), 1);
    assert_eq!(acllogCheckDebugLevel(45, DLOG_DEBUG), 1, "GE's own level");
    assert_eq!(
        acllogCheckDebugLevel(7, DLOG_WARN),
        0,
        "RUNTIME's own level"
    );
    assert_eq!(acllogCheckDebugLevel(USER, DLOG_NULL + 1), 0);
    assert_eq!(acllogCheckDebugLevel(USER, -1), 0);
    assert_eq!(acllogCheckDebugLevel(-1, DLOG_ERROR), 0);
    assert_eq!(acllogCheckDebugLevel(0x1234, DLOG_ERROR), 0);
    env(&[("ASCEND_GLOBAL_LOG_LEVEL", "garbage")]);
    assert_eq!(
        acllogCheckDebugLevel(USER, DLOG_WARN),
        0,
        "an invalid level keeps ERROR"
    );
}

#[test]
#[serial]
fn hostile_log_folders_are_not_followed_and_unwritable_ones_lose_records() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("debug")).unwrap();
    env(&[
        ("ASCEND_PROCESS_LOG_PATH", dir.path().to_str().unwrap()),
        ("ASCEND_GLOBAL_LOG_LEVEL", "0"),
    ]);
    let rec = record_fn();
    // SAFETY: a format without arguments.
    unsafe { rec(USER, DLOG_ERROR, c"through a link?".as_ptr()) };
    npu_sim_log_reload();
    assert!(files(elsewhere.path()).is_empty(), "a link was followed");
    // A root that is a file, and one in a folder nobody may write: no
    // crash, nothing written.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for root in [file.join("log"), PathBuf::from("/proc/npu-sim-log")] {
        env(&[("ASCEND_PROCESS_LOG_PATH", root.to_str().unwrap())]);
        // SAFETY: a format without arguments.
        unsafe { rec(USER, DLOG_ERROR, c"lost".as_ptr()) };
    }
    npu_sim_log_reload();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "");
}

static SEEN: Mutex<Vec<(usize, u32, String)>> = Mutex::new(Vec::new());

extern "C" fn remember(user: *mut c_void, kind: u32, text: *const c_char, len: usize) -> i32 {
    // SAFETY: the simulator passes `len` readable bytes at `text`.
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    SEEN.lock().unwrap().push((
        user as usize,
        kind,
        String::from_utf8_lossy(bytes).into_owned(),
    ));
    0
}

fn register(kind: u32, user: usize) -> (i32, acllogCallbackHandle) {
    let mut h: acllogCallbackHandle = 0;
    // SAFETY: a valid callback and out-pointer.
    let r = unsafe { acllogRegisterCallback(Some(remember), user as *mut c_void, kind, &mut h) };
    (r, h)
}

#[test]
#[serial]
fn callback_registration_misuses_return_minus_one() {
    env(&[]);
    let mut h: acllogCallbackHandle = 0;
    // SAFETY: null pieces are what is tested; the simulator checks them.
    unsafe {
        assert_eq!(
            acllogRegisterCallback(None, null_mut(), OUTPUT_TYPE_BOTH, &mut h),
            -1
        );
        assert_eq!(
            acllogRegisterCallback(Some(remember), null_mut(), OUTPUT_TYPE_BOTH, null_mut()),
            -1
        );
        assert_eq!(
            acllogRegisterCallback(Some(remember), null_mut(), 3, &mut h),
            -1
        );
    }
    let handles: Vec<_> = (0..MAX_LOG_CALLBACKS)
        .map(|i| {
            let (r, h) = register(OUTPUT_TYPE_RUN, i);
            assert_eq!(r, 0);
            h
        })
        .collect();
    assert_eq!(
        register(OUTPUT_TYPE_RUN, 99).0,
        -1,
        "a seventeenth callback"
    );
    let mut sorted = handles.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), handles.len(), "distinct handles");
    for h in &handles {
        assert_eq!(acllogUnregisterCallback(*h), 0);
        assert_eq!(acllogUnregisterCallback(*h), -1, "unregistered twice");
    }
    assert_eq!(acllogUnregisterCallback(0), -1);
    assert_eq!(acllogUnregisterCallback(usize::MAX), -1);
    // Registration from several threads at once: distinct handles.
    let hs: Vec<_> = std::thread::scope(|s| {
        let t: Vec<_> = (0..8)
            .map(|i| s.spawn(move || register(OUTPUT_TYPE_BOTH, i)))
            .collect();
        t.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (r, h) in &hs {
        assert_eq!(*r, 0);
        assert_eq!(acllogUnregisterCallback(*h), 0);
    }
}

#[test]
#[serial]
fn callbacks_receive_the_devices_records_not_the_hosts() {
    let dir = tempfile::tempdir().unwrap();
    env(&[("ASCEND_PROCESS_LOG_PATH", dir.path().to_str().unwrap())]);
    SEEN.lock().unwrap().clear();
    let (r, debug) = register(OUTPUT_TYPE_DEBUG, 1);
    assert_eq!(r, 0);
    let (r, run_only) = register(OUTPUT_TYPE_RUN, 2);
    assert_eq!(r, 0);
    let rec = record_fn();
    // SAFETY: a format without arguments.
    unsafe { rec(USER, DLOG_ERROR, c"a host record".as_ptr()) };
    assert!(
        SEEN.lock().unwrap().is_empty(),
        "host records are not delivered"
    );
    // The device reports a task fault: work on memory freed while queued.
    misuse_support::init();
    let s = stream();
    let d = malloc(512);
    let h = hold(s);
    // SAFETY: plain C calls on simulator handles.
    unsafe {
        assert_eq!((api().aclrtMemsetAsync)(d, 512, 1, 512, s), ACL_SUCCESS);
        (api().aclrtFree)(d);
    }
    assert_eq!(release(h), ACL_SUCCESS);
    // SAFETY: plain C call.
    assert_ne!(unsafe { (api().aclrtSynchronizeStream)(s) }, ACL_SUCCESS);
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!((seen[0].0, seen[0].1), (1, OUTPUT_TYPE_DEBUG));
    assert!(seen[0].2.starts_with("[ERROR] RUNTIME("), "{}", seen[0].2);
    assert!(seen[0].2.contains("device 0: "), "{}", seen[0].2);
    assert_eq!(acllogUnregisterCallback(debug), 0);
    assert_eq!(acllogUnregisterCallback(run_only), 0);
    // SAFETY: plain C call.
    unsafe { (api().aclrtDestroyStream)(s) };
    finalize();
    npu_sim_log_reload();
    let device = files(dir.path());
    assert!(
        device.iter().any(
            |(p, t)| p.to_string_lossy().contains("/debug/device-0/device-")
                && t.contains("device 0: ")
        ),
        "{device:?}"
    );
}
