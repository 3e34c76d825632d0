//! The runtime calls CANN's runtime examples use beyond the operators'
//! (issue 19, item 2), through the C ABI: Force teardown, contexts, the
//! failure mode, run mode and package versions, host functions and
//! callbacks, events with flags. Each with its misuses (null, stale and
//! wrong handles, double destroy, wrong thread, flags out of range): a
//! status, never a crash or a hang.
//!
//! Its own test binary: every test initialises and finalises the simulator
//! (two devices), so the tests run one at a time.

use cann_sys::*;
use npu_sim::{
    aclrtCreateContext, aclrtCreateEventExWithFlag, aclrtCreateEventWithFlag,
    aclrtCtxGetCurrentDefaultStream, aclrtDestroyContext, aclrtDestroyStreamForce,
    aclrtGetCurrentContext, aclrtGetRunMode, aclrtLaunchCallback, aclrtLaunchHostFunc,
    aclrtProcessReport, aclrtRecordEventWithFlag, aclrtResetDeviceForce, aclrtResetEvent,
    aclrtSetCurrentContext, aclrtSetStreamFailureMode, aclrtStreamWaitEventWithFlag,
    aclrtSubscribeReport, aclrtSynchronizeEventWithTimeout, aclrtUnSubscribeReport,
    aclsysGetVersionNum, aclsysGetVersionStr, stats, version_num, CANN_VERSION,
};
use serial_test::serial;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod misuse_support;
use misuse_support::{
    api, eventually, finalize, hold, last_error, malloc, no_internal_errors, read, release,
    returns, stream,
};

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

fn sync(s: aclrtStream) -> i32 {
    // SAFETY: plain C call; the handle is looked up.
    unsafe { (api().aclrtSynchronizeStream)(s) }
}

fn memset_async(d: *mut c_void, n: usize, v: i32, s: aclrtStream) -> i32 {
    // SAFETY: a device pointer of at least `n` bytes (checked by the simulator).
    unsafe { (api().aclrtMemsetAsync)(d, n, v, n, s) }
}

fn status(s: aclrtStream) -> aclrtStreamStatus {
    let mut st = aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (api().aclrtStreamQuery)(s, &mut st) }, ACL_SUCCESS);
    st
}

/// A callback argument that is only a number.
fn tag(n: usize) -> *mut c_void {
    n as *mut c_void
}

fn this_thread() -> u64 {
    // SAFETY: no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

/// Makes `s` fault: work that touches memory freed while it was queued
/// (behind a hold) fails the stream when it runs.
fn fault(s: aclrtStream) {
    let d = malloc(512);
    let h = hold(s);
    assert_eq!(memset_async(d, 512, 1, s), ACL_SUCCESS);
    // SAFETY: plain C call.
    unsafe { (api().aclrtFree)(d) };
    assert_eq!(release(h), ACL_SUCCESS);
}

// ------------------------------------------------------------ (a) Force

#[test]
#[serial]
fn reset_device_force_releases_the_device_however_often_it_was_set() {
    init();
    // SAFETY (whole block): plain C calls with valid out-pointers.
    unsafe {
        let a = api();
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        let s = stream();
        let d = malloc(1024);
        assert_eq!(memset_async(d, 1024, 3, s), ACL_SUCCESS);
        assert_eq!(aclrtResetDeviceForce(1), ACL_SUCCESS, "{}", last_error());
        // One call released everything of device 1.
        assert_eq!(sync(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtFree)(d), ACL_ERROR_RT_MEMORY_FREE);
        let st = stats();
        assert_eq!((st.streams, st.allocations), (0, 0), "{st:?}");
        // The thread has no device any more.
        let mut dev = -1;
        assert_eq!((a.aclrtGetDevice)(&mut dev), ACL_ERROR_RT_CONTEXT_NULL);
        // Nothing outstanding: nothing to release, no error.
        assert_eq!(aclrtResetDeviceForce(1), ACL_SUCCESS);
        assert_eq!(aclrtResetDeviceForce(2), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(aclrtResetDeviceForce(-1), ACL_ERROR_RT_INVALID_DEVICEID);
        // Device 0 is untouched.
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        let t = stream();
        assert_eq!((a.aclrtDestroyStream)(t), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

static HOST_CALLS: AtomicU32 = AtomicU32::new(0);

extern "C" fn count_call(_: *mut c_void) {
    HOST_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
#[serial]
fn destroy_stream_force_discards_queued_work_without_waiting() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let s = stream();
        let d = malloc(512);
        assert_eq!((a.aclrtMemset)(d, 512, 0, 512), ACL_SUCCESS);
        let e = misuse_support::event();
        let _held = hold(s); // never released: the destroy must not wait for it
        HOST_CALLS.store(0, Ordering::SeqCst);
        assert_eq!(memset_async(d, 512, 9, s), ACL_SUCCESS);
        assert_eq!(
            aclrtLaunchHostFunc(s, Some(count_call), null_mut()),
            ACL_SUCCESS
        );
        assert_eq!((a.aclrtRecordEvent)(e, s), ACL_SUCCESS);
        let sv = s as usize;
        let rc = returns("aclrtDestroyStreamForce", move || {
            aclrtDestroyStreamForce(sv as aclrtStream)
        });
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        // The queued work never ran; the record reports the abort.
        let (rc, bytes) = read(d, 512);
        assert_eq!(rc, ACL_SUCCESS);
        assert!(bytes.iter().all(|&b| b == 0));
        assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 0);
        assert_eq!((a.aclrtSynchronizeEvent)(e), ACL_ERROR_RT_STREAM_ABORT);
        // Misuse: destroyed twice, null, never a stream.
        assert_eq!(aclrtDestroyStreamForce(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(aclrtDestroyStreamForce(null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            aclrtDestroyStreamForce(0xdead_0000 as aclrtStream),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!((a.aclrtDestroyStream)(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtDestroyEvent)(e), ACL_SUCCESS);
        assert_eq!((a.aclrtFree)(d), ACL_SUCCESS);
        assert_eq!(stats().streams, 0);
    }
    no_internal_errors();
    finalize();
}

// ------------------------------------------------------------ (b) contexts

fn current_context() -> (i32, aclrtContext) {
    let mut c = null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { aclrtGetCurrentContext(&mut c) };
    (rc, c)
}

#[test]
#[serial]
fn contexts_belong_to_a_device_and_are_current_per_thread() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        // aclrtSetDevice made device 0's default context current.
        let (rc, primary) = current_context();
        assert_eq!(rc, ACL_SUCCESS);
        assert!(!primary.is_null());
        // Creating a context makes it current, and its device the thread's.
        let mut ctx = null_mut();
        assert_eq!(
            aclrtCreateContext(&mut ctx, 1),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(current_context(), (ACL_SUCCESS, ctx));
        let mut dev = -1;
        assert_eq!((a.aclrtGetDevice)(&mut dev), ACL_SUCCESS);
        assert_eq!(dev, 1);
        // Another thread takes the context: its device follows.
        let cv = ctx as usize;
        let other = std::thread::spawn(move || {
            assert_eq!(current_context().0, ACL_ERROR_RT_CONTEXT_NULL);
            assert_eq!(aclrtSetCurrentContext(cv as aclrtContext), ACL_SUCCESS);
            let mut dev = -1;
            assert_eq!((api().aclrtGetDevice)(&mut dev), ACL_SUCCESS);
            let (rc, c) = current_context();
            (dev, rc, c as usize)
        })
        .join()
        .unwrap();
        assert_eq!(other, (1, ACL_SUCCESS, ctx as usize));
        // The explicit context's NULL stream is its own default stream: a
        // hold on it does not keep the device's default stream busy.
        let h = hold(null_mut());
        assert_eq!(aclrtSetCurrentContext(primary), ACL_SUCCESS);
        assert_eq!((a.aclrtGetDevice)(&mut dev), ACL_SUCCESS);
        assert_eq!(dev, 0);
        assert_eq!(sync(null_mut()), ACL_SUCCESS);
        assert_eq!(aclrtSetCurrentContext(ctx), ACL_SUCCESS);
        assert_eq!(
            status(null_mut()),
            aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY
        );
        let mut ds = 1 as aclrtStream;
        assert_eq!(aclrtCtxGetCurrentDefaultStream(&mut ds), ACL_SUCCESS);
        assert!(
            ds.is_null(),
            "the simulator's default stream handle is NULL"
        );
        assert_eq!(release(h), ACL_SUCCESS);
        assert_eq!(sync(null_mut()), ACL_SUCCESS);
        // A default context cannot be destroyed; null and stale handles.
        assert_eq!(aclrtDestroyContext(primary), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(aclrtDestroyContext(null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(aclrtSetCurrentContext(null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(aclrtGetCurrentContext(null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            aclrtCtxGetCurrentDefaultStream(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(aclrtCreateContext(null_mut(), 0), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            aclrtCreateContext(&mut ds, 2),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            aclrtCreateContext(&mut ds, -1),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        // Destroying the current context leaves the thread without one.
        assert_eq!(aclrtDestroyContext(ctx), ACL_SUCCESS);
        assert_eq!(current_context().0, ACL_ERROR_RT_CONTEXT_NULL);
        let mut s = null_mut();
        assert_eq!((a.aclrtCreateStream)(&mut s), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(aclrtDestroyContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
        // aclrtSetDevice gives the thread its device's default context back.
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!(current_context(), (ACL_SUCCESS, primary));
        let mut kept = null_mut();
        assert_eq!(aclrtCreateContext(&mut kept, 1), ACL_SUCCESS);
        finalize();
        // After aclFinalize every context is stale, default or explicit.
        init();
        assert_ne!(current_context().1, primary);
        assert_eq!(aclrtSetCurrentContext(primary), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(aclrtSetCurrentContext(kept), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(aclrtDestroyContext(kept), ACL_ERROR_RT_INVALID_HANDLE);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn a_context_destroyed_by_another_thread_is_reported_not_used() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let mut ctx = null_mut();
        assert_eq!(aclrtCreateContext(&mut ctx, 0), ACL_SUCCESS);
        let cv = ctx as usize;
        std::thread::spawn(move || {
            assert_eq!(aclrtDestroyContext(cv as aclrtContext), ACL_SUCCESS);
        })
        .join()
        .unwrap();
        // This thread's context is gone: its NULL stream is refused.
        assert_eq!(sync(null_mut()), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(current_context().0, ACL_ERROR_RT_CONTEXT_NULL);
    }
    no_internal_errors();
    finalize();
}

// ------------------------------------------------------------ (c) failure mode, run mode, versions

#[test]
#[serial]
fn stop_on_failure_skips_every_later_task_and_keeps_reporting() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let s = stream();
        assert_eq!(
            aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE as u64),
            ACL_SUCCESS
        );
        assert_eq!(
            aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE as u64),
            ACL_ERROR_RT_PARAM_INVALID,
            "CANN allows one call per stream"
        );
        fault(s);
        let d = malloc(512);
        assert_eq!((a.aclrtMemset)(d, 512, 0, 512), ACL_SUCCESS);
        HOST_CALLS.store(0, Ordering::SeqCst);
        assert_eq!(
            aclrtLaunchHostFunc(s, Some(count_call), null_mut()),
            ACL_SUCCESS
        );
        assert_ne!(sync(s), ACL_SUCCESS);
        // Later tasks are skipped, and the fault is reported again.
        assert_eq!(memset_async(d, 512, 5, s), ACL_SUCCESS);
        assert_eq!(
            aclrtLaunchHostFunc(s, Some(count_call), null_mut()),
            ACL_SUCCESS
        );
        assert_ne!(sync(s), ACL_SUCCESS);
        assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 0);
        let (_, bytes) = read(d, 512);
        assert!(bytes.iter().all(|&b| b == 0));
        assert_eq!((a.aclrtDestroyStream)(s), ACL_SUCCESS);
        assert_eq!((a.aclrtFree)(d), ACL_SUCCESS);

        // The default mode: the fault is reported once, later work runs,
        // and host functions run even before it is reported.
        let t = stream();
        assert_eq!(
            aclrtSetStreamFailureMode(t, ACL_CONTINUE_ON_FAILURE as u64),
            ACL_SUCCESS
        );
        fault(t);
        assert_eq!(
            aclrtLaunchHostFunc(t, Some(count_call), null_mut()),
            ACL_SUCCESS
        );
        assert_ne!(sync(t), ACL_SUCCESS);
        assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 1);
        let d = malloc(512);
        assert_eq!(memset_async(d, 512, 5, t), ACL_SUCCESS);
        assert_eq!(sync(t), ACL_SUCCESS);
        let (_, bytes) = read(d, 512);
        assert!(bytes.iter().all(|&b| b == 5));
        assert_eq!((a.aclrtFree)(d), ACL_SUCCESS);
        // Misuse: unknown modes, stale streams; NULL is the default stream.
        assert_eq!(aclrtSetStreamFailureMode(t, 2), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            aclrtSetStreamFailureMode(t, u64::MAX),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!((a.aclrtDestroyStream)(t), ACL_SUCCESS);
        assert_eq!(
            aclrtSetStreamFailureMode(t, ACL_STOP_ON_FAILURE as u64),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            aclrtSetStreamFailureMode(null_mut(), ACL_STOP_ON_FAILURE as u64),
            ACL_SUCCESS
        );
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn run_mode_is_host_and_versions_are_the_simulated_cann() {
    // Neither needs aclInit, as with CANN.
    // SAFETY (whole block): plain C calls with valid buffers.
    unsafe {
        let mut m = aclrtRunMode::ACL_DEVICE;
        assert_eq!(aclrtGetRunMode(&mut m), ACL_SUCCESS);
        assert_eq!(m, aclrtRunMode::ACL_HOST);
        assert_eq!(aclrtGetRunMode(null_mut()), ACL_ERROR_INVALID_PARAM);

        let mut buf = [0x7f as std::ffi::c_char; ACL_PKG_VERSION_MAX_SIZE as usize];
        for name in [c"runtime", c"ops-math", c"ops_nn", c"opbase"] {
            let mut n = 0;
            assert_eq!(
                aclsysGetVersionStr(name.as_ptr().cast_mut(), buf.as_mut_ptr()),
                ACL_SUCCESS
            );
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), CANN_VERSION);
            assert_eq!(
                aclsysGetVersionNum(name.as_ptr().cast_mut(), &mut n),
                ACL_SUCCESS
            );
            assert_eq!(Some(n), version_num(CANN_VERSION));
        }
        let mut n = 0;
        for name in [c"driver", c"", c"toolkit"] {
            assert_eq!(
                aclsysGetVersionStr(name.as_ptr().cast_mut(), buf.as_mut_ptr()),
                ACL_ERROR_INVALID_FILE
            );
            assert_eq!(
                aclsysGetVersionNum(name.as_ptr().cast_mut(), &mut n),
                ACL_ERROR_INVALID_FILE
            );
        }
        let rt = c"runtime".as_ptr().cast_mut();
        assert_eq!(
            aclsysGetVersionStr(null_mut(), buf.as_mut_ptr()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(aclsysGetVersionStr(rt, null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            aclsysGetVersionNum(null_mut(), &mut n),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(aclsysGetVersionNum(rt, null_mut()), ACL_ERROR_INVALID_PARAM);
    }
    no_internal_errors();
}

// ------------------------------------------------------------ (d) host functions and callbacks

static ORDER: Mutex<Vec<(u32, u64)>> = Mutex::new(Vec::new());

extern "C" fn note(arg: *mut c_void) {
    std::thread::sleep(Duration::from_millis(5));
    ORDER
        .lock()
        .unwrap()
        .push((arg as usize as u32, this_thread()));
}

#[test]
#[serial]
fn host_functions_run_in_stream_order_on_a_host_thread_and_hold_later_work() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let s = stream();
        ORDER.lock().unwrap().clear();
        let h = hold(s);
        for i in 1..=3u32 {
            assert_eq!(
                aclrtLaunchHostFunc(s, Some(note), i as usize as *mut c_void),
                ACL_SUCCESS
            );
        }
        let e = misuse_support::event();
        assert_eq!((a.aclrtRecordEvent)(e, s), ACL_SUCCESS);
        // Nothing ran behind the hold; the launches returned at once.
        assert!(ORDER.lock().unwrap().is_empty());
        assert_eq!(release(h), ACL_SUCCESS);
        // The record after them completes only once they have run.
        assert_eq!((a.aclrtSynchronizeEvent)(e), ACL_SUCCESS);
        let order = ORDER.lock().unwrap().clone();
        assert_eq!(order.iter().map(|o| o.0).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(order.iter().all(|o| o.1 != this_thread()));
        // The default stream (NULL) takes them too.
        assert_eq!(
            aclrtLaunchHostFunc(null_mut(), Some(note), tag(4)),
            ACL_SUCCESS
        );
        assert_eq!(sync(null_mut()), ACL_SUCCESS);
        assert_eq!(ORDER.lock().unwrap().last().unwrap().0, 4);
        // Misuse: a null function, a destroyed stream, no device.
        assert_eq!(
            aclrtLaunchHostFunc(s, None, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!((a.aclrtDestroyStream)(s), ACL_SUCCESS);
        assert_eq!(
            aclrtLaunchHostFunc(s, Some(note), null_mut()),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let r = std::thread::spawn(|| aclrtLaunchHostFunc(null_mut(), Some(note), null_mut()))
            .join()
            .unwrap();
        assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!((a.aclrtDestroyEvent)(e), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

static CALLBACKS: Mutex<Vec<(u32, u64)>> = Mutex::new(Vec::new());

extern "C" fn callback(arg: *mut c_void) {
    CALLBACKS
        .lock()
        .unwrap()
        .push((arg as usize as u32, this_thread()));
}

/// A thread processing reports until told to stop: its id, the stop flag
/// and its handle.
fn report_thread() -> (u64, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let id = Arc::new(AtomicU64::new(0));
    let (s2, i2) = (stop.clone(), id.clone());
    let t = std::thread::spawn(move || {
        i2.store(this_thread(), Ordering::SeqCst);
        while !s2.load(Ordering::SeqCst) {
            let rc = aclrtProcessReport(10);
            assert!(
                [
                    ACL_SUCCESS,
                    ACL_ERROR_RT_REPORT_TIMEOUT,
                    ACL_ERROR_RT_THREAD_SUBSCRIBE
                ]
                .contains(&rc),
                "{rc}"
            );
        }
    });
    eventually("the report thread started", || {
        id.load(Ordering::SeqCst) != 0
    });
    (id.load(Ordering::SeqCst), stop, t)
}

#[test]
#[serial]
fn callbacks_run_on_the_subscribed_thread_when_it_processes_reports() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let s = stream();
        CALLBACKS.lock().unwrap().clear();
        // No thread subscribed yet.
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                null_mut(),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                s
            ),
            ACL_ERROR_RT_STREAM_NO_CB_REG
        );
        let (tid, stop, t) = report_thread();
        assert_eq!(
            aclrtSubscribeReport(tid, s),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(aclrtSubscribeReport(tid, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
        assert_eq!(
            aclrtSubscribeReport(this_thread(), s),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        for i in 1..=5u32 {
            let b = if i % 2 == 0 {
                aclrtCallbackBlockType::ACL_CALLBACK_NO_BLOCK
            } else {
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK
            };
            assert_eq!(
                aclrtLaunchCallback(Some(callback), i as usize as *mut c_void, b, s),
                ACL_SUCCESS
            );
        }
        // A blocking callback is last: the stream completes after it ran.
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                tag(6),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                s
            ),
            ACL_SUCCESS
        );
        assert_eq!(sync(s), ACL_SUCCESS);
        let got = CALLBACKS.lock().unwrap().clone();
        assert_eq!(
            got.iter().map(|c| c.0).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        assert!(got.iter().all(|c| c.1 == tid), "{got:?} not on {tid}");
        // Misuse: bad block type, null function, unsubscribing twice or
        // another thread, processing without a subscription, bad timeouts.
        assert_eq!(
            aclrtLaunchCallback(Some(callback), null_mut(), aclrtCallbackBlockType(7), s),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            aclrtLaunchCallback(
                None,
                null_mut(),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                s
            ),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            aclrtUnSubscribeReport(this_thread(), s),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        stop.store(true, Ordering::SeqCst);
        t.join().unwrap();
        assert_eq!(aclrtUnSubscribeReport(tid, s), ACL_SUCCESS);
        assert_eq!(
            aclrtUnSubscribeReport(tid, s),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
        assert_eq!(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
        assert_eq!(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
        assert_eq!((a.aclrtDestroyStream)(s), ACL_SUCCESS);
        assert_eq!(aclrtSubscribeReport(tid, s), ACL_ERROR_RT_INVALID_HANDLE);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn block_holds_the_stream_until_processed_no_block_does_not() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let s = stream();
        let me = this_thread();
        CALLBACKS.lock().unwrap().clear();
        assert_eq!(aclrtSubscribeReport(me, s), ACL_SUCCESS);
        // Nothing posted yet: a timeout.
        assert_eq!(aclrtProcessReport(5), ACL_ERROR_RT_REPORT_TIMEOUT);
        // NO_BLOCK: the stream completes without the callback having run.
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                tag(1),
                aclrtCallbackBlockType::ACL_CALLBACK_NO_BLOCK,
                s
            ),
            ACL_SUCCESS
        );
        assert_eq!(sync(s), ACL_SUCCESS);
        assert!(CALLBACKS.lock().unwrap().is_empty());
        assert_eq!(aclrtProcessReport(1000), ACL_SUCCESS);
        assert_eq!(CALLBACKS.lock().unwrap().clone(), [(1, me)]);
        // BLOCK: the stream waits for this thread to process it.
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                tag(2),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                s
            ),
            ACL_SUCCESS
        );
        eventually("the callback was posted", || {
            std::thread::sleep(Duration::from_millis(20));
            status(s) == aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY
        });
        assert_eq!(aclrtProcessReport(1000), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_SUCCESS);
        assert_eq!(CALLBACKS.lock().unwrap().len(), 2);
        // A blocking callback nobody processes cannot make teardown hang:
        // destroying the stream drops it.
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                tag(3),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                s
            ),
            ACL_SUCCESS
        );
        let sv = s as usize;
        let rc = returns(
            "aclrtDestroyStream with an unprocessed blocking callback",
            move || (api().aclrtDestroyStream)(sv as aclrtStream),
        );
        assert_eq!(rc, ACL_SUCCESS);
        assert_eq!(aclrtProcessReport(5), ACL_ERROR_RT_THREAD_SUBSCRIBE);
        assert_eq!(CALLBACKS.lock().unwrap().len(), 2);
        // Unsubscribing drops what is pending, and releases the stream.
        let t = stream();
        assert_eq!(aclrtSubscribeReport(me, t), ACL_SUCCESS);
        assert_eq!(
            aclrtLaunchCallback(
                Some(callback),
                tag(4),
                aclrtCallbackBlockType::ACL_CALLBACK_BLOCK,
                t
            ),
            ACL_SUCCESS
        );
        eventually("posted", || {
            std::thread::sleep(Duration::from_millis(20));
            status(t) == aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY
        });
        assert_eq!(aclrtUnSubscribeReport(me, t), ACL_SUCCESS);
        assert_eq!(sync(t), ACL_SUCCESS);
        assert_eq!(CALLBACKS.lock().unwrap().len(), 2);
        // A thread serves one device.
        assert_eq!(aclrtSubscribeReport(me, t), ACL_SUCCESS);
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        let u = stream();
        assert_eq!(aclrtSubscribeReport(me, u), ACL_ERROR_RT_THREAD_SUBSCRIBE);
        assert_eq!((a.aclrtDestroyStream)(u), ACL_SUCCESS);
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!(aclrtUnSubscribeReport(me, t), ACL_SUCCESS);
        assert_eq!((a.aclrtDestroyStream)(t), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

// ------------------------------------------------------------ (e) events with flags

fn event_with(ex: bool, flag: u32) -> (i32, aclrtEvent) {
    let mut e = null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        if ex {
            aclrtCreateEventExWithFlag(&mut e, flag)
        } else {
            aclrtCreateEventWithFlag(&mut e, flag)
        }
    };
    (rc, e)
}

#[test]
#[serial]
fn event_flags_are_checked_as_cann_documents_them() {
    init();
    let sync_flag = ACL_EVENT_SYNC as u32;
    for (ex, flag, want) in [
        (false, sync_flag, ACL_SUCCESS),
        (false, sync_flag | ACL_EVENT_TIME_LINE as u32, ACL_SUCCESS),
        (false, ACL_EVENT_CAPTURE_STREAM_PROGRESS as u32, ACL_SUCCESS),
        (false, ACL_EVENT_DEVICE_USE_ONLY as u32, ACL_SUCCESS),
        (false, ACL_EVENT_EXTERNAL as u32, ACL_SUCCESS),
        (
            false,
            ACL_EVENT_EXTERNAL as u32 | sync_flag,
            ACL_ERROR_RT_PARAM_INVALID,
        ),
        (false, 0x4, ACL_ERROR_RT_PARAM_INVALID),
        (false, ACL_EVENT_IPC as u32, ACL_ERROR_RT_PARAM_INVALID),
        (false, u32::MAX, ACL_ERROR_RT_PARAM_INVALID),
        (true, sync_flag | ACL_EVENT_TIME_LINE as u32, ACL_SUCCESS),
        (true, ACL_EVENT_IPC as u32, ACL_ERROR_RT_FEATURE_NOT_SUPPORT),
        (
            true,
            ACL_EVENT_IPC as u32 | sync_flag,
            ACL_ERROR_RT_PARAM_INVALID,
        ),
        (
            true,
            ACL_EVENT_DEVICE_USE_ONLY as u32,
            ACL_ERROR_RT_PARAM_INVALID,
        ),
        (true, 0x80, ACL_ERROR_RT_PARAM_INVALID),
    ] {
        let (rc, e) = event_with(ex, flag);
        assert_eq!(rc, want, "ex {ex} flag {flag:#x}: {}", last_error());
        if rc == ACL_SUCCESS {
            // SAFETY: a live event.
            assert_eq!(unsafe { (api().aclrtDestroyEvent)(e) }, ACL_SUCCESS);
        }
    }
    // SAFETY: null out-pointers are refused.
    unsafe {
        assert_eq!(
            aclrtCreateEventWithFlag(null_mut(), sync_flag),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            aclrtCreateEventExWithFlag(null_mut(), sync_flag),
            ACL_ERROR_INVALID_PARAM
        );
    }
    // No device on this thread.
    let rc = std::thread::spawn(move || event_with(false, sync_flag).0)
        .join()
        .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(stats().events, 0);
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn record_wait_reset_and_timed_synchronisation_with_flags() {
    init();
    // SAFETY (whole block): plain C calls with valid arguments.
    unsafe {
        let a = api();
        let (s, t) = (stream(), stream());
        let (_, e) = event_with(false, ACL_EVENT_SYNC as u32 | ACL_EVENT_TIME_LINE as u32);
        // Record with the default flag; the external one needs a capture.
        let h = hold(t);
        assert_eq!(
            aclrtRecordEventWithFlag(e, t, ACL_EVENT_RECORD_DEFAULT as u32),
            ACL_SUCCESS
        );
        assert_eq!(
            aclrtRecordEventWithFlag(e, t, ACL_EVENT_RECORD_EXTERNAL as u32),
            ACL_ERROR_RT_STREAM_NOT_CAPTURED
        );
        assert_eq!(aclrtRecordEventWithFlag(e, t, 2), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            aclrtRecordEventWithFlag(null_mut(), t, 0),
            ACL_ERROR_INVALID_PARAM
        );
        // Timed host synchronisation: 0 polls, > 0 waits, < -1 is refused
        // before anything else.
        assert_eq!(
            aclrtSynchronizeEventWithTimeout(e, 0),
            ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
        );
        assert_eq!(
            aclrtSynchronizeEventWithTimeout(e, 20),
            ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
        );
        assert_eq!(
            aclrtSynchronizeEventWithTimeout(null_mut(), -2),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            aclrtSynchronizeEventWithTimeout(null_mut(), -1),
            ACL_ERROR_INVALID_PARAM
        );
        // A stream waiting with a limit faults when it passes.
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 20, ACL_EVENT_WAIT_DEFAULT as u32),
            ACL_SUCCESS
        );
        assert_eq!(sync(s), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "{}", last_error());
        // Without a limit (0) it waits for the record.
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 0, ACL_EVENT_WAIT_DEFAULT as u32),
            ACL_SUCCESS
        );
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(status(s), aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY);
        assert_eq!(release(h), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_SUCCESS);
        assert_eq!(aclrtSynchronizeEventWithTimeout(e, -1), ACL_SUCCESS);
        assert_eq!(aclrtSynchronizeEventWithTimeout(e, 0), ACL_SUCCESS);
        // Wait flags out of range.
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 5, ACL_EVENT_WAIT_EXTERNAL as u32),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 0, ACL_EVENT_WAIT_EXTERNAL as u32),
            ACL_ERROR_RT_STREAM_NOT_CAPTURED
        );
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 0, 3),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, null_mut(), 0, 0),
            ACL_ERROR_INVALID_PARAM
        );
        // Reset: back to "never recorded" once the stream reaches it.
        let mut ms = 0f32;
        assert_eq!((a.aclrtEventElapsedTime)(&mut ms, e, e), ACL_SUCCESS);
        assert_eq!(aclrtResetEvent(e, s), ACL_SUCCESS);
        assert_eq!(sync(s), ACL_SUCCESS);
        assert_eq!(
            (a.aclrtEventElapsedTime)(&mut ms, e, e),
            ACL_ERROR_RT_EVENT_NOT_COMPLETE
        );
        assert_eq!(aclrtSynchronizeEventWithTimeout(e, 0), ACL_SUCCESS);
        // Only a WithFlag event with ACL_EVENT_SYNC may be reset or waited.
        let (_, timing) = event_with(false, ACL_EVENT_TIME_LINE as u32);
        let (_, ex) = event_with(true, ACL_EVENT_SYNC as u32);
        let plain = misuse_support::event();
        assert_eq!(aclrtResetEvent(timing, s), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(aclrtResetEvent(ex, s), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(aclrtResetEvent(plain, s), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(aclrtResetEvent(null_mut(), s), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            (a.aclrtStreamWaitEvent)(s, timing),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, timing, 0, 0),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!((a.aclrtRecordEvent)(ex, s), ACL_SUCCESS);
        assert_eq!((a.aclrtStreamWaitEvent)(t, ex), ACL_SUCCESS);
        assert_eq!((a.aclrtStreamWaitEvent)(t, plain), ACL_SUCCESS);
        assert_eq!(sync(t), ACL_SUCCESS);
        // Destroyed events.
        for ev in [e, timing, ex, plain] {
            assert_eq!((a.aclrtDestroyEvent)(ev), ACL_SUCCESS);
        }
        assert_eq!(aclrtResetEvent(e, s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(
            aclrtRecordEventWithFlag(e, s, 0),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            aclrtSynchronizeEventWithTimeout(e, 0),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            aclrtStreamWaitEventWithFlag(s, e, 0, 0),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!((a.aclrtDestroyStream)(s), ACL_SUCCESS);
        assert_eq!((a.aclrtDestroyStream)(t), ACL_SUCCESS);
        let _ = null::<u8>();
    }
    no_internal_errors();
    finalize();
}
