//! The simulator's C ABI under hostile input (issue 8): every function
//! returns a status for sizes that overflow, handles it never issued and
//! null pointers; no function panics or aborts (`internal_errors` stays 0);
//! kernels check every index they load; events wait for the record last
//! issued before the wait.

mod common;

use cann_sys::*;
use common::*;
use serial_test::serial;
use std::ffi::c_void;

const I8: aclDataType = aclDataType::ACL_INT8;
const I64: aclDataType = aclDataType::ACL_INT64;

fn no_internal_errors() {
    assert_eq!(
        npu_sim::stats().internal_errors,
        0,
        "a panic was caught at the C ABI"
    );
}

#[test]
#[serial]
fn an_out_over_the_index_is_refused_before_the_gather_runs() {
    leak_checked(|| {
        let s = Stream::new();
        // out[i] is index[i + 1]: writing row i would change the next index
        // to a value far out of range, and a kernel that loaded the index
        // again would read terabytes past `x`. The first phase refuses an
        // out over what the gather reads (161002, ops.md section 2), so no
        // kernel ever sees it; the buffers stay as they were.
        let xb = Buf::from(
            &[1i64 << 40, 1 << 41, 1 << 42, 1 << 43]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let x = dense(I64, &[4], &xb);
        let ib = Buf::from(
            &[0i64, 1, 2, 3, 0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let index = view(I64, &[4], &[1], 0, ib.ptr, 5);
        let out = view(I64, &[4], &[1], 1, ib.ptr, 5);
        let (stage, code, msg) = index_select(&x, 0, &index, &out, &s).expect_err("refused");
        assert_eq!((stage, code), ("plan", ACLNN_ERR_PARAM_INVALID), "{msg}");
        assert!(msg.contains("shares memory with index"), "{msg}");
        let got: Vec<i64> = ib
            .read()
            .chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [0, 1, 2, 3, 0]);
        assert_eq!(s.sync(), 0);
        no_internal_errors();
    });
}

/// Views whose element count, bytes or last element overflow 64 bits.
fn overflowing_views(b: &Buf) -> Vec<T> {
    vec![
        view(I8, &[(1 << 62) + 1, 2], &[0, 1], 0, b.ptr, 2),
        view(I8, &[1 << 61, 8], &[0, 0], 0, b.ptr, 2),
        view(I8, &[i64::MAX, 2], &[0, 0], 0, b.ptr, 2),
        view(I8, &[2], &[i64::MAX], 1, b.ptr, 2),
        view(I8, &[3], &[1], i64::MAX - 1, b.ptr, 2),
        view(aclDataType::ACL_COMPLEX128, &[1 << 60], &[0], 0, b.ptr, 2),
    ]
}

#[test]
#[serial]
fn overflowing_views_are_invalid_in_every_operator() {
    leak_checked(|| {
        let s = Stream::new();
        let b = Buf::new(1024);
        let small = dense(I8, &[2], &b);
        let idx_b = Buf::from(&0i64.to_le_bytes());
        let idx = dense(I64, &[1], &idx_b);
        for bad in overflowing_views(&b) {
            let check = |r: Result<(), (&'static str, i32, String)>, what: &str| {
                let (phase, code, msg) = r.expect_err(what);
                assert_eq!(phase, "plan", "{what}: {msg}");
                assert_eq!(code, ACLNN_ERR_PARAM_INVALID, "{what}: {msg}");
            };
            check(slice(&bad, 0, 0, 1, 1, &small, &s), "slice self");
            check(slice(&small, 0, 0, 2, 1, &bad, &s), "slice out");
            check(index_select(&bad, 0, &idx, &small, &s), "index_select self");
            check(
                index_select(&small, 0, &bad, &small, &s),
                "index_select index",
            );
            check(inplace_copy(&small, &bad, &s), "copy src");
            check(inplace_copy(&bad, &small, &s), "copy dst");
            let args = PadArgs::new(&[0, 0], &[0], I8);
            check(constant_pad(&bad, &args, &small, &s), "pad self");
        }
        assert_eq!(s.sync(), 0);
        no_internal_errors();
    });
}

#[test]
#[serial]
fn steps_and_pads_that_overflow_are_statuses() {
    leak_checked(|| {
        let s = Stream::new();
        let b = Buf::new(4096);
        // A slice whose source stride (stride * step) overflows.
        let x = view(I8, &[3, 2], &[1 << 40, 1], 0, b.ptr, 4096);
        let out = dense(I8, &[2, 2], &b);
        let r = slice(&x, 0, 0, 3, i64::MAX / 2, &out, &s);
        // Either invalid (the sliced view overflows) or a memcheck fault:
        // never a panic.
        if let Err((_, code, _)) = r {
            assert_eq!(code, ACLNN_ERR_PARAM_INVALID);
        }
        let _ = s.sync();
        // Pads at the ends of i64.
        let y = dense(I8, &[4], &b);
        for pads in [
            [i64::MIN, i64::MAX],
            [i64::MAX, i64::MIN],
            [i64::MIN, 0],
            [-3, i64::MAX],
        ] {
            let args = PadArgs::new(&pads, &[7], I8);
            let r = constant_pad(&y, &args, &out, &s);
            assert!(r.is_err(), "{pads:?}");
        }
        // A crop to one element.
        let one = dense(I8, &[1], &b);
        let args = PadArgs::new(&[-3, 0], &[7], I8);
        assert_eq!(constant_pad(&y, &args, &one, &s), Ok(()));
        assert_eq!(s.sync(), 0);
        no_internal_errors();
    });
}

#[test]
#[serial]
fn handles_never_issued_and_null_pointers_get_statuses() {
    leak_checked(|| {
        let a = api();
        let bogus = 0xdead_beef_usize as *mut c_void;
        // SAFETY (whole block): every pointer passed is null, a bogus
        // handle value (never dereferenced by the simulator: handles are
        // looked up), or a valid out-pointer.
        unsafe {
            assert_ne!((a.aclrtDestroyStream)(bogus), 0);
            assert_ne!((a.aclrtSynchronizeStream)(bogus), 0);
            assert_ne!((a.aclrtDestroyEvent)(bogus), 0);
            assert_ne!((a.aclrtRecordEvent)(bogus, std::ptr::null_mut()), 0);
            assert_ne!((a.aclrtStreamWaitEvent)(bogus, bogus), 0);
            assert_ne!((a.aclrtSynchronizeEvent)(bogus), 0);
            assert_ne!((a.aclrtFree)(bogus), 0);
            assert_ne!((a.aclrtFree)(std::ptr::null_mut()), 0);
            assert_ne!((a.aclrtFreeHost)(bogus), 0);
            assert_ne!((a.aclDestroyTensor)(bogus.cast()), 0);
            assert_ne!((a.aclDestroyIntArray)(bogus.cast()), 0);
            assert_ne!((a.aclDestroyScalar)(bogus.cast()), 0);
            assert_ne!((a.aclDestroyAclOpExecutor.unwrap())(bogus.cast()), 0);
            assert_ne!((a.aclSetAclOpExecutorRepeatable.unwrap())(bogus.cast()), 0);
            assert_ne!(
                (a.aclSetInputTensorAddr.unwrap())(bogus.cast(), 0, bogus.cast(), bogus),
                0
            );
            assert_ne!(
                (a.aclrtGetVersion)(
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                0
            );
            assert_ne!(
                (a.aclrtGetMemInfo)(
                    aclrtMemAttr::ACL_HBM_MEM,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                0
            );
            assert_ne!(
                (a.aclrtMalloc)(
                    std::ptr::null_mut(),
                    16,
                    aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST
                ),
                0
            );
            let mut p = std::ptr::null_mut();
            assert_ne!(
                (a.aclrtMalloc)(
                    &mut p,
                    usize::MAX,
                    aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST
                ),
                0
            );
            assert!(p.is_null());
            assert_ne!((a.aclrtSetDevice)(-1), 0);
            assert_ne!((a.aclrtSetDevice)(i32::MAX), 0);
            assert!((a.aclCreateTensor)(
                std::ptr::null(),
                3,
                I8,
                std::ptr::null(),
                0,
                aclFormat::ACL_FORMAT_ND,
                std::ptr::null(),
                0,
                bogus
            )
            .is_null());
            assert!((a.aclCreateIntArray)(std::ptr::null(), 4).is_null());
            assert!((a.aclCreateScalar)(std::ptr::null_mut(), I8).is_null());
            assert!((a.aclCreateScalar)(bogus, aclDataType(12345)).is_null());
            let mut ws = 0u64;
            let mut ex = std::ptr::null_mut();
            let slice = slice_op();
            assert_eq!(
                (slice.get_workspace_size)(
                    bogus.cast(),
                    0,
                    0,
                    1,
                    1,
                    bogus.cast(),
                    &mut ws,
                    &mut ex
                ),
                ACLNN_ERR_PARAM_INVALID
            );
            assert_eq!(
                (slice.get_workspace_size)(
                    std::ptr::null(),
                    0,
                    0,
                    1,
                    1,
                    bogus.cast(),
                    &mut ws,
                    &mut ex
                ),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_ne!(
                (slice.run)(std::ptr::null_mut(), 0, bogus.cast(), std::ptr::null_mut()),
                0
            );
            assert_ne!((slice.run)(bogus, u64::MAX, std::ptr::null_mut(), bogus), 0);
            // Memcpy with a device-range source that is not an allocation.
            let b = Buf::new(64);
            let stray = (b.addr() + (1 << 20)) as *mut c_void;
            let mut host = [0u8; 8];
            assert_ne!(
                (a.aclrtMemcpy)(
                    host.as_mut_ptr().cast(),
                    8,
                    stray,
                    8,
                    aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST
                ),
                0
            );
            assert_ne!(
                (a.aclrtMemcpy)(
                    host.as_mut_ptr().cast(),
                    8,
                    b.ptr,
                    usize::MAX,
                    aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST
                ),
                0
            );
            assert_ne!((a.aclrtMemset)(stray, 8, 0, 8), 0);
            assert_ne!((a.aclrtMemset)(b.ptr, usize::MAX, 0, usize::MAX), 0);
        }
        no_internal_errors();
    });
}

#[test]
#[serial]
fn a_wait_waits_for_the_record_issued_before_it() {
    leak_checked(|| {
        let a = api();
        let (slow, fast, waiter) = (Stream::new(), Stream::new(), Stream::new());
        let mut ev = std::ptr::null_mut();
        // SAFETY: valid out-pointer, live handles.
        unsafe {
            assert_eq!((a.aclrtCreateEvent)(&mut ev), 0);
            let gate = npu_sim::hold_stream(slow.0).unwrap();
            assert_eq!((a.aclrtRecordEvent)(ev, slow.0), 0); // record 1: held
            assert_eq!((a.aclrtStreamWaitEvent)(waiter.0, ev), 0); // waits for record 1
            assert_eq!((a.aclrtRecordEvent)(ev, fast.0), 0); // record 2: completes at once
            assert_eq!(fast.sync(), 0);
            // Work after the wait must not run while record 1 is held.
            let b = Buf::from(&[0u8; 8]);
            let one = [1u8; 8];
            assert_eq!(
                (a.aclrtMemcpyAsync)(
                    b.ptr,
                    8,
                    one.as_ptr().cast(),
                    8,
                    aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
                    waiter.0
                ),
                0
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
            let mut st = aclrtStreamStatus(0);
            assert_eq!((a.aclrtStreamQuery)(waiter.0, &mut st), 0);
            assert_eq!(
                st,
                aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY,
                "the waiter passed a wait whose record has not run"
            );
            gate.release();
            assert_eq!(waiter.sync(), 0);
            assert_eq!(b.read(), one);
            assert_eq!(slow.sync(), 0);
            assert_eq!((a.aclrtDestroyEvent)(ev), 0);
        }
        no_internal_errors();
    });
}

#[test]
#[serial]
fn staging_sizes_that_overflow_together_are_invalid() {
    leak_checked(|| {
        let s = Stream::new();
        let b = Buf::new(4096);
        // Each view fits 64 bits on its own; the workspace staging both
        // broadcast inputs would not.
        let n = (1i64 << 60) - 1;
        let x = view(I64, &[n], &[0], 0, b.ptr, 512);
        let idx = view(I64, &[n], &[0], 0, b.ptr, 512);
        let out = view(I64, &[n], &[1], 0, b.ptr, 512);
        let (stage, code, msg) = index_select(&x, 0, &idx, &out, &s).unwrap_err();
        assert_eq!((stage, code), ("plan", ACLNN_ERR_PARAM_INVALID), "{msg}");
        no_internal_errors();
    });
}

#[test]
#[serial]
fn outputs_that_write_an_element_twice_are_invalid() {
    leak_checked(|| {
        let s = Stream::new();
        let b = Buf::new(4096);
        let x = dense(I8, &[4, 4], &b);
        let twice = view(I8, &[4, 4], &[0, 1], 0, b.ptr, 64);
        let idx_b = Buf::from(&0i64.to_le_bytes());
        let idx = dense(I64, &[1], &idx_b);
        let one = view(I8, &[4, 4], &[0, 1], 0, b.ptr, 64);
        for r in [
            slice(&x, 0, 0, 4, 1, &twice, &s),
            index_select(&x, 0, &idx, &view(I8, &[1, 4], &[1, 0], 0, b.ptr, 64), &s),
            constant_pad(&x, &PadArgs::new(&[0, 0], &[0], I8), &one, &s),
        ] {
            let (stage, code, msg) = r.unwrap_err();
            assert_eq!((stage, code), ("plan", ACLNN_ERR_PARAM_INVALID), "{msg}");
            assert!(msg.contains("twice"), "{msg}");
        }
        no_internal_errors();
    });
}
