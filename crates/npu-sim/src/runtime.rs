//! The AscendCL runtime functions (`libascendcl.so`), simulated.

use crate::memory::{AllocError, Allocation};
use crate::state::{self, fail, Runtime};
use crate::stream::{Event, Fault, Stream};
use cann_sys::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The runtime, or the status for "not initialised".
pub(crate) fn rt() -> Result<Arc<Runtime>, i32> {
    state::runtime().ok_or_else(|| {
        fail(
            ACL_ERROR_UNINITIALIZE,
            "npu-sim: not initialised: call aclInit (or aclnnInit) first",
        )
    })
}

/// The runtime and the calling thread's device.
pub(crate) fn rt_device() -> Result<(Arc<Runtime>, u32), i32> {
    let rt = rt()?;
    match state::current_device() {
        Some(d) if d < rt.config.devices => Ok((rt, d)),
        _ => Err(fail(
            ACL_ERROR_RT_CONTEXT_NULL,
            "npu-sim: no device set on this thread: call aclrtSetDevice first",
        )),
    }
}

/// Where a pointer lives.
pub(crate) enum Loc {
    Host,
    Device(Arc<Allocation>),
}

/// Classifies `[addr, addr + len)`: host memory, or inside one live device
/// allocation; a device address outside any live allocation is an error.
pub(crate) fn locate(rt: &Runtime, addr: u64, len: u64) -> Result<Loc, String> {
    for m in &rt.memory {
        let m = lock(m);
        if m.owns(addr) {
            return match m.find(addr) {
                Some(a) if a.contains(addr, len) => Ok(Loc::Device(a.clone())),
                Some(a) => Err(format!("[{addr:#x}, +{len}) runs past the end of {a}")),
                None => Err(format!(
                    "{addr:#x} is device memory but not inside a live allocation (freed, or never allocated)"
                )),
            };
        }
    }
    Ok(Loc::Host)
}

/// The live allocation containing `addr` (for capturing at enqueue time).
pub(crate) fn find_alloc(rt: &Runtime, addr: u64) -> Option<Arc<Allocation>> {
    rt.memory.iter().find_map(|m| lock(m).find(addr).cloned())
}

/// A stream handle, resolved: NULL is the device's default stream.
pub(crate) fn stream_of(
    rt: &Runtime,
    device: Option<u32>,
    s: aclrtStream,
) -> Result<Arc<Stream>, i32> {
    if s.is_null() {
        let Some(d) = device else {
            return Err(fail(
                ACL_ERROR_RT_CONTEXT_NULL,
                "npu-sim: the default stream needs a device: call aclrtSetDevice first",
            ));
        };
        let mut ds = lock(&rt.default_streams);
        if ds[d as usize].is_none() {
            let st = Stream::new(d).map_err(|m| fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, m))?;
            ds[d as usize] = Some(Arc::new(st));
        }
        return Ok(ds[d as usize].clone().unwrap());
    }
    state::with_handles(|h| h.streams.get(&(s as usize)).cloned()).ok_or_else(|| {
        fail(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("npu-sim: {s:p} is not a live stream (never created, or destroyed)"),
        )
    })
}

fn event_of(e: aclrtEvent) -> Result<Arc<Event>, i32> {
    state::with_handles(|h| h.events.get(&(e as usize)).map(|(_, e)| e.clone())).ok_or_else(|| {
        fail(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("npu-sim: {e:p} is not a live event (never created, or destroyed)"),
        )
    })
}

fn code_of(r: Result<(), i32>) -> aclError {
    match r {
        Ok(()) => ACL_SUCCESS,
        Err(c) => c,
    }
}

fn report(f: Fault) -> aclError {
    fail(f.code, f.message)
}

/// Starts the runtime if neither init has.
pub(crate) fn start(init: &mut state::Init) -> Result<(), i32> {
    if init.runtime.is_none() {
        crate::stream::configure_from_env();
        let cfg = state::Config::from_env()
            .map_err(|m| fail(ACL_ERROR_RT_SOC_VERSION, format!("npu-sim: {m}")))?;
        let rt = state::make_runtime(cfg)
            .map_err(|m| fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, format!("npu-sim: {m}")))?;
        init.runtime = Some(Arc::new(rt));
    }
    Ok(())
}

/// What a finalisation or a device reset releases: taken out of the
/// registries under their locks, released by [`Teardown::run`] after them
/// (draining a stream must not wait while holding a lock its work or
/// another thread needs).
#[derive(Default)]
pub(crate) struct Teardown {
    rt: Option<Arc<Runtime>>,
    /// The device allocations live when it was taken (those still live
    /// are freed; later ones, made after the device was set again, are
    /// not).
    allocs: Vec<(u32, Arc<Allocation>)>,
    streams: Vec<Arc<Stream>>,
    holds: Vec<crate::Hold>,
    /// `aclrtMallocHost` blocks: address, size (finalisation only).
    host: Vec<(usize, usize)>,
}

impl Teardown {
    /// Takes every resource of `devices` (all of them when `all`, with the
    /// `aclrtMallocHost` blocks) out of the registries.
    fn take(rt: &Arc<Runtime>, devices: Vec<u32>, all: bool) -> Teardown {
        let mine = |d: u32| all || devices.contains(&d);
        let mut t = Teardown {
            rt: Some(rt.clone()),
            ..Teardown::default()
        };
        state::with_handles(|h| {
            let ids: Vec<usize> = h
                .streams
                .iter()
                .filter(|(_, s)| mine(s.device))
                .map(|(&k, _)| k)
                .collect();
            t.streams
                .extend(ids.iter().filter_map(|k| h.streams.remove(k)));
            let ids: Vec<usize> = h
                .events
                .iter()
                .filter(|(_, (d, _))| mine(*d))
                .map(|(&k, _)| k)
                .collect();
            for k in &ids {
                h.events.remove(k);
            }
            let ids: Vec<usize> = h
                .holds
                .iter()
                .filter(|(_, (d, _))| mine(*d))
                .map(|(&k, _)| k)
                .collect();
            t.holds
                .extend(ids.iter().filter_map(|k| h.holds.remove(k)).map(|(_, h)| h));
            if all {
                t.host.extend(std::mem::take(&mut h.host));
            }
        });
        let mut ds = lock(&rt.default_streams);
        for (d, s) in ds.iter_mut().enumerate() {
            if mine(d as u32) {
                t.streams.extend(s.take());
            }
        }
        drop(ds);
        for (d, m) in rt.memory.iter().enumerate() {
            if mine(d as u32) {
                let live = lock(m).live_allocations();
                t.allocs.extend(live.into_iter().map(|a| (d as u32, a)));
            }
        }
        t
    }

    /// Releases it all: opens every hold, drains and stops every stream
    /// (joining its worker), frees the devices' memory and the host blocks.
    pub(crate) fn run(self) {
        drop(self.holds);
        for s in &self.streams {
            s.open_holds();
        }
        for s in &self.streams {
            let _ = s.synchronize();
        }
        for s in &self.streams {
            s.shutdown();
        }
        drop(self.streams);
        if let Some(rt) = &self.rt {
            for (d, m) in rt.memory.iter().enumerate() {
                let mine: Vec<Arc<Allocation>> = (self.allocs.iter())
                    .filter(|(ad, _)| *ad as usize == d)
                    .map(|(_, a)| a.clone())
                    .collect();
                if !mine.is_empty() {
                    lock(m).free_these(&mine);
                }
            }
        }
        for (p, n) in self.host {
            // Removed from the registry, so freed once.
            crate::memory::pinned::free(p, n);
        }
    }
}

/// Stops the runtime when both inits are finalized. Like CANN's
/// `aclFinalize`, it releases everything: every stream (its work drained,
/// its holds opened, its worker joined), event, hold, device allocation
/// and `aclrtMallocHost` block; their handles are stale afterwards (a
/// status, never a crash). aclnn objects (tensors, arrays, scalars,
/// executors) are the caller's to destroy and stay valid handles.
/// The returned teardown runs after the init lock is released.
pub(crate) fn stop_if_unused(init: &mut state::Init) -> Teardown {
    if !init.acl && !init.aclnn {
        if let Some(rt) = init.runtime.take() {
            return Teardown::take(&rt, Vec::new(), true);
        }
    }
    Teardown::default()
}

/// `aclInit`: reads `NPU_SIM_SOC`, `NPU_SIM_DEVICES`, `NPU_SIM_MEM`,
/// `NPU_SIM_THREADS`; an unknown SoC fails with `ACL_ERROR_RT_SOC_VERSION`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `config_path` is null or a NUL-terminated string (the simulator does not read it).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclInit(_config_path: *const c_char) -> aclError {
    crate::abi::guard("aclInit", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let mut init = state::init_state();
        if init.acl {
            return fail(
                ACL_ERROR_REPEAT_INITIALIZE,
                "npu-sim: aclInit called twice without aclFinalize",
            );
        }
        if let Err(c) = start(&mut init) {
            return c;
        }
        init.acl = true;
        ACL_SUCCESS
    })
}

/// `aclFinalize`: releases everything the runtime holds (see
/// `stop_if_unused`) once `aclnnFinalize` has also been called (or
/// `aclnnInit` never was).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFinalize() -> aclError {
    crate::abi::guard("aclFinalize", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let mut init = state::init_state();
        if !init.acl {
            return fail(
                ACL_ERROR_REPEAT_FINALIZE,
                "npu-sim: aclFinalize without a matching aclInit",
            );
        }
        init.acl = false;
        let teardown = stop_if_unused(&mut init);
        drop(init);
        teardown.run();
        ACL_SUCCESS
    })
}

/// `aclGetRecentErrMsg`: the calling thread's last failure, or NULL.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    state::last_error_ptr()
}

/// `aclrtGetSocName`: the simulated SoC, or NULL before initialisation.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    crate::abi::guard(
        "aclrtGetSocName",
        std::ptr::null(),
        || match state::runtime() {
            Some(rt) => rt.soc_cstr.as_ptr(),
            None => std::ptr::null(),
        },
    )
}

/// `aclrtGetVersion`: the ACL API version the project's header follows (1.17.0).
///
/// # Safety
/// The pointers are null or valid for writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetVersion(
    major: *mut i32,
    minor: *mut i32,
    patch: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclrtGetVersion",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if major.is_null() || minor.is_null() || patch.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetVersion: null output pointer",
                );
            }
            // SAFETY: checked non-null; the caller passes valid pointers.
            unsafe {
                *major = 1;
                *minor = 17;
                *patch = 0;
            }
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetDevice`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetDevice(device_id: i32) -> aclError {
    crate::abi::guard(
        "aclrtSetDevice",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            if device_id < 0 || device_id as u32 >= rt.config.devices {
                return fail(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    format!(
                        "npu-sim: device {device_id} does not exist ({} device(s))",
                        rt.config.devices
                    ),
                );
            }
            let mut counts = lock(&rt.set_counts);
            counts[device_id as usize] = counts[device_id as usize].saturating_add(1);
            drop(counts);
            state::set_current_device(Some(device_id as u32));
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
        || {
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            if device_id < 0 || device_id as u32 >= rt.config.devices {
                return fail(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    format!("npu-sim: device {device_id} does not exist"),
                );
            }
            let d = device_id as u32;
            let teardown = {
                let mut counts = lock(&rt.set_counts);
                let c = &mut counts[d as usize];
                let was = *c;
                *c = c.saturating_sub(1);
                // Taken under the count's lock: a thread that sets the
                // device again waits for the take, so what it creates or
                // allocates afterwards is its own, not released by this
                // reset (which may still be draining the old streams).
                (was == 1).then(|| Teardown::take(&rt, vec![d], false))
            };
            if state::current_device() == Some(d) {
                state::set_current_device(None);
            }
            if let Some(t) = teardown {
                t.run();
            }
            ACL_SUCCESS
        },
    )
}

/// `aclrtGetDevice`.
///
/// # Safety
/// `device_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDevice(device_id: *mut i32) -> aclError {
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

/// `aclrtMalloc`: device memory on the current device, in the simulator's
/// non-host-dereferenceable address range. Beyond capacity:
/// `ACL_ERROR_RT_MEMORY_ALLOCATION`.
///
/// # Safety
/// `dev_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMalloc(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _policy: aclrtMemMallocPolicy,
) -> aclError {
    crate::abi::guard("aclrtMalloc", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        if dev_ptr.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtMalloc: null output pointer",
            );
        }
        let (rt, dev) = match rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        let mut m = lock(&rt.memory[dev as usize]);
        match m.alloc(size as u64) {
            Ok(a) => {
                // SAFETY: checked non-null.
                unsafe { *dev_ptr = a.base as *mut c_void };
                ACL_SUCCESS
            }
            Err(AllocError::ZeroSize) => fail(ACL_ERROR_INVALID_PARAM, "npu-sim: aclrtMalloc: size 0"),
            Err(AllocError::OutOfMemory) => fail(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!(
                    "npu-sim: aclrtMalloc: out of device memory: {size} bytes requested, {} of {} in use on device {dev}",
                    m.used(),
                    m.capacity()
                ),
            ),
        }
    })
}

/// `aclrtFree`. Work still enqueued that uses the memory faults its stream
/// (use after free) instead of touching it.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` came from `aclrtMalloc` (any other value gets a status code).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtFree(dev_ptr: *mut c_void) -> aclError {
    crate::abi::guard("aclrtFree", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let rt = match rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        let addr = dev_ptr as u64;
        for m in &rt.memory {
            let mut m = lock(m);
            if m.owns(addr) {
                return match m.free(addr) {
                    Some(_) => ACL_SUCCESS,
                    None => fail(
                        ACL_ERROR_RT_MEMORY_FREE,
                        format!("npu-sim: aclrtFree({addr:#x}): not the start of a live allocation (double free?)"),
                    ),
                };
            }
        }
        fail(
            ACL_ERROR_RT_MEMORY_FREE,
            format!("npu-sim: aclrtFree({addr:#x}): not device memory"),
        )
    })
}

/// `aclrtMallocHost`: page-locked host memory (plain host memory here).
///
/// # Safety
/// `host_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocHost(host_ptr: *mut *mut c_void, size: usize) -> aclError {
    crate::abi::guard(
        "aclrtMallocHost",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if host_ptr.is_null() || size == 0 {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtMallocHost: null output pointer or size 0",
                );
            }
            if let Err(c) = rt() {
                return c;
            }
            let Some(p) = crate::memory::pinned::alloc(size) else {
                return fail(
                    ACL_ERROR_BAD_ALLOC,
                    format!("npu-sim: aclrtMallocHost: {size} bytes not available"),
                );
            };
            state::with_handles(|h| h.host.insert(p as usize, size));
            // SAFETY: checked non-null.
            unsafe { *host_ptr = p.cast() };
            ACL_SUCCESS
        },
    )
}

/// `aclrtFreeHost`: only pointers from `aclrtMallocHost` are freed (others
/// are an error), so no caller-supplied pointer is trusted.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `host_ptr` came from `aclrtMallocHost` (any other value gets a status code).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub unsafe extern "C" fn aclrtFreeHost(host_ptr: *mut c_void) -> aclError {
    crate::abi::guard(
        "aclrtFreeHost",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            match state::with_handles(|h| h.host.remove(&(host_ptr as usize))) {
            Some(n) => {
                // Removed from the registry, so freed once.
                crate::memory::pinned::free(host_ptr as usize, n);
                ACL_SUCCESS
            }
            None => fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclrtFreeHost({host_ptr:p}): not from aclrtMallocHost (or freed already)"
                ),
            ),
        }
        },
    )
}

/// A checked copy: both ends located, kinds matched.
struct Copy {
    dst: (u64, Option<Arc<Allocation>>),
    src: (u64, Option<Arc<Allocation>>),
    count: usize,
}

fn plan_copy(
    rt: &Runtime,
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    api: &str,
) -> Result<Copy, i32> {
    if count > dest_max {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: count {count} exceeds destMax {dest_max}"),
        ));
    }
    if count > 0 && (dst.is_null() || src.is_null()) {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: null pointer"),
        ));
    }
    let loc = |p: u64, what: &str| {
        locate(rt, p, count as u64).map_err(|m| {
            fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: {what} {m}"),
            )
        })
    };
    let d = loc(dst as u64, "destination")?;
    let s = loc(src as u64, "source")?;
    for (l, p, what) in [(&d, dst as u64, "destination"), (&s, src as u64, "source")] {
        if matches!(l, Loc::Host) && count > 0 {
            check_host(p, count as u64).map_err(|m| {
                fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!("npu-sim: {api}: host {what} {m}"),
                )
            })?;
        }
    }
    let (want_dst_dev, want_src_dev) = match kind {
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST => (Some(false), Some(false)),
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE => (Some(true), Some(false)),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST => (Some(false), Some(true)),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE => (Some(true), Some(true)),
        aclrtMemcpyKind::ACL_MEMCPY_DEFAULT => (None, None),
        other => {
            return Err(fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: unknown copy kind {}", other.0),
            ))
        }
    };
    let is_dev = |l: &Loc| matches!(l, Loc::Device(_));
    let side = |dev: bool| if dev { "device" } else { "host" };
    for (want, l, what) in [
        (want_dst_dev, &d, "destination"),
        (want_src_dev, &s, "source"),
    ] {
        if let Some(w) = want {
            if w != is_dev(l) {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: {api}: copy kind {} needs a {} {what}, got a {} pointer",
                        kind.0,
                        side(w),
                        side(is_dev(l))
                    ),
                ));
            }
        }
    }
    let alloc = |l: Loc| match l {
        Loc::Device(a) => Some(a),
        Loc::Host => None,
    };
    Ok(Copy {
        dst: (dst as u64, alloc(d)),
        src: (src as u64, alloc(s)),
        count,
    })
}

/// The lowest address a host end may have: nothing is ever mapped in the
/// first page (a pointer there is NULL plus an offset).
const HOST_MIN: u64 = 4096;

/// The checks a host range `[addr, addr + len)` can get (the simulator
/// cannot know whether an arbitrary host address is mapped; it knows its
/// own memory): it does not wrap, does not lie in the first page or (on
/// x86-64) beyond user space, does not reach into a device address range
/// (this runtime's or an earlier one's: device memory is never host
/// memory), and, if it starts inside an `aclrtMallocHost` block, ends
/// inside it.
fn check_host(addr: u64, len: u64) -> Result<(), String> {
    let Some(end) = addr.checked_add(len) else {
        return Err(format!(
            "[{addr:#x}, +{len}) wraps around the address space"
        ));
    };
    if addr < HOST_MIN {
        return Err(format!(
            "{addr:#x} is not a host address (the first {HOST_MIN} bytes are never mapped)"
        ));
    }
    // User space ends below 2^56 on x86-64 (2^47 with 4-level paging);
    // other architectures may tag pointers in their top byte.
    if cfg!(target_arch = "x86_64") && end > 1 << 56 {
        return Err(format!(
            "[{addr:#x}, +{len}) is not in user space (not a host address)"
        ));
    }
    if let Some((b, e)) = crate::memory::pinned::retired_overlapping(addr, end) {
        return Err(format!(
            "[{addr:#x}, +{len}) reaches into a freed aclrtMallocHost block [{b:#x}, {e:#x}) \
             (freed by aclrtFreeHost or aclFinalize: not host memory any more)"
        ));
    }
    if let Some((b, e)) = crate::memory::device_range_overlapping(addr, end) {
        return Err(format!(
            "[{addr:#x}, +{len}) reaches into the simulator's device address range \
             [{b:#x}, {e:#x}) (device memory, of this runtime or a finalised one, is \
             not host memory)"
        ));
    }
    let block = state::with_handles(|h| {
        h.host
            .range(..=addr as usize)
            .next_back()
            .map(|(&b, &n)| (b as u64, n as u64))
    });
    if let Some((b, n)) = block {
        if addr < b + n && end > b + n {
            return Err(format!(
                "[{addr:#x}, +{len}) runs past the end of the aclrtMallocHost block \
                 [{b:#x}, {:#x}) ({n} bytes)",
                b + n
            ));
        }
    }
    Ok(())
}

fn host_ptr(end: &(u64, Option<Arc<Allocation>>)) -> *mut u8 {
    match &end.1 {
        Some(a) => a.host_ptr(end.0),
        None => end.0 as *mut u8,
    }
}

fn freed_fault(api: &str, end: &(u64, Option<Arc<Allocation>>)) -> Option<Fault> {
    let a = end.1.as_ref()?;
    a.freed
        .load(std::sync::atomic::Ordering::Acquire)
        .then(|| Fault {
            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
            message: format!(
                "npu-sim: {api}: use after free: {a} was freed while the copy was pending"
            ),
        })
}

impl Copy {
    /// Copies (split across `cores` when large and the ends do not
    /// overlap); faults instead if device memory was freed in between.
    fn run(&self, api: &str, cores: Option<&crate::cores::Cores>) -> Result<(), Fault> {
        if let Some(f) = freed_fault(api, &self.dst).or_else(|| freed_fault(api, &self.src)) {
            return Err(f);
        }
        let (src, dst) = (host_ptr(&self.src), host_ptr(&self.dst));
        let apart = (dst as usize).abs_diff(src as usize) >= self.count;
        match cores {
            Some(c) if apart && self.count >= 1 << 20 => {
                let d = crate::kernels::CopyDesc::new(&[self.count as i64], &[1], &[1], 1);
                // SAFETY: as below, and the ends do not overlap.
                unsafe { crate::kernels::copy(c, d, dst, src) }
            }
            // SAFETY: both ranges were located (host: caller's promise;
            // device: inside a live allocation, still live as just checked,
            // and kept mapped by the Arc). `copy` tolerates overlap.
            _ => unsafe { std::ptr::copy(src, dst, self.count) },
        }
        Ok(())
    }
}

/// `aclrtMemcpy`: synchronous; checks the kind against where each pointer
/// lives, `count` against `destMax`, and each host end as far as the
/// simulator can know it (see `check_host`).
///
/// # Safety
/// Host ends are valid for `count` bytes (and, for the async form, stay
/// valid until the stream has run the copy), as with CANN; device ends are
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    crate::abi::guard("aclrtMemcpy", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let rt = match rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        match plan_copy(&rt, dst, dest_max, src, count, kind, "aclrtMemcpy") {
            Ok(c) => match c.run("aclrtMemcpy", Some(&rt.pool)) {
                Ok(()) => ACL_SUCCESS,
                Err(f) => report(f),
            },
            Err(code) => code,
        }
    })
}

/// `aclrtMemcpyAsync`: checked now, copied in stream order.
///
/// # Safety
/// Host ends are valid for `count` bytes (and, for the async form, stay
/// valid until the stream has run the copy), as with CANN; device ends are
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtMemcpyAsync",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                let c = plan_copy(&rt, dst, dest_max, src, count, kind, "aclrtMemcpyAsync")?;
                // The raw host pointers are only addresses here; the caller keeps
                // host buffers alive until the stream has run the copy, as with CANN.
                // By value in the queue: no allocation per copy.
                let (c, cores, bytes) = (SendCopy(c), rt.pool.clone(), 2 * count as u64);
                s.submit(crate::stream::Job::Copy(c, cores), bytes);
                Ok(())
            })())
        },
    )
}

/// A checked asynchronous copy, queued by value on its stream.
pub(crate) struct SendCopy(Copy);
// SAFETY: a Copy holds addresses (u64) and Arcs of Sync allocations.
unsafe impl Send for SendCopy {}

impl SendCopy {
    /// Runs the copy (on the stream's worker, or inline on an idle stream).
    pub(crate) fn run(&self, cores: &crate::cores::Cores) -> Result<(), Fault> {
        self.0.run("aclrtMemcpyAsync", Some(cores))
    }
}

fn plan_memset(
    rt: &Runtime,
    dev_ptr: *mut c_void,
    max: usize,
    count: usize,
    api: &str,
) -> Result<Option<Arc<Allocation>>, i32> {
    if count > max {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: count {count} exceeds maxCount {max}"),
        ));
    }
    match locate(rt, dev_ptr as u64, count as u64) {
        Ok(Loc::Device(a)) => Ok(Some(a)),
        Ok(Loc::Host) if count == 0 => Ok(None),
        Ok(Loc::Host) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {dev_ptr:p} is not device memory"),
        )),
        Err(m) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {m}"),
        )),
    }
}

fn run_memset(
    a: &Option<Arc<Allocation>>,
    addr: u64,
    value: i32,
    count: usize,
    api: &str,
) -> Result<(), Fault> {
    let Some(a) = a else { return Ok(()) };
    if let Some(f) = freed_fault(api, &(addr, Some(a.clone()))) {
        return Err(f);
    }
    // SAFETY: [addr, addr + count) lies in the live allocation `a`.
    unsafe { a.host_ptr(addr).write_bytes(value as u8, count) };
    Ok(())
}

/// `aclrtMemset`: fills `count` bytes with the low byte of `value`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` is device memory of `max_count` bytes (checked against live allocations).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemset(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
) -> aclError {
    crate::abi::guard("aclrtMemset", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let a = plan_memset(&rt, dev_ptr, max_count, count, "aclrtMemset")?;
            run_memset(&a, dev_ptr as u64, value, count, "aclrtMemset").map_err(report)
        })())
    })
}

/// `aclrtMemsetAsync`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` is device memory of `max_count` bytes (checked against live allocations when the work runs).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemsetAsync(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtMemsetAsync",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                let a = plan_memset(&rt, dev_ptr, max_count, count, "aclrtMemsetAsync")?;
                let addr = dev_ptr as u64;
                let job = move || run_memset(&a, addr, value, count, "aclrtMemsetAsync");
                s.submit(crate::stream::Job::Closure(Box::new(job)), count as u64);
                Ok(())
            })())
        },
    )
}

/// `aclrtGetMemInfo`: free and total bytes of the current device (every
/// attribute reports the one simulated memory).
///
/// # Safety
/// `free` and `total` are null or valid for writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetMemInfo(
    _attr: aclrtMemAttr,
    free: *mut usize,
    total: *mut usize,
) -> aclError {
    crate::abi::guard(
        "aclrtGetMemInfo",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if free.is_null() || total.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetMemInfo: null output pointer",
                );
            }
            let (rt, dev) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let m = lock(&rt.memory[dev as usize]);
            // SAFETY: checked non-null.
            unsafe {
                *total = m.capacity() as usize;
                *free = (m.capacity() - m.used()) as usize;
            }
            ACL_SUCCESS
        },
    )
}

/// Reads a C string argument (for messages).
pub(crate) fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a non-null C string argument, NUL-terminated by contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `aclDataTypeSize`: bytes of one element of `data_type` (0 for a type
/// the simulator does not know).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclDataTypeSize(data_type: aclDataType) -> usize {
    crate::abi::guard("aclDataTypeSize", 0, || {
        crate::soc::dtype_size(data_type).unwrap_or(0)
    })
}

/// `aclFloatToFloat16`: `value` as IEEE half precision, rounded to nearest
/// even.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    crate::abi::guard("aclFloatToFloat16", 0, || {
        crate::kernels::npu_f32_to_f16(value)
    })
}

/// `aclFloat16ToFloat`: an IEEE half precision value as `float` (exact).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    crate::abi::guard("aclFloat16ToFloat", 0.0, || {
        crate::kernels::npu_f16_to_f32(value)
    })
}
