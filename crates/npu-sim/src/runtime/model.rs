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
    capture::release_built(m);
    state::with_handles(|h| {
        h.models.retain(|_, x| !Arc::ptr_eq(x, m));
        h.task_groups
            .retain(|_, (w, _)| w.upgrade().is_some_and(|x| !Arc::ptr_eq(&x, m)));
        h.model_streams
            .retain(|_, (w, _)| w.upgrade().is_some_and(|x| !Arc::ptr_eq(&x, m)));
        h.model_tasks
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
            if before.as_ref().is_some_and(|m| m.is_built()) {
                return Err(fail(
                    ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                    "npu-sim: aclmdlRICaptureEnd: the stream is bound to a model being built \
                     (aclmdlRIBindStream), not captured: end the build with aclmdlRIBuildEnd",
                ));
            }
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
    let flow = m.flow();
    let guard = m.start_replay();
    s.replay(m, &tasks, flow, &rt.pool, guard).map_err(report)
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
            if m.phase() == capture::Phase::Building {
                // A model whose build did not end: its streams are freed.
                unregister(&m);
                return Ok(());
            }
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
        capture::release_built(&m);
        if m.capturing() && m.phase() != capture::Phase::Building {
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

/// Built models and labels are on Atlas A2 and A3 (and 950) only (CANN's
/// product tables of `aclmdlRIBuildBegin` .. and of the label calls):
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` elsewhere.
fn built_runtime(api: &str) -> Result<Arc<Runtime>, i32> {
    let rt = rt()?;
    match crate::soc::family_of(&rt.config.soc) {
        Some(Family::A2) | Some(Family::A3) => Ok(rt),
        _ => Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: built models and labels are not supported on {} (only Atlas A2, \
                 A3 and 950)",
                rt.config.soc
            ),
        )),
    }
}

fn null_param(api: &str, what: &str) -> i32 {
    fail(
        ACL_ERROR_INVALID_PARAM,
        format!("npu-sim: {api}: {what} is null"),
    )
}

/// A non-null stream bound (or to be bound) to a model.
fn model_stream(rt: &Runtime, api: &str, s: aclrtStream) -> Result<Arc<Stream>, i32> {
    if s.is_null() {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: the stream is NULL; a model's stream is a created stream"),
        ));
    }
    stream(rt, s)
}

/// `aclmdlRIBuildBegin`: a new, empty model being built on the current
/// device (CANN's API reference, "aclmdlRIBuildBegin"). `flag` is
/// reserved: 0, else `ACL_ERROR_INVALID_PARAM`; `modelRI` null
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `model_ri` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRIBuildBegin(model_ri: *mut aclmdlRI, flag: u32) -> aclError {
    crate::abi::guard("aclmdlRIBuildBegin", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIBuildBegin";
            built_runtime(api)?;
            if model_ri.is_null() {
                return Err(null_param(api, "modelRI"));
            }
            if flag != 0 {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: flag {flag} is reserved and must be 0"),
                ));
            }
            let Some(d) = state::current_device() else {
                return Err(fail(
                    ACL_ERROR_RT_CONTEXT_NULL,
                    format!("npu-sim: {api}: no device: call aclrtSetDevice first"),
                ));
            };
            let m = capture::build_begin(d);
            let h = state::new_handle();
            state::with_handles(|hs| hs.models.insert(h, m));
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *model_ri = h as aclmdlRI };
            Ok(())
        })())
    })
}

/// `aclmdlRIBindStream`: tasks submitted to `stream` are recorded into
/// the model being built instead of run. `flag`:
/// `ACL_MODEL_STREAM_FLAG_HEAD` or `ACL_MODEL_STREAM_FLAG_DEFAULT` (else
/// `ACL_ERROR_INVALID_PARAM`); the stream must be a created
/// `ACL_STREAM_PERSISTENT` stream (NULL or another kind
/// `ACL_ERROR_RT_PARAM_INVALID`), bound to no model
/// (`ACL_ERROR_RT_STREAM_MODEL`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIBindStream(
    model_ri: aclmdlRI,
    stream_: aclrtStream,
    flag: u32,
) -> aclError {
    crate::abi::guard("aclmdlRIBindStream", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIBindStream";
            let rt = built_runtime(api)?;
            let m = model_of(api, model_ri)?;
            if flag != ACL_MODEL_STREAM_FLAG_HEAD as u32
                && flag != ACL_MODEL_STREAM_FLAG_DEFAULT as u32
            {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {api}: flag {flag:#x} is neither ACL_MODEL_STREAM_FLAG_HEAD nor \
                         ACL_MODEL_STREAM_FLAG_DEFAULT"
                    ),
                ));
            }
            let s = model_stream(&rt, api, stream_)?;
            if super::stream_config::flags_of(&s) & ACL_STREAM_PERSISTENT as u32 == 0 {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: {api}: the stream is not persistent (create it with \
                         aclrtCreateStreamWithConfig(..., ACL_STREAM_PERSISTENT))"
                    ),
                ));
            }
            capture::bind(&m, &s, flag).map_err(report)
        })())
    })
}

/// `aclmdlRIUnbindStream`: the stream leaves the model (the tasks it
/// recorded stay in it). Not bound to this model `ACL_ERROR_RT_STREAM_MODEL`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIUnbindStream(model_ri: aclmdlRI, stream_: aclrtStream) -> aclError {
    crate::abi::guard("aclmdlRIUnbindStream", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIUnbindStream";
            let rt = built_runtime(api)?;
            let m = model_of(api, model_ri)?;
            let s = model_stream(&rt, api, stream_)?;
            capture::unbind(&m, &s).map_err(report)
        })())
    })
}

/// `aclmdlRIEndTask`: closes the stream's task list in the model; later
/// submissions to it before `aclmdlRIBuildEnd` are `ACL_ERROR_RT_STREAM_MODEL`,
/// as is a stream not bound to this model being built.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIEndTask(model_ri: aclmdlRI, stream_: aclrtStream) -> aclError {
    crate::abi::guard("aclmdlRIEndTask", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIEndTask";
            let rt = built_runtime(api)?;
            let m = model_of(api, model_ri)?;
            let s = model_stream(&rt, api, stream_)?;
            capture::record_control(&s, Some(&m), capture::Captured::EndTask)
                .map(drop)
                .map_err(report)
        })())
    })
}

/// `aclmdlRIBuildEnd`: the model can run (`aclmdlRIExecute`,
/// `aclmdlRIExecuteAsync`). `reserve` must be NULL
/// (`ACL_ERROR_INVALID_PARAM`); a model not being built (captured, or
/// built already) `ACL_ERROR_RT_PARAM_INVALID`; a switch whose label is
/// not set in the model `ACL_ERROR_RT_PARAM_INVALID`, set on another
/// stream or before the switch `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`
/// (simulator limit); then the model stays being built.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIBuildEnd(model_ri: aclmdlRI, reserve: *mut std::ffi::c_void) -> aclError {
    crate::abi::guard("aclmdlRIBuildEnd", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIBuildEnd";
            built_runtime(api)?;
            let m = model_of(api, model_ri)?;
            if !reserve.is_null() {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: reserve must be NULL"),
                ));
            }
            capture::build_end(&m).map_err(report)
        })())
    })
}

fn debug_text(m: &Model, h: aclmdlRI) -> String {
    let mut out = format!(
        "modelRI {h:p}: model id {}, device {}, {} ({}), {} task(s)\n",
        m.id,
        m.device,
        if m.is_built() { "built" } else { "captured" },
        match m.phase() {
            capture::Phase::Ready => "ready",
            capture::Phase::Building => "building",
            _ => "capturing",
        },
        capture::describe(m).len()
    );
    for (s, t, what) in capture::describe(m) {
        out.push_str(&format!("  stream {s} task {t}: {what}\n"));
    }
    out
}

/// `aclmdlRIDebugPrint`: prints the model's id, device and tasks (by
/// stream, in order) on stdout. For captured and built models.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclmdlRIDebugPrint(model_ri: aclmdlRI) -> aclError {
    crate::abi::guard("aclmdlRIDebugPrint", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIDebugPrint";
            runtime_for(api)?;
            let m = model_of(api, model_ri)?;
            print!("{}", debug_text(&m, model_ri));
            Ok(())
        })())
    })
}

/// `aclmdlRIDebugJsonPrint`: writes the model's tasks as JSON (a trace
/// event list, as CANN's for chrome://tracing: model id, stream id, task
/// id, task type) to the file `path`. `flags`:
/// `ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY` or `..._VERBOSE` (the same here:
/// no kernel arguments), else `ACL_ERROR_INVALID_PARAM`; path null
/// `ACL_ERROR_INVALID_PARAM`; a file that cannot be written
/// `ACL_ERROR_RT_PARAM_INVALID`.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRIDebugJsonPrint(
    model_ri: aclmdlRI,
    path: *const std::ffi::c_char,
    flags: u32,
) -> aclError {
    crate::abi::guard(
        "aclmdlRIDebugJsonPrint",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let api = "aclmdlRIDebugJsonPrint";
                runtime_for(api)?;
                let m = model_of(api, model_ri)?;
                if path.is_null() {
                    return Err(null_param(api, "path"));
                }
                if flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY as u32
                    && flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE as u32
                {
                    return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: flags {flags:#x} is not an ACL_MDLRI_DEBUG_JSON_PRINT_* value"),
                ));
                }
                let p = super::cstr(path);
                let tasks = capture::describe(&m);
                let mut j = String::from("{\"traceEvents\":[");
                for (i, (s, t, what)) in tasks.iter().enumerate() {
                    if i > 0 {
                        j.push(',');
                    }
                    j.push_str(&format!(
                    "{{\"name\":\"{what}\",\"ph\":\"X\",\"pid\":{},\"tid\":{s},\"ts\":{i},\"dur\":1,\
                     \"args\":{{\"model_id\":{},\"device_id\":{},\"stream_id\":{s},\"task_id\":{t},\
                     \"task_type\":\"{what}\"}}}}",
                    m.id, m.id, m.device
                ));
                }
                j.push_str("]}\n");
                std::fs::write(&p, j).map_err(|e| {
                    fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!("npu-sim: {api}: cannot write {p:?}: {e}"),
                    )
                })
            })())
        },
    )
}

// ---------------------------------------------------------------------
// A model's streams and tasks (`aclmdlRIGetStreams`,
// `aclmdlRIGetTasksByStream`, `aclmdlRITaskGetType`,
// `aclmdlRITaskGetSeqId`): experimental in CANN, on Atlas A2 and A3 (and
// 950). Every check is the runtime's (the ACL layer passes the arguments
// through): a null pointer is `ACL_ERROR_RT_PARAM_INVALID`, an array
// smaller than the list `ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY`.
// ---------------------------------------------------------------------

fn rt_null(api: &str, what: &str) -> i32 {
    fail(
        ACL_ERROR_RT_PARAM_INVALID,
        format!("npu-sim: {api}: {what} is null"),
    )
}

/// The handle `aclmdlRIGetStreams` gives for stream `k` of `m`: for a
/// built model, the program's own stream while it lives (CANN binds the
/// program's streams); otherwise (a captured model's streams are the
/// model's own) a handle of the model's stream, the same at every call.
fn model_stream_handle(m: &Arc<Model>, k: usize) -> usize {
    state::with_handles(|h| {
        if m.is_built() {
            if let Some((&hd, _)) = h.streams.iter().find(|(_, s)| capture::stream_key(s) == k) {
                return hd;
            }
        }
        if let Some((&hd, _)) = h
            .model_streams
            .iter()
            .find(|(_, (w, x))| *x == k && w.upgrade().is_some_and(|x| Arc::ptr_eq(&x, m)))
        {
            return hd;
        }
        let hd = state::new_handle();
        h.model_streams.insert(hd, (Arc::downgrade(m), k));
        hd
    })
}

/// The handle of task `i` of `m`, the same at every call.
fn model_task_handle(m: &Arc<Model>, i: usize) -> usize {
    state::with_handles(|h| {
        if let Some((&hd, _)) = h
            .model_tasks
            .iter()
            .find(|(_, (w, x))| *x == i && w.upgrade().is_some_and(|x| Arc::ptr_eq(&x, m)))
        {
            return hd;
        }
        let hd = state::new_handle();
        h.model_tasks.insert(hd, (Arc::downgrade(m), i));
        hd
    })
}

/// Writes `list` into the caller's array as CANN's runtime does: with a
/// null array only the count; else `min(*num, len)` entries, the rest of
/// the array NULL, `*num` the number written, and
/// `ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY` when that is fewer than the
/// list.
///
/// # Safety
/// `num` is valid for a read and a write; `out` is null or valid for
/// `*num` writes.
unsafe fn write_list(
    api: &str,
    what: &str,
    list: &[usize],
    out: *mut *mut std::ffi::c_void,
    num: *mut u32,
) -> Result<(), i32> {
    let total = u32::try_from(list.len()).unwrap_or(u32::MAX);
    if out.is_null() {
        // SAFETY: the caller's contract (num checked non-null by the caller).
        unsafe { *num = total };
        return Ok(());
    }
    // SAFETY: as above.
    let cap = unsafe { *num };
    let n = cap.min(total);
    let values = list.iter().copied().chain(std::iter::repeat(0));
    for (i, v) in values.take(cap as usize).enumerate() {
        // SAFETY: `out` holds `cap` entries (the caller's contract).
        unsafe { *out.add(i) = v as *mut std::ffi::c_void };
    }
    // SAFETY: as above.
    unsafe { *num = n };
    if n < total {
        return Err(fail(
            ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY,
            format!(
                "npu-sim: {api}: the array holds {cap} {what}, the list has {total} (the first \
                 {n} were written)"
            ),
        ));
    }
    Ok(())
}

/// `aclmdlRIGetStreams`: the model's streams (CANN's API reference,
/// "aclmdlRIGetStreams"; experimental). With `streams` NULL, writes their
/// number to `*numStreams`; else writes up to `*numStreams` of them (the
/// rest of the array NULL) and their number written, and fewer than the
/// model has is `ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY`. A captured model's
/// streams are its own (handles that only the model-query calls accept);
/// a built model's are the program's bound streams. `numStreams` or
/// `modelRI` null `ACL_ERROR_RT_PARAM_INVALID`; a model not live
/// `ACL_ERROR_RT_INVALID_HANDLE`.
///
/// # Safety
/// `num_streams` is null or valid for a read and a write; `streams` is
/// null or valid for `*num_streams` writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetStreams(
    model_ri: aclmdlRI,
    streams: *mut aclrtStream,
    num_streams: *mut u32,
) -> aclError {
    crate::abi::guard("aclmdlRIGetStreams", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRIGetStreams";
            built_runtime(api)?;
            if model_ri.is_null() {
                return Err(rt_null(api, "modelRI"));
            }
            let m = model_of(api, model_ri)?;
            if num_streams.is_null() {
                return Err(rt_null(api, "numStreams"));
            }
            let list: Vec<usize> = capture::stream_keys(&m)
                .into_iter()
                .map(|k| model_stream_handle(&m, k))
                .collect();
            // SAFETY: num_streams checked non-null; the caller's contract.
            unsafe { write_list(api, "streams", &list, streams, num_streams) }
        })())
    })
}

/// The model and stream key a stream handle of `aclmdlRIGetStreams` names:
/// a model's own stream, or a program's stream bound to a built model (the
/// latest such model).
fn model_of_stream(api: &str, s: aclrtStream) -> Result<(Arc<Model>, usize), i32> {
    let h = s as usize;
    let found = state::with_handles(|hs| {
        if let Some((w, k)) = hs.model_streams.get(&h) {
            return Some(w.upgrade().map(|m| (m, *k)));
        }
        let st = hs.streams.get(&h)?;
        let k = capture::stream_key(st);
        let m = hs
            .models
            .values()
            .filter(|m| m.is_built() && capture::stream_keys(m).contains(&k))
            .max_by_key(|m| m.id)
            .cloned();
        Some(m.map(|m| (m, k)))
    });
    match found {
        Some(Some(x)) => Ok(x),
        Some(None) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "npu-sim: {api}: {s:p} is not a stream of a model (pass a stream that \
                 aclmdlRIGetStreams gave)"
            ),
        )),
        None => Err(fail(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!(
                "npu-sim: {api}: {s:p} is not a live stream (never made, or its model destroyed)"
            ),
        )),
    }
}

/// `aclmdlRIGetTasksByStream`: the tasks of a model's stream, in the
/// stream's order (CANN's API reference, "aclmdlRIGetTasksByStream";
/// experimental): the same two-call protocol as `aclmdlRIGetStreams`.
/// `stream` is one `aclmdlRIGetStreams` gave; any other live stream
/// `ACL_ERROR_RT_PARAM_INVALID`, a stale one `ACL_ERROR_RT_INVALID_HANDLE`;
/// `stream` or `numTasks` null `ACL_ERROR_RT_PARAM_INVALID`.
///
/// # Safety
/// `num_tasks` is null or valid for a read and a write; `tasks` is null
/// or valid for `*num_tasks` writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetTasksByStream(
    stream_: aclrtStream,
    tasks: *mut aclmdlRITask,
    num_tasks: *mut u32,
) -> aclError {
    crate::abi::guard(
        "aclmdlRIGetTasksByStream",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let api = "aclmdlRIGetTasksByStream";
                built_runtime(api)?;
                if stream_.is_null() {
                    return Err(rt_null(api, "stream"));
                }
                let (m, k) = model_of_stream(api, stream_)?;
                if num_tasks.is_null() {
                    return Err(rt_null(api, "numTasks"));
                }
                let list: Vec<usize> = capture::task_indices(&m, k)
                    .into_iter()
                    .map(|i| model_task_handle(&m, i))
                    .collect();
                // SAFETY: num_tasks checked non-null; the caller's contract.
                unsafe { write_list(api, "tasks", &list, tasks, num_tasks) }
            })())
        },
    )
}

/// The model task a handle names: (type, position on its stream).
fn task_of(api: &str, task: aclmdlRITask) -> Result<(aclmdlRITaskType, u32), i32> {
    if task.is_null() {
        return Err(rt_null(api, "task"));
    }
    let found = state::with_handles(|h| h.model_tasks.get(&(task as usize)).cloned());
    found
        .and_then(|(w, i)| capture::task_info(&*w.upgrade()?, i))
        .ok_or_else(|| {
            fail(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "npu-sim: {api}: {task:p} is not a live model task (never given by \
                     aclmdlRIGetTasksByStream, or its model destroyed)"
                ),
            )
        })
}

/// `aclmdlRITaskGetType`: a model task's type (CANN's API reference,
/// "aclmdlRITaskGetType", and the `aclmdlRITaskType` list): an operator
/// launch `ACL_MODEL_RI_TASK_KERNEL`, an event record, wait or reset
/// `..._EVENT_RECORD`, `..._EVENT_WAIT`, `..._EVENT_RESET`; copies, fills,
/// host functions, labels and switches `ACL_MODEL_RI_TASK_DEFAULT`. Null
/// `ACL_ERROR_RT_PARAM_INVALID`; a task not live
/// `ACL_ERROR_RT_INVALID_HANDLE`.
///
/// # Safety
/// `type_` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskGetType(
    task: aclmdlRITask,
    type_: *mut aclmdlRITaskType,
) -> aclError {
    crate::abi::guard("aclmdlRITaskGetType", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRITaskGetType";
            built_runtime(api)?;
            let (t, _) = task_of(api, task)?;
            if type_.is_null() {
                return Err(rt_null(api, "type"));
            }
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *type_ = t };
            Ok(())
        })())
    })
}

/// `aclmdlRITaskGetSeqId`: a model task's sequence id, its position on
/// its stream from 0 (CANN's API reference, "aclmdlRITaskGetSeqId"). Null
/// `ACL_ERROR_RT_PARAM_INVALID`; a task not live
/// `ACL_ERROR_RT_INVALID_HANDLE`.
///
/// # Safety
/// `id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskGetSeqId(task: aclmdlRITask, id: *mut u32) -> aclError {
    crate::abi::guard("aclmdlRITaskGetSeqId", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclmdlRITaskGetSeqId";
            built_runtime(api)?;
            let (_, seq) = task_of(api, task)?;
            if id.is_null() {
                return Err(rt_null(api, "id"));
            }
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *id = seq };
            Ok(())
        })())
    })
}

/// A label: where it is set (model id), if it is.
struct Label {
    set_in: Option<u64>,
}

/// Live labels and label lists, by handle.
#[derive(Default)]
struct Labels {
    labels: std::collections::HashMap<usize, Label>,
    lists: std::collections::HashMap<usize, Vec<usize>>,
}

static LABELS: std::sync::Mutex<Option<Labels>> = std::sync::Mutex::new(None);

fn with_labels<R>(f: impl FnOnce(&mut Labels) -> R) -> R {
    let mut g = LABELS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Labels::default))
}

/// CANN: at most 65535 labels per process.
const MAX_LABELS: usize = 65535;

fn stale_label(api: &str, what: &str, h: usize) -> i32 {
    fail(
        ACL_ERROR_RT_INVALID_HANDLE,
        format!("npu-sim: {api}: {h:#x} is not a live {what} (never made, or destroyed)"),
    )
}

/// `aclrtCreateLabel`: a new label (CANN's "Label management": at most
/// 65535 per process, then `ACL_ERROR_RT_RESOURCE_ALLOC_FAIL`). Null
/// `label` `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `label` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateLabel(label: *mut aclrtLabel) -> aclError {
    crate::abi::guard("aclrtCreateLabel", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclrtCreateLabel";
            built_runtime(api)?;
            if label.is_null() {
                return Err(null_param(api, "label"));
            }
            let h = state::new_handle();
            with_labels(|l| {
                if l.labels.len() >= MAX_LABELS {
                    return Err(fail(
                        ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                        format!("npu-sim: {api}: {MAX_LABELS} labels exist (CANN's limit)"),
                    ));
                }
                l.labels.insert(h, Label { set_in: None });
                Ok(())
            })?;
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *label = h as aclrtLabel };
            Ok(())
        })())
    })
}

/// `aclrtDestroyLabel`: destroys a label. Null `ACL_ERROR_INVALID_PARAM`,
/// stale (destroyed already) `ACL_ERROR_RT_INVALID_HANDLE`. A model that
/// set it keeps its place.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyLabel(label: aclrtLabel) -> aclError {
    crate::abi::guard("aclrtDestroyLabel", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclrtDestroyLabel";
            built_runtime(api)?;
            if label.is_null() {
                return Err(null_param(api, "label"));
            }
            let h = label as usize;
            with_labels(|l| l.labels.remove(&h).map(drop))
                .ok_or_else(|| stale_label(api, "label", h))
        })())
    })
}

/// `aclrtCreateLabelList`: a list of `num` labels (1..=65535, else
/// `ACL_ERROR_INVALID_PARAM`), each a live label
/// (`ACL_ERROR_RT_INVALID_HANDLE`). Null pointers `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `labels` is null or valid for `num` reads; `label_list` null or valid
/// for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateLabelList(
    labels: *mut aclrtLabel,
    num: usize,
    label_list: *mut aclrtLabelList,
) -> aclError {
    crate::abi::guard("aclrtCreateLabelList", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclrtCreateLabelList";
            built_runtime(api)?;
            if labels.is_null() {
                return Err(null_param(api, "labels"));
            }
            if label_list.is_null() {
                return Err(null_param(api, "labelList"));
            }
            if num == 0 || num > MAX_LABELS {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: num {num} is outside (0, 65535]"),
                ));
            }
            // SAFETY: non-null, `num` elements by the caller's contract.
            let ls: Vec<usize> = unsafe { std::slice::from_raw_parts(labels, num) }
                .iter()
                .map(|p| *p as usize)
                .collect();
            let h = state::new_handle();
            with_labels(|l| {
                if let Some(bad) = ls.iter().find(|x| !l.labels.contains_key(x)) {
                    return Err(stale_label(api, "label", *bad));
                }
                l.lists.insert(h, ls);
                Ok(())
            })?;
            // SAFETY: checked non-null; the caller's contract.
            unsafe { *label_list = h as aclrtLabelList };
            Ok(())
        })())
    })
}

/// `aclrtDestroyLabelList`: destroys a list (not its labels). Null
/// `ACL_ERROR_INVALID_PARAM`, stale `ACL_ERROR_RT_INVALID_HANDLE`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyLabelList(label_list: aclrtLabelList) -> aclError {
    crate::abi::guard("aclrtDestroyLabelList", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclrtDestroyLabelList";
            built_runtime(api)?;
            if label_list.is_null() {
                return Err(null_param(api, "labelList"));
            }
            let h = label_list as usize;
            with_labels(|l| l.lists.remove(&h).map(drop))
                .ok_or_else(|| stale_label(api, "label list", h))
        })())
    })
}

/// `aclrtSetLabel`: places the label at this point of the stream's task
/// sequence in the model being built. Only on a stream bound to a model
/// being built (CANN: "only streams bound with aclmdlRIBindStream"),
/// else `ACL_ERROR_RT_STREAM_MODEL`; a label is set once (set already,
/// in this or another model: `ACL_ERROR_RT_PARAM_INVALID`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetLabel(label: aclrtLabel, stream_: aclrtStream) -> aclError {
    crate::abi::guard("aclrtSetLabel", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code((|| {
            let api = "aclrtSetLabel";
            let rt = built_runtime(api)?;
            if label.is_null() {
                return Err(null_param(api, "label"));
            }
            let h = label as usize;
            let s = model_stream(&rt, api, stream_)?;
            // Claimed under the registry's lock (0: being set), so two
            // threads cannot both set it.
            let claim = with_labels(|l| match l.labels.get_mut(&h) {
                None => Err(stale_label(api, "label", h)),
                Some(x) => match x.set_in {
                    Some(id) => Err(fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!(
                            "npu-sim: {api}: the label is already set (in model {id}); a label \
                             has one place"
                        ),
                    )),
                    None => {
                        x.set_in = Some(0);
                        Ok(())
                    }
                },
            });
            claim?;
            let r = capture::record_control(&s, None, capture::Captured::Label(h));
            with_labels(|l| {
                if let Some(x) = l.labels.get_mut(&h) {
                    x.set_in = r.as_ref().ok().map(|m| m.id);
                }
            });
            r.map_err(report)?;
            Ok(())
        })())
    })
}

/// `aclrtSwitchLabelByIndex`: at run time, reads the `uint32_t` index at
/// device address `ptr` and jumps to that label of the list (an index >=
/// `maxValue` jumps to the last one, label `maxValue - 1`, as CANN
/// documents): the stream's tasks up to that label are skipped. Only in a
/// model being built (`ACL_ERROR_RT_STREAM_MODEL` elsewhere). `ptr` null
/// `ACL_ERROR_INVALID_PARAM`, not 4 bytes of device memory
/// `ACL_ERROR_RT_PARAM_INVALID`; `maxValue` 0 or more than the list's
/// labels `ACL_ERROR_INVALID_PARAM`; a stale list
/// `ACL_ERROR_RT_INVALID_HANDLE`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSwitchLabelByIndex(
    ptr: *mut std::ffi::c_void,
    max_value: u32,
    label_list: aclrtLabelList,
    stream_: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtSwitchLabelByIndex",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code((|| {
                let api = "aclrtSwitchLabelByIndex";
                let rt = built_runtime(api)?;
                if ptr.is_null() {
                    return Err(null_param(api, "ptr"));
                }
                if label_list.is_null() {
                    return Err(null_param(api, "labelList"));
                }
                let lh = label_list as usize;
                let labels = with_labels(|l| l.lists.get(&lh).cloned())
                    .ok_or_else(|| stale_label(api, "label list", lh))?;
                if max_value == 0 || max_value as usize > labels.len() {
                    return Err(fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: {api}: maxValue {max_value} must be the number of labels to \
                         choose from (1..={})",
                            labels.len()
                        ),
                    ));
                }
                let alloc = match super::locate(&rt, ptr as u64, 4) {
                    Ok(super::Loc::Device(a)) => a,
                    Ok(super::Loc::Host) => {
                        return Err(fail(
                            ACL_ERROR_RT_PARAM_INVALID,
                            format!("npu-sim: {api}: ptr {ptr:p} is not device memory"),
                        ))
                    }
                    Err(e) => {
                        return Err(fail(
                            ACL_ERROR_RT_PARAM_INVALID,
                            format!("npu-sim: {api}: {e}"),
                        ))
                    }
                };
                let s = model_stream(&rt, api, stream_)?;
                let sw = capture::Switch {
                    alloc,
                    addr: ptr as u64,
                    max: max_value,
                    labels,
                };
                capture::record_control(&s, None, capture::Captured::Switch(sw))
                    .map(drop)
                    .map_err(report)
            })())
        },
    )
}
