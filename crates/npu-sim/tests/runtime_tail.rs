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

#[test]
#[serial]
fn error_verbose_is_declared_and_answers_not_supported() {
    let mut info = aclrtErrorInfo {
        tryRepair: 7,
        hasDetail: 7,
        reserved: [0; 2],
        errorType: aclrtErrorType::ACL_RT_ERROR_OTHERS,
        detail: aclrtErrorInfoDetail {
            aicoreErrType: aclrtAicoreErrorType::ACL_RT_AICORE_ERROR_SW,
        },
    };
    // SAFETY (whole block): `info` is writable; NULL is the case under test.
    unsafe {
        assert_eq!(
            sim::aclrtGetErrorVerbose(0, &mut info),
            ACL_ERROR_UNINITIALIZE
        );
        init();
        assert_eq!(
            sim::aclrtGetErrorVerbose(0, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetErrorVerbose(2, &mut info),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtGetErrorVerbose(-1, &mut info),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtGetErrorVerbose(1, &mut info),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert!(last_error().contains("reserved"), "{}", last_error());
    }
    // Nothing written.
    assert_eq!((info.tryRepair, info.hasDetail), (7, 7));
    assert_eq!(info.errorType, aclrtErrorType::ACL_RT_ERROR_OTHERS);
    no_internal_errors();
    finalize();
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

// ------------------------------------------------------------ peer access

#[test]
#[serial]
fn peer_access_between_two_devices() {
    init();
    let mut can = -1;
    // SAFETY (block): plain C calls with valid out-pointers and device
    // pointers of the sizes given.
    unsafe {
        assert_eq!(sim::aclrtDeviceCanAccessPeer(&mut can, 0, 1), ACL_SUCCESS);
        assert_eq!(can, 1);
        assert_eq!(sim::aclrtDeviceCanAccessPeer(&mut can, 1, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
        assert!(sim::peer_access_enabled(0, 1) && !sim::peer_access_enabled(1, 0));
        let d0 = malloc(64);
        assert_eq!((api().aclrtMemset)(d0, 64, 0x5a, 64), ACL_SUCCESS);
        assert_eq!((api().aclrtSetDevice)(1), ACL_SUCCESS);
        assert_eq!(sim::aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
        assert!(sim::peer_access_enabled(1, 0));
        let d1 = malloc(64);
        let kind = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE;
        assert_eq!((api().aclrtMemcpy)(d1, 64, d0, 64, kind), ACL_SUCCESS);
        let mut host = [0u8; 64];
        let d2h = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST;
        let hp = host.as_mut_ptr() as *mut c_void;
        assert_eq!((api().aclrtMemcpy)(hp, 64, d1, 64, d2h), ACL_SUCCESS);
        assert_eq!(host, [0x5a; 64]);
        assert_eq!(sim::aclrtDeviceDisablePeerAccess(0), ACL_SUCCESS);
        assert!(!sim::peer_access_enabled(1, 0));
        // Not enabled: nothing to undo.
        assert_eq!(sim::aclrtDeviceDisablePeerAccess(0), ACL_SUCCESS);
        // Copies between devices do not need an enabled link (a
        // documented difference).
        assert_eq!((api().aclrtMemcpy)(d1, 64, d0, 64, kind), ACL_SUCCESS);
        (api().aclrtFree)(d1);
        (api().aclrtFree)(d0);
    }
    finalize();
    // A new runtime starts with no link enabled.
    init();
    assert!(!sim::peer_access_enabled(0, 1));
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn peer_access_misuse_is_a_status() {
    let mut can = 0;
    // SAFETY (block): NULL pointers are refused, never written.
    unsafe {
        assert_eq!(
            sim::aclrtDeviceCanAccessPeer(&mut can, 0, 1),
            ACL_ERROR_UNINITIALIZE
        );
        assert_eq!(
            sim::aclrtDeviceEnablePeerAccess(1, 0),
            ACL_ERROR_UNINITIALIZE
        );
        init();
        assert_eq!(
            sim::aclrtDeviceCanAccessPeer(null_mut(), 0, 1),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceCanAccessPeer(&mut can, 0, 0),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceCanAccessPeer(&mut can, 0, 2),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtDeviceCanAccessPeer(&mut can, -1, 1),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtDeviceEnablePeerAccess(1, 1),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceEnablePeerAccess(0, 0),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceEnablePeerAccess(5, 0),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtDeviceDisablePeerAccess(-2),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtDeviceDisablePeerAccess(0),
            ACL_ERROR_INVALID_PARAM
        );
        // A thread without a device.
        let r = std::thread::spawn(|| sim::aclrtDeviceEnablePeerAccess(1, 0))
            .join()
            .unwrap();
        assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
    }
    finalize();
    no_internal_errors();
}

// ------------------------------------------------------------ stream config

fn priority(s: aclrtStream) -> u32 {
    let mut p = 99;
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtStreamGetPriority(s, &mut p) },
        ACL_SUCCESS
    );
    p
}

fn flags(s: aclrtStream) -> u32 {
    let mut f = 99;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { sim::aclrtStreamGetFlags(s, &mut f) }, ACL_SUCCESS);
    f
}

fn id(s: aclrtStream) -> i32 {
    let mut i = -1;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { sim::aclrtStreamGetId(s, &mut i) }, ACL_SUCCESS);
    i
}

#[test]
#[serial]
fn streams_keep_their_priority_flags_and_id() {
    init();
    let fast = (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC) as u32;
    let mut s = null_mut();
    // SAFETY (block): valid out-pointers and values of the sizes given.
    unsafe {
        assert_eq!(
            sim::aclrtCreateStreamWithConfig(&mut s, 3, fast),
            ACL_SUCCESS
        );
        assert_eq!((priority(s), flags(s)), (3, fast));
        let plain = misuse_support::stream();
        assert_eq!((priority(plain), flags(plain)), (0, 0));
        // The default stream (NULL).
        assert_eq!((priority(null_mut()), flags(null_mut())), (0, 0));
        let ids = [id(s), id(plain), id(null_mut())];
        assert!(ids.iter().all(|&i| i > 0), "{ids:?}");
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
        assert_eq!(id(s), ids[0], "the same id on every call");
        // Work runs on it as on any stream.
        let d = malloc(256);
        assert_eq!((api().aclrtMemsetAsync)(d, 256, 1, 256, s), ACL_SUCCESS);
        assert_eq!((api().aclrtSynchronizeStream)(s), ACL_SUCCESS);
        (api().aclrtFree)(d);
        // A configuration handle, as the stream-config example uses one.
        let h = sim::aclrtCreateStreamConfigHandle();
        assert!(!h.is_null());
        assert_eq!(((*h).priority, (*h).flag), (0, 0));
        let f: u32 = ACL_STREAM_HUGE as u32;
        let p: u32 = 7;
        let work: usize = 4096;
        type A = aclrtStreamConfigAttr;
        let set = |a, v: *const c_void, n| sim::aclrtSetStreamConfigOpt(h, a, v, n);
        assert_eq!(
            set(A::ACL_RT_STREAM_FLAG, &f as *const u32 as _, 4),
            ACL_SUCCESS
        );
        assert_eq!(
            set(A::ACL_RT_STREAM_PRIORITY, &p as *const u32 as _, 4),
            ACL_SUCCESS
        );
        assert_eq!(
            set(A::ACL_RT_STREAM_WORK_SIZE, &work as *const usize as _, 8),
            ACL_SUCCESS
        );
        assert_eq!(
            ((*h).priority, (*h).flag, (*h).workSize),
            (7, f as usize, 4096)
        );
        let mut v2 = null_mut();
        assert_eq!(sim::aclrtCreateStreamV2(&mut v2, h), ACL_SUCCESS);
        assert_eq!((priority(v2), flags(v2)), (7, f));
        assert_eq!(sim::aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
        for st in [s, plain, v2] {
            assert_eq!((api().aclrtDestroyStream)(st), ACL_SUCCESS);
        }
        // Destroyed: a status.
        let mut x = 0u32;
        assert_eq!(
            sim::aclrtStreamGetPriority(s, &mut x),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let mut i = 0i32;
        assert_eq!(
            sim::aclrtStreamGetId(v2, &mut i),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }
    assert_eq!(npu_sim::stats().streams, 0);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn stream_config_misuse_is_a_status() {
    init();
    let mut s = null_mut();
    // SAFETY (block): NULL and stale pointers are refused, never used.
    unsafe {
        assert_eq!(
            sim::aclrtCreateStreamWithConfig(null_mut(), 0, 0),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtCreateStreamWithConfig(&mut s, 8, 0),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtCreateStreamWithConfig(&mut s, 0, 0x40),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(s.is_null());
        assert_eq!(npu_sim::stats().streams, 0);
        let mut u = 0u32;
        assert_eq!(
            sim::aclrtStreamGetFlags(null_mut(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtStreamGetFlags(0x77 as aclrtStream, &mut u),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let h = sim::aclrtCreateStreamConfigHandle();
        let p: u32 = 9;
        type A = aclrtStreamConfigAttr;
        let pp = &p as *const u32 as *const c_void;
        assert_eq!(
            sim::aclrtSetStreamConfigOpt(h, A::ACL_RT_STREAM_PRIORITY, pp, 8),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtSetStreamConfigOpt(h, A::ACL_RT_STREAM_PRIORITY, null(), 4),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtSetStreamConfigOpt(h, aclrtStreamConfigAttr(4), pp, 4),
            ACL_ERROR_INVALID_PARAM
        );
        // Set, then refused when the stream is made.
        assert_eq!(
            sim::aclrtSetStreamConfigOpt(h, A::ACL_RT_STREAM_PRIORITY, pp, 4),
            ACL_SUCCESS
        );
        assert_eq!(sim::aclrtCreateStreamV2(&mut s, h), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtCreateStreamV2(null_mut(), h),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtDestroyStreamConfigHandle(h),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtSetStreamConfigOpt(h, A::ACL_RT_STREAM_PRIORITY, pp, 4),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtCreateStreamV2(&mut s, h), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtCreateStreamV2(&mut s, null()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDestroyStreamConfigHandle(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        // A thread without a device cannot create one.
        let r = std::thread::spawn(|| {
            let mut s = null_mut();
            sim::aclrtCreateStreamWithConfig(&mut s, 0, 0)
        })
        .join()
        .unwrap();
        assert_eq!(r, ACL_ERROR_RT_CONTEXT_NULL);
    }
    finalize();
    no_internal_errors();
}
