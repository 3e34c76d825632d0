//! Which device each thread has bound (`aclrtSetDevice`), per runtime: a
//! device is bound once per thread, runtime and device, and code that
//! needs another device for a moment binds the thread's own one again
//! after.

use crate::error::Result;
use crate::ffi;
use cann_sys::Api;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    /// (runtime id, device) this thread last bound with `aclrtSetDevice`.
    static BOUND: Cell<(usize, i32)> = const { Cell::new((0, -1)) };
}

/// A runtime's key to the threads' bindings: an id unique in the process.
#[derive(Clone, Copy)]
pub(crate) struct Binding(usize);

impl Binding {
    /// A new runtime's key.
    pub(crate) fn new() -> Binding {
        Binding(NEXT_ID.fetch_add(1, Ordering::Relaxed))
    }

    /// Binds `device` to the calling thread (once per thread and device).
    pub(crate) fn bind(self, api: &Api, device: i32) -> Result<()> {
        let key = (self.0, device);
        if BOUND.with(|b| b.get()) != key {
            ffi::set_device(api, device)?;
            BOUND.with(|b| b.set(key));
        }
        Ok(())
    }

    /// Runs `f` with `device` bound on the calling thread, then binds again
    /// the device this runtime had bound there (work in the middle of a
    /// launch on another device is never moved); `None` if `device` cannot
    /// be bound.
    pub(crate) fn on_device<R>(self, api: &Api, device: i32, f: impl FnOnce() -> R) -> Option<R> {
        let before = BOUND.with(|b| b.get());
        self.bind(api, device).ok()?;
        let r = f();
        if before.0 == self.0 && before.1 != device && before.1 >= 0 {
            let _ = self.bind(api, before.1);
        }
        Some(r)
    }

    /// Forgets the calling thread's binding if it is this runtime's (the
    /// runtime is going away, or bound devices behind this crate's back).
    pub(crate) fn forget(self) {
        BOUND.with(|b| {
            if b.get().0 == self.0 {
                b.set((0, -1));
            }
        });
    }
}
