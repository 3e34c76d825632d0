//! Contexts (`aclrtContext`): CANN's per-thread execution environment of
//! a device. A [`Context`] is made by [`Device::create_context`], made
//! current for a scope ([`Context::enter`], [`Context::scope`]), and owns
//! streams ([`Context::stream`], [`Context::default_stream`]) that hold it
//! alive; it is destroyed once, when the last handle and the last of its
//! streams are gone.
//!
//! As CANN documents (Context management): a context belongs to one
//! device; making it current makes its device the thread's device; a
//! context made on one thread may be used on any; `aclrtSetDevice` makes the
//! device's default context current. This crate binds, before each call,
//! the context the call needs (a stream's own), and its per-thread cache of
//! what is current follows every context change it makes.

use crate::binding::{self, Bound, Ctx};
use crate::error::Result;
use crate::ffi::{self, ContextHandle};
use crate::runtime::{Device, Runtime};
use crate::stream::Stream;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, Weak};

pub(crate) struct CtxInner {
    dev: Device,
    ctx: Ctx,
}

/// Every live context of this crate, by handle (for
/// [`Runtime::current_context`]).
static LIVE: Mutex<Vec<(ContextHandle, Weak<CtxInner>)>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(ContextHandle, Weak<CtxInner>)>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for CtxInner {
    fn drop(&mut self) {
        live().retain(|(h, w)| *h != self.ctx.raw && w.strong_count() > 0);
        let api = &self.dev.rt.0.api;
        let code = binding::destroying_context(|| {
            // SAFETY: created by `Device::create_context`, destroyed once,
            // here: the last `Context` is gone, and every stream of it held
            // one, so none is left; no thread binds it again (the epoch).
            unsafe { ffi::destroy_context(api, self.ctx.raw) }
        });
        if code != 0 {
            tracing::warn!(target: "npu_ops", code, message = %ffi::last_error(api), "aclrtDestroyContext failed");
        }
    }
}

/// A context of one device (`aclrtCreateContext`): streams made in it
/// ([`Context::stream`]) hold it, so it is destroyed (`aclrtDestroyContext`,
/// once) only after the last handle and the last of its streams are gone.
/// Cheap to clone; `Send + Sync` (CANN lets any thread use a context).
///
/// Work on a stream of a context runs with that context current on the
/// calling thread: this crate makes it current before each call. To run
/// other code (raw CANN calls, another library) with it current, use
/// [`Context::enter`] or [`Context::scope`].
///
/// ```
/// use npu_ops::{Backend, Runtime, Tensor};
/// let rt = Runtime::new(Backend::Simulator)?;
/// let ctx = rt.device(0)?.create_context()?;
/// let s = ctx.stream()?;
/// let x = Tensor::from_slice(&s, &[4], &[1f32, 2., 3., 4.])?;
/// assert_eq!(s.slice(&x, 0, 1, 3, 1)?.to_vec::<f32>()?, [2., 3.]);
/// ctx.scope(|| {
///     assert!(ctx.is_current());
///     assert_eq!(rt.current_context().unwrap().as_ref(), Some(&ctx));
/// })?;
/// # Ok::<(), npu_ops::Error>(())
/// ```
#[derive(Clone)]
pub struct Context(Arc<CtxInner>);

impl PartialEq for Context {
    fn eq(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Context {}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.0.dev.id)
            .field("raw", &self.0.ctx.raw.as_raw())
            .finish()
    }
}

/// What a thread had current before a context was made current there:
/// put back by [`Restore::restore`].
struct Restore {
    /// The thread's context (`None`: it had none).
    prev: Option<ContextHandle>,
    /// Held if it is one of this crate's (so it is live when set again).
    _held: Option<Context>,
    /// The binding cache then.
    cache: Bound,
}

impl Restore {
    fn save(rt: &Runtime) -> Result<Restore> {
        let cache = binding::snapshot();
        let prev = ffi::current_context(&rt.0.api)?;
        Ok(Restore {
            prev,
            _held: prev.and_then(find),
            cache,
        })
    }

    /// Makes the saved context current again; `false` if the thread had
    /// none (CANN cannot unset a context: the new one stays current).
    fn restore(self, rt: &Runtime) -> bool {
        let Some(prev) = self.prev else {
            return false;
        };
        // SAFETY: `prev` was current when saved: one of this crate's
        // (held, so live), a device's default context (live until its
        // device is reset, which this crate never does), or another
        // library's (which must keep it while it is current on a thread,
        // as CANN requires of a current context).
        if unsafe { ffi::set_current_context(&rt.0.api, prev) }.is_ok() {
            // The thread has what it had then: the cache is as true as it
            // was (a context destroyed since is not trusted).
            binding::restore(self.cache);
        } else {
            binding::restore(Bound::default());
        }
        true
    }
}

/// The live context of this crate with handle `h`, if any.
fn find(h: ContextHandle) -> Option<Context> {
    live()
        .iter()
        .find(|(k, _)| *k == h)
        .and_then(|(_, w)| w.upgrade())
        .map(Context)
}

impl Device {
    /// A new context on this device (`aclrtCreateContext`). The calling
    /// thread's current context is left as it was (CANN makes a new
    /// context current; this puts the previous one back), unless the
    /// thread had none: then the new one stays current.
    ///
    /// [`Error::Unavailable`](crate::Error::Unavailable) if the runtime
    /// library has no context calls.
    pub fn create_context(&self) -> Result<Context> {
        let rt = &self.rt;
        let saved = Restore::save(rt)?;
        let raw = ffi::create_context(&rt.0.api, self.id)?;
        let ctx = Ctx::new(raw);
        rt.binding().entered(self.id, ctx);
        let inner = Arc::new(CtxInner {
            dev: self.clone(),
            ctx,
        });
        {
            let mut l = live();
            l.retain(|(_, w)| w.strong_count() > 0);
            l.push((raw, Arc::downgrade(&inner)));
        }
        let c = Context(inner);
        saved.restore(rt);
        tracing::debug!(target: "npu_ops", device = self.id, ?raw, "context created");
        Ok(c)
    }
}

impl Runtime {
    /// The calling thread's current context if it is one of this crate's
    /// ([`Device::create_context`]), from the runtime
    /// (`aclrtGetCurrentContext`), not from a cache: `None` when the
    /// thread has no context, or a device's default context, or one made
    /// by other code ([`Runtime::current_context_raw`] gives it).
    pub fn current_context(&self) -> Result<Option<Context>> {
        Ok(ffi::current_context(&self.0.api)?.and_then(find))
    }

    /// The calling thread's current context, whoever made it (`None`: the
    /// thread has none), for interoperating with other CANN code.
    pub fn current_context_raw(&self) -> Result<Option<cann_sys::aclrtContext>> {
        Ok(ffi::current_context(&self.0.api)?.map(ContextHandle::as_raw))
    }
}

impl Context {
    /// Its device.
    pub fn device(&self) -> &Device {
        &self.0.dev
    }

    /// Its runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.0.dev.rt
    }

    /// The raw `aclrtContext`, for other CANN code (valid while this
    /// context, or a clone or a stream of it, lives; do not destroy it).
    pub fn as_raw(&self) -> cann_sys::aclrtContext {
        self.0.ctx.raw.as_raw()
    }

    /// Whether it is the calling thread's current context (asked of the
    /// runtime).
    pub fn is_current(&self) -> bool {
        matches!(ffi::current_context(&self.runtime().0.api), Ok(Some(h)) if h == self.0.ctx.raw)
    }

    /// Makes it the calling thread's current context (and its device the
    /// thread's device) until the guard is dropped, which makes current
    /// again what was current before (if the thread had no context, this
    /// one stays current: CANN cannot unset a context). Guards nest; drop
    /// them in reverse order.
    ///
    /// Inside the scope, raw CANN calls and other libraries see this
    /// context (its NULL stream is its default stream). This crate's own
    /// calls still make current what each needs: work on a stream of
    /// another context or device makes that one current for the rest of
    /// the scope, as CANN's `aclrtSetCurrentContext` would.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let ctx = rt.device(0)?.create_context()?;
    /// let before = rt.current_context_raw()?;
    /// {
    ///     let _g = ctx.enter()?;
    ///     assert_eq!(rt.current_context_raw()?, Some(ctx.as_raw()));
    /// }
    /// assert_eq!(rt.current_context_raw()?, before.or(Some(ctx.as_raw())));
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn enter(&self) -> Result<ContextGuard> {
        let rt = self.runtime();
        let saved = Restore::save(rt)?;
        // SAFETY: this context, live while `self` is.
        unsafe { ffi::set_current_context(&rt.0.api, self.0.ctx.raw) }?;
        rt.binding().entered(self.0.dev.id, self.0.ctx);
        Ok(ContextGuard {
            ctx: self.clone(),
            saved: Some(saved),
            _not_send: PhantomData,
        })
    }

    /// Runs `f` with this context current on the calling thread (see
    /// [`Context::enter`]), then makes current again what was before.
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> Result<R> {
        let _g = self.enter()?;
        Ok(f())
    }

    /// A new stream in this context (`aclrtCreateStream` with it current),
    /// which holds the context alive.
    pub fn stream(&self) -> Result<Stream> {
        let dev = &self.0.dev;
        dev.rt.bind_in(dev.id, Some(self.0.ctx))?;
        let raw = ffi::create_stream(&dev.rt.0.api)?;
        Ok(Stream::wrap_in(dev, raw, true, None, Some(self.held())))
    }

    /// The context's default stream (`aclrtCtxGetCurrentDefaultStream`:
    /// CANN makes one with each context), adopted: this crate enqueues on
    /// it in order with other code's work and never destroys it. It holds
    /// the context alive. On the simulator its handle
    /// ([`Stream::as_raw`]) is NULL, the simulator's name for the current
    /// context's default stream (this crate makes the context current
    /// before each call on it).
    pub fn default_stream(&self) -> Result<Stream> {
        let dev = &self.0.dev;
        dev.rt.bind_in(dev.id, Some(self.0.ctx))?;
        let raw = ffi::context_default_stream(&dev.rt.0.api)?;
        Ok(Stream::wrap_in(dev, raw, false, None, Some(self.held())))
    }

    fn held(&self) -> (Ctx, Arc<dyn std::any::Any + Send + Sync>) {
        (self.0.ctx, self.0.clone())
    }
}

impl Stream {
    /// The context the stream was made in, if one of
    /// [`Device::create_context`]'s (`None`: the device's default context,
    /// or an adopted stream).
    pub fn context(&self) -> Option<Context> {
        let (_, held) = self.0.ctx.as_ref()?;
        held.clone().downcast::<CtxInner>().ok().map(Context)
    }
}

/// A context made current by [`Context::enter`]; dropping it makes current
/// again what was current before. Not `Send`: it restores the thread it
/// was made on.
#[must_use = "the context is current only while the guard lives"]
pub struct ContextGuard {
    ctx: Context,
    saved: Option<Restore>,
    _not_send: PhantomData<*const ()>,
}

impl ContextGuard {
    /// The context made current.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

impl std::fmt::Debug for ContextGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextGuard")
            .field("context", &self.ctx)
            .finish()
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.take() {
            saved.restore(self.ctx.runtime());
        }
    }
}
