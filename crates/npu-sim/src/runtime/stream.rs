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
            super::callback::forget_stream(&s);
            super::model::forget_stream(&s);
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
            let r = rt()
                .and_then(|rt| stream_of(&rt, state::current_device(), stream))
                .and_then(|s| not_capturing("aclrtSynchronizeStream", s));
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
            let r = rt()
                .and_then(|rt| stream_of(&rt, state::current_device(), stream))
                .and_then(|s| not_capturing("aclrtSynchronizeStreamWithTimeout", s));
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

/// A stream wait without flags (`aclrtStreamWaitEvent`, and
/// `aclrtStreamWaitEventWithFlag`'s default): later work on `s` waits for
/// the event's latest record (for an event with a flag reset since that
/// record: its next record), at most `limit`. On a stream being captured
/// it joins a capture through its event or is a wait inside one; an
/// `ACL_EVENT_EXTERNAL` event there is an external wait of the model (a
/// real wait for the event's flag when it runs), as CANN's model-update
/// example uses it.
fn wait_default(
    api: &str,
    s: &Arc<Stream>,
    e: &Arc<crate::stream::Event>,
    limit: Option<std::time::Duration>,
) -> Result<(), aclError> {
    if super::event::is_external(e) && crate::stream::capture::capturing(s) {
        return crate::stream::capture::wait_event(s, e, true)
            .map(drop)
            .map_err(report);
    }
    super::event::check_sync(api, e)?;
    if !crate::stream::capture::wait_event(s, e, false).map_err(report)? {
        e.wait_on_within(s, limit);
    }
    Ok(())
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
                let e = event_of(event)?;
                wait_default("aclrtStreamWaitEvent", &s, &e, None)
            })())
        },
    )
}

/// `aclrtStreamWaitEventWithFlag`: `ACL_EVENT_WAIT_DEFAULT` is
/// `aclrtStreamWaitEvent` with a limit: `timeout` ms (0: none); a wait not
/// satisfied in time fails the stream with
/// `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`, reported at its synchronisation.
/// `ACL_EVENT_WAIT_EXTERNAL` is for a stream being captured: with a
/// timeout other than 0 it is `ACL_ERROR_INVALID_PARAM` (as CANN), else
/// `ACL_ERROR_RT_STREAM_NOT_CAPTURED` (nothing is captured yet). Other flags
/// and a null event: `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: u32,
    flag: u32,
) -> aclError {
    crate::abi::guard(
        "aclrtStreamWaitEventWithFlag",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if event.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtStreamWaitEventWithFlag: event is null",
                );
            }
            if flag == ACL_EVENT_WAIT_EXTERNAL as u32 {
                if timeout != 0 {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclrtStreamWaitEventWithFlag: timeout {timeout} must be 0 \
                             with ACL_EVENT_WAIT_EXTERNAL"
                        ),
                    );
                }
                return code_of((|| {
                    let rt = rt()?;
                    let s = stream_of(&rt, state::current_device(), stream)?;
                    let e = event_of(event)?;
                    crate::stream::capture::wait_event(&s, &e, true)
                        .map(drop)
                        .map_err(report)
                })());
            }
            if flag != ACL_EVENT_WAIT_DEFAULT as u32 {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclrtStreamWaitEventWithFlag: flag {flag:#x} is neither \
                         ACL_EVENT_WAIT_DEFAULT nor ACL_EVENT_WAIT_EXTERNAL"
                    ),
                );
            }
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                let e = event_of(event)?;
                let limit = (timeout > 0).then(|| std::time::Duration::from_millis(timeout as u64));
                wait_default("aclrtStreamWaitEventWithFlag", &s, &e, limit)
            })())
        },
    )
}

/// `aclrtDestroyStreamForce`: destroys the stream without waiting for its
/// queued work (CANN: "does not wait for the tasks to complete"): tasks
/// not yet started are discarded (device work and host functions never
/// run; event records complete carrying `ACL_ERROR_RT_STREAM_ABORT`, so
/// nothing waits for them forever), holds are opened, and a task already
/// running is finished before the call returns. A null stream is
/// `ACL_ERROR_INVALID_PARAM` (CANN requires a created stream); a stale one
/// `ACL_ERROR_RT_INVALID_HANDLE`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtDestroyStreamForce",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if stream.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtDestroyStreamForce: stream is null (only a created stream can be destroyed)",
                );
            }
            let Some(s) = state::with_handles(|h| h.streams.remove(&(stream as usize))) else {
                return fail(
                    ACL_ERROR_RT_INVALID_HANDLE,
                    format!("npu-sim: aclrtDestroyStreamForce: {stream:p} is not a live stream"),
                );
            };
            super::callback::forget_stream(&s);
            super::model::forget_stream(&s);
            // Discards before opening the holds: nothing behind a hold runs.
            s.abort();
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetStreamFailureMode`: `ACL_CONTINUE_ON_FAILURE` (the default)
/// or `ACL_STOP_ON_FAILURE`. Under stop-on-failure, once a task fails,
/// every later task of the stream is skipped (device work, host functions
/// and callbacks; event records complete carrying the fault) and every
/// synchronisation reports the fault: it is never cleared, as CANN's
/// "after stop-on-failure triggers, no new task is supported". NULL is the
/// default stream. CANN allows one call per stream: a second is
/// `ACL_ERROR_RT_PARAM_INVALID`, as is an unknown mode.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    crate::abi::guard(
        "aclrtSetStreamFailureMode",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let stop = match mode {
                m if m == ACL_CONTINUE_ON_FAILURE as u64 => false,
                m if m == ACL_STOP_ON_FAILURE as u64 => true,
                m => {
                    return fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!(
                            "npu-sim: aclrtSetStreamFailureMode: mode {m} is neither \
                             ACL_CONTINUE_ON_FAILURE (0) nor ACL_STOP_ON_FAILURE (1)"
                        ),
                    )
                }
            };
            match rt().and_then(|rt| stream_of(&rt, state::current_device(), stream)) {
                Ok(s) => match s.set_stop_on_failure(stop) {
                    Ok(()) => ACL_SUCCESS,
                    Err(()) => fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "npu-sim: aclrtSetStreamFailureMode: the stream's failure mode was set \
                         already (CANN allows one call per stream)",
                    ),
                },
                Err(c) => c,
            }
        },
    )
}

/// A stream being captured cannot be synchronised (CANN: "Not allow to
/// synchronize captured-stream"): `ACL_ERROR_RT_STREAM_CAPTURED`.
pub(crate) fn not_capturing(api: &str, s: Arc<Stream>) -> Result<Arc<Stream>, aclError> {
    let (capturing, building) = s.capture_state();
    if building {
        return Err(fail(
            ACL_ERROR_RT_STREAM_CAPTURED,
            format!(
                "npu-sim: {api}: the stream is bound to a model being built (aclmdlRIBindStream): \
                 its tasks are recorded, not run; it cannot be synchronised until aclmdlRIBuildEnd"
            ),
        ));
    }
    if capturing {
        return Err(fail(
            ACL_ERROR_RT_STREAM_CAPTURED,
            format!(
                "npu-sim: {api}: the stream is being captured (aclmdlRICaptureBegin): it cannot \
                 be synchronised until aclmdlRICaptureEnd"
            ),
        ));
    }
    Ok(s)
}
