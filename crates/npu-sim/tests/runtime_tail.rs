//! The rest of the runtime calls of CANN's host-only examples (issue 19,
//! item 2, "by area"), through the C ABI: data buffers, error queries,
//! CANN attributes and compatibility, context queries, peer access,
//! stream configuration, stream memory operations, built-in tasks, the
//! registered allocator, saturation and overflow. Each with its misuses
//! (NULL, stale handles, enums out of range, the wrong device): a status,
//! never a crash or a hang.
//!
//! Its own test binary: every test initialises and finalises the simulator
//! (two devices), so the tests run one at a time.

use cann_sys::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

mod misuse_support;
use misuse_support::{api, finalize, last_error, malloc, no_internal_errors};

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

// ------------------------------------------------------------ data buffers

#[test]
#[serial]
fn data_buffers_record_an_address_and_a_size() {
    // No aclInit needed, as CANN's.
    let mut word = 7u64;
    let p = &mut word as *mut u64 as *mut c_void;
    let b = sim::aclCreateDataBuffer(p, 8);
    assert!(!b.is_null());
    assert_eq!(sim::aclGetDataBufferAddr(b), p);
    assert_eq!(sim::aclGetDataBufferSizeV2(b), 8);
    // Empty buffers exist too (CANN's examples make them for outputs).
    let e = sim::aclCreateDataBuffer(null_mut(), 0);
    assert!(!e.is_null() && e != b);
    assert_eq!(sim::aclGetDataBufferAddr(e), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(e), 0);
    // Update: the new pair, the old memory untouched.
    init();
    let d = malloc(64);
    assert_eq!(sim::aclUpdateDataBuffer(e, d, 64), ACL_SUCCESS);
    assert_eq!(
        (sim::aclGetDataBufferAddr(e), sim::aclGetDataBufferSizeV2(e)),
        (d, 64)
    );
    assert_eq!(word, 7);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_eq!(sim::aclDestroyDataBuffer(e), ACL_SUCCESS);
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(d) }, ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn data_buffer_misuse_is_a_status() {
    // NULL: the getters answer NULL and 0 (as CANN's), the rest refuse.
    assert_eq!(sim::aclGetDataBufferAddr(null()), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(null()), 0);
    assert_eq!(sim::aclDestroyDataBuffer(null()), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        sim::aclUpdateDataBuffer(null_mut(), null_mut(), 0),
        ACL_ERROR_INVALID_PARAM
    );
    assert!(
        last_error().contains("dataBuffer is null"),
        "{}",
        last_error()
    );
    // Destroyed twice, or used after its destroy: a status, never a free.
    let b = sim::aclCreateDataBuffer(null_mut(), 4);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_ERROR_INVALID_PARAM);
    assert!(
        last_error().starts_with("Invalid_Argument(EE1001)")
            && last_error().contains("not a live aclDataBuffer"),
        "{}",
        last_error()
    );
    assert_eq!(
        sim::aclUpdateDataBuffer(b, null_mut(), 1),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(sim::aclGetDataBufferAddr(b), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(b), 0);
    // A pointer that was never a buffer.
    let mut x = 0u8;
    let fake = &mut x as *mut u8 as *mut aclDataBuffer;
    assert_eq!(sim::aclDestroyDataBuffer(fake), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclGetDataBufferSizeV2(fake), 0);
    assert_eq!(x, 0);
    no_internal_errors();
}

// ------------------------------------------------------------ error queries

const THREAD: aclrtLastErrLevel = aclrtLastErrLevel::ACL_RT_THREAD_LEVEL;

#[test]
#[serial]
fn last_error_is_the_thread_s_last_runtime_failure() {
    init();
    // Start clean (earlier failures of this thread).
    sim::aclrtGetLastError(THREAD);
    assert_eq!(sim::aclrtGetLastError(THREAD), ACL_SUCCESS);
    assert_eq!(sim::aclrtPeekAtLastError(THREAD), ACL_SUCCESS);
    // A failed runtime call is recorded; a later success does not clear it.
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!((api().aclrtSetDevice)(7), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!((api().aclrtSetDevice)(0), ACL_SUCCESS);
    }
    assert_eq!(
        sim::aclrtPeekAtLastError(THREAD),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        sim::aclrtPeekAtLastError(THREAD),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        sim::aclrtGetLastError(THREAD),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(sim::aclrtGetLastError(THREAD), ACL_SUCCESS);
    // The latest failure wins.
    assert_eq!(sim::aclDestroyDataBuffer(null()), ACL_ERROR_INVALID_PARAM);
    // SAFETY: a pointer that is no stream: looked up, never dereferenced.
    assert_eq!(
        unsafe { (api().aclrtSynchronizeStream)(0x99 as aclrtStream) },
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(sim::aclrtGetLastError(THREAD), ACL_ERROR_RT_INVALID_HANDLE);
    // Per thread: another thread's failure is not this thread's.
    std::thread::spawn(|| {
        // SAFETY: plain C call.
        unsafe { (api().aclrtSetDevice)(-1) };
        assert_eq!(
            sim::aclrtPeekAtLastError(THREAD),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
    })
    .join()
    .unwrap();
    assert_eq!(sim::aclrtPeekAtLastError(THREAD), ACL_SUCCESS);
    // A stream fault reported by the synchronisation is recorded too.
    let s = misuse_support::stream();
    let d = malloc(512);
    let h = misuse_support::hold(s);
    // SAFETY: a device pointer of 512 bytes, freed while the fill is held.
    unsafe {
        assert_eq!((api().aclrtMemsetAsync)(d, 512, 1, 512, s), ACL_SUCCESS);
        (api().aclrtFree)(d);
    }
    assert_eq!(misuse_support::release(h), ACL_SUCCESS);
    // SAFETY: plain C calls.
    let rc = unsafe { (api().aclrtSynchronizeStream)(s) };
    assert_ne!(rc, ACL_SUCCESS);
    assert_eq!(sim::aclrtGetLastError(THREAD), rc);
    // SAFETY: a live stream.
    unsafe { (api().aclrtDestroyStream)(s) };
    // aclnn statuses are the operator library's, not recorded.
    // SAFETY: NULL arguments are refused, never read.
    let st = unsafe {
        sim::aclnnSliceGetWorkspaceSize(null(), 0, 0, 1, 1, null_mut(), null_mut(), null_mut())
    };
    assert_eq!(st, ACLNN_ERR_PARAM_NULLPTR);
    assert_eq!(sim::aclrtPeekAtLastError(THREAD), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn last_error_refuses_other_levels_and_keeps_the_code() {
    // No aclInit needed.
    assert_eq!(sim::aclDestroyDataBuffer(null()), ACL_ERROR_INVALID_PARAM);
    let bad = aclrtLastErrLevel(1);
    assert_eq!(sim::aclrtGetLastError(bad), ACL_ERROR_INVALID_PARAM);
    assert!(
        last_error().contains("ACL_RT_THREAD_LEVEL"),
        "{}",
        last_error()
    );
    assert_eq!(
        sim::aclrtPeekAtLastError(aclrtLastErrLevel(u32::MAX)),
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: plain C call.
    assert_eq!(
        unsafe { (api().aclrtSetDevice)(-3) },
        ACL_ERROR_UNINITIALIZE
    );
    assert_eq!(sim::aclrtGetLastError(bad), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtGetLastError(THREAD), ACL_ERROR_UNINITIALIZE);
    assert_eq!(sim::aclrtGetLastError(THREAD), ACL_SUCCESS);
    no_internal_errors();
}

// ------------------------------------------------------------ attributes

fn attrs() -> Vec<aclCannAttr> {
    let mut list = null();
    let mut n = 0usize;
    // SAFETY: valid out-pointers.
    assert_eq!(
        unsafe { sim::aclGetCannAttributeList(&mut list, &mut n) },
        ACL_SUCCESS
    );
    // SAFETY: the simulator returns a static list of `n` attributes.
    unsafe { std::slice::from_raw_parts(list, n) }.to_vec()
}

fn attr(a: aclCannAttr) -> i32 {
    let mut v = -1;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { sim::aclGetCannAttribute(a, &mut v) }, ACL_SUCCESS);
    v
}

#[test]
#[serial]
fn cann_attributes_follow_the_soc_family() {
    use aclCannAttr as A;
    // Before aclInit: the SoC aclInit would pick (Ascend910B3, Atlas A2).
    std::env::remove_var("NPU_SIM_SOC");
    assert_eq!(
        attrs(),
        [
            A::ACL_CANN_ATTR_INF_NAN,
            A::ACL_CANN_ATTR_BF16,
            A::ACL_CANN_ATTR_JIT_COMPILE
        ]
    );
    for a in attrs() {
        assert_eq!(attr(a), 1);
    }
    // Atlas inference series: saturation only, no bf16.
    std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
    init();
    assert_eq!(attrs(), [A::ACL_CANN_ATTR_JIT_COMPILE]);
    assert_eq!(attr(A::ACL_CANN_ATTR_INF_NAN), 0);
    assert_eq!(attr(A::ACL_CANN_ATTR_BF16), 0);
    assert_eq!(attr(A::ACL_CANN_ATTR_JIT_COMPILE), 1);
    let mut c = -1;
    let name = |s: &str| std::ffi::CString::new(s).unwrap();
    // SAFETY (block): valid strings and out-pointers.
    unsafe {
        assert_eq!(
            sim::aclrtCheckArchCompatibility(name("Ascend310P1").as_ptr(), &mut c),
            ACL_SUCCESS
        );
        assert_eq!(c, 1);
        assert_eq!(
            sim::aclrtCheckArchCompatibility(name("Ascend910B3").as_ptr(), &mut c),
            ACL_SUCCESS
        );
        assert_eq!(c, 0);
        let mut v = -1;
        assert_eq!(
            sim::aclrtGetDeviceCapability(
                0,
                aclrtDevFeatureType::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                &mut v
            ),
            ACL_SUCCESS
        );
        assert_eq!(v, ACL_DEV_FEATURE_NOT_SUPPORT);
        let mut n = 0u32;
        assert_eq!(
            sim::aclrtGetResInCurrentThread(aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE, &mut n),
            ACL_SUCCESS
        );
        assert_eq!(n, 8);
    }
    finalize();
    std::env::remove_var("NPU_SIM_SOC");
    // Atlas A2 after aclInit, two devices.
    init();
    // SAFETY (block): valid strings and out-pointers.
    unsafe {
        for (soc, want) in [
            ("Ascend910B3", 1),
            ("Ascend910B1", 1),
            ("Ascend910_9391", 0),
            ("Ascend310B4", 0),
            ("NotASoc", 0),
            ("", 0),
        ] {
            let mut c = -1;
            assert_eq!(
                sim::aclrtCheckArchCompatibility(name(soc).as_ptr(), &mut c),
                ACL_SUCCESS
            );
            assert_eq!(c, want, "{soc}");
        }
        for d in 0..2 {
            let mut v = -1;
            assert_eq!(
                sim::aclrtGetDeviceCapability(
                    d,
                    aclrtDevFeatureType::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                    &mut v
                ),
                ACL_SUCCESS
            );
            assert_eq!(v, ACL_DEV_FEATURE_SUPPORT);
            assert_eq!(
                sim::aclrtGetDeviceCapability(
                    d,
                    aclrtDevFeatureType::ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV,
                    &mut v
                ),
                ACL_SUCCESS
            );
            assert_eq!(v, ACL_DEV_FEATURE_NOT_SUPPORT);
        }
        let mut n = 0u32;
        assert_eq!(
            sim::aclrtGetResInCurrentThread(
                aclrtDevResLimitType::ACL_RT_DEV_RES_VECTOR_CORE,
                &mut n
            ),
            ACL_SUCCESS
        );
        assert_eq!(n, 40);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn attribute_and_capability_misuse_is_a_status() {
    std::env::remove_var("NPU_SIM_SOC");
    let mut v = 0;
    let mut n = 0usize;
    let mut list = null();
    let soc = std::ffi::CString::new("Ascend910B3").unwrap();
    // SAFETY (block): NULL pointers are refused, never written.
    unsafe {
        assert_eq!(
            sim::aclGetCannAttributeList(null_mut(), &mut n),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclGetCannAttributeList(&mut list, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclGetCannAttribute(aclCannAttr::ACL_CANN_ATTR_BF16, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        for bad in [
            aclCannAttr::ACL_CANN_ATTR_UNDEFINED,
            aclCannAttr(3),
            aclCannAttr(-7),
        ] {
            assert_eq!(
                sim::aclGetCannAttribute(bad, &mut v),
                ACL_ERROR_INVALID_PARAM
            );
        }
        assert_eq!(
            sim::aclrtCheckArchCompatibility(null(), &mut v),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtCheckArchCompatibility(soc.as_ptr(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        let f = aclrtDevFeatureType::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV;
        // Capabilities and resources need the runtime.
        assert_eq!(
            sim::aclrtGetDeviceCapability(0, f, &mut v),
            ACL_ERROR_UNINITIALIZE
        );
        let mut u = 0u32;
        let cube = aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE;
        assert_eq!(
            sim::aclrtGetResInCurrentThread(cube, &mut u),
            ACL_ERROR_UNINITIALIZE
        );
        init();
        assert_eq!(
            sim::aclrtGetDeviceCapability(2, f, &mut v),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtGetDeviceCapability(-1, f, &mut v),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtGetDeviceCapability(0, aclrtDevFeatureType(2), &mut v),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetDeviceCapability(0, f, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetResInCurrentThread(aclrtDevResLimitType(2), &mut u),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetResInCurrentThread(cube, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        // A thread with no device or context.
        let r = std::thread::spawn(move || {
            let mut u = 0u32;
            sim::aclrtGetResInCurrentThread(cube, &mut u)
        })
        .join()
        .unwrap();
        assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
    }
    finalize();
    no_internal_errors();
}
