//! The registered-allocator hook (`aclrtAllocatorRegister`): a service
//! makes CANN allocate what it allocates for a stream (the workspace of
//! single-operator and dynamic-shape model execution) through an allocator
//! of its choice, a [`DeviceAllocator`]; [`PoolAllocator`] is this crate's
//! caching allocator behind that trait, so CANN's allocations share the
//! runtime's pool, limit and statistics.
//!
//! The runtime calls four `extern "C"` trampolines with a pointer to a
//! registration this crate keeps, unmoved, until the stream goes (even
//! after an unregistration, in case the runtime calls once more): no
//! panic crosses them, and a block the runtime gives back is passed to
//! [`DeviceAllocator::free`] only once the stream has passed the work
//! enqueued before (stream-ordered, so an allocator may reuse it at once).

use crate::error::{Error, Result};
use crate::ffi;
use crate::runtime::{Device, Runtime};
use crate::stream::{Released, Stream};
use crate::tensor::Storage;
use cann_sys::{aclrtAllocator, aclrtAllocatorAddr, aclrtAllocatorBlock, aclrtAllocatorDesc};
use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// Device memory an allocator hands to the runtime: its address and size.
/// A plain value: the address is never dereferenced on the host.
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceBlock {
    addr: *mut c_void,
    bytes: usize,
}

// SAFETY: an address and a size, never dereferenced by this crate; what
// may be done with them is the allocator's contract.
unsafe impl Send for DeviceBlock {}
// SAFETY: as `Send`: `&DeviceBlock` only reads the two values.
unsafe impl Sync for DeviceBlock {}

impl DeviceBlock {
    /// A block of `bytes` bytes of device memory at `addr` (only an
    /// [`unsafe impl DeviceAllocator`](DeviceAllocator) vouches that it
    /// is).
    pub fn new(addr: *mut c_void, bytes: usize) -> DeviceBlock {
        DeviceBlock { addr, bytes }
    }

    /// The device address.
    pub fn addr(&self) -> *mut c_void {
        self.addr
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// An allocator of device memory the runtime may use for a stream
/// ([`Stream::register_allocator`]). Called from the runtime's threads,
/// possibly at once for several streams.
///
/// # Safety
///
/// The runtime writes and reads the memory it gets, trusting that:
/// - a block from [`alloc`](DeviceAllocator::alloc) is device memory of the
///   device of every stream the allocator is registered on (see
///   [`device`](DeviceAllocator::device)), of at least the bytes asked
///   for, that nothing else uses until it is given to
///   [`free`](DeviceAllocator::free);
/// - it stays valid until then (blocks given back are passed to `free`
///   only once the stream has passed every piece of work enqueued before,
///   so `free` may reuse a block at once).
pub unsafe trait DeviceAllocator: Send + Sync {
    /// A block of at least `bytes` bytes, or `None` (the runtime's call
    /// then fails with an out-of-memory status). Called with the stream's
    /// device current on the calling thread; must not change it.
    fn alloc(&self, bytes: usize) -> Option<DeviceBlock>;

    /// Takes back a block from [`alloc`](DeviceAllocator::alloc), once.
    fn free(&self, block: DeviceBlock);

    /// The device its memory is on, if it is tied to one:
    /// [`Stream::register_allocator`] refuses a stream of another device.
    fn device(&self) -> Option<u32> {
        None
    }
}

/// This crate's caching allocator as a [`DeviceAllocator`] for one device
/// (register it on streams of the same runtime):
/// what the runtime allocates through it comes from the runtime's pool,
/// counts towards [`Runtime::set_memory_limit`] and shows in
/// [`Runtime::memory_stats`]; what it gives back returns to the pool.
///
/// ```
/// use npu_ops::{Backend, PoolAllocator, Runtime};
/// use std::sync::Arc;
/// let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let pool = Arc::new(PoolAllocator::new(&rt.device(0)?));
/// s.register_allocator(pool.clone())?;
/// assert!(s.registered_allocator().is_some());
/// assert!(s.unregister_allocator()?);
/// assert_eq!(pool.outstanding(), (0, 0));
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct PoolAllocator {
    rt: Runtime,
    device: i32,
    /// Blocks handed out, by address.
    live: Mutex<HashMap<usize, Storage>>,
}

impl PoolAllocator {
    /// The runtime's pool for `device`.
    pub fn new(device: &Device) -> PoolAllocator {
        PoolAllocator {
            rt: device.rt.clone(),
            device: device.id,
            live: Mutex::default(),
        }
    }

    /// Blocks handed out and not yet taken back: (count, bytes asked for).
    pub fn outstanding(&self) -> (usize, usize) {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        (live.len(), live.values().map(|s| s.bytes).sum())
    }
}

impl std::fmt::Debug for PoolAllocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolAllocator")
            .field("device", &self.device)
            .field("outstanding", &self.outstanding())
            .finish()
    }
}

// SAFETY: each block is a live allocation of the runtime's pool on
// `self.device` (checked to be the calling thread's device), of at least
// the size asked for, held in `live` (so handed to nobody else) until
// `free` takes it back; blocks still out when the allocator goes are freed
// then, when every registration holding it is gone, i.e. its streams have
// finished their work.
unsafe impl DeviceAllocator for PoolAllocator {
    fn alloc(&self, bytes: usize) -> Option<DeviceBlock> {
        // The runtime calls this with the stream's context current: bind
        // nothing, but refuse another device.
        if ffi::current_device(&self.rt.0.api).ok()? != self.device {
            return None;
        }
        let s = Storage::alloc_bound(&self.rt, self.device, bytes).ok()?;
        let addr = s.ptr.as_raw();
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(addr as usize, s);
        Some(DeviceBlock { addr, bytes })
    }

    fn free(&self, block: DeviceBlock) {
        let s = self
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(block.addr as usize));
        // Back to the pool (a block never handed out is ignored).
        drop(s);
    }

    fn device(&self) -> Option<u32> {
        Some(self.device as u32)
    }
}

/// What the runtime's callbacks reach through their `aclrtAllocator`
/// argument (boxed, so its address is stable; kept by the stream until it
/// goes).
struct Registered {
    allocator: Arc<dyn DeviceAllocator>,
    /// The stream's list of what to drop once it has passed its work.
    released: Arc<Released>,
    /// The description registered (destroyed with the stream: CANN's
    /// registration may refer to it).
    _desc: Desc,
}

/// An `aclrtAllocatorDesc` this crate created, and the runtime's function
/// that destroys it (on drop, once; the stream drops its registrations
/// while its runtime is alive).
struct Desc(aclrtAllocatorDesc, cann_sys::fns::aclrtAllocatorDestroyDesc);

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: created by this crate, destroyed once, here; the
        // registration that used it has ended (the stream is gone).
        unsafe { (self.1)(self.0) };
    }
}

// SAFETY: a handle the runtime interprets (CANN's handles are usable from
// any thread); only its owner destroys it, once.
unsafe impl Send for Desc {}
// SAFETY: `&Desc` only reads the handle.
unsafe impl Sync for Desc {}

/// A block given back by the runtime: handed to its allocator's `free` when
/// dropped (once the stream has passed the work before).
struct PendingFree {
    allocator: Arc<dyn DeviceAllocator>,
    block: Option<DeviceBlock>,
}

impl Drop for PendingFree {
    fn drop(&mut self) {
        if let Some(b) = self.block.take() {
            let a = &self.allocator;
            if catch_unwind(AssertUnwindSafe(|| a.free(b))).is_err() {
                tracing::error!(target: "npu_ops", "a DeviceAllocator's free panicked (caught)");
            }
        }
    }
}

/// `aclrtAllocatorAllocFunc`.
unsafe extern "C" fn alloc_fn(obj: aclrtAllocator, size: usize) -> *mut c_void {
    if obj.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: `obj` is the address of a `Registered` this crate registered
    // (the runtime passes back what was registered), kept unmoved until
    // its stream goes, after which the runtime calls no more.
    let reg = unsafe { &*obj.cast::<Registered>() };
    let a = &reg.allocator;
    match catch_unwind(AssertUnwindSafe(|| a.alloc(size))) {
        Ok(Some(b)) if !b.addr.is_null() && b.bytes >= size => Box::into_raw(Box::new(b)).cast(),
        Ok(Some(b)) => {
            // Too small, or null: not given to the runtime.
            let _ = catch_unwind(AssertUnwindSafe(|| a.free(b)));
            std::ptr::null_mut()
        }
        Ok(None) => std::ptr::null_mut(),
        Err(_) => {
            tracing::error!(target: "npu_ops", "a DeviceAllocator's alloc panicked (caught)");
            std::ptr::null_mut()
        }
    }
}

/// `aclrtAllocatorAllocAdviseFunc`: the advice (an address) is not taken.
unsafe extern "C" fn advise_fn(
    obj: aclrtAllocator,
    size: usize,
    _addr: aclrtAllocatorAddr,
) -> *mut c_void {
    // SAFETY: the same argument as `alloc_fn` takes.
    unsafe { alloc_fn(obj, size) }
}

/// `aclrtAllocatorFreeFunc`: the block goes to its allocator once the
/// stream has passed the work enqueued so far. Takes no lock but a leaf
/// one and calls nothing of the runtime.
unsafe extern "C" fn free_fn(obj: aclrtAllocator, block: aclrtAllocatorBlock) {
    if obj.is_null() || block.is_null() {
        return;
    }
    // SAFETY: as in `alloc_fn`.
    let reg = unsafe { &*obj.cast::<Registered>() };
    // SAFETY: `block` is a pointer `alloc_fn` made with `Box::into_raw`,
    // given back once (the runtime's contract for a block).
    let b = unsafe { Box::from_raw(block.cast::<DeviceBlock>()) };
    reg.released.push(Box::new(PendingFree {
        allocator: reg.allocator.clone(),
        block: Some(*b),
    }));
}

/// `aclrtAllocatorGetAddrFromBlockFunc`.
unsafe extern "C" fn addr_fn(block: aclrtAllocatorBlock) -> *mut c_void {
    if block.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: a live block from `alloc_fn` (not yet given back: the
    // runtime's contract).
    unsafe { (*block.cast::<DeviceBlock>()).addr }
}

impl Stream {
    /// Makes the runtime allocate what it allocates for this stream
    /// through `allocator` (`aclrtAllocatorRegister`: the workspace of
    /// single-operator and dynamic-shape model execution on it), replacing
    /// any earlier registration. The allocator is kept alive as long as
    /// the runtime may call it (until the stream goes); blocks the runtime
    /// gives back reach [`DeviceAllocator::free`] once the stream has
    /// passed the work enqueued before (at its next launch or
    /// synchronisation).
    ///
    /// Errors: an allocator tied to another device
    /// ([`DeviceAllocator::device`]), a stream without a handle of its own
    /// (the simulator's default streams), the runtime's refusal, or
    /// [`Error::Unavailable`] when the runtime library has no registered
    /// allocators.
    pub fn register_allocator(&self, allocator: Arc<dyn DeviceAllocator>) -> Result<()> {
        let api = self.api();
        let what = "Stream::register_allocator";
        let create = ffi::need(
            api.aclrtAllocatorCreateDesc,
            what,
            "aclrtAllocatorCreateDesc",
        )?;
        let destroy = ffi::need(
            api.aclrtAllocatorDestroyDesc,
            what,
            "aclrtAllocatorDestroyDesc",
        )?;
        let set_obj = ffi::need(
            api.aclrtAllocatorSetObjToDesc,
            what,
            "aclrtAllocatorSetObjToDesc",
        )?;
        let set_alloc = ffi::need(
            api.aclrtAllocatorSetAllocFuncToDesc,
            what,
            "aclrtAllocatorSetAllocFuncToDesc",
        )?;
        let set_free = ffi::need(
            api.aclrtAllocatorSetFreeFuncToDesc,
            what,
            "aclrtAllocatorSetFreeFuncToDesc",
        )?;
        let set_addr = ffi::need(
            api.aclrtAllocatorSetGetAddrFromBlockFuncToDesc,
            what,
            "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
        )?;
        let register = ffi::need(api.aclrtAllocatorRegister, what, "aclrtAllocatorRegister")?;
        if let Some(d) = allocator.device() {
            if d != self.device() {
                return Err(Error::invalid(
                    "register_allocator",
                    "allocator",
                    format!(
                        "its memory is on device {d}, the stream is on device {}",
                        self.device()
                    ),
                ));
            }
        }
        let raw = self.0.raw.as_raw();
        if raw.is_null() {
            return Err(Error::invalid(
                "register_allocator",
                "stream",
                "the stream has no handle of its own (a context's default stream on the \
                 simulator): register on a created stream",
            ));
        }
        // One registration at a time per stream (the last one wins in the
        // runtime and here alike).
        let mut hook = self.0.hook.lock().unwrap_or_else(|e| e.into_inner());
        self.bind()?;
        // SAFETY: no arguments.
        let desc = unsafe { create() };
        if desc.is_null() {
            return Err(Error::Runtime {
                api: "aclrtAllocatorCreateDesc",
                code: cann_sys::ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                message: ffi::last_error(api),
            });
        }
        let reg = Box::new(Registered {
            allocator,
            released: self.0.released.clone(),
            _desc: Desc(desc, destroy),
        });
        let obj: aclrtAllocator = std::ptr::from_ref::<Registered>(&reg).cast_mut().cast();
        // SAFETY: `desc` is the live description just created; `obj` points
        // at `reg`, which is kept (unmoved, in its box) until the stream
        // goes if registered, and the functions are this module's
        // trampolines, which take exactly what the runtime passes; `raw`
        // is this stream's live handle.
        let code = unsafe {
            let steps = [
                ("aclrtAllocatorSetObjToDesc", set_obj(desc, obj)),
                (
                    "aclrtAllocatorSetAllocFuncToDesc",
                    set_alloc(desc, Some(alloc_fn)),
                ),
                (
                    "aclrtAllocatorSetFreeFuncToDesc",
                    set_free(desc, Some(free_fn)),
                ),
                (
                    "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
                    set_addr(desc, Some(addr_fn)),
                ),
                (
                    "aclrtAllocatorSetAllocAdviseFuncToDesc",
                    match api.aclrtAllocatorSetAllocAdviseFuncToDesc {
                        Some(f) => f(desc, Some(advise_fn)),
                        None => 0,
                    },
                ),
            ];
            match steps.into_iter().find(|s| s.1 != 0) {
                Some(failed) => Err(failed),
                None => Ok(()),
            }
        };
        let registered = code.and_then(|()| {
            // SAFETY: as above.
            match unsafe { register(raw, desc) } {
                0 => Ok(()),
                c => Err(("aclrtAllocatorRegister", c)),
            }
        });
        if let Err((name, code)) = registered {
            // The description is destroyed with `reg` (registered nowhere).
            return ffi::check(api, name, code);
        }
        hook.registered = true;
        hook.keep.push(reg);
        Ok(())
    }

    /// Ends this stream's allocator registration
    /// (`aclrtAllocatorUnregister`): `true` if one was registered, `false`
    /// if none was (not an error, as in CANN). The allocator stays alive
    /// until the stream goes (the runtime may still give back blocks).
    pub fn unregister_allocator(&self) -> Result<bool> {
        let api = self.api();
        let mut hook = self.0.hook.lock().unwrap_or_else(|e| e.into_inner());
        if !hook.registered {
            return Ok(false);
        }
        let unregister = ffi::need(
            api.aclrtAllocatorUnregister,
            "Stream::unregister_allocator",
            "aclrtAllocatorUnregister",
        )?;
        self.bind()?;
        // SAFETY: this stream's live handle.
        ffi::check(api, "aclrtAllocatorUnregister", unsafe {
            unregister(self.0.raw.as_raw())
        })?;
        hook.registered = false;
        Ok(true)
    }

    /// The allocator registered on this stream through
    /// [`Stream::register_allocator`], if one is.
    pub fn registered_allocator(&self) -> Option<Arc<dyn DeviceAllocator>> {
        let hook = self.0.hook.lock().unwrap_or_else(|e| e.into_inner());
        if !hook.registered {
            return None;
        }
        let last = hook.keep.last()?;
        let any: &(dyn std::any::Any + Send + Sync) = last.as_ref();
        any.downcast_ref::<Registered>()
            .map(|r| r.allocator.clone())
    }
}
