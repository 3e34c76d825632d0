//! Context management (`acl_rt.h`): `aclrtCreateContext`,
//! `aclrtDestroyContext`, `aclrtSetCurrentContext`,
//! `aclrtGetCurrentContext`, `aclrtCtxGetCurrentDefaultStream`.
//!
//! As CANN documents (Context management, `aclrtSetDevice`): a context
//! belongs to one device and is current per thread; `aclrtSetDevice` makes
//! the device's default context current (created on first use); creating a
//! context makes it current on the creating thread; setting a context also
//! sets the thread's device. An explicit context has a default stream of
//! its own (the NULL stream while it is current); the default context uses
//! the device's default stream.

use super::{lock, rt};
use crate::abi::fail;
use crate::state::{self, Context};
use crate::stream::Stream;
use cann_sys::*;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

thread_local! {
    /// The calling thread's context handle (0: none).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

fn set_current(h: usize) {
    CURRENT.with(|c| c.set(h));
}

fn current() -> usize {
    CURRENT.with(|c| c.get())
}

/// The default context of `device`, made on first use.
fn primary(device: u32) -> usize {
    state::with_handles(|h| {
        if let Some((&k, _)) = h
            .contexts
            .iter()
            .find(|(_, c)| c.primary && c.device == device)
        {
            return k;
        }
        let k = state::new_handle();
        let c = Context {
            device,
            primary: true,
            default_stream: Mutex::new(None),
        };
        h.contexts.insert(k, Arc::new(c));
        k
    })
}

/// `aclrtSetDevice` on this thread: the device's default context becomes
/// current.
pub(crate) fn on_set_device(device: u32) {
    set_current(primary(device));
}

/// This thread no longer has a device (`aclrtResetDevice` of it).
pub(crate) fn on_reset_device() {
    set_current(0);
}

/// The NULL stream of the calling thread when its current context is an
/// explicit one: that context's default stream (made on first use).
/// `None` when the thread's context is a default context or none (the
/// device's default stream applies); an error when the context was
/// destroyed under the thread.
pub(crate) fn explicit_default_stream() -> Option<Result<Arc<Stream>, i32>> {
    let h = current();
    if h == 0 {
        return None;
    }
    let Some(c) = state::with_handles(|hs| hs.contexts.get(&h).cloned()) else {
        return Some(Err(fail(
            ACL_ERROR_RT_CONTEXT_NULL,
            "npu-sim: the calling thread's context was destroyed (aclrtDestroyContext, \
             aclrtResetDevice or aclFinalize): set a context or a device first",
        )));
    };
    if c.primary {
        return None;
    }
    let mut ds = lock(&c.default_stream);
    if ds.is_none() {
        match Stream::new(c.device) {
            Ok(s) => *ds = Some(Arc::new(s)),
            Err(m) => return Some(Err(fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, m))),
        }
    }
    ds.clone().map(Ok)
}

fn context_of(ctx: aclrtContext, api: &str) -> Result<Arc<Context>, i32> {
    if ctx.is_null() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: context is null"),
        ));
    }
    state::with_handles(|h| h.contexts.get(&(ctx as usize)).cloned()).ok_or_else(|| {
        fail(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("npu-sim: {api}: {ctx:p} is not a live context (never created, or destroyed)"),
        )
    })
}

/// `aclrtCreateContext`: a context on `device_id`, current on the calling
/// thread from now on (its device becomes the thread's device).
///
/// # Safety
/// `context` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateContext(
    context: *mut aclrtContext,
    device_id: i32,
) -> aclError {
    crate::abi::guard(
        "aclrtCreateContext",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if context.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtCreateContext: null output pointer",
                );
            }
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            let device = match u32::try_from(device_id) {
                Ok(d) if d < rt.config.devices => d,
                _ => {
                    return fail(
                        ACL_ERROR_RT_INVALID_DEVICEID,
                        format!(
                            "npu-sim: aclrtCreateContext: device {device_id} does not exist ({} device(s))",
                            rt.config.devices
                        ),
                    )
                }
            };
            let c = Context {
                device,
                primary: false,
                default_stream: Mutex::new(None),
            };
            let h = state::new_handle();
            state::with_handles(|hs| hs.contexts.insert(h, Arc::new(c)));
            set_current(h);
            state::set_current_device(Some(device));
            // SAFETY: checked non-null.
            unsafe { *context = h as aclrtContext };
            ACL_SUCCESS
        },
    )
}

/// `aclrtDestroyContext`: destroys an explicit context (its default
/// stream's work is finished first). A device's default context cannot be
/// destroyed (`ACL_ERROR_RT_INVALID_HANDLE`, as for any handle that is not
/// an explicit live context). Threads whose current context it was have
/// none afterwards. Streams created while it was current are not released
/// (destroy them first, as CANN's order of teardown says).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    crate::abi::guard(
        "aclrtDestroyContext",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if context.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtDestroyContext: context is null",
                );
            }
            let removed = state::with_handles(|h| match h.contexts.get(&(context as usize)) {
                Some(c) if c.primary => Err(true),
                Some(_) => Ok(h.contexts.remove(&(context as usize)).expect("present")),
                None => Err(false),
            });
            let c = match removed {
                Ok(c) => c,
                Err(primary) => {
                    return fail(
                        ACL_ERROR_RT_INVALID_HANDLE,
                        if primary {
                            format!(
                                "npu-sim: aclrtDestroyContext: {context:p} is a device's default \
                                 context (made by aclrtSetDevice): only contexts made by \
                                 aclrtCreateContext can be destroyed"
                            )
                        } else {
                            format!(
                                "npu-sim: aclrtDestroyContext: {context:p} is not a live context \
                                 (never created, or destroyed)"
                            )
                        },
                    )
                }
            };
            if current() == context as usize {
                set_current(0);
                state::set_current_device(None);
            }
            let s = lock(&c.default_stream).take();
            if let Some(s) = s {
                s.open_holds();
                let _ = s.synchronize();
                s.shutdown();
            }
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetCurrentContext`: makes `context` the calling thread's context,
/// and its device the thread's device.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    crate::abi::guard(
        "aclrtSetCurrentContext",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if let Err(c) = rt() {
                return c;
            }
            match context_of(context, "aclrtSetCurrentContext") {
                Ok(c) => {
                    set_current(context as usize);
                    state::set_current_device(Some(c.device));
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `aclrtGetCurrentContext`: the calling thread's context (the last one
/// set or created on it, or its device's default context);
/// `ACL_ERROR_RT_CONTEXT_NULL` if it has none.
///
/// # Safety
/// `context` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError {
    crate::abi::guard(
        "aclrtGetCurrentContext",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if context.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetCurrentContext: null output pointer",
                );
            }
            if let Err(c) = rt() {
                return c;
            }
            let h = current();
            let live = h != 0 && state::with_handles(|hs| hs.contexts.contains_key(&h));
            if !live {
                return fail(
                    ACL_ERROR_RT_CONTEXT_NULL,
                    "npu-sim: aclrtGetCurrentContext: the calling thread has no context: call \
                     aclrtSetDevice, aclrtCreateContext or aclrtSetCurrentContext first",
                );
            }
            // SAFETY: checked non-null.
            unsafe { *context = h as aclrtContext };
            ACL_SUCCESS
        },
    )
}

/// `aclrtCtxGetCurrentDefaultStream`: the default stream of the calling
/// thread's context. The simulator's handle for a default stream is NULL,
/// which every call taking a stream accepts as that stream; the call fails
/// (`ACL_ERROR_RT_CONTEXT_NULL`) when the thread has no context.
///
/// # Safety
/// `stream` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCtxGetCurrentDefaultStream(stream: *mut aclrtStream) -> aclError {
    crate::abi::guard(
        "aclrtCtxGetCurrentDefaultStream",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if stream.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtCtxGetCurrentDefaultStream: null output pointer",
                );
            }
            let r = rt().and_then(|rt| {
                super::stream_of(&rt, state::current_device(), std::ptr::null_mut())
            });
            match r {
                Ok(_) => {
                    // SAFETY: checked non-null.
                    unsafe { *stream = std::ptr::null_mut() };
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}
