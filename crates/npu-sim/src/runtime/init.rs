//! Initialisation and finalisation (`aclInit`, `aclFinalize`, `acl.h`),
//! `aclGetRecentErrMsg`, and what identifies the runtime
//! (`aclrtGetSocName`, `acl_base_rt.h`; `aclrtGetVersion`, `acl_rt.h`).

use super::lock;
use crate::abi::fail;
use crate::memory::Allocation;
use crate::state::{self, Runtime};
use crate::stream::Stream;
use cann_sys::*;
use std::ffi::c_char;
use std::sync::Arc;

/// Starts the runtime if neither init has.
pub(crate) fn start(init: &mut state::Init) -> Result<(), i32> {
    if init.runtime.is_none() {
        crate::stream::configure_from_env();
        crate::memory::configure_from_env();
        let cfg = crate::config::Config::from_env()
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
    holds: Vec<crate::stream::Hold>,
    /// `aclrtMallocHost` blocks: address, size (finalisation only).
    host: Vec<(usize, usize)>,
}

impl Teardown {
    /// Takes every resource of `devices` (all of them when `all`, with the
    /// `aclrtMallocHost` blocks) out of the registries.
    pub(super) fn take(rt: &Arc<Runtime>, devices: Vec<u32>, all: bool) -> Teardown {
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
            // Contexts: the default stream of each explicit one is
            // released; a device's default context goes with the device.
            let ids: Vec<usize> = h
                .contexts
                .iter()
                .filter(|(_, c)| mine(c.device))
                .map(|(&k, _)| k)
                .collect();
            for k in &ids {
                let c = if all || h.contexts[k].primary {
                    h.contexts.remove(k)
                } else {
                    h.contexts.get(k).cloned()
                };
                if let Some(c) = c {
                    t.streams.extend(lock(&c.default_stream).take());
                }
            }
            if all {
                t.host.extend(std::mem::take(&mut h.host));
            }
        });
        t.streams.extend(super::model::take_models(&devices, all));
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
            super::lifecycle::add_ref();
            return fail(
                ACL_ERROR_REPEAT_INITIALIZE,
                "npu-sim: aclInit called twice without aclFinalize",
            );
        }
        if let Err(c) = start(&mut init) {
            return c;
        }
        init.acl = true;
        super::lifecycle::initialised(_config_path);
        drop(init);
        // CANN's aclInit runs the init callbacks last; one failing fails it
        // (and the runtime is left uninitialised).
        let c = super::lifecycle::run_init_callbacks();
        if c != ACL_SUCCESS {
            let mut init = state::init_state();
            if init.acl {
                init.acl = false;
                super::lifecycle::clear_refs();
                let teardown = stop_if_unused(&mut init);
                drop(init);
                teardown.run();
            }
        }
        c
    })
}

/// `aclFinalize`: releases everything the runtime holds (see
/// `stop_if_unused`) once `aclnnFinalize` has also been called (or
/// `aclnnInit` never was).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFinalize() -> aclError {
    crate::abi::guard("aclFinalize", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        if !state::init_state().acl {
            return fail(
                ACL_ERROR_REPEAT_FINALIZE,
                "npu-sim: aclFinalize without a matching aclInit",
            );
        }
        // The finalize callbacks run first, with the runtime still up
        // (outside the init lock: they may call it).
        let callbacks = super::lifecycle::run_finalize_callbacks();
        let mut init = state::init_state();
        if !init.acl {
            return fail(
                ACL_ERROR_REPEAT_FINALIZE,
                "npu-sim: aclFinalize without a matching aclInit",
            );
        }
        init.acl = false;
        super::lifecycle::clear_refs();
        let teardown = stop_if_unused(&mut init);
        drop(init);
        teardown.run();
        callbacks
    })
}

/// `aclGetRecentErrMsg`: the calling thread's last failure, or NULL.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    crate::abi::last_error_ptr()
}

/// `aclrtGetSocName`: the simulated SoC. Like CANN's, it needs no
/// `aclInit` (CANN's sample build setup calls it first, to find
/// `SOC_VERSION`): while a runtime is initialised it is that runtime's
/// SoC; otherwise the one `aclInit` would pick now (`NPU_SIM_SOC`, or
/// the default). NULL, with the reason, only when `NPU_SIM_SOC` names a
/// SoC the simulator does not know (`aclInit` refuses it too). The string
/// stays valid for the life of the process.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    crate::abi::guard(
        "aclrtGetSocName",
        std::ptr::null(),
        || match state::runtime() {
            Some(rt) => rt.soc_cstr.as_ptr(),
            None => match crate::config::soc_from_env() {
                Ok((soc, _)) => state::intern(&soc).as_ptr(),
                Err(m) => {
                    fail(
                        ACL_ERROR_RT_SOC_VERSION,
                        format!("npu-sim: aclrtGetSocName: {m}"),
                    );
                    std::ptr::null()
                }
            },
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
