//! Page-locked host memory (`aclrtMallocHost`): the staging area of
//! asynchronous host-to-device copies, pooled per runtime (the pool itself,
//! which the runtime owns, is `alloc::StagingPool`).

use crate::error::{Error, Result};
use crate::ffi::{self, HostPtr};
use crate::runtime::Runtime;
use std::sync::{Arc, Mutex};

/// Page-locked host memory of a runtime (`aclrtMallocHost`), for
/// asynchronous transfers ([`crate::Stream::upload_pinned`]; reused across
/// copies with [`crate::Stream::upload_pinned_lend`] and
/// [`crate::Stream::download_pinned`], which lend it to the stream and give
/// it back through a [`crate::PinnedCopy`]). Freed on drop.
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType, PinnedBuffer};
/// let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let mut buf = PinnedBuffer::new(&rt, 8)?;
/// buf.as_mut_slice().copy_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
/// let t = Tensor::empty(&s, DType::I32, &[2])?;
/// s.upload_pinned(&t, buf)?; // the stream holds the buffer until it has run
/// assert_eq!(t.to_vec::<i32>()?, [1, 2]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PinnedBuffer {
    rt: Runtime,
    /// A `malloc_host` block of `cap` bytes this buffer owns (frees on
    /// drop), or NULL once handed to the pool.
    ptr: HostPtr,
    len: usize,
    /// The block's size (at least `len`).
    cap: usize,
    /// Where the buffer comes back once a copy it was lent to has run
    /// (made at its first lending, then reused: a lending allocates
    /// nothing).
    slot: Option<Arc<Mutex<Slot>>>,
}

/// Where a lent [`PinnedBuffer`] comes back when its copy has run.
#[derive(Default)]
pub(crate) struct Slot {
    buf: Option<PinnedBuffer>,
    /// The copy's handle is gone: the buffer is dropped, not kept.
    abandoned: bool,
}

impl PinnedBuffer {
    /// `bytes` of page-locked host memory, zeroed (fresh page-locked memory
    /// may hold what another runtime or program left there).
    pub fn new(rt: &Runtime, bytes: usize) -> Result<PinnedBuffer> {
        let cap = bytes.max(1);
        let ptr = ffi::malloc_host(&rt.0.api, cap)?;
        let mut b = PinnedBuffer {
            rt: rt.clone(),
            ptr,
            len: cap,
            cap,
            slot: None,
        };
        b.as_mut_slice().fill(0);
        b.len = bytes;
        Ok(b)
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` is a live block of `cap >= len` bytes owned by
        // `self` (freed only by its drop), borrowed shared: no `&mut` to it
        // exists, and no queued copy writes it (a queued copy holds the
        // buffer by value until it has run).
        unsafe { ffi::host_slice(self, self.ptr, self.len) }
    }

    /// Its bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let (ptr, len) = (self.ptr, self.len);
        // SAFETY: as `as_slice`, borrowed mutably: no other reference to
        // these bytes exists, and no queued copy reads them.
        unsafe { ffi::host_slice_mut(self, ptr, len) }
    }

    /// The host address (for other CANN code).
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_raw().cast_const().cast()
    }

    pub(crate) fn addr(&self) -> HostPtr {
        self.ptr
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// Lends this buffer to one queued copy: the staging the stream holds
    /// until the copy has run, and the slot the buffer then comes back to.
    pub(crate) fn lend(mut self) -> (Staging, Arc<Mutex<Slot>>) {
        let slot = self.slot.get_or_insert_with(Default::default).clone();
        {
            let mut s = lock(&slot);
            s.abandoned = false;
            s.buf = None;
        }
        (
            Staging {
                buf: Some(self),
                back: Some(slot.clone()),
            },
            slot,
        )
    }
}

fn lock(m: &Mutex<Slot>) -> std::sync::MutexGuard<'_, Slot> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes the buffer back if its copy has run (its staging was dropped).
pub(crate) fn take_back(slot: &Mutex<Slot>) -> Option<PinnedBuffer> {
    lock(slot).buf.take()
}

/// Whether the buffer is back (its copy has run).
pub(crate) fn is_back(slot: &Mutex<Slot>) -> bool {
    lock(slot).buf.is_some()
}

/// The copy's handle is gone: the buffer (now or when the copy has run)
/// is dropped instead of kept.
pub(crate) fn abandon(slot: &Mutex<Slot>) {
    let buf = {
        let mut s = lock(slot);
        s.abandoned = true;
        s.buf.take()
    };
    drop(buf);
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: a `malloc_host` block of this runtime that this buffer
            // owns (not handed to the pool), freed once; nothing uses it
            // after (a queued copy holds the buffer until it has run).
            unsafe { ffi::free_host(&self.rt.0.api, self.ptr) };
        }
    }
}

impl std::fmt::Debug for PinnedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("len", &self.len)
            .finish()
    }
}

/// A staging block lent by the pool; goes back to it when the copy that
/// reads it has run (the stream holds it until then).
pub(crate) struct Staging {
    buf: Option<PinnedBuffer>,
    /// A caller's lent buffer goes back here (not to the pool).
    back: Option<Arc<Mutex<Slot>>>,
}

impl Staging {
    /// A block of at least `bytes` (`bytes` > 0) holding `fill`'s writes.
    pub(crate) fn with(
        rt: &Runtime,
        bytes: usize,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<Staging> {
        // Smallest block that fits.
        let mut buf = match rt.0.staging.take(bytes) {
            Some((ptr, cap)) => PinnedBuffer {
                rt: rt.clone(),
                ptr,
                len: bytes,
                cap,
                slot: None,
            },
            None => {
                let cap = bytes.checked_next_power_of_two().unwrap_or(bytes).max(4096);
                PinnedBuffer::new(rt, cap).or_else(|e| match e {
                    Error::HostOutOfMemory { .. } => PinnedBuffer::new(rt, bytes),
                    e => Err(e),
                })?
            }
        };
        buf.len = bytes;
        fill(buf.as_mut_slice());
        Ok(Staging {
            buf: Some(buf),
            back: None,
        })
    }

    /// A user's buffer, consumed by one copy; afterwards it joins the
    /// staging pool if the pool has room (else it is freed).
    pub(crate) fn own(buf: PinnedBuffer) -> Staging {
        Staging {
            buf: Some(buf),
            back: None,
        }
    }

    pub(crate) fn addr(&self) -> HostPtr {
        self.buf.as_ref().map_or(HostPtr::NULL, PinnedBuffer::addr)
    }

    /// The bytes it holds (its block's size).
    pub(crate) fn bytes(&self) -> usize {
        self.buf.as_ref().map_or(0, |b| b.cap)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let Some(mut buf) = self.buf.take() else {
            return;
        };
        if let Some(back) = self.back.take() {
            // The copy has run (the stream dropped its hold): the caller's
            // buffer goes back to its slot, unless its handle is gone.
            let mut s = lock(&back);
            if !s.abandoned {
                s.buf = Some(buf);
                return;
            }
            drop(s);
            drop(buf);
            return;
        }
        if buf.rt.0.staging.keep(buf.ptr, buf.cap) {
            buf.ptr = HostPtr::NULL; // the pool owns the block now
        }
    }
}
