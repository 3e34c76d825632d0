//! The lifecycle misuses of the C ABI (issue 17, class 8, attacked again):
//! handles used after `aclFinalize` / `aclrtResetDevice`, those calls
//! racing other threads' work, and the counts of `aclrtSetDevice` across
//! threads. Each gets a status code, never a crash, a hang or a leak.
//!
//! Its own test binary (one process, two simulated devices): every test
//! initialises and finalises the simulator itself, and the thread count of
//! the process is measured, so the tests run one at a time.

use cann_sys::*;
use npu_sim::{npuSimHoldStream, npuSimReleaseHold};
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod misuse_support;
use misuse_support::*;

/// `aclInit` (two devices) and `aclrtSetDevice(0)` on this thread.
fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

/// A device whose last `aclrtResetDevice` is still draining its streams is
/// set again by another thread: what that thread allocates then is its
/// own, not freed when the old release finishes.
#[test]
#[serial]
fn a_reset_still_draining_spares_what_is_allocated_after_the_device_is_set_again() {
    init();
    // SAFETY (whole block): plain C calls with live handles and valid
    // out-pointers.
    unsafe {
        // Stream `t` on device 1, held; event `e` recorded behind the hold.
        assert_eq!((api().aclrtSetDevice)(1), ACL_SUCCESS);
        let t = stream();
        let h = hold(t);
        let e = event();
        assert_eq!((api().aclrtRecordEvent)(e, t), ACL_SUCCESS);
        // Stream `s` on device 0 waits for `e`.
        assert_eq!((api().aclrtSetDevice)(0), ACL_SUCCESS);
        let s = stream();
        assert_eq!((api().aclrtStreamWaitEvent)(s, e), ACL_SUCCESS);
        // The last reset of device 0 (another thread; this one set it
        // twice) waits for `s`.
        let sv = s as usize;
        let resetter = std::thread::spawn(|| {
            assert_eq!((api().aclrtResetDevice)(0), ACL_SUCCESS);
            (api().aclrtResetDevice)(0)
        });
        eventually("the reset took the device's streams", || {
            let mut st = aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE;
            (api().aclrtStreamQuery)(sv as aclrtStream, &mut st) == ACL_ERROR_RT_INVALID_HANDLE
        });
        std::thread::sleep(Duration::from_millis(50));
        // This thread sets device 0 again and allocates on it.
        assert_eq!((api().aclrtSetDevice)(0), ACL_SUCCESS);
        let d = malloc(4096);
        assert_eq!((api().aclrtMemset)(d, 4096, 7, 4096), ACL_SUCCESS);
        // The old release finishes.
        assert_eq!(release(h), ACL_SUCCESS);
        let rc = returns("the reset", move || resetter.join().unwrap());
        assert_eq!(rc, ACL_SUCCESS);
        let (rc, bytes) = read(d, 4096);
        assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
        assert!(bytes.iter().all(|&b| b == 7));
        assert_eq!((api().aclrtFree)(d), ACL_SUCCESS, "{}", last_error());
        assert_eq!((api().aclrtDestroyStream)(t), ACL_SUCCESS);
        assert_eq!((api().aclrtDestroyEvent)(e), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

/// Every handle kind used after `aclFinalize`, then after a new
/// `aclInit`: a status, and no work touches memory.
#[test]
#[serial]
fn every_handle_used_after_finalize_is_a_status() {
    init();
    let a = api();
    // SAFETY (whole block): plain C calls; the handles and pointers passed
    // are the simulator's own (stale ones are looked up, never trusted).
    unsafe {
        let s = stream();
        let e = event();
        let h = hold(s);
        let (x, o) = (malloc(64), malloc(64));
        let mut pinned = null_mut();
        assert_eq!((a.aclrtMallocHost)(&mut pinned, 64), ACL_SUCCESS);
        let tensor = |n: i64, p: *mut c_void| {
            (a.aclCreateTensor)(
                [n].as_ptr(),
                1,
                aclDataType::ACL_INT8,
                [1i64].as_ptr(),
                0,
                aclFormat::ACL_FORMAT_ND,
                [n].as_ptr(),
                1,
                p,
            )
        };
        let (tx, to) = (tensor(8, x), tensor(4, o));
        let (mut ws, mut ex) = (0u64, null_mut());
        assert_eq!(
            npu_sim::aclnnSliceGetWorkspaceSize(tx, 0, 0, 4, 1, to, &mut ws, &mut ex),
            ACLNN_SUCCESS
        );
        assert_eq!(
            (a.aclSetAclOpExecutorRepeatable.unwrap())(ex),
            ACLNN_SUCCESS
        );
        assert_eq!((a.aclrtMemsetAsync)(x, 64, 1, 64, s), ACL_SUCCESS);
        finalize();
        for round in ["after aclFinalize", "after a new aclInit"] {
            let mut st = aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE;
            let mut est = aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE;
            let mut host = [0u8; 64];
            let statuses = [
                ("aclrtSynchronizeStream", (a.aclrtSynchronizeStream)(s)),
                ("aclrtStreamQuery", (a.aclrtStreamQuery)(s, &mut st)),
                ("aclrtRecordEvent", (a.aclrtRecordEvent)(e, s)),
                (
                    "aclrtRecordEvent default",
                    (a.aclrtRecordEvent)(e, null_mut()),
                ),
                ("aclrtStreamWaitEvent", (a.aclrtStreamWaitEvent)(s, e)),
                ("aclrtSynchronizeEvent", (a.aclrtSynchronizeEvent)(e)),
                (
                    "aclrtQueryEventStatus",
                    (a.aclrtQueryEventStatus)(e, &mut est),
                ),
                (
                    "aclrtMemcpy D2H",
                    (a.aclrtMemcpy)(
                        host.as_mut_ptr().cast(),
                        64,
                        x,
                        64,
                        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
                    ),
                ),
                (
                    "aclrtMemcpy H2H from a finalised pinned block",
                    (a.aclrtMemcpy)(
                        host.as_mut_ptr().cast(),
                        64,
                        pinned,
                        64,
                        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
                    ),
                ),
                (
                    "aclrtMemcpy D2D",
                    (a.aclrtMemcpy)(o, 64, x, 64, aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE),
                ),
                (
                    "aclrtMemcpyAsync",
                    (a.aclrtMemcpyAsync)(
                        o,
                        64,
                        x,
                        64,
                        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE,
                        s,
                    ),
                ),
                ("aclrtMemset", (a.aclrtMemset)(x, 64, 0, 64)),
                ("aclrtFree", (a.aclrtFree)(x)),
                ("aclrtFreeHost", (a.aclrtFreeHost)(pinned)),
                ("npuSimReleaseHold", release(h)),
                ("aclrtDestroyStream", (a.aclrtDestroyStream)(s)),
                ("aclrtDestroyEvent", (a.aclrtDestroyEvent)(e)),
            ];
            for (what, rc) in statuses {
                assert_ne!(rc, ACL_SUCCESS, "{what} {round}");
            }
            // The executor still exists (aclnn objects are the caller's),
            // but its addresses are stale: the launch is refused or faults.
            let rc = npu_sim::aclnnSlice(null_mut(), 0, ex, null_mut());
            if rc == ACLNN_SUCCESS {
                assert_ne!(
                    (a.aclrtSynchronizeStream)(null_mut()),
                    ACL_SUCCESS,
                    "{round}"
                );
            }
            if round == "after aclFinalize" {
                // SAFETY: plain C calls.
                assert_eq!((a.aclInit)(null()), ACL_SUCCESS);
                assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
            }
        }
        assert_eq!((a.aclDestroyAclOpExecutor.unwrap())(ex), ACLNN_SUCCESS);
        assert_eq!((a.aclDestroyTensor)(tx), ACLNN_SUCCESS);
        assert_eq!((a.aclDestroyTensor)(to), ACLNN_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

/// The edges of the init/finalize and set/reset pairs.
#[test]
#[serial]
fn finalize_and_reset_edges_are_statuses() {
    let a = api();
    // SAFETY (whole block): plain C calls.
    unsafe {
        (a.aclFinalize)();
        assert_eq!((a.aclFinalize)(), ACL_ERROR_REPEAT_FINALIZE);
        assert_ne!((a.aclrtResetDevice)(0), ACL_SUCCESS);
        assert_ne!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        init();
        // A reset of a device never set on any thread releases nothing.
        let d = malloc(64);
        assert_eq!((a.aclrtResetDevice)(1), ACL_SUCCESS);
        assert_eq!((a.aclrtResetDevice)(1), ACL_SUCCESS);
        for bad in [-1, 2, i32::MIN, i32::MAX] {
            assert_eq!((a.aclrtResetDevice)(bad), ACL_ERROR_RT_INVALID_DEVICEID);
            assert_eq!((a.aclrtSetDevice)(bad), ACL_ERROR_RT_INVALID_DEVICEID);
        }
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!(read(d, 64).0, ACL_SUCCESS);
        // Set on two threads, reset on a third: released at the second.
        for _ in 0..2 {
            returns("set", || (api().aclrtSetDevice)(1));
        }
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        let d1 = malloc(64);
        assert_eq!(
            returns("reset", || (api().aclrtResetDevice)(1)),
            ACL_SUCCESS
        );
        assert_eq!(
            returns("reset", || (api().aclrtResetDevice)(1)),
            ACL_SUCCESS
        );
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        assert_eq!(read(d1, 64).0, ACL_SUCCESS, "{}", last_error());
        assert_eq!(
            returns("reset", || (api().aclrtResetDevice)(1)),
            ACL_SUCCESS
        );
        assert_eq!(
            returns("reset", || (api().aclrtResetDevice)(1)),
            ACL_SUCCESS
        );
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        assert_ne!(read(d1, 64).0, ACL_SUCCESS, "device 1 was released");
        // Device 0 was untouched throughout.
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!(read(d, 64).0, ACL_SUCCESS, "{}", last_error());
    }
    no_internal_errors();
    finalize();
    // SAFETY: plain C call.
    assert_eq!(unsafe { (a.aclFinalize)() }, ACL_ERROR_REPEAT_FINALIZE);
}

/// A stream waiting on an event recorded behind another stream's hold:
/// destroying it waits (its work is not done), and finalisation, which
/// opens every hold, lets it return.
#[test]
#[serial]
fn destroying_a_stream_waiting_on_a_held_stream_is_released_by_finalize() {
    init();
    // SAFETY (whole block): live handles.
    unsafe {
        let (t, s) = (stream(), stream());
        let _h = hold(t);
        let e = event();
        assert_eq!((api().aclrtRecordEvent)(e, t), ACL_SUCCESS);
        assert_eq!((api().aclrtStreamWaitEvent)(s, e), ACL_SUCCESS);
        let d = malloc(64);
        assert_eq!((api().aclrtMemsetAsync)(d, 64, 3, 64, s), ACL_SUCCESS);
        let sv = s as usize;
        let destroyer = std::thread::spawn(move || (api().aclrtDestroyStream)(sv as aclrtStream));
        std::thread::sleep(Duration::from_millis(100));
        let rc = returns("aclFinalize while a destroy waits", || {
            (api().aclFinalize)()
        });
        assert_eq!(rc, ACL_SUCCESS);
        let rc = returns("the destroy", move || destroyer.join().unwrap());
        assert_eq!(rc, ACL_SUCCESS);
    }
    no_internal_errors();
}

/// Finalisation and resets racing threads that create, hold, launch,
/// record, wait, synchronise and destroy: no crash, no hang, and no stream
/// (thread) outlives the runtime.
#[test]
#[serial]
fn finalize_and_reset_racing_other_threads_leak_nothing() {
    init();
    finalize();
    let base = threads();
    for cycle in 0..60 {
        init();
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..3)
            .map(|w| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let a = api();
                    let mut buf = [0u8; 256];
                    // SAFETY (whole block): plain C calls; every handle
                    // passed is one this thread got (possibly stale).
                    unsafe {
                        while !stop.load(Ordering::Relaxed) {
                            (a.aclrtSetDevice)(w % 2);
                            let mut s = null_mut();
                            (a.aclrtCreateStream)(&mut s);
                            let mut e = null_mut();
                            (a.aclrtCreateEvent)(&mut e);
                            let mut h = null_mut();
                            npuSimHoldStream(s, &mut h);
                            let mut d = null_mut();
                            (a.aclrtMalloc)(
                                &mut d,
                                256,
                                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
                            );
                            let mut p = null_mut();
                            (a.aclrtMallocHost)(&mut p, 256);
                            (a.aclrtMemsetAsync)(d, 256, 1, 256, s);
                            (a.aclrtRecordEvent)(e, s);
                            (a.aclrtStreamWaitEvent)(null_mut(), e);
                            (a.aclrtMemcpyAsync)(
                                buf.as_mut_ptr().cast(),
                                256,
                                d,
                                256,
                                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
                                null_mut(),
                            );
                            if w == 2 {
                                npuSimReleaseHold(h);
                            }
                            (a.aclrtSynchronizeStream)(null_mut());
                            (a.aclrtDestroyStream)(s);
                            (a.aclrtSynchronizeEvent)(e);
                            (a.aclrtDestroyEvent)(e);
                            npuSimReleaseHold(h);
                            (a.aclrtFree)(d);
                            (a.aclrtFreeHost)(p);
                            if w == 1 {
                                (a.aclrtResetDevice)(1);
                            }
                        }
                        // The worker's own buffer outlives every copy:
                        // synchronise whatever stream this thread has.
                        (a.aclrtSynchronizeStream)(null_mut());
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(2 + cycle % 7));
        let rc = returns("aclFinalize racing other threads", || {
            // SAFETY: plain C call.
            unsafe { (api().aclFinalize)() }
        });
        assert_eq!(rc, ACL_SUCCESS, "cycle {cycle}");
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            returns("a racing worker", move || w.join().unwrap());
        }
        // Whatever the workers made after the finalisation is released by
        // the next one (or refused).
        // SAFETY: plain C call.
        unsafe { (api().aclFinalize)() };
    }
    init();
    finalize();
    let n = threads_settle(|n| n <= base + 1);
    assert!(
        n <= base + 1,
        "{n} threads after 60 racing cycles, {base} before"
    );
    no_internal_errors();
}

/// A pinned block kept past its free (`aclrtFreeHost`, or `aclFinalize`
/// releasing it) is the simulator's to know about: the copies refuse it
/// (a large one was unmapped by the allocator: reading it crashed).
#[test]
#[serial]
fn a_freed_pinned_block_is_refused_by_the_copies() {
    init();
    let a = api();
    let mut host = vec![0u8; 1 << 20];
    // SAFETY (whole block): valid out-pointers and host buffers; the stale
    // pinned pointers are checked by the simulator, never trusted.
    unsafe {
        for n in [64usize, 4096, 1 << 20] {
            for by_finalize in [false, true] {
                let mut p = null_mut();
                assert_eq!((a.aclrtMallocHost)(&mut p, n), ACL_SUCCESS);
                p.cast::<u8>().write_bytes(1, n);
                if by_finalize {
                    finalize();
                    init();
                } else {
                    assert_eq!((a.aclrtFreeHost)(p), ACL_SUCCESS);
                }
                let d = malloc(1 << 20);
                let kinds = [
                    (
                        host.as_mut_ptr().cast(),
                        p.cast_const(),
                        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
                    ),
                    (
                        p,
                        host.as_ptr().cast(),
                        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
                    ),
                    (
                        d,
                        p.cast_const(),
                        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
                    ),
                    (
                        p,
                        d.cast_const(),
                        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
                    ),
                    (d, p.cast_const(), aclrtMemcpyKind::ACL_MEMCPY_DEFAULT),
                ];
                for (dst, src, kind) in kinds {
                    let rc = (a.aclrtMemcpy)(dst, n, src, n, kind);
                    assert_eq!(
                        rc, ACL_ERROR_RT_PARAM_INVALID,
                        "{n} {by_finalize} {}",
                        kind.0
                    );
                    assert!(
                        last_error().contains("freed aclrtMallocHost"),
                        "{}",
                        last_error()
                    );
                    let rc = (a.aclrtMemcpyAsync)(dst, n, src, n, kind, null_mut());
                    assert_eq!(
                        rc, ACL_ERROR_RT_PARAM_INVALID,
                        "{n} {by_finalize} {}",
                        kind.0
                    );
                }
                // Its last byte alone is refused too.
                let rc = (a.aclrtMemcpy)(
                    host.as_mut_ptr().cast(),
                    1,
                    p.byte_add(n - 1),
                    1,
                    aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
                );
                assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
                assert_eq!((a.aclrtFreeHost)(p), ACL_ERROR_INVALID_PARAM);
                // A new block may reuse the range: then it is live again.
                let mut q = null_mut();
                assert_eq!((a.aclrtMallocHost)(&mut q, n), ACL_SUCCESS);
                let rc = (a.aclrtMemcpy)(
                    host.as_mut_ptr().cast(),
                    n,
                    q,
                    n,
                    aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
                );
                assert_eq!(rc, ACL_SUCCESS, "{}", last_error());
                assert_eq!((a.aclrtFreeHost)(q), ACL_SUCCESS);
                assert_eq!((a.aclrtFree)(d), ACL_SUCCESS);
            }
        }
    }
    no_internal_errors();
    finalize();
}

/// Another thread holding a stream while it is being destroyed (or
/// finalised): a hold taken during the destruction is open at once, so
/// the destruction never waits for it.
#[test]
#[serial]
fn holds_taken_while_a_stream_is_destroyed_do_not_hang_it() {
    init();
    for i in 0..200 {
        let s = stream() as usize;
        let go = Arc::new(AtomicBool::new(false));
        let g = go.clone();
        let holder = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !g.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
            loop {
                let mut h = null_mut();
                // SAFETY: valid out-pointer; `s` is a handle (looked up).
                match unsafe { npuSimHoldStream(s as aclrtStream, &mut h) } {
                    ACL_SUCCESS => held.push(h as usize),
                    _ => return held,
                }
            }
        });
        go.store(true, Ordering::Relaxed);
        std::thread::sleep(Duration::from_micros(50 * (i % 5)));
        let rc = if i % 10 == 9 {
            // Finalisation instead: it destroys the stream too.
            returns("aclFinalize while another thread holds", || {
                // SAFETY: plain C call.
                unsafe { (api().aclFinalize)() }
            })
        } else {
            returns("aclrtDestroyStream while another thread holds", move || {
                // SAFETY: a handle (looked up).
                unsafe { (api().aclrtDestroyStream)(s as aclrtStream) }
            })
        };
        assert_eq!(rc, ACL_SUCCESS);
        let held = returns("the holder", move || holder.join().unwrap());
        for h in held {
            release(h);
        }
        if i % 10 == 9 {
            init();
        }
    }
    no_internal_errors();
    finalize();
}
