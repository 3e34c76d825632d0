//! Which device and context each thread has current, per runtime: a
//! device is bound once per thread, runtime and device (`aclrtSetDevice`,
//! which makes the device's default context current), a context made by
//! this crate once per thread and context (`aclrtSetCurrentContext`), and
//! code that needs another device for a moment binds the thread's own one
//! again after.
//!
//! The cache must never lie: a context made current changes the thread's
//! device too, so the cache records (runtime, device, context). Contexts
//! have ids unique in the process (never reused, unlike handles), and
//! destroying one bumps an epoch: a thread whose cached context was
//! destroyed (on any thread) binds again on its next call. A call that
//! finds the thread without a context (`ACL_ERROR_RT_CONTEXT_NULL`, after
//! raw C calls behind this crate's back) makes the next bind start afresh.

use crate::error::Result;
use crate::ffi::{self, ContextHandle};
use cann_sys::Api;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::RwLock;

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);
static NEXT_CTX: AtomicU64 = AtomicU64::new(1);

/// Bumped (under [`DESTROYING`]'s write lock) before each context this
/// crate destroys: a cached context bound at an older epoch may be gone.
static CTX_EPOCH: AtomicU64 = AtomicU64::new(0);

/// Held for reading while a cached context is made current again, for
/// writing while one is destroyed: a context is never set after its
/// destruction began.
static DESTROYING: RwLock<()> = RwLock::new(());

/// What a thread has current, as far as this crate knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Bound {
    /// The runtime's key (0: nothing known).
    rt: usize,
    device: i32,
    /// 0: the device's default context; else a context's id.
    ctx: u64,
    /// The context's handle (if `ctx` is not 0).
    raw: ContextHandle,
    /// [`CTX_EPOCH`] when a context (not 0) was bound.
    epoch: u64,
}

const NOTHING: Bound = Bound {
    rt: 0,
    device: -1,
    ctx: 0,
    raw: ContextHandle::NULL,
    epoch: 0,
};

impl Default for Bound {
    /// Nothing known.
    fn default() -> Bound {
        NOTHING
    }
}

thread_local! {
    /// What this thread last bound.
    static BOUND: Cell<Bound> = const { Cell::new(NOTHING) };
}

/// A context made by this crate, as the binding knows it: an id unique in
/// the process and the handle, live while whoever holds this value holds
/// its `Context`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Ctx {
    pub(crate) id: u64,
    pub(crate) raw: ContextHandle,
}

impl Ctx {
    /// A new id for the context `raw` (just created).
    pub(crate) fn new(raw: ContextHandle) -> Ctx {
        Ctx {
            id: NEXT_CTX.fetch_add(1, Ordering::Relaxed),
            raw,
        }
    }
}

/// Destroys a context through `destroy`, after every thread's cached
/// binding of a context has been made stale (so none binds it again).
pub(crate) fn destroying_context<R>(destroy: impl FnOnce() -> R) -> R {
    let _w = DESTROYING.write().unwrap_or_else(|e| e.into_inner());
    CTX_EPOCH.fetch_add(1, Ordering::AcqRel);
    destroy()
}

/// The calling thread's cache, as it is (for saving and restoring around
/// a context scope).
pub(crate) fn snapshot() -> Bound {
    BOUND.with(|b| b.get())
}

/// Restores a cache saved by [`snapshot`] (the thread's current context is
/// again what it was then); a context destroyed since is not trusted.
pub(crate) fn restore(saved: Bound) {
    BOUND.with(|b| b.set(saved));
}

/// The calling thread's binding if it is still true.
fn current() -> Bound {
    let b = BOUND.with(|b| b.get());
    if ffi::take_context_lost() || (b.ctx != 0 && b.epoch != CTX_EPOCH.load(Ordering::Acquire)) {
        BOUND.with(|c| c.set(NOTHING));
        return NOTHING;
    }
    b
}

/// A runtime's key to the threads' bindings: an id unique in the process.
#[derive(Clone, Copy)]
pub(crate) struct Binding(usize);

impl Binding {
    /// A new runtime's key.
    pub(crate) fn new() -> Binding {
        Binding(NEXT_ID.fetch_add(1, Ordering::Relaxed))
    }

    /// Binds `device` to the calling thread (once per thread and device):
    /// any context of the device will do (memory, events and queries are
    /// the device's).
    pub(crate) fn bind(self, api: &Api, device: i32) -> Result<()> {
        let b = current();
        if b.rt != self.0 || b.device != device {
            self.set_default(api, device)?;
        }
        Ok(())
    }

    /// Makes `ctx` (a context of this crate, or `None`: the device's
    /// default context) current on the calling thread, `device` being its
    /// device (a stream's work needs its own context current).
    pub(crate) fn bind_in(self, api: &Api, device: i32, ctx: Option<Ctx>) -> Result<()> {
        let b = current();
        match ctx {
            None if b.rt == self.0 && b.device == device && b.ctx == 0 => Ok(()),
            None => self.set_default(api, device),
            Some(c) if b.rt == self.0 && b.ctx == c.id => Ok(()),
            Some(c) => {
                // SAFETY: the caller holds the context (`Ctx`'s contract),
                // so it is live.
                unsafe { ffi::set_current_context(api, c.raw) }?;
                self.entered(device, c);
                Ok(())
            }
        }
    }

    fn set_default(self, api: &Api, device: i32) -> Result<()> {
        ffi::set_device(api, device)?;
        BOUND.with(|b| {
            b.set(Bound {
                rt: self.0,
                device,
                ..NOTHING
            })
        });
        Ok(())
    }

    /// Records that `ctx` (of `device`) was made current on the calling
    /// thread (created there, or set).
    pub(crate) fn entered(self, device: i32, ctx: Ctx) {
        let epoch = CTX_EPOCH.load(Ordering::Acquire);
        BOUND.with(|b| {
            b.set(Bound {
                rt: self.0,
                device,
                ctx: ctx.id,
                raw: ctx.raw,
                epoch,
            })
        });
    }

    /// Runs `f` with `device` bound on the calling thread (any of its
    /// contexts), then makes current again the device and context this
    /// runtime had bound there (work in the middle of a launch on another
    /// device or context is never moved); `None` if `device` cannot be
    /// bound.
    pub(crate) fn on_device<R>(self, api: &Api, device: i32, f: impl FnOnce() -> R) -> Option<R> {
        let before = current();
        self.bind(api, device).ok()?;
        let r = f();
        if before.rt == self.0 && before.device >= 0 && current() != before {
            if before.ctx == 0 {
                let _ = self.set_default(api, before.device);
            } else {
                let _r = DESTROYING.read().unwrap_or_else(|e| e.into_inner());
                if before.epoch == CTX_EPOCH.load(Ordering::Acquire) {
                    // SAFETY: no context was destroyed since `before` was
                    // bound (same epoch), and none can be while the read
                    // lock is held: the handle is live.
                    if unsafe { ffi::set_current_context(api, before.raw) }.is_ok() {
                        BOUND.with(|b| b.set(before));
                    }
                }
            }
        }
        Some(r)
    }

    /// Forgets the calling thread's binding if it is this runtime's (the
    /// runtime is going away, or bound devices behind this crate's back).
    pub(crate) fn forget(self) {
        BOUND.with(|b| {
            if b.get().rt == self.0 {
                b.set(NOTHING);
            }
        });
    }
}
