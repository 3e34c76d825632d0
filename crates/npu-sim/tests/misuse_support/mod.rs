//! Helpers of the C ABI misuse tests (`misuse.rs`, `misuse_lifecycle.rs`):
//! the simulator's table, its last error, start and stop, handles made or
//! checked with an assertion, liveness and thread-count waits.
#![allow(dead_code)]

use cann_sys::*;
use npu_sim::{npuSimHoldStream, npuSimReleaseHold};
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(npu_sim::api)
}

pub fn last_error() -> String {
    // SAFETY: the simulator returns NULL or a NUL-terminated string.
    let p = unsafe { (api().aclGetRecentErrMsg)() };
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated, valid until the next failing call.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// `aclInit` and `aclrtSetDevice(0)` on this thread.
pub fn init() {
    // SAFETY: plain C calls with valid arguments.
    unsafe {
        // A test that failed may have left the simulator initialised.
        (api().aclFinalize)();
        assert_eq!((api().aclInit)(null()), ACL_SUCCESS, "{}", last_error());
        assert_eq!((api().aclrtSetDevice)(0), ACL_SUCCESS);
    }
}

pub fn finalize() {
    // SAFETY: plain C call.
    assert_eq!(unsafe { (api().aclFinalize)() }, ACL_SUCCESS);
}

pub fn no_internal_errors() {
    assert_eq!(npu_sim::stats().internal_errors, 0, "a panic was caught");
}

/// Runs `f` on a thread; fails if it does not return within 30 s (a
/// liveness check, not a timing assertion).
pub fn returns<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what} did not return within 30 s (it hangs)"))
}

pub fn stream() -> aclrtStream {
    let mut s = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtCreateStream)(&mut s) }, ACL_SUCCESS);
    s
}

pub fn event() -> aclrtEvent {
    let mut e = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtCreateEvent)(&mut e) }, ACL_SUCCESS);
    e
}

pub fn malloc(n: usize) -> *mut c_void {
    let mut p = null_mut();
    // SAFETY: valid out-pointer.
    let rc =
        unsafe { (api().aclrtMalloc)(&mut p, n, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST) };
    assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
    p
}

pub fn malloc_host(n: usize) -> *mut c_void {
    let mut p = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtMallocHost)(&mut p, n) }, ACL_SUCCESS);
    p
}

pub fn hold(s: aclrtStream) -> usize {
    let mut h = null_mut();
    // SAFETY: valid out-pointer; `s` is a live stream.
    assert_eq!(unsafe { npuSimHoldStream(s, &mut h) }, ACL_SUCCESS);
    h as usize
}

pub fn release(h: usize) -> i32 {
    // SAFETY: a handle (looked up, never dereferenced).
    unsafe { npuSimReleaseHold(h as *mut c_void) }
}

/// The threads of this process now.
pub fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

pub fn threads_settle(ok: impl Fn(usize) -> bool) -> usize {
    let start = Instant::now();
    loop {
        let n = threads();
        if ok(n) || start.elapsed() > Duration::from_secs(30) {
            return n;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits (up to 30 s) until `f` holds.
pub fn eventually(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what}: not within 30 s"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// An `aclrtMemcpy` device-to-host of `n` bytes from `d`: its status and
/// the bytes.
pub fn read(d: *mut c_void, n: usize) -> (i32, Vec<u8>) {
    let mut host = vec![0u8; n];
    // SAFETY: a valid host buffer of `n` bytes; the device end is checked.
    let rc = unsafe {
        (api().aclrtMemcpy)(
            host.as_mut_ptr().cast(),
            n,
            d,
            n,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    };
    (rc, host)
}
