//! The device, system and synchronisation extras (docs/runtime.md,
//! "Device, system and synchronisation extras"), through the C ABI: init
//! and finalize callbacks and the reference-counted finalisation, with
//! their misuses (NULL, unknown registrations, finalising twice): a
//! status, never a crash or a hang.
//!
//! Its own test binary: the tests initialise and finalise the simulator
//! (two devices), so they run one at a time.

use cann_sys::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::{c_char, c_void};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod misuse_support;
use misuse_support::{api, finalize, last_error, no_internal_errors};

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

const OTHER: aclRegisterCallbackType = aclRegisterCallbackType::ACL_REG_TYPE_OTHER;

static INITS: AtomicUsize = AtomicUsize::new(0);
static FINIS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_init(_c: *const c_char, _len: usize, data: *mut c_void) -> aclError {
    assert!(!data.is_null());
    INITS.fetch_add(1, Ordering::SeqCst);
    ACL_SUCCESS
}
unsafe extern "C" fn on_init_other(_c: *const c_char, _len: usize, _d: *mut c_void) -> aclError {
    ACL_SUCCESS
}
unsafe extern "C" fn on_init_fails(_c: *const c_char, _len: usize, _d: *mut c_void) -> aclError {
    ACL_ERROR_INVALID_PARAM
}
unsafe extern "C" fn on_fini(data: *mut c_void) -> aclError {
    assert!(!data.is_null());
    // The runtime is still up while the finalize callbacks run.
    let mut n = 0u32;
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { sim::aclrtGetDeviceCount(&mut n) }, ACL_SUCCESS);
    FINIS.fetch_add(1, Ordering::SeqCst);
    ACL_SUCCESS
}

fn data() -> *mut c_void {
    &INITS as *const AtomicUsize as *mut c_void
}

#[test]
#[serial]
fn init_and_finalize_callbacks_run_with_the_lifecycle() {
    // SAFETY: plain C call.
    unsafe { (api().aclFinalize)() };
    INITS.store(0, Ordering::SeqCst);
    FINIS.store(0, Ordering::SeqCst);
    // Before aclInit: runs during it; a cancelled one never runs.
    assert_eq!(
        sim::aclInitCallbackRegister(OTHER, Some(on_init), data()),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclInitCallbackRegister(OTHER, Some(on_init_other), data()),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclInitCallbackUnRegister(OTHER, Some(on_init_other)),
        ACL_SUCCESS
    );
    init();
    assert_eq!(INITS.load(Ordering::SeqCst), 1);
    // After aclInit: runs at once.
    let model = aclRegisterCallbackType::ACL_REG_TYPE_ACL_MODEL;
    assert_eq!(
        sim::aclInitCallbackRegister(model, Some(on_init), data()),
        ACL_SUCCESS
    );
    assert_eq!(INITS.load(Ordering::SeqCst), 2);
    // One per type except OTHER.
    assert_eq!(
        sim::aclInitCallbackRegister(model, Some(on_init_other), data()),
        ACL_ERROR_INTERNAL_ERROR
    );
    assert!(last_error().contains("already has a callback"));
    assert_eq!(
        sim::aclInitCallbackUnRegister(model, Some(on_init)),
        ACL_SUCCESS
    );
    // Finalize callbacks run at aclFinalize, the runtime still up.
    assert_eq!(
        sim::aclFinalizeCallbackRegister(OTHER, Some(on_fini), data()),
        ACL_SUCCESS
    );
    finalize();
    assert_eq!(FINIS.load(Ordering::SeqCst), 1);
    // Registrations outlive the finalisation.
    assert_eq!(
        sim::aclFinalizeCallbackUnRegister(OTHER, Some(on_fini)),
        ACL_SUCCESS
    );
    assert_eq!(
        sim::aclInitCallbackUnRegister(OTHER, Some(on_init)),
        ACL_SUCCESS
    );
    no_internal_errors();
}

#[test]
#[serial]
fn callback_registration_misuse_is_a_status() {
    assert_eq!(
        sim::aclInitCallbackRegister(OTHER, None, null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclInitCallbackUnRegister(OTHER, None),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclFinalizeCallbackRegister(OTHER, None, null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclFinalizeCallbackUnRegister(OTHER, None),
        ACL_ERROR_INVALID_PARAM
    );
    // Never registered.
    assert_eq!(
        sim::aclInitCallbackUnRegister(OTHER, Some(on_init)),
        ACL_ERROR_INTERNAL_ERROR
    );
    assert_eq!(
        sim::aclFinalizeCallbackUnRegister(OTHER, Some(on_fini)),
        ACL_ERROR_INTERNAL_ERROR
    );
    // A failing init callback fails aclInit and leaves it uninitialised.
    // SAFETY: plain C calls.
    unsafe { (api().aclFinalize)() };
    assert_eq!(
        sim::aclInitCallbackRegister(OTHER, Some(on_init_fails), null_mut()),
        ACL_SUCCESS
    );
    // SAFETY: plain C call.
    assert_eq!(unsafe { (api().aclInit)(null()) }, ACL_ERROR_INVALID_PARAM);
    let mut n = 0u32;
    // SAFETY: a valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtGetDeviceCount(&mut n) },
        ACL_ERROR_UNINITIALIZE
    );
    assert_eq!(
        sim::aclInitCallbackUnRegister(OTHER, Some(on_init_fails)),
        ACL_SUCCESS
    );
    no_internal_errors();
}

#[test]
#[serial]
fn finalize_reference_counts_the_inits() {
    init();
    // A repeated aclInit is refused but takes a reference.
    // SAFETY: plain C calls; valid out-pointers.
    unsafe {
        assert_eq!((api().aclInit)(null()), ACL_ERROR_REPEAT_INITIALIZE);
        let mut left = 99u64;
        assert_eq!(sim::aclFinalizeReference(&mut left), ACL_SUCCESS);
        assert_eq!(left, 1);
        let mut n = 0u32;
        assert_eq!(
            sim::aclrtGetDeviceCount(&mut n),
            ACL_SUCCESS,
            "still initialised"
        );
        // The last reference finalises (NULL count allowed).
        assert_eq!(sim::aclFinalizeReference(null_mut()), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetDeviceCount(&mut n), ACL_ERROR_UNINITIALIZE);
        // Nothing left to give back.
        assert_eq!(
            sim::aclFinalizeReference(&mut left),
            ACL_ERROR_REPEAT_FINALIZE
        );
        assert_eq!((api().aclFinalize)(), ACL_ERROR_REPEAT_FINALIZE);
    }
    // aclFinalize clears every reference at once.
    init();
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!((api().aclInit)(null()), ACL_ERROR_REPEAT_INITIALIZE);
        assert_eq!((api().aclFinalize)(), ACL_SUCCESS);
        assert_eq!(
            sim::aclFinalizeReference(null_mut()),
            ACL_ERROR_REPEAT_FINALIZE
        );
    }
    no_internal_errors();
}

// --------------------------------------------------------- device identity

#[test]
#[serial]
fn device_ids_map_to_themselves() {
    init();
    // SAFETY: valid out-pointers.
    unsafe {
        for d in 0..2 {
            let (mut l, mut u, mut p, mut u2) = (-1, -1, -1, -1);
            assert_eq!(sim::aclrtGetLogicDevIdByUserDevId(d, &mut l), ACL_SUCCESS);
            assert_eq!(sim::aclrtGetUserDevIdByLogicDevId(l, &mut u), ACL_SUCCESS);
            assert_eq!(sim::aclrtGetPhyDevIdByUserDevId(d, &mut p), ACL_SUCCESS);
            assert_eq!(sim::aclrtGetUserDevIdByPhyDevId(p, &mut u2), ACL_SUCCESS);
            assert_eq!((l, u, p, u2), (d, d, d, d));
        }
        let mut x = -1;
        for bad in [-1, 2, i32::MAX] {
            assert_eq!(
                sim::aclrtGetLogicDevIdByUserDevId(bad, &mut x),
                ACL_ERROR_RT_INVALID_DEVICEID
            );
            assert_eq!(
                sim::aclrtGetUserDevIdByPhyDevId(bad, &mut x),
                ACL_ERROR_RT_INVALID_DEVICEID
            );
        }
        assert_eq!(x, -1);
        assert_eq!(
            sim::aclrtGetPhyDevIdByUserDevId(0, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    let mut x = 0;
    // SAFETY: a valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtGetLogicDevIdByUserDevId(0, &mut x) },
        ACL_ERROR_UNINITIALIZE
    );
    no_internal_errors();
}

#[test]
#[serial]
fn uuids_are_stable_and_distinct() {
    init();
    let get = |d| {
        let mut u = aclrtUuid { bytes: [0; 16] };
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { sim::aclrtDeviceGetUuid(d, &mut u) }, ACL_SUCCESS);
        u.bytes
    };
    let (a, b) = (get(0), get(1));
    assert_ne!(a, b);
    assert_ne!(a, [0; 16]);
    assert_eq!(a, get(0));
    // Stable across a finalisation.
    finalize();
    init();
    assert_eq!(a, get(0));
    // SAFETY: a null or valid out-pointer.
    unsafe {
        assert_eq!(
            sim::aclrtDeviceGetUuid(0, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        let mut u = aclrtUuid { bytes: [0; 16] };
        assert_eq!(
            sim::aclrtDeviceGetUuid(2, &mut u),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(u.bytes, [0; 16]);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn pci_bus_ids_round_trip() {
    init();
    // SAFETY: valid buffers of the given sizes; C strings.
    unsafe {
        for d in 0..2 {
            let mut buf = [0 as c_char; 64];
            assert_eq!(
                sim::aclrtDeviceGetPCIBusId(d, buf.as_mut_ptr(), 64),
                ACL_SUCCESS
            );
            let s = std::ffi::CStr::from_ptr(buf.as_ptr())
                .to_str()
                .unwrap()
                .to_owned();
            assert_eq!(s.len(), 12, "{s}");
            let mut back = -1;
            assert_eq!(
                sim::aclrtDeviceGetByPCIBusId(buf.as_ptr(), &mut back),
                ACL_SUCCESS
            );
            assert_eq!(back, d);
        }
        // Too small (the NUL counts), NULL, negative, no such device.
        let mut small = [0x7f as c_char; 12];
        assert_eq!(
            sim::aclrtDeviceGetPCIBusId(0, small.as_mut_ptr(), 12),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(small.iter().all(|&c| c == 0x7f));
        assert_eq!(
            sim::aclrtDeviceGetPCIBusId(0, null_mut(), 64),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceGetPCIBusId(0, small.as_mut_ptr(), -1),
            ACL_ERROR_INVALID_PARAM
        );
        let mut buf = [0 as c_char; 64];
        assert_eq!(
            sim::aclrtDeviceGetPCIBusId(5, buf.as_mut_ptr(), 64),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        let mut d = -1;
        assert_eq!(
            sim::aclrtDeviceGetByPCIBusId(c"0000:7f:00.0".as_ptr(), &mut d),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceGetByPCIBusId(c"garbage".as_ptr(), &mut d),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceGetByPCIBusId(null(), &mut d),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtDeviceGetByPCIBusId(c"0000:01:00.0".as_ptr(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(d, -1);
    }
    finalize();
    no_internal_errors();
}

// ----------------------------------------------------------------- timeouts

#[test]
#[serial]
fn op_timeouts_align_to_the_interval() {
    init();
    // SAFETY: valid out-pointers.
    unsafe {
        let mut iv = 0u64;
        assert_eq!(sim::aclrtGetOpTimeOutInterval(&mut iv), ACL_SUCCESS);
        assert!(iv > 0);
        // Default: the maximum, 254 intervals.
        let mut ms = 0u32;
        assert_eq!(sim::aclrtGetOpExecuteTimeout(&mut ms), ACL_SUCCESS);
        assert_eq!(u64::from(ms), iv * 254 / 1000);
        // Seconds, rounded up to intervals.
        assert_eq!(sim::aclrtSetOpExecuteTimeOut(1), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetOpExecuteTimeout(&mut ms), ACL_SUCCESS);
        assert_eq!(u64::from(ms), 1_000_000u64.div_ceil(iv) * iv / 1000);
        // Microseconds: interval + 1 is two intervals; 0 and huge the maximum.
        let mut actual = 0u64;
        assert_eq!(
            sim::aclrtSetOpExecuteTimeOutV2(iv + 1, &mut actual),
            ACL_SUCCESS
        );
        assert_eq!(actual, 2 * iv);
        assert_eq!(sim::aclrtSetOpExecuteTimeOutV2(0, &mut actual), ACL_SUCCESS);
        assert_eq!(actual, 254 * iv);
        assert_eq!(
            sim::aclrtSetOpExecuteTimeOutV2(u64::MAX, &mut actual),
            ACL_SUCCESS
        );
        assert_eq!(actual, 254 * iv);
        assert_eq!(sim::aclrtSetOpExecuteTimeOutV2(1, &mut actual), ACL_SUCCESS);
        assert_eq!(actual, iv);
        assert_eq!(sim::aclrtGetOpExecuteTimeout(&mut ms), ACL_SUCCESS);
        assert_eq!(u64::from(ms), iv / 1000);
        // Misuse.
        assert_eq!(
            sim::aclrtGetOpTimeOutInterval(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetOpExecuteTimeout(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtSetOpExecuteTimeOutV2(5, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtGetOpExecuteTimeout(&mut ms), ACL_SUCCESS);
        assert_eq!(u64::from(ms), iv / 1000, "a refused call sets nothing");
        assert_eq!(sim::aclrtSetOpWaitTimeout(5), ACL_SUCCESS);
        assert_eq!(sim::op_wait_timeout(), 5);
        assert_eq!(sim::aclrtSetOpWaitTimeout(0), ACL_SUCCESS);
        assert_eq!(sim::aclrtSetOpExecuteTimeOutV2(0, &mut actual), ACL_SUCCESS);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn device_sync_with_timeout_gives_up_and_then_succeeds() {
    init();
    let s = misuse_support::stream();
    let mut hold = null_mut();
    // SAFETY: a live stream, a valid out-pointer.
    assert_eq!(unsafe { sim::npuSimHoldStream(s, &mut hold) }, ACL_SUCCESS);
    let t = std::time::Instant::now();
    assert_eq!(
        sim::aclrtSynchronizeDeviceWithTimeout(50),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert!(t.elapsed() >= std::time::Duration::from_millis(50));
    assert!(last_error().contains("within 50 ms"), "{}", last_error());
    // SAFETY: a live hold.
    assert_eq!(unsafe { sim::npuSimReleaseHold(hold) }, ACL_SUCCESS);
    assert_eq!(sim::aclrtSynchronizeDeviceWithTimeout(1000), ACL_SUCCESS);
    assert_eq!(sim::aclrtSynchronizeDeviceWithTimeout(-1), ACL_SUCCESS);
    for bad in [0, -2, i32::MIN] {
        assert_eq!(
            sim::aclrtSynchronizeDeviceWithTimeout(bad),
            ACL_ERROR_INVALID_PARAM
        );
    }
    // SAFETY: a live stream.
    assert_eq!(unsafe { (api().aclrtDestroyStream)(s) }, ACL_SUCCESS);
    finalize();
    assert_eq!(
        sim::aclrtSynchronizeDeviceWithTimeout(10),
        ACL_ERROR_UNINITIALIZE
    );
    no_internal_errors();
}

// ------------------------------------------------------- system parameters

const DET: aclSysParamOpt = aclSysParamOpt::ACL_OPT_DETERMINISTIC;

#[test]
#[serial]
fn sys_params_per_process_and_per_context() {
    init();
    // SAFETY: valid out-pointers; contexts made here.
    unsafe {
        let mut v = -1i64;
        assert_eq!(sim::aclrtSetSysParamOpt(DET, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 0);
        assert_eq!(sim::aclrtSetSysParamOpt(DET, 2), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 2);
        // A context without its own value reads the process's.
        let (mut a, mut b) = (null_mut(), null_mut());
        assert_eq!(sim::aclrtCreateContext(&mut a, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtCtxGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 2);
        assert_eq!(sim::aclrtCtxSetSysParamOpt(DET, 1), ACL_SUCCESS);
        assert_eq!(sim::aclrtCreateContext(&mut b, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtCtxSetSysParamOpt(DET, 0), ACL_SUCCESS);
        assert_eq!(sim::aclrtSetCurrentContext(a), ACL_SUCCESS);
        assert_eq!(sim::aclrtCtxGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 1);
        assert_eq!(sim::aclrtSetCurrentContext(b), ACL_SUCCESS);
        assert_eq!(sim::aclrtCtxGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 0);
        // The process value is untouched by the contexts'.
        assert_eq!(sim::aclrtGetSysParamOpt(DET, &mut v), ACL_SUCCESS);
        assert_eq!(v, 2);
        // Misuse.
        let bad = aclSysParamOpt(7);
        assert_eq!(sim::aclrtSetSysParamOpt(bad, 1), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtGetSysParamOpt(bad, &mut v),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtCtxSetSysParamOpt(bad, 1), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtGetSysParamOpt(DET, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtCtxGetSysParamOpt(DET, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        // A destroyed current context is no context.
        assert_eq!(sim::aclrtDestroyContext(b), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtCtxSetSysParamOpt(DET, 1),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        assert_eq!(
            sim::aclrtCtxGetSysParamOpt(DET, &mut v),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        assert_eq!(sim::aclrtDestroyContext(a), ACL_SUCCESS);
        // A thread with no context at all.
        let t = std::thread::spawn(|| {
            let mut v = 0i64;
            (
                sim::aclrtCtxSetSysParamOpt(DET, 1),
                sim::aclrtCtxGetSysParamOpt(DET, &mut v),
            )
        });
        assert_eq!(
            t.join().unwrap(),
            (ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_CONTEXT_NULL)
        );
        assert_eq!(sim::aclrtSetSysParamOpt(DET, 0), ACL_SUCCESS);
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn primary_context_follows_set_and_reset_device() {
    // SAFETY: plain C calls; valid out-pointers.
    unsafe {
        (api().aclFinalize)();
        std::env::set_var("NPU_SIM_DEVICES", "2");
        assert_eq!((api().aclInit)(null()), ACL_SUCCESS);
        let (mut flags, mut active) = (9u32, 9i32);
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(0, null_mut(), &mut active),
            ACL_SUCCESS
        );
        assert_eq!(active, 0);
        assert_eq!((api().aclrtSetDevice)(0), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(0, &mut flags, &mut active),
            ACL_SUCCESS
        );
        assert_eq!((flags, active), (0, 1));
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(1, null_mut(), &mut active),
            ACL_SUCCESS
        );
        assert_eq!(active, 0);
        assert_eq!(sim::aclrtResetDeviceForce(0), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(0, null_mut(), &mut active),
            ACL_SUCCESS
        );
        assert_eq!(active, 0);
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(2, null_mut(), &mut active),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            sim::aclrtGetPrimaryCtxState(0, null_mut(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    let mut active = 0;
    // SAFETY: a valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtGetPrimaryCtxState(0, null_mut(), &mut active) },
        ACL_ERROR_UNINITIALIZE
    );
    no_internal_errors();
}

// ------------------------------------------------------------------ notify

fn notify() -> aclrtNotify {
    let mut n = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(
        unsafe { sim::aclrtCreateNotify(&mut n, ACL_NOTIFY_DEFAULT as u64) },
        ACL_SUCCESS
    );
    n
}

#[test]
#[serial]
fn notify_orders_two_streams() {
    init();
    let (producer, consumer) = (misuse_support::stream(), misuse_support::stream());
    let n = notify();
    let (mut id, mut id2) = (0u32, 0u32);
    // SAFETY: valid out-pointers; live handles.
    unsafe {
        assert_eq!(sim::aclrtGetNotifyId(n, &mut id), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetNotifyId(n, &mut id2), ACL_SUCCESS);
        assert_eq!(id, id2);
        let other = notify();
        assert_eq!(sim::aclrtGetNotifyId(other, &mut id2), ACL_SUCCESS);
        assert_ne!(id, id2);
        assert_eq!(sim::aclrtDestroyNotify(other), ACL_SUCCESS);
    }
    for _round in 0..3 {
        // The producer is held: the consumer's later work must wait for
        // the record behind the hold.
        let mut hold = null_mut();
        // SAFETY: a live stream, a valid out-pointer.
        assert_eq!(
            unsafe { sim::npuSimHoldStream(producer, &mut hold) },
            ACL_SUCCESS
        );
        assert_eq!(sim::aclrtRecordNotify(n, producer), ACL_SUCCESS);
        assert_eq!(sim::aclrtWaitAndResetNotify(n, consumer, 0), ACL_SUCCESS);
        std::thread::sleep(std::time::Duration::from_millis(30));
        let mut st = aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE;
        // SAFETY: a valid out-pointer.
        assert_eq!(
            unsafe { (api().aclrtStreamQuery)(consumer, &mut st) },
            ACL_SUCCESS
        );
        assert_eq!(st, aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY);
        // SAFETY: a live hold.
        assert_eq!(unsafe { sim::npuSimReleaseHold(hold) }, ACL_SUCCESS);
        // SAFETY: live streams.
        unsafe {
            assert_eq!((api().aclrtSynchronizeStream)(producer), ACL_SUCCESS);
            assert_eq!((api().aclrtSynchronizeStream)(consumer), ACL_SUCCESS);
        }
        let mut ns = [n];
        // SAFETY: an array of one live notify.
        assert_eq!(
            unsafe { sim::aclrtNotifyBatchReset(ns.as_mut_ptr(), 1) },
            ACL_SUCCESS
        );
    }
    // A record reached before the wait is consumed by it.
    assert_eq!(sim::aclrtRecordNotify(n, producer), ACL_SUCCESS);
    // SAFETY: a live stream.
    assert_eq!(
        unsafe { (api().aclrtSynchronizeStream)(producer) },
        ACL_SUCCESS
    );
    assert_eq!(sim::aclrtWaitAndResetNotify(n, consumer, 0), ACL_SUCCESS);
    // SAFETY: a live stream.
    assert_eq!(
        unsafe { (api().aclrtSynchronizeStream)(consumer) },
        ACL_SUCCESS
    );
    // A batch reset clears a record not yet waited for: the next wait
    // times out (1 s) and faults the stream.
    assert_eq!(sim::aclrtRecordNotify(n, producer), ACL_SUCCESS);
    // SAFETY: a live stream; an array of one live notify.
    unsafe {
        assert_eq!((api().aclrtSynchronizeStream)(producer), ACL_SUCCESS);
        let mut ns = [n];
        assert_eq!(sim::aclrtNotifyBatchReset(ns.as_mut_ptr(), 1), ACL_SUCCESS);
    }
    assert_eq!(sim::aclrtWaitAndResetNotify(n, consumer, 1), ACL_SUCCESS);
    // SAFETY: a live stream.
    assert_eq!(
        unsafe { (api().aclrtSynchronizeStream)(consumer) },
        ACL_ERROR_RT_WAIT_TIMEOUT
    );
    assert!(
        last_error().contains("not recorded within 1 s"),
        "{}",
        last_error()
    );
    assert_eq!(sim::aclrtDestroyNotify(n), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn notify_teardown_never_hangs_and_misuse_is_a_status() {
    init();
    let s = misuse_support::stream();
    let n = notify();
    // A wait nobody records: destroying the notify lets the stream go on.
    assert_eq!(sim::aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    assert_eq!(sim::aclrtDestroyNotify(n), ACL_SUCCESS);
    let sa = s as usize;
    misuse_support::returns("sync after destroy", move || {
        // SAFETY: a live stream.
        unsafe { (api().aclrtSynchronizeStream)(sa as aclrtStream) }
    });
    // Stale and bogus handles.
    let mut id = 0u32;
    // SAFETY: valid out-pointers and arrays; bogus handles are only looked up.
    unsafe {
        assert_eq!(sim::aclrtDestroyNotify(n), ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtRecordNotify(n, s), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtWaitAndResetNotify(n, s, 0),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtGetNotifyId(n, &mut id), ACL_ERROR_INVALID_PARAM);
        let bogus = 0x1234usize as aclrtNotify;
        assert_eq!(sim::aclrtDestroyNotify(bogus), ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtDestroyNotify(null_mut()), ACL_ERROR_INVALID_PARAM);
        let live = notify();
        assert_eq!(
            sim::aclrtGetNotifyId(live, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtRecordNotify(live, 0x4321usize as aclrtStream),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let mut ns = [live, n];
        assert_eq!(
            sim::aclrtNotifyBatchReset(ns.as_mut_ptr(), 2),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtNotifyBatchReset(null_mut(), 1),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtNotifyBatchReset(null_mut(), 0), ACL_SUCCESS);
        let mut out = null_mut();
        assert_eq!(sim::aclrtCreateNotify(&mut out, 4), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtCreateNotify(null_mut(), 0),
            ACL_ERROR_INVALID_PARAM
        );
        // A wait nobody records, then aclFinalize: it returns.
        assert_eq!(sim::aclrtWaitAndResetNotify(live, s, 0), ACL_SUCCESS);
        // (The enclosing unsafe block covers the plain C call.)
        misuse_support::returns("aclFinalize with a pending notify wait", || {
            (api().aclFinalize)()
        });
        // Stale after aclFinalize.
        init();
        assert_eq!(
            sim::aclrtGetNotifyId(live, &mut id),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    no_internal_errors();
}

// ------------------------------------------------------------------ groups

#[test]
#[serial]
fn groups_are_not_supported_on_a2() {
    std::env::remove_var("NPU_SIM_SOC");
    init();
    let mut n = 7u32;
    // SAFETY: valid out-pointers; bogus handles are only looked up.
    unsafe {
        assert_eq!(
            sim::aclrtGetGroupCount(&mut n),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(n, 7);
        assert!(sim::aclrtCreateGroupInfo().is_null());
        assert!(last_error().contains("not supported"), "{}", last_error());
        assert_eq!(sim::aclrtSetGroup(0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        assert_eq!(
            sim::aclrtGetAllGroupInfo(0x40usize as *mut aclrtGroupInfo),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn one_group_holds_the_whole_device_elsewhere() {
    std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
    init();
    // SAFETY: valid out-pointers and buffers; blocks made here.
    unsafe {
        let mut n = 0u32;
        assert_eq!(sim::aclrtGetGroupCount(&mut n), ACL_SUCCESS);
        assert_eq!(n, 1);
        let info = sim::aclrtCreateGroupInfo();
        assert!(!info.is_null());
        let (mut v, mut size) = (-1i32, 0usize);
        let p = &mut v as *mut i32 as *mut c_void;
        let id = aclrtGroupAttr::ACL_GROUP_GROUPID_INT;
        // Not filled yet.
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, id, p, 4, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtGetAllGroupInfo(info), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, id, p, 4, &mut size),
            ACL_SUCCESS
        );
        assert_eq!((v, size), (0, 4));
        let mut cube = 0u32;
        assert_eq!(
            sim::aclrtGetResInCurrentThread(
                aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE,
                &mut cube
            ),
            ACL_SUCCESS
        );
        let core = aclrtGroupAttr::ACL_GROUP_AICORE_INT;
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, core, p, 8, &mut size),
            ACL_SUCCESS
        );
        assert_eq!(v as u32, cube);
        assert_eq!(sim::aclrtSetGroup(0), ACL_SUCCESS);
        // Misuse.
        assert_eq!(sim::aclrtSetGroup(1), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 1, id, p, 4, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, -1, id, p, 4, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, aclrtGroupAttr(9), p, 4, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, id, p, 2, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtGetGroupInfoDetail(info, 0, id, null_mut(), 4, &mut size),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(sim::aclrtGetGroupCount(null_mut()), ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtDestroyGroupInfo(info), ACL_SUCCESS);
        assert_eq!(sim::aclrtDestroyGroupInfo(info), ACL_ERROR_INVALID_PARAM);
        assert_eq!(sim::aclrtGetAllGroupInfo(info), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            sim::aclrtDestroyGroupInfo(null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    std::env::remove_var("NPU_SIM_SOC");
    no_internal_errors();
}

// ---------------------------------------------------------------- snapshot

static STAGES: Mutex<Vec<(i32, i32)>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_stage(device: i32, args: *mut c_void) -> u32 {
    STAGES.lock().unwrap().push((device, args as usize as i32));
    0
}
unsafe extern "C" fn refuses(_device: i32, _args: *mut c_void) -> u32 {
    1
}

#[test]
#[serial]
fn snapshot_backs_up_and_restores_device_memory() {
    use aclrtSnapShotStage as S;
    init();
    STAGES.lock().unwrap().clear();
    let stages = [
        S::ACL_RT_SNAPSHOT_LOCK_PRE,
        S::ACL_RT_SNAPSHOT_BACKUP_PRE,
        S::ACL_RT_SNAPSHOT_BACKUP_POST,
        S::ACL_RT_SNAPSHOT_RESTORE_PRE,
        S::ACL_RT_SNAPSHOT_RESTORE_POST,
        S::ACL_RT_SNAPSHOT_UNLOCK_POST,
    ];
    for s in stages {
        let tag = s.0 as usize as *mut c_void;
        assert_eq!(
            sim::aclrtSnapShotCallbackRegister(s, Some(on_stage), tag),
            ACL_SUCCESS
        );
    }
    assert_eq!(
        sim::aclrtSnapShotCallbackRegister(stages[0], Some(on_stage), null_mut()),
        ACL_ERROR_INVALID_PARAM,
        "no duplicate registration"
    );
    let d = misuse_support::malloc(64);
    let put = |v: u8| {
        let host = [v; 64];
        // SAFETY: a live 64-byte allocation and a 64-byte host buffer.
        let rc = unsafe {
            (api().aclrtMemcpy)(
                d,
                64,
                host.as_ptr().cast(),
                64,
                aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        };
        assert_eq!(rc, ACL_SUCCESS);
    };
    let get = || {
        let mut host = [0u8; 64];
        // SAFETY: as above.
        let rc = unsafe {
            (api().aclrtMemcpy)(
                host.as_mut_ptr().cast(),
                64,
                d,
                64,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        };
        assert_eq!(rc, ACL_SUCCESS);
        host
    };
    put(7);
    // Out of order.
    assert_eq!(sim::aclrtSnapShotProcessBackup(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessBackup(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    put(9);
    assert_eq!(get(), [9; 64]);
    // A later lock restores the earlier backup (as CANN's example does).
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    assert_eq!(get(), [7; 64]);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_ERROR_INVALID_PARAM);
    put(9);
    // Lock, backup (7 is gone: 9 is backed up), write, restore.
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessBackup(), ACL_SUCCESS);
    put(3);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_SUCCESS);
    assert_eq!(get(), [9; 64]);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    // Every stage ran, for device 0, in order.
    let seen: Vec<i32> = STAGES.lock().unwrap().iter().map(|&(_, s)| s).collect();
    assert_eq!(seen[..11], [0, 1, 2, 5, 0, 3, 4, 5, 0, 1, 2]);
    assert!(STAGES.lock().unwrap().iter().all(|&(d, _)| d == 0));
    for s in stages {
        assert_eq!(
            sim::aclrtSnapShotCallbackUnregister(s, Some(on_stage)),
            ACL_SUCCESS
        );
    }
    // A refusing callback fails its step and leaves the phase.
    assert_eq!(
        sim::aclrtSnapShotCallbackRegister(stages[0], Some(refuses), null_mut()),
        ACL_SUCCESS
    );
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_ERROR_INTERNAL_ERROR);
    assert_eq!(
        sim::aclrtSnapShotCallbackUnregister(stages[0], Some(refuses)),
        ACL_SUCCESS
    );
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_ERROR_INVALID_PARAM);
    // Misuse.
    assert_eq!(
        sim::aclrtSnapShotCallbackRegister(aclrtSnapShotStage(6), Some(on_stage), null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSnapShotCallbackRegister(stages[0], None, null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        sim::aclrtSnapShotCallbackUnregister(stages[0], Some(on_stage)),
        ACL_ERROR_INVALID_PARAM
    );
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(d) }, ACL_SUCCESS);
    finalize();
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_ERROR_UNINITIALIZE);
    no_internal_errors();
}

// ----------------------------------------------------------- API injection

static HOOKED: AtomicUsize = AtomicUsize::new(0);
static ORIGINAL: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn counting_get_device(device: *mut i32) -> aclError {
    HOOKED.fetch_add(1, Ordering::SeqCst);
    // SAFETY: the original aclrtGetDevice, saved before the hook was set.
    let f: unsafe extern "C" fn(*mut i32) -> aclError =
        unsafe { std::mem::transmute(ORIGINAL.load(Ordering::SeqCst)) };
    // SAFETY: the caller's pointer, passed through.
    unsafe { f(device) }
}

#[test]
#[serial]
fn api_injection_hooks_get_device() {
    init();
    let name = c"aclrtGetDevice".as_ptr();
    let (mut origin, mut current): (aclrtApiFunc, aclrtApiFunc) = (None, None);
    // SAFETY: valid names and out-pointers; the hook has aclrtGetDevice's
    // C signature.
    unsafe {
        assert_eq!(
            sim::aclrtApiInjectionGetFunc(name, &mut origin, &mut current),
            ACL_SUCCESS
        );
        assert!(origin.is_some());
        assert_eq!(origin.map(|f| f as usize), current.map(|f| f as usize));
        ORIGINAL.store(origin.unwrap() as usize, Ordering::SeqCst);
        let hook: aclrtApiFunc = Some(std::mem::transmute::<
            unsafe extern "C" fn(*mut i32) -> aclError,
            unsafe extern "C" fn(),
        >(counting_get_device));
        HOOKED.store(0, Ordering::SeqCst);
        assert_eq!(sim::aclrtApiInjectionSetFunc(name, hook), ACL_SUCCESS);
        assert_eq!(
            sim::aclrtApiInjectionGetFunc(name, null_mut(), &mut current),
            ACL_SUCCESS
        );
        assert_eq!(current.map(|f| f as usize), hook.map(|f| f as usize));
        let mut d = -1;
        assert_eq!(sim::aclrtGetDevice(&mut d), ACL_SUCCESS);
        assert_eq!((d, HOOKED.load(Ordering::SeqCst)), (0, 1));
        // Restored with the original.
        assert_eq!(sim::aclrtApiInjectionSetFunc(name, origin), ACL_SUCCESS);
        assert_eq!(sim::aclrtGetDevice(&mut d), ACL_SUCCESS);
        assert_eq!(HOOKED.load(Ordering::SeqCst), 1);
        // Misuse.
        assert_eq!(
            sim::aclrtApiInjectionSetFunc(name, None),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtApiInjectionSetFunc(null(), origin),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtApiInjectionGetFunc(c"aclInit".as_ptr(), &mut origin, null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            sim::aclrtApiInjectionGetFunc(name, null_mut(), null_mut()),
            ACL_ERROR_INVALID_PARAM
        );
    }
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn snapshot_without_device_memory_still_restores() {
    // CANN's snapshot example: no allocation at all, backup under one
    // lock, restore under the next.
    init();
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(
        sim::aclrtSnapShotProcessRestore(),
        ACL_ERROR_INVALID_PARAM,
        "no backup yet"
    );
    assert_eq!(sim::aclrtSnapShotProcessBackup(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    finalize();
    // A new runtime has no backup.
    init();
    assert_eq!(sim::aclrtSnapShotProcessLock(), ACL_SUCCESS);
    assert_eq!(sim::aclrtSnapShotProcessRestore(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclrtSnapShotProcessUnlock(), ACL_SUCCESS);
    finalize();
    no_internal_errors();
}
