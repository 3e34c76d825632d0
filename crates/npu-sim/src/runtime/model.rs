//! Graph capture and models (`acl_rt.h`, CANN's "model running instance"
//! calls): `aclmdlRICaptureBegin`/`End`, `aclmdlRICaptureGetInfo`,
//! `aclmdlRICaptureThreadExchangeMode`, task groups and their update,
//! `aclmdlRIExecuteAsync`, `aclmdlRIExecute` and `aclmdlRIDestroy`.
//!
//! What a capture records, and how a model replays, is the stream's part
//! ([`crate::stream::capture`]); here the C calls: handles, arguments,
//! product support and statuses.

use super::{report, rt, stream_of};
use crate::abi::fail;
use crate::soc::Family;
use crate::state::{self, Runtime};
use crate::stream::capture::{self, Mode, Model};
use crate::stream::Stream;
use cann_sys::*;
use std::sync::Arc;
use std::time::Duration;

/// How long `aclmdlRIDestroy` waits for the model's replays (CANN: 10 s,
/// then `ACL_ERROR_RT_MODEL_RUNNING`).
const DESTROY_WAIT: Duration = Duration::from_secs(10);

/// Capture is not on Atlas 200I/500 A2 nor the Atlas training series
/// (CANN's product table of every capture call; the inference series, A2,
/// A3 and 950 have it): `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` there.
fn supported(rt: &Runtime, api: &str) -> Result<(), i32> {
    match crate::soc::family_of(&rt.config.soc) {
        Some(Family::Training) | Some(Family::Atlas200I500A2) => Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: graph capture is not supported on {} (not on Atlas 200I/500 A2 \
                 nor the Atlas training series)",
                rt.config.soc
            ),
        )),
        _ => Ok(()),
    }
}

fn runtime_for(api: &str) -> Result<Arc<Runtime>, i32> {
    let rt = rt()?;
    supported(&rt, api)?;
    Ok(rt)
}

fn stream(rt: &Runtime, s: aclrtStream) -> Result<Arc<Stream>, i32> {
    stream_of(rt, state::current_device(), s)
}

fn model_of(api: &str, m: aclmdlRI) -> Result<Arc<Model>, i32> {
    if m.is_null() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: modelRI is null"),
        ));
    }
    state::with_handles(|h| h.models.get(&(m as usize)).cloned()).ok_or_else(|| {
        fail(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("npu-sim: {api}: {m:p} is not a live model (never made, or destroyed)"),
        )
    })
}

fn handle_of(m: &Arc<Model>) -> Option<usize> {
    state::with_handles(|h| {
        h.models
            .iter()
            .find(|(_, x)| Arc::ptr_eq(x, m))
            .map(|(&k, _)| k)
    })
}

/// Removes a model's handles (and its task groups') from the registry.
fn unregister(m: &Arc<Model>) {
    state::with_handles(|h| {
        h.models.retain(|_, x| !Arc::ptr_eq(x, m));
        h.task_groups
            .retain(|_, (w, _)| w.upgrade().is_some_and(|x| !Arc::ptr_eq(&x, m)));
    });
    if let Some(s) = m
        .exec_stream
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        s.shutdown();
    }
}

/// A stream is being destroyed: a capture it takes part in is
/// invalidated (its streams leave it; the model stays until
/// `aclmdlRICaptureEnd` fails or it is destroyed).
pub(crate) fn forget_stream(s: &Arc<Stream>) {
    if let (_, Some(m)) = capture::status_of(s) {
        capture::abandon(&m);
    }
}

fn code(r: Result<(), i32>) -> aclError {
    match r {
        Ok(()) => ACL_SUCCESS,
        Err(c) => c,
    }
}

/// `aclmdlRICaptureBegin`: `stream`'s tasks are recorded into a new model
/// from now on, not run (CANN's API reference, "aclmdlRICaptureBegin").
/// `mode` restricts the unsafe calls (`aclrtMemset`, `aclrtMemcpy`,
/// asynchronous copies from pageable memory) while the capture lasts. A
/// stream already capturing (began, or joined) is
/// `ACL_ERROR_RT_STREAM_CAPTURED`; the default stream (NULL) cannot be
/// captured (`ACL_ERROR_INVALID_PARAM`); an unknown mode
/// `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRICaptureBegin(
    stream_: aclrtStream,
    mode: aclmdlRICaptureMode,
) -> aclError {
    crate::abi::guard("aclmdlRICaptureBegin", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let rt = runtime_for("aclmdlRICaptureBegin")?;
            let Some(mode) = Mode::of(mode) else {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclmdlRICaptureBegin: mode {} is not an aclmdlRICaptureMode",
                        mode.0
                    ),
                ));
            };
            if stream_.is_null() {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclmdlRICaptureBegin: the default stream (NULL) cannot be captured; \
                     create a stream",
                ));
            }
            let s = stream(&rt, stream_)?;
            let m = capture::begin(&s, mode).map_err(report)?;
            let h = state::new_handle();
            state::with_handles(|hs| hs.models.insert(h, m));
            Ok(())
        })())
    })
}

/// `aclmdlRICaptureGetInfo`: the stream's capture status (NONE, ACTIVE,
/// INVALIDATED) and, when capturing, its model (NULL otherwise). Either
/// output may be NULL, not both (`ACL_ERROR_RT_PARAM_INVALID`).
///
/// # Safety
/// `status` and `model_ri` are null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureGetInfo(
    stream_: aclrtStream,
    status: *mut aclmdlRICaptureStatus,
    model_ri: *mut aclmdlRI,
) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureGetInfo",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let rt = runtime_for("aclmdlRICaptureGetInfo")?;
                if status.is_null() && model_ri.is_null() {
                    return Err(fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "npu-sim: aclmdlRICaptureGetInfo: status and modelRI cannot both be null",
                    ));
                }
                let s = stream(&rt, stream_)?;
                let (st, m) = capture::status_of(&s);
                let h = m.as_ref().and_then(handle_of).unwrap_or(0);
                // SAFETY: each pointer checked non-null; the caller's contract.
                unsafe {
                    if !status.is_null() {
                        *status = st;
                    }
                    if !model_ri.is_null() {
                        *model_ri = h as aclmdlRI;
                    }
                }
                Ok(())
            })())
        },
    )
}

/// `aclmdlRICaptureThreadExchangeMode`: sets the calling thread's capture
/// mode to `*mode` and writes the previous one back (GLOBAL before any
/// call). Null or an unknown mode: `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `mode` is null or valid for reads and writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureThreadExchangeMode(
    mode: *mut aclmdlRICaptureMode,
) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureThreadExchangeMode",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                runtime_for("aclmdlRICaptureThreadExchangeMode")?;
                if mode.is_null() {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        "npu-sim: aclmdlRICaptureThreadExchangeMode: mode is null",
                    ));
                }
                // SAFETY: checked non-null; the caller's contract.
                let raw = unsafe { *mode };
                let Some(m) = Mode::of(raw) else {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclmdlRICaptureThreadExchangeMode: mode {} is not an \
                         aclmdlRICaptureMode",
                            raw.0
                        ),
                    ));
                };
                let old = capture::exchange_mode(m);
                // SAFETY: as above.
                unsafe { *mode = old.raw() };
                Ok(())
            })())
        },
    )
}

/// `aclmdlRICaptureEnd`: ends the capture begun on `stream` and writes its
/// model. Statuses, as CANN's runtime: not capturing
/// `ACL_ERROR_RT_STREAM_NOT_CAPTURED`; a stream that joined but did not
/// begin it `ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED` (the capture goes on);
/// otherwise the capture ends, and fails (no model) with
/// `ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD` (GLOBAL or THREAD_LOCAL
/// capture ended on another thread), `ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED`,
/// `ACL_ERROR_STREAM_TASK_GROUP_STATUS` (a task group left open) or
/// `ACL_ERROR_RT_STREAM_UNJOINED` (a joined stream did not rejoin).
///
/// # Safety
/// `model_ri` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureEnd(
    stream_: aclrtStream,
    model_ri: *mut aclmdlRI,
) -> aclError {
    crate::abi::guard("aclmdlRICaptureEnd", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let rt = runtime_for("aclmdlRICaptureEnd")?;
            if model_ri.is_null() {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclmdlRICaptureEnd: modelRI is null",
                ));
            }
            let s = stream(&rt, stream_)?;
            let (_, before) = capture::status_of(&s);
            match capture::end(&s) {
                Ok(m) => {
                    let h = handle_of(&m).unwrap_or(0);
                    // SAFETY: checked non-null; the caller's contract.
                    unsafe { *model_ri = h as aclmdlRI };
                    Ok(())
                }
                Err(f) => {
                    // An ended capture that failed leaves no model.
                    if let Some(m) = before {
                        if m.capturing() && f.code != ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED {
                            unregister(&m);
                        }
                    }
                    Err(report(f))
                }
            }
        })())
    })
}

/// `aclmdlRICaptureTaskGrpBegin`: launches on the capturing `stream` from
/// now on form a task group (only aclnn launches: other tasks are
/// `ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT`). Not capturing
/// `ACL_ERROR_RT_STREAM_NOT_CAPTURED`; a group already open
/// `ACL_ERROR_STREAM_TASK_GROUP_STATUS`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRICaptureTaskGrpBegin(stream_: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureTaskGrpBegin",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let rt = runtime_for("aclmdlRICaptureTaskGrpBegin")?;
                let s = stream(&rt, stream_)?;
                capture::group_begin(&s).map_err(report)
            })())
        },
    )
}

/// `aclmdlRICaptureTaskGrpEnd`: closes the stream's task group and writes
/// its handle. No group open `ACL_ERROR_STREAM_TASK_GROUP_STATUS`.
///
/// # Safety
/// `handle` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureTaskGrpEnd(
    stream_: aclrtStream,
    handle: *mut aclrtTaskGrp,
) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureTaskGrpEnd",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let rt = runtime_for("aclmdlRICaptureTaskGrpEnd")?;
                if handle.is_null() {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        "npu-sim: aclmdlRICaptureTaskGrpEnd: handle is null",
                    ));
                }
                let s = stream(&rt, stream_)?;
                let (m, g) = capture::group_end(&s).map_err(report)?;
                let h = state::new_handle();
                state::with_handles(|hs| hs.task_groups.insert(h, (Arc::downgrade(&m), g)));
                // SAFETY: checked non-null; the caller's contract.
                unsafe { *handle = h as aclrtTaskGrp };
                Ok(())
            })())
        },
    )
}

/// `aclmdlRICaptureTaskUpdateBegin`: launches on `stream` (which must not
/// be capturing: `ACL_ERROR_RT_STREAM_CAPTURED`) until
/// `aclmdlRICaptureTaskUpdateEnd` do not run: they replace the group's
/// tasks. A stream updating already `ACL_ERROR_STREAM_TASK_GROUP_STATUS`;
/// a stale group `ACL_ERROR_RT_INVALID_HANDLE`, a null one
/// `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRICaptureTaskUpdateBegin(
    stream_: aclrtStream,
    handle: aclrtTaskGrp,
) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureTaskUpdateBegin",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let rt = runtime_for("aclmdlRICaptureTaskUpdateBegin")?;
                if handle.is_null() {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        "npu-sim: aclmdlRICaptureTaskUpdateBegin: handle is null",
                    ));
                }
                let g = state::with_handles(|h| h.task_groups.get(&(handle as usize)).cloned());
                let Some((m, g)) = g.and_then(|(w, g)| Some((w.upgrade()?, g))) else {
                    return Err(fail(
                        ACL_ERROR_RT_INVALID_HANDLE,
                        format!(
                        "npu-sim: aclmdlRICaptureTaskUpdateBegin: {handle:p} is not a live task \
                         group (its model destroyed, or never made)"
                    ),
                    ));
                };
                let s = stream(&rt, stream_)?;
                capture::update_begin(&s, m, g).map_err(report)
            })())
        },
    )
}

/// `aclmdlRICaptureTaskUpdateEnd`: the launches since
/// `aclmdlRICaptureTaskUpdateBegin` replace the group's, for the replays
/// queued from now on. Their number and operators must match the group's
/// (else CANN's task group update error, `ACL_ERROR_RT_INTERNAL_ERROR`,
/// and the group is unchanged); not updating
/// `ACL_ERROR_STREAM_TASK_GROUP_STATUS`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRICaptureTaskUpdateEnd(stream_: aclrtStream) -> aclError {
    crate::abi::guard(
        "aclmdlRICaptureTaskUpdateEnd",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let rt = runtime_for("aclmdlRICaptureTaskUpdateEnd")?;
                let s = stream(&rt, stream_)?;
                capture::update_end(&s).map_err(report)
            })())
        },
    )
}

/// Queues a replay of `m` on `s`.
fn replay(rt: &Runtime, m: &Arc<Model>, s: &Stream, api: &str) -> Result<(), i32> {
    if m.capturing() {
        return Err(fail(
            ACL_ERROR_RT_MODEL_CAPTURED,
            format!("npu-sim: {api}: the model is still being captured (aclmdlRICaptureEnd first)"),
        ));
    }
    let tasks = m.snapshot();
    let guard = m.start_replay();
    s.replay(&tasks, &rt.pool, guard).map_err(report)
}

/// `aclmdlRIExecuteAsync`: queues the model's tasks on `stream` (NULL:
/// the default stream), one stream task per captured task in capture
/// order, run like direct work: each launch's memory is checked when it
/// runs, a fault is the stream's sticky fault, the stream's failure mode
/// applies, captured event records complete on this stream. On a stream
/// being captured, the tasks join that capture.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIExecuteAsync(model_ri: aclmdlRI, stream_: aclrtStream) -> aclError {
    crate::abi::guard("aclmdlRIExecuteAsync", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let rt = runtime_for("aclmdlRIExecuteAsync")?;
            let m = model_of("aclmdlRIExecuteAsync", model_ri)?;
            let s = stream(&rt, stream_)?;
            replay(&rt, &m, &s, "aclmdlRIExecuteAsync")
        })())
    })
}

/// `aclmdlRIExecute`: runs the model and waits for it, at most `timeout`
/// ms (-1: for ever; else > 0, or `ACL_ERROR_INVALID_PARAM`): on a stream
/// of the model's own, so its fault is this call's status;
/// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT` when it does not finish in time.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIExecute(model_ri: aclmdlRI, timeout: i32) -> aclError {
    crate::abi::guard("aclmdlRIExecute", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let rt = rt()?;
            let limit = match timeout {
                -1 => None,
                t if t > 0 => Some(Duration::from_millis(t as u64)),
                t => {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!("npu-sim: aclmdlRIExecute: timeout {t} must be -1 or > 0 (ms)"),
                    ))
                }
            };
            let m = model_of("aclmdlRIExecute", model_ri)?;
            let s = {
                let mut g = m.exec_stream.lock().unwrap_or_else(|e| e.into_inner());
                if g.is_none() {
                    let st = Stream::new(m.device).map_err(|e| {
                        fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, format!("npu-sim: {e}"))
                    })?;
                    *g = Some(Arc::new(st));
                }
                g.clone().expect("made above")
            };
            replay(&rt, &m, &s, "aclmdlRIExecute")?;
            s.synchronize_within(limit).map_err(report)
        })())
    })
}

/// `aclmdlRIDestroy`: destroys the model once its queued replays have
/// finished (waiting up to 10 s, then `ACL_ERROR_RT_MODEL_RUNNING` and
/// the model stays), as CANN's. A model still being captured
/// `ACL_ERROR_RT_MODEL_CAPTURED`. Its task groups go with it.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIDestroy(model_ri: aclmdlRI) -> aclError {
    crate::abi::guard("aclmdlRIDestroy", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let m = model_of("aclmdlRIDestroy", model_ri)?;
            if m.capturing() {
                return Err(fail(
                    ACL_ERROR_RT_MODEL_CAPTURED,
                    "npu-sim: aclmdlRIDestroy: the model is being captured (aclmdlRICaptureEnd first)",
                ));
            }
            if !m.wait_idle(DESTROY_WAIT) {
                return Err(fail(
                    ACL_ERROR_RT_MODEL_RUNNING,
                    format!(
                        "npu-sim: aclmdlRIDestroy: {} replay(s) of the model are still queued after \
                         {} s; the model is not destroyed",
                        m.running(),
                        DESTROY_WAIT.as_secs()
                    ),
                ));
            }
            unregister(&m);
            Ok(())
        })())
    })
}

/// Takes the models of a finalisation (`all`) or of the devices reset:
/// their capture ends, their handles go.
pub(crate) fn take_models(devices: &[u32], all: bool) -> Vec<Arc<Stream>> {
    let models: Vec<Arc<Model>> = state::with_handles(|h| {
        h.models
            .values()
            .filter(|m| all || devices.contains(&m.device))
            .cloned()
            .collect()
    });
    let mut streams = Vec::new();
    for m in models {
        if m.capturing() {
            capture::abandon(&m);
        }
        state::with_handles(|h| {
            h.models.retain(|_, x| !Arc::ptr_eq(x, &m));
            h.task_groups
                .retain(|_, (w, _)| w.upgrade().is_some_and(|x| !Arc::ptr_eq(&x, &m)));
        });
        streams.extend(
            m.exec_stream
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
    }
    streams
}
