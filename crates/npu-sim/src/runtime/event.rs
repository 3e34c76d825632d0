//! Event management (`acl_rt.h`): create, destroy, record, query,
//! synchronise, elapsed time.

use super::{code_of, event_of, report, rt, rt_device, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::Event;
use cann_sys::*;
use std::sync::Arc;

/// `aclrtCreateEvent`.
///
/// # Safety
/// `event` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError {
    crate::abi::guard(
        "aclrtCreateEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if event.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtCreateEvent: null output pointer",
                );
            }
            let dev = match rt_device() {
                Ok((_, d)) => d,
                Err(c) => return c,
            };
            let e = Arc::new(Event::default());
            let h = state::new_handle();
            state::with_handles(|hs| hs.events.insert(h, (dev, e)));
            // SAFETY: checked non-null.
            unsafe { *event = h as aclrtEvent };
            ACL_SUCCESS
        },
    )
}

/// `aclrtDestroyEvent`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    crate::abi::guard(
        "aclrtDestroyEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || match state::with_handles(|h| h.events.remove(&(event as usize))) {
            Some(_) => ACL_SUCCESS,
            None => fail(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!("npu-sim: aclrtDestroyEvent: {event:p} is not a live event"),
            ),
        },
    )
}

/// `aclrtRecordEvent`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtRecordEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                event_of(event)?.record(&s);
                Ok(())
            })())
        },
    )
}

/// `aclrtQueryEventStatus`.
///
/// # Safety
/// `status` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtQueryEventStatus(
    event: aclrtEvent,
    status: *mut aclrtEventRecordedStatus,
) -> aclError {
    crate::abi::guard(
        "aclrtQueryEventStatus",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if status.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtQueryEventStatus: null output pointer",
                );
            }
            match event_of(event) {
                Ok(e) => {
                    let st = if e.is_complete() {
                        aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE
                    } else {
                        aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY
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

/// `aclrtSynchronizeEvent`: waits for the event's latest record; the fault
/// its stream held when the record was reached (the stream's fault is not
/// cleared: `aclrtSynchronizeStream` still reports it).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || match event_of(event) {
            Ok(e) => match e.synchronize() {
                Ok(()) => ACL_SUCCESS,
                Err(f) => report(f),
            },
            Err(c) => c,
        },
    )
}

/// `aclrtEventElapsedTime`: milliseconds between the completions of two
/// events' latest records (`ACL_ERROR_RT_EVENT_NOT_COMPLETE` if either has
/// not completed or was never recorded).
///
/// # Safety
/// `ms` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    start: aclrtEvent,
    end: aclrtEvent,
) -> aclError {
    crate::abi::guard(
        "aclrtEventElapsedTime",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if ms.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtEventElapsedTime: null output pointer",
                );
            }
            let (a, b) = match (event_of(start), event_of(end)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(c), _) | (_, Err(c)) => return c,
            };
            let (Some(t0), Some(t1)) = (a.completed_at(), b.completed_at()) else {
                return fail(
                    cann_sys::ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                    "npu-sim: aclrtEventElapsedTime: an event has not completed (or was never recorded)",
                );
            };
            let d = if t1 >= t0 {
                t1.duration_since(t0).as_secs_f64()
            } else {
                -t0.duration_since(t1).as_secs_f64()
            };
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *ms = (d * 1e3) as f32 };
            ACL_SUCCESS
        },
    )
}
