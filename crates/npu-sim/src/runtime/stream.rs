//! Stream management (`acl_rt.h`): create, destroy, synchronise, query,
//! and wait for an event.

use super::{code_of, event_of, report, rt, rt_device, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::Stream;
use cann_sys::*;
use std::sync::Arc;

/// `aclrtCreateStream`: a stream on the current device, with its own worker.
///
/// # Safety
/// `stream` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtCreateStream",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if stream.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtCreateStream: null output pointer",
                );
            }
            let (_rt, dev) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let s = match Stream::new(dev) {
                Ok(s) => Arc::new(s),
                Err(m) => return fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, format!("npu-sim: {m}")),
            };
            let h = state::new_handle();
            state::with_handles(|hs| hs.streams.insert(h, s));
            // SAFETY: checked non-null.
            unsafe { *stream = h as aclrtStream };
            ACL_SUCCESS
        },
    )
}

/// `aclrtDestroyStream`: finishes the stream's work, then destroys it (as
/// CANN's waits for the stream's tasks). Holds on the stream are opened
/// first (a hold does not outlive its stream), so a hold that is never
/// released cannot make this wait forever; the work queued behind it runs.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtDestroyStream",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let Some(s) = state::with_handles(|h| h.streams.remove(&(stream as usize))) else {
                return fail(
                    ACL_ERROR_RT_INVALID_HANDLE,
                    format!("npu-sim: aclrtDestroyStream: {stream:p} is not a live stream"),
                );
            };
            s.open_holds();
            let _ = s.synchronize();
            s.shutdown();
            ACL_SUCCESS
        },
    )
}

/// `aclrtSynchronizeStream`: waits; returns the stream's first fault since
/// the last synchronisation (explained by `aclGetRecentErrMsg`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeStream",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let r = rt().and_then(|rt| stream_of(&rt, state::current_device(), stream));
            match r {
                Ok(s) => match s.synchronize() {
                    Ok(()) => ACL_SUCCESS,
                    Err(f) => report(f),
                },
                Err(c) => c,
            }
        },
    )
}

/// `aclrtSynchronizeStreamWithTimeout`: as `aclrtSynchronizeStream`, but
/// gives up after `timeout` milliseconds (-1: never) with
/// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`, the work still queued.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeStreamWithTimeout",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let limit = match timeout {
                -1 => None,
                t if t > 0 => Some(std::time::Duration::from_millis(t as u64)),
                t => {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!("npu-sim: aclrtSynchronizeStreamWithTimeout: timeout {t} must be -1 or > 0 (ms)"),
                    )
                }
            };
            let r = rt().and_then(|rt| stream_of(&rt, state::current_device(), stream));
            match r {
                Ok(s) => match s.synchronize_within(limit) {
                    Ok(()) => ACL_SUCCESS,
                    Err(f) => report(f),
                },
                Err(c) => c,
            }
        },
    )
}

/// `aclrtStreamQuery`.
///
/// # Safety
/// `status` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtStreamQuery(
    stream: aclrtStream,
    status: *mut aclrtStreamStatus,
) -> aclError {
    crate::abi::guard(
        "aclrtStreamQuery",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if status.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtStreamQuery: null output pointer",
                );
            }
            match rt().and_then(|rt| stream_of(&rt, state::current_device(), stream)) {
                Ok(s) => {
                    let st = if s.is_idle() {
                        aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE
                    } else {
                        aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY
                    };
                    // SAFETY: checked non-null.
                    unsafe { *status = st };
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `aclrtStreamWaitEvent`: later work on `stream` waits for the event's
/// latest record.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    crate::abi::guard(
        "aclrtStreamWaitEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                event_of(event)?.wait_on(&s);
                Ok(())
            })())
        },
    )
}
