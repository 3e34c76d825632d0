//! Device management (`acl_rt.h`): `aclrtSetDevice`, `aclrtResetDevice`,
//! `aclrtGetDevice`, `aclrtGetDeviceCount`, `aclrtSynchronizeDevice`.

use super::init::Teardown;
use super::{lock, report, rt, rt_device};
use crate::abi::fail;
use crate::state;
use crate::stream::Stream;
use cann_sys::*;
use std::sync::Arc;

/// `device_id` as an index of one of the runtime's devices, else
/// `ACL_ERROR_RT_INVALID_DEVICEID` (explained).
fn device(rt: &super::Runtime, device_id: i32) -> Result<u32, aclError> {
    match u32::try_from(device_id) {
        Ok(d) if d < rt.config.devices => Ok(d),
        _ => Err(fail(
            ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "npu-sim: device {device_id} does not exist ({} device(s))",
                rt.config.devices
            ),
        )),
    }
}

/// `aclrtSetDevice`: runs the implementation API injection set (by default
/// `set_device_impl`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetDevice(device_id: i32) -> aclError {
    let f = super::injection::current("aclrtSetDevice");
    // SAFETY: the original (below) or a hook set for this name, with
    // aclrtSetDevice's C signature by aclrtApiInjectionSetFunc's contract.
    let f: unsafe extern "C" fn(i32) -> aclError = unsafe { std::mem::transmute(f) };
    // SAFETY: as above.
    unsafe { f(device_id) }
}

/// The original implementation of `aclrtSetDevice`.
pub(crate) extern "C" fn set_device_impl(device_id: i32) -> aclError {
    crate::abi::guard(
        "aclrtSetDevice",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            let d = match device(&rt, device_id) {
                Ok(d) => d,
                Err(c) => return c,
            };
            let mut counts = lock(&rt.set_counts);
            counts[d as usize] = counts[d as usize].saturating_add(1);
            drop(counts);
            state::set_current_device(Some(d));
            super::context::on_set_device(d);
            ACL_SUCCESS
        },
    )
}

/// `aclrtResetDevice`: undoes one `aclrtSetDevice` (CANN counts them per
/// device); the call that brings the count to 0 releases the device's
/// resources: its default stream and every stream created on it (work
/// drained, holds opened, workers joined), its events and holds, and every
/// allocation on it. Their handles are stale afterwards. A reset with no
/// `aclrtSetDevice` outstanding releases nothing. The calling thread no
/// longer has a current device.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtResetDevice(device_id: i32) -> aclError {
    crate::abi::guard(
        "aclrtResetDevice",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || reset(device_id, false),
    )
}

/// `aclrtResetDeviceForce`: as `aclrtResetDevice`, but however many
/// `aclrtSetDevice` calls are outstanding, this one call brings the count
/// to 0 and releases the device's resources (CANN: "you only need to call
/// aclrtResetDeviceForce once"). Queued work is finished first, as for
/// `aclrtResetDevice` (CANN: the reset waits for the tasks to complete).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtResetDeviceForce(device_id: i32) -> aclError {
    crate::abi::guard(
        "aclrtResetDeviceForce",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || reset(device_id, true),
    )
}

fn reset(device_id: i32, force: bool) -> aclError {
    let rt = match rt() {
        Ok(r) => r,
        Err(c) => return c,
    };
    let d = match device(&rt, device_id) {
        Ok(d) => d,
        Err(c) => return c,
    };
    let teardown = {
        let mut counts = lock(&rt.set_counts);
        let c = &mut counts[d as usize];
        let was = *c;
        *c = if force { 0 } else { c.saturating_sub(1) };
        // Taken under the count's lock: a thread that sets the
        // device again waits for the take, so what it creates or
        // allocates afterwards is its own, not released by this
        // reset (which may still be draining the old streams).
        (was == 1 || (force && was > 0)).then(|| Teardown::take(&rt, vec![d], false))
    };
    if state::current_device() == Some(d) {
        state::set_current_device(None);
        super::context::on_reset_device();
    }
    if let Some(t) = teardown {
        t.run();
    }
    ACL_SUCCESS
}

/// `aclrtGetRunMode`: `ACL_HOST`. The simulator runs as a program on a
/// host with a device card does (CANN reports `ACL_DEVICE` only when the
/// program runs on the device's own CPU).
///
/// # Safety
/// `run_mode` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetRunMode(run_mode: *mut aclrtRunMode) -> aclError {
    crate::abi::guard(
        "aclrtGetRunMode",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if run_mode.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetRunMode: null output pointer",
                );
            }
            // SAFETY: checked non-null.
            unsafe { *run_mode = aclrtRunMode::ACL_HOST };
            ACL_SUCCESS
        },
    )
}

/// `aclrtGetDevice`: runs the implementation API injection set (by default
/// `get_device_impl`).
///
/// # Safety
/// `device_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDevice(device_id: *mut i32) -> aclError {
    let f = super::injection::current("aclrtGetDevice");
    // SAFETY: the original (below) or a hook set for this name, with
    // aclrtGetDevice's C signature by aclrtApiInjectionSetFunc's contract.
    let f: unsafe extern "C" fn(*mut i32) -> aclError = unsafe { std::mem::transmute(f) };
    // SAFETY: as above; `device_id` as the caller passed it.
    unsafe { f(device_id) }
}

/// The original implementation of `aclrtGetDevice`.
///
/// # Safety
/// `device_id` is null or valid for a write.
pub(crate) unsafe extern "C" fn get_device_impl(device_id: *mut i32) -> aclError {
    crate::abi::guard(
        "aclrtGetDevice",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if device_id.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetDevice: null output pointer",
                );
            }
            if let Err(c) = rt() {
                return c;
            }
            match state::current_device() {
                // SAFETY: checked non-null.
                Some(d) => unsafe {
                    *device_id = d as i32;
                    ACL_SUCCESS
                },
                None => fail(
                    ACL_ERROR_RT_CONTEXT_NULL,
                    "npu-sim: no device set on this thread",
                ),
            }
        },
    )
}

/// `aclrtGetDeviceCount`.
///
/// # Safety
/// `count` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    crate::abi::guard(
        "aclrtGetDeviceCount",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if count.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetDeviceCount: null output pointer",
                );
            }
            match rt() {
                // SAFETY: checked non-null.
                Ok(rt) => unsafe {
                    *count = rt.config.devices;
                    ACL_SUCCESS
                },
                Err(c) => c,
            }
        },
    )
}

/// `aclrtSynchronizeDevice`: waits for every stream of the current device.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeDevice",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let (rt, dev) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let mut streams: Vec<Arc<Stream>> = state::with_handles(|h| {
                h.streams
                    .values()
                    .filter(|s| s.device == dev)
                    .cloned()
                    .collect()
            });
            streams.extend(lock(&rt.default_streams)[dev as usize].clone());
            // As CANN's context synchronisation: a stream being captured
            // is refused before anything is waited for.
            // A stream bound to a model being built has nothing queued:
            // not waited for, not refused.
            streams.retain(|s| !s.building());
            for s in &streams {
                if let Err(c) = super::stream::not_capturing("aclrtSynchronizeDevice", s.clone()) {
                    return c;
                }
            }
            let mut first = Ok(());
            for s in streams {
                if let Err(f) = s.synchronize() {
                    if first.is_ok() {
                        first = Err(f);
                    }
                }
            }
            match first {
                Ok(()) => ACL_SUCCESS,
                Err(f) => report(f),
            }
        },
    )
}
