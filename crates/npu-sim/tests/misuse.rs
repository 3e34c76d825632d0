//! The C ABI's last misuses (issue 17, class 8): each gets CANN's
//! documented behaviour or a status code, never a crash, a hang or a leak.
//!
//! Its own test binary (one process): every test initialises and
//! finalises the simulator itself, and the thread count of the process is
//! measured, so the tests run one at a time.

use cann_sys::*;
use npu_sim::npuSimReleaseHold;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::null_mut;

mod misuse_support;
use misuse_support::*;

#[test]
#[serial]
fn a_hold_released_twice_or_never_issued_is_an_invalid_param() {
    init();
    let s = stream();
    let h = hold(s);
    // SAFETY (whole block): the holds passed are handles (looked up, never
    // dereferenced), NULL, or values the simulator never issued.
    unsafe {
        assert_eq!(npuSimReleaseHold(h as *mut c_void), ACL_SUCCESS);
        assert_eq!(npuSimReleaseHold(h as *mut c_void), ACL_ERROR_INVALID_PARAM);
        assert!(
            last_error().contains("npuSimReleaseHold"),
            "{}",
            last_error()
        );
        let mut local = 0u64;
        for foreign in [
            (&mut local as *mut u64).cast::<c_void>(),
            0xdead_beef_usize as *mut c_void,
            s,
            null_mut(),
        ] {
            assert_eq!(npuSimReleaseHold(foreign), ACL_ERROR_INVALID_PARAM);
        }
        assert_eq!(local, 0);
        assert_eq!((api().aclrtDestroyStream)(s), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn finalize_releases_every_stream_and_its_thread() {
    // One cycle leaves live what `aclFinalize` must release: a stream (held,
    // with work queued behind the hold), an event, device memory and a
    // pinned host block. Work queued on the default stream too.
    let cycle = || {
        init();
        let s = stream();
        let mut e = null_mut();
        let (d, h) = (malloc(4096), malloc_host(64));
        let held = hold(s);
        // SAFETY: valid arguments; live handles and allocations.
        unsafe {
            assert_eq!((api().aclrtCreateEvent)(&mut e), ACL_SUCCESS);
            assert_eq!((api().aclrtMemsetAsync)(d, 4096, 1, 4096, s), ACL_SUCCESS);
            assert_eq!((api().aclrtRecordEvent)(e, s), ACL_SUCCESS);
            assert_eq!(
                (api().aclrtMemsetAsync)(d, 4096, 2, 4096, null_mut()),
                ACL_SUCCESS
            );
        }
        let rc = returns("aclFinalize with a held stream", || {
            // SAFETY: plain C call.
            unsafe { (api().aclFinalize)() }
        });
        assert_eq!(rc, ACL_SUCCESS);
        (s, e, d, h, held)
    };
    cycle();
    cycle();
    let before = threads();
    let mut last = cycle();
    for _ in 0..300 {
        last = cycle();
    }
    let after = threads_settle(|n| n <= before + 2);
    assert!(
        after <= before + 2,
        "threads leaked by aclFinalize: {before} before 300 cycles, {after} after"
    );
    let st = npu_sim::stats();
    assert!(
        st.streams == 0 && st.events == 0 && st.allocations == 0 && st.host_allocations == 0,
        "aclFinalize left live: {st:?}"
    );
    // Every handle of the last cycle is stale: a status, never a crash.
    init();
    let (s, e, d, h, held) = last;
    // SAFETY (whole block): stale handles are looked up, never
    // dereferenced; the host buffer is valid for 8 bytes.
    unsafe {
        let a = api();
        assert_eq!((a.aclrtDestroyStream)(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtSynchronizeStream)(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtDestroyEvent)(e), ACL_ERROR_RT_INVALID_HANDLE);
        assert_ne!((a.aclrtFree)(d), ACL_SUCCESS);
        assert_eq!((a.aclrtFreeHost)(h), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            npuSimReleaseHold(held as *mut c_void),
            ACL_ERROR_INVALID_PARAM
        );
        let mut host = [0u8; 8];
        for kind in [
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST,
            aclrtMemcpyKind::ACL_MEMCPY_DEFAULT,
        ] {
            assert_ne!(
                (a.aclrtMemcpy)(host.as_mut_ptr().cast(), 8, d, 8, kind),
                ACL_SUCCESS,
                "a stale device pointer read as {kind:?}"
            );
        }
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn memcpy_refuses_host_ranges_the_simulator_knows_are_not_host_memory() {
    init();
    let a = api();
    let d = malloc(4096);
    let pinned = malloc_host(64);
    let s = stream();
    let h2d = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
    let d2h = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST;
    let refused = |rc: aclError, what: &str, needle: &str| {
        assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID, "{what}: {}", last_error());
        assert!(last_error().contains(needle), "{what}: {}", last_error());
    };
    // SAFETY (whole block): every host range the simulator is asked to
    // touch is either valid or one it must refuse without touching.
    unsafe {
        // Ranges that start inside a pinned block and run past its end.
        let rc = (a.aclrtMemcpy)(d, 4096, pinned, 128, h2d);
        refused(rc, "read past a pinned block", "aclrtMallocHost");
        let rc = (a.aclrtMemcpy)(pinned.byte_add(32), 64, d, 64, d2h);
        refused(rc, "write past a pinned block", "aclrtMallocHost");
        let rc = (a.aclrtMemcpyAsync)(pinned.byte_add(8), 64, d, 64, d2h, s);
        refused(rc, "async write past a pinned block", "aclrtMallocHost");
        // The whole block is fine.
        assert_eq!((a.aclrtMemcpy)(d, 4096, pinned, 64, h2d), ACL_SUCCESS);
        assert_eq!((a.aclrtMemcpy)(pinned, 64, d, 64, d2h), ACL_SUCCESS);
        // A host range that runs into the device address range (the first
        // allocation of a fresh runtime is at its start; whatever lies
        // below, the range reaches the device range).
        let below = d.byte_sub(16);
        let rc = (a.aclrtMemcpy)(d, 4096, below, 32, h2d);
        refused(
            rc,
            "a host source reaching device memory",
            "device address range",
        );
        let rc = (a.aclrtMemcpy)(below, 32, d, 32, d2h);
        refused(
            rc,
            "a host destination reaching device memory",
            "device address range",
        );
        // Wild pointers the simulator can tell are not host memory.
        let mut ok = [0u8; 64];
        let wild: Vec<usize> = if cfg!(target_arch = "x86_64") {
            vec![0x10, 0xff8, usize::MAX - 8, 0xffff_8000_0000_0000]
        } else {
            vec![0x10, 0xff8, usize::MAX - 8]
        };
        for w in wild {
            let w = w as *mut c_void;
            assert_eq!(
                (a.aclrtMemcpy)(d, 4096, w, 64, h2d),
                ACL_ERROR_RT_PARAM_INVALID,
                "source {w:p}"
            );
            assert_eq!(
                (a.aclrtMemcpy)(w, 64, d, 64, d2h),
                ACL_ERROR_RT_PARAM_INVALID,
                "destination {w:p}"
            );
            assert_eq!(
                (a.aclrtMemcpy)(
                    ok.as_mut_ptr().cast(),
                    64,
                    w,
                    64,
                    aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST
                ),
                ACL_ERROR_RT_PARAM_INVALID,
                "host source {w:p}"
            );
            assert_eq!(
                (a.aclrtMemcpyAsync)(d, 4096, w, 64, h2d, s),
                ACL_ERROR_RT_PARAM_INVALID,
                "async source {w:p}"
            );
        }
        assert_eq!((a.aclrtSynchronizeStream)(s), ACL_SUCCESS);
        assert_eq!((a.aclrtDestroyStream)(s), ACL_SUCCESS);
        assert_eq!((a.aclrtFreeHost)(pinned), ACL_SUCCESS);
        assert_eq!((a.aclrtFree)(d), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn reset_device_counts_set_device_and_releases_the_device_at_zero() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    init();
    std::env::remove_var("NPU_SIM_DEVICES");
    let a = api();
    // SAFETY (whole block): plain C calls; stale handles are looked up.
    unsafe {
        // Device 1: set twice; a stream (held, work queued behind the
        // hold), an event, memory. Device 0 keeps an allocation.
        let keep = malloc(512);
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        assert_eq!((a.aclrtSetDevice)(1), ACL_SUCCESS);
        let s = stream();
        let mut e = null_mut();
        assert_eq!((a.aclrtCreateEvent)(&mut e), ACL_SUCCESS);
        let d = malloc(4096);
        let held = hold(s);
        assert_eq!((a.aclrtMemsetAsync)(d, 4096, 7, 4096, s), ACL_SUCCESS);
        assert_eq!(
            (a.aclrtMemsetAsync)(d, 4096, 7, 4096, null_mut()),
            ACL_SUCCESS
        );
        let base = threads();
        // The first reset only counts down.
        assert_eq!((a.aclrtResetDevice)(1), ACL_SUCCESS);
        let st = npu_sim::stats();
        assert_eq!((st.streams, st.events, st.allocations), (1, 1, 2), "{st:?}");
        // The second releases device 1 (without waiting for the hold).
        let rc = returns("aclrtResetDevice with a held stream", || {
            (api().aclrtResetDevice)(1)
        });
        assert_eq!(rc, ACL_SUCCESS);
        let st = npu_sim::stats();
        assert_eq!((st.streams, st.events, st.allocations), (0, 0, 1), "{st:?}");
        assert!(
            threads_settle(|n| n + 2 <= base) + 2 <= base,
            "the stream and default stream workers of device 1 still run"
        );
        assert_eq!((a.aclrtDestroyStream)(s), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtDestroyEvent)(e), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!((a.aclrtFree)(d), ACL_ERROR_RT_MEMORY_FREE);
        assert_eq!(
            npuSimReleaseHold(held as *mut c_void),
            ACL_ERROR_INVALID_PARAM
        );
        // A reset with nothing outstanding releases nothing.
        assert_eq!((a.aclrtResetDevice)(1), ACL_SUCCESS);
        // Device 0 is untouched.
        assert_eq!((a.aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!((a.aclrtMemset)(keep, 512, 0, 512), ACL_SUCCESS);
        assert_eq!((a.aclrtFree)(keep), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn rebinding_refuses_null_and_unaligned_addresses() {
    init();
    let a = api();
    let (x, o) = (malloc(64), malloc(64));
    // SAFETY (whole block): valid arrays and out-pointers; live handles.
    unsafe {
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
        let set_in = a.aclSetInputTensorAddr.unwrap();
        let set_out = a.aclSetOutputTensorAddr.unwrap();
        assert_eq!(
            (a.aclSetAclOpExecutorRepeatable.unwrap())(ex),
            ACLNN_SUCCESS
        );
        for bad in [null_mut(), x.byte_add(1), x.byte_add(16)] {
            assert_eq!(set_in(ex, 0, tx, bad), ACLNN_ERR_PARAM_INVALID, "{bad:p}");
            assert!(last_error().contains("aligned"), "{}", last_error());
            assert_eq!(set_out(ex, 0, to, bad), ACLNN_ERR_PARAM_INVALID, "{bad:p}");
        }
        // Aligned addresses rebind, and the executor still runs.
        assert_eq!(set_in(ex, 0, tx, x), ACLNN_SUCCESS);
        assert_eq!(set_out(ex, 0, to, o), ACLNN_SUCCESS);
        assert_eq!((a.aclrtMemset)(x, 64, 5, 64), ACL_SUCCESS);
        assert_eq!(
            npu_sim::aclnnSlice(null_mut(), 0, ex, null_mut()),
            ACLNN_SUCCESS
        );
        assert_eq!((a.aclrtSynchronizeStream)(null_mut()), ACL_SUCCESS);
        let mut out = [0u8; 4];
        assert_eq!(
            (a.aclrtMemcpy)(
                out.as_mut_ptr().cast(),
                4,
                o,
                4,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST
            ),
            ACL_SUCCESS
        );
        assert_eq!(out, [5; 4]);
        assert_eq!((a.aclDestroyAclOpExecutor.unwrap())(ex), ACLNN_SUCCESS);
        assert_eq!((a.aclDestroyTensor)(tx), ACLNN_SUCCESS);
        assert_eq!((a.aclDestroyTensor)(to), ACLNN_SUCCESS);
        assert_eq!((a.aclrtFree)(x), ACL_SUCCESS);
        assert_eq!((a.aclrtFree)(o), ACL_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn destroying_a_stream_behind_a_hold_never_released_does_not_hang() {
    init();
    let d = malloc(4096);
    // A C hold and a Rust hold, neither released before the destruction.
    for rust in [false, true] {
        let s = stream();
        let held = if rust {
            Err(npu_sim::hold_stream(s).unwrap())
        } else {
            Ok(hold(s))
        };
        // SAFETY: live stream and allocation.
        let rc = unsafe { (api().aclrtMemsetAsync)(d, 4096, 9, 4096, s) };
        assert_eq!(rc, ACL_SUCCESS);
        let sv = s as usize;
        let rc = returns("aclrtDestroyStream of a held stream", move || {
            // SAFETY: a live stream handle.
            unsafe { (api().aclrtDestroyStream)(sv as aclrtStream) }
        });
        assert_eq!(rc, ACL_SUCCESS);
        // It drained: the work queued behind the hold ran.
        let mut host = vec![0u8; 4096];
        // SAFETY: valid host buffer; live allocation.
        let rc = unsafe {
            (api().aclrtMemcpy)(
                host.as_mut_ptr().cast(),
                4096,
                d,
                4096,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        };
        assert_eq!(rc, ACL_SUCCESS);
        assert!(host.iter().all(|&b| b == 9));
        // SAFETY: host buffer valid; device end live.
        unsafe { (api().aclrtMemset)(d, 4096, 0, 4096) };
        // The C hold's handle stays live until it is released.
        match held {
            // SAFETY: a hold handle.
            Ok(h) => assert_eq!(unsafe { npuSimReleaseHold(h as *mut c_void) }, ACL_SUCCESS),
            Err(h) => h.release(),
        }
    }
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(d) }, ACL_SUCCESS);
    no_internal_errors();
    finalize();
}
