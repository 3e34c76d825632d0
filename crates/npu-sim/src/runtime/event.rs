//! Event management (`acl_rt.h`): create, destroy, record, query,
//! synchronise, elapsed time.

use super::{code_of, event_of, report, rt, rt_device, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::{Event, EventKind};
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
                event_of(event)?.record(&s).map_err(report)
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
            match event_of(event).and_then(|e| not_captured("aclrtQueryEventStatus", e)) {
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
        || match event_of(event).and_then(|e| not_captured("aclrtSynchronizeEvent", e)) {
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

/// The flags `aclrtCreateEventWithFlag` accepts (bit-ored), and those of
/// `aclrtCreateEventExWithFlag`.
const WITH_FLAG_BITS: u32 = ACL_EVENT_SYNC as u32
    | ACL_EVENT_CAPTURE_STREAM_PROGRESS as u32
    | ACL_EVENT_TIME_LINE as u32
    | ACL_EVENT_DEVICE_USE_ONLY as u32
    | ACL_EVENT_EXTERNAL as u32;
const EX_FLAG_BITS: u32 = ACL_EVENT_SYNC as u32
    | ACL_EVENT_CAPTURE_STREAM_PROGRESS as u32
    | ACL_EVENT_TIME_LINE as u32
    | ACL_EVENT_IPC as u32;

fn create_with_flag(api: &str, event: *mut aclrtEvent, flag: u32, ex: bool) -> aclError {
    if event.is_null() {
        return fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: null output pointer"),
        );
    }
    let allowed = if ex { EX_FLAG_BITS } else { WITH_FLAG_BITS };
    if flag & !allowed != 0 {
        return fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "npu-sim: {api}: flag {flag:#x} has bits {:#x} that are not ACL_EVENT_* flags \
                 this call accepts ({allowed:#x})",
                flag & !allowed
            ),
        );
    }
    for (alone, name) in [
        (ACL_EVENT_EXTERNAL as u32, "ACL_EVENT_EXTERNAL"),
        (ACL_EVENT_IPC as u32, "ACL_EVENT_IPC"),
    ] {
        if flag & alone != 0 && flag != alone {
            return fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: {name} cannot be or-ed with other flags (flag {flag:#x})"),
            );
        }
    }
    if flag == ACL_EVENT_IPC as u32 {
        return fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("npu-sim: {api}: ACL_EVENT_IPC: events across processes are not simulated"),
        );
    }
    let dev = match rt_device() {
        Ok((_, d)) => d,
        Err(c) => return c,
    };
    let e = Arc::new(Event::with_kind(EventKind { flags: flag, ex }));
    let h = state::new_handle();
    state::with_handles(|hs| hs.events.insert(h, (dev, e)));
    // SAFETY: checked non-null by the caller of this function's contract.
    unsafe { *event = h as aclrtEvent };
    ACL_SUCCESS
}

/// `aclrtCreateEventWithFlag`: an event with `ACL_EVENT_*` flags (or-ed:
/// `ACL_EVENT_SYNC`, `ACL_EVENT_CAPTURE_STREAM_PROGRESS`,
/// `ACL_EVENT_TIME_LINE`, `ACL_EVENT_DEVICE_USE_ONLY`; `ACL_EVENT_EXTERNAL`
/// alone). Other bits, or `ACL_EVENT_EXTERNAL` with others:
/// `ACL_ERROR_RT_PARAM_INVALID`. Only an event with `ACL_EVENT_SYNC` may be
/// waited for by a stream or reset (CANN's restriction, enforced).
///
/// # Safety
/// `event` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    crate::abi::guard(
        "aclrtCreateEventWithFlag",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || create_with_flag("aclrtCreateEventWithFlag", event, flag, false),
    )
}

/// `aclrtCreateEventExWithFlag`: as `aclrtCreateEventWithFlag`, for an
/// event CANN reuses naturally (each record replaces the work it captures;
/// it cannot be reset). Flags: `ACL_EVENT_SYNC`,
/// `ACL_EVENT_CAPTURE_STREAM_PROGRESS`, `ACL_EVENT_TIME_LINE`;
/// `ACL_EVENT_IPC` (alone) is `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`: IPC is not
/// simulated.
///
/// # Safety
/// `event` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    crate::abi::guard(
        "aclrtCreateEventExWithFlag",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || create_with_flag("aclrtCreateEventExWithFlag", event, flag, true),
    )
}

/// An event whose latest record is a task of a capture in progress
/// cannot be queried or synchronised: `ACL_ERROR_RT_EVENT_CAPTURED`.
fn not_captured(api: &str, e: Arc<Event>) -> Result<Arc<Event>, aclError> {
    if e.capture_mark().is_some() {
        return Err(fail(
            ACL_ERROR_RT_EVENT_CAPTURED,
            format!(
                "npu-sim: {api}: the event's latest record is part of a capture in progress (it \
                 completes only when the model runs)"
            ),
        ));
    }
    Ok(e)
}

/// An event that a stream may wait for or reset: one from
/// `aclrtCreateEvent`, or one created with `ACL_EVENT_SYNC`.
/// Whether `e` was created with `ACL_EVENT_EXTERNAL` (an event for waits
/// and records across a capture's boundary).
pub(super) fn is_external(e: &Event) -> bool {
    e.kind
        .is_some_and(|k| k.flags & ACL_EVENT_EXTERNAL as u32 != 0)
}

pub(super) fn check_sync(api: &str, e: &Event) -> Result<(), aclError> {
    match e.kind {
        Some(k) if k.flags & ACL_EVENT_SYNC as u32 == 0 => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "npu-sim: {api}: the event was created with flag {:#x}, without ACL_EVENT_SYNC: \
                 streams cannot wait for it",
                k.flags
            ),
        )),
        _ => Ok(()),
    }
}

/// `aclrtRecordEventWithFlag`: `ACL_EVENT_RECORD_DEFAULT` is
/// `aclrtRecordEvent`; `ACL_EVENT_RECORD_EXTERNAL` is for a stream being
/// captured into a graph, and fails with `ACL_ERROR_RT_STREAM_NOT_CAPTURED`
/// (the simulator captures nothing yet); other flags
/// `ACL_ERROR_INVALID_PARAM`. A null event is `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtRecordEventWithFlag(
    event: aclrtEvent,
    stream: aclrtStream,
    flag: u32,
) -> aclError {
    crate::abi::guard(
        "aclrtRecordEventWithFlag",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if event.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtRecordEventWithFlag: event is null",
                );
            }
            match flag {
                f if f == ACL_EVENT_RECORD_DEFAULT as u32 => aclrtRecordEvent(event, stream),
                f if f == ACL_EVENT_RECORD_EXTERNAL as u32 => code_of((|| {
                    let rt = rt()?;
                    let s = stream_of(&rt, state::current_device(), stream)?;
                    let e = event_of(event)?;
                    if !s.capturing() {
                        return Err(fail(
                            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                            "npu-sim: aclrtRecordEventWithFlag: ACL_EVENT_RECORD_EXTERNAL needs \
                             a stream being captured (aclmdlRICaptureBegin)",
                        ));
                    }
                    e.record_with(&s, true).map_err(report)
                })()),
                f => fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclrtRecordEventWithFlag: flag {f:#x} is neither \
                         ACL_EVENT_RECORD_DEFAULT nor ACL_EVENT_RECORD_EXTERNAL"
                    ),
                ),
            }
        },
    )
}

/// `aclrtResetEvent`: when `stream` (NULL: the default stream) reaches the
/// reset, the event is back in its initial state: as if never recorded (no
/// completion time; a synchronisation on it returns at once, without an
/// earlier record's fault). Only an event from `aclrtCreateEventWithFlag`
/// with `ACL_EVENT_SYNC`, or `ACL_EVENT_EXTERNAL` (CANN's model-update
/// example resets one inside a capture), may be reset; any other is
/// `ACL_ERROR_RT_PARAM_INVALID` here (CANN: undefined, or an error).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtResetEvent",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if event.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtResetEvent: event is null",
                );
            }
            code_of((|| {
                let e = event_of(event)?;
                match e.kind {
                    Some(k)
                        if !k.ex && k.flags & (ACL_EVENT_SYNC | ACL_EVENT_EXTERNAL) as u32 != 0 => {
                    }
                    _ => {
                        return Err(fail(
                            ACL_ERROR_RT_PARAM_INVALID,
                            "npu-sim: aclrtResetEvent: only an event made by \
                             aclrtCreateEventWithFlag with ACL_EVENT_SYNC or ACL_EVENT_EXTERNAL \
                             can be reset",
                        ))
                    }
                }
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                e.reset_on(&s).map_err(report)
            })())
        },
    )
}

/// `aclrtSynchronizeEventWithTimeout`: `aclrtSynchronizeEvent`, giving up
/// after `timeout` ms with `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT` (-1: for ever;
/// 0: only checks). A timeout below -1 is `ACL_ERROR_RT_PARAM_INVALID`
/// (checked first, as CANN), a null event `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeEventWithTimeout(event: aclrtEvent, timeout: i32) -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeEventWithTimeout",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if timeout < -1 {
                return fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: aclrtSynchronizeEventWithTimeout: timeout {timeout} is not in \
                         [-1, INT_MAX]"
                    ),
                );
            }
            if event.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtSynchronizeEventWithTimeout: event is null",
                );
            }
            let limit = (timeout >= 0).then(|| std::time::Duration::from_millis(timeout as u64));
            match event_of(event).and_then(|e| not_captured("aclrtSynchronizeEventWithTimeout", e))
            {
                Ok(e) => match e.synchronize_within(limit) {
                    Ok(true) => ACL_SUCCESS,
                    Ok(false) => fail(
                        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                        format!(
                            "npu-sim: aclrtSynchronizeEventWithTimeout: the event was not reached \
                             within {timeout} ms"
                        ),
                    ),
                    Err(f) => report(f),
                },
                Err(c) => c,
            }
        },
    )
}
