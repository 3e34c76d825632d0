//! The caching device allocator: every device allocation of the safe layer
//! (outputs, temporaries, uploads, workspaces) comes from here.
//!
//! Blocks are kept by size class when freed and handed out again, so a
//! steady-state loop makes no `aclrtMalloc` at all. Reuse is stream-ordered
//! by construction: a storage is freed only when its last handle *and* the
//! last piece of queued work that uses it are gone (streams hold the
//! buffers of queued work until its completion event has fired), so a
//! block is never handed out while any stream may still touch it.
//!
//! Memory fresh from the device is zeroed before it is handed out, so a
//! runtime never sees bytes another runtime (or process) left; a cached
//! block holds whatever this runtime last wrote to it.
//!
//! Classes: sizes below 512 B round up to 512 B; above, to the next of
//! eight steps per power of two (at most 12.5 % waste). The cache counts
//! towards [`crate::Runtime::set_memory_limit`]; when an allocation would
//! exceed the limit, or the device is out of memory, cached blocks of that
//! device are freed first and the allocation retried.
//!
//! Also the runtime's pool of page-locked staging blocks
//! ([`StagingPool`]), which `pinned` lends to host transfers.

use crate::binding::Binding;
use crate::error::{Error, Result};
use crate::ffi::{self, DevicePtr, HostPtr};
use cann_sys::Api;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// How an [`Error::OutOfMemory`] from
/// [`Runtime::set_memory_limit`](crate::Runtime::set_memory_limit)'s bound
/// begins its message.
pub(crate) const MEMORY_LIMIT_HIT: &str = "hit the runtime's memory limit";

/// Device memory statistics of a runtime (all its devices), from
/// [`crate::Runtime::memory_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes held by live tensors, stream workspaces and queued work
    /// (block sizes, after rounding to the size class).
    pub in_use: usize,
    /// Bytes of freed blocks kept for reuse.
    pub cached: usize,
    /// The largest `in_use` seen.
    pub peak_in_use: usize,
    /// Device allocations made (`aclrtMalloc` calls that succeeded).
    pub device_allocs: u64,
    /// Device frees made (`aclrtFree` calls).
    pub device_frees: u64,
    /// Allocations served from the cache.
    pub hits: u64,
    /// Allocations that needed the device.
    pub misses: u64,
}

/// The size class of a `bytes` request.
pub(crate) fn class_of(bytes: usize) -> usize {
    const MIN: usize = 512;
    if bytes <= MIN {
        return MIN;
    }
    // Eight steps per power of two: step = 2^floor(log2(bytes)) / 8.
    let step = (1usize << (usize::BITS - 1 - bytes.leading_zeros())) / 8;
    let step = step.max(MIN);
    bytes.checked_next_multiple_of(step).unwrap_or(bytes)
}

#[derive(Default)]
struct DevicePool {
    /// Free blocks by class size (each an allocation of that size that
    /// nothing uses). Keys are sizes, not attacker-chosen: a multiply hash
    /// (SipHash cost about 250 instructions per allocation and free).
    free: FxHashMap<usize, Vec<DevicePtr>>,
    cached: usize,
}

pub(crate) struct Allocator {
    /// The runtime's binding (frees bind a block's device for a moment).
    binding: Binding,
    pools: Vec<Mutex<DevicePool>>,
    caching: AtomicBool,
    /// Bytes live blocks hold.
    in_use: AtomicUsize,
    /// Bytes cached blocks hold (sum over pools).
    cached: AtomicUsize,
    peak: AtomicUsize,
    limit: AtomicUsize,
    device_allocs: AtomicU64,
    device_frees: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Allocator {
    pub(crate) fn new(devices: u32, binding: Binding) -> Allocator {
        let caching = !matches!(
            std::env::var("NPU_OPS_ALLOC").ok().as_deref(),
            Some("direct")
        );
        Allocator {
            binding,
            pools: (0..devices).map(|_| Mutex::default()).collect(),
            caching: AtomicBool::new(caching),
            in_use: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
            device_allocs: AtomicU64::new(0),
            device_frees: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> MemoryStats {
        MemoryStats {
            in_use: self.in_use.load(Ordering::Relaxed),
            cached: self.cached.load(Ordering::Relaxed),
            peak_in_use: self.peak.load(Ordering::Relaxed),
            device_allocs: self.device_allocs.load(Ordering::Relaxed),
            device_frees: self.device_frees.load(Ordering::Relaxed),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn set_limit(&self, limit: Option<usize>) {
        self.limit
            .store(limit.unwrap_or(usize::MAX), Ordering::Relaxed);
    }

    pub(crate) fn set_caching(&self, api: &Api, on: bool) {
        self.caching.store(on, Ordering::Relaxed);
        if !on {
            self.empty_cache(api);
        }
    }

    fn count_in_use(&self, block: usize) {
        let now = self.in_use.fetch_add(block, Ordering::AcqRel) + block;
        self.peak.fetch_max(now, Ordering::AcqRel);
    }

    /// A block of at least `bytes` on `device` (the calling thread has it
    /// bound): `(pointer, block size)`.
    pub(crate) fn alloc(&self, api: &Api, device: i32, bytes: usize) -> Result<(DevicePtr, usize)> {
        let block = class_of(bytes);
        let pool = &self.pools[device as usize];
        if self.caching.load(Ordering::Relaxed) {
            let mut p = lock(pool);
            if let Some(ptr) = p.free.get_mut(&block).and_then(Vec::pop) {
                p.cached -= block;
                self.cached.fetch_sub(block, Ordering::AcqRel);
                drop(p);
                self.count_in_use(block);
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Ok((ptr, block));
            }
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        // Within the limit (cached blocks count: free them first if needed).
        if let Err(e) = self.reserve(block) {
            // Every device's cache counts toward the limit.
            self.empty_cache(api);
            self.reserve(block).map_err(|_| e)?;
        }
        let mut block = block;
        let mut got = ffi::malloc(api, block);
        if matches!(got, Err(Error::OutOfMemory { .. })) && self.cached.load(Ordering::Relaxed) > 0
        {
            self.trim(api, device);
            got = ffi::malloc(api, block);
        }
        if matches!(got, Err(Error::OutOfMemory { .. })) && block > bytes.max(1) {
            // The rounding itself may not fit (a request for nearly all of
            // the device): the exact size, kept under its own size.
            self.unreserve(block - bytes.max(1));
            block = bytes.max(1);
            got = ffi::malloc(api, block);
        }
        let ptr = got.map_err(|e| {
            self.unreserve(block);
            match e {
                Error::OutOfMemory { message, .. } => Error::OutOfMemory { bytes, message },
                e => e,
            }
        })?;
        // Fresh device memory may hold what another runtime (another
        // tenant) or another program left: zero it before anyone sees it.
        // Only this runtime's own bytes are ever handed out again (cached
        // blocks); steady-state loops allocate nothing, so this is rare.
        // SAFETY: `ptr` is a fresh allocation of `block` bytes on the bound
        // device (the caller's), that nothing uses yet.
        let mut zeroed = unsafe { ffi::zero(api, ptr, block) };
        if matches!(&zeroed, Err(Error::Runtime { code, .. }) if *code == cann_sys::ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT)
        {
            // A graph capture on this thread forbids synchronous fills;
            // this one touches memory no captured work uses yet: allowed
            // for it alone (CANN's thread exchange to RELAXED and back).
            // SAFETY: as above.
            zeroed = ffi::relaxed(api, || unsafe { ffi::zero(api, ptr, block) });
        }
        if let Err(e) = zeroed {
            // SAFETY: just allocated, never handed out, freed once here.
            unsafe { ffi::free(api, ptr) };
            self.unreserve(block);
            return Err(e);
        }
        self.device_allocs.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(target: "npu_ops::alloc", device, bytes = block, in_use = self.in_use.load(Ordering::Relaxed), "device allocation");
        Ok((ptr, block))
    }

    /// Counts `block` as in use unless in use + cached would pass the limit.
    fn reserve(&self, block: usize) -> Result<()> {
        let limit = self.limit.load(Ordering::Relaxed);
        let cached = self.cached.load(Ordering::Relaxed);
        self.in_use
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(block)
                    .filter(|n| n.saturating_add(cached) <= limit)
            })
            .map(|used| {
                self.peak.fetch_max(used + block, Ordering::AcqRel);
            })
            .map_err(|used| Error::OutOfMemory {
                bytes: block,
                message: format!(
                    "{MEMORY_LIMIT_HIT} of {limit} bytes ({used} bytes in use, {cached} cached)"
                ),
            })
    }

    fn unreserve(&self, block: usize) {
        self.in_use.fetch_sub(block, Ordering::AcqRel);
    }

    /// Returns a block (no queued work uses it any more: see the module
    /// docs) to the cache, or to the device when caching is off.
    ///
    /// # Safety
    /// `ptr` is a block of size `block` from [`Allocator::alloc`] of this
    /// allocator for `device`, through `api` (its runtime's), returned once,
    /// that no queued or later work uses.
    pub(crate) unsafe fn free(&self, api: &Api, device: i32, ptr: DevicePtr, block: usize) {
        self.unreserve(block);
        if self.caching.load(Ordering::Relaxed) {
            let mut p = lock(&self.pools[device as usize]);
            p.free.entry(block).or_default().push(ptr);
            p.cached += block;
            self.cached.fetch_add(block, Ordering::AcqRel);
            return;
        }
        // On the block's device, leaving the thread's binding as it was.
        self.binding.on_device(api, device, || {
            // SAFETY: the caller's contract: a `malloc` of this runtime,
            // unused, freed once (it goes to no cache).
            unsafe { ffi::free(api, ptr) };
            self.device_frees.fetch_add(1, Ordering::Relaxed);
        });
    }

    /// Frees every cached block of `device`.
    fn trim(&self, api: &Api, device: i32) {
        let blocks: Vec<(DevicePtr, usize)> = {
            let mut p = lock(&self.pools[device as usize]);
            let v = p
                .free
                .drain()
                .flat_map(|(size, ptrs)| ptrs.into_iter().map(move |q| (q, size)))
                .collect();
            p.cached = 0;
            v
        };
        if blocks.is_empty() {
            return;
        }
        let freed: usize = blocks.iter().map(|b| b.1).sum();
        self.cached.fetch_sub(freed, Ordering::AcqRel);
        self.binding.on_device(api, device, || {
            for (ptr, _) in blocks {
                // SAFETY: a cached block: a `malloc` of this runtime on
                // `device` (bound) that nothing uses, taken out of the cache
                // (freed once).
                unsafe { ffi::free(api, ptr) };
                self.device_frees.fetch_add(1, Ordering::Relaxed);
            }
        });
        tracing::debug!(target: "npu_ops::alloc", device, freed, "cache emptied");
    }

    /// Frees every cached block to the device, binding each device on the
    /// calling thread (the runtime is going away).
    pub(crate) fn release_all(&self, api: &Api) {
        for (d, pool) in self.pools.iter().enumerate() {
            let mut p = lock(pool);
            if p.cached == 0 || ffi::set_device(api, d as i32).is_err() {
                continue;
            }
            for ptr in p.free.drain().flat_map(|(_, v)| v) {
                // SAFETY: a cached block of device `d` (bound): a `malloc`
                // of `api` that nothing uses, drained (freed once).
                unsafe { ffi::free(api, ptr) };
            }
            p.cached = 0;
        }
    }

    /// Frees every cached block of every device.
    pub(crate) fn empty_cache(&self, api: &Api) {
        for d in 0..self.pools.len() {
            self.trim(api, d as i32);
        }
    }
}

/// Staging blocks kept for reuse, per runtime: at most this many bytes.
const POOL_BYTES: usize = 256 << 20;

/// Free page-locked staging blocks `(address, size)` of a runtime; they
/// hold no runtime handle (the runtime owns the pool), and are freed when
/// the runtime goes.
#[derive(Default)]
pub(crate) struct StagingPool {
    free: Mutex<Vec<(HostPtr, usize)>>,
}

impl StagingPool {
    /// The smallest pooled block of at least `bytes`, taken out of the
    /// pool: `(address, size)`.
    pub(crate) fn take(&self, bytes: usize) -> Option<(HostPtr, usize)> {
        let mut free = lock(&self.free);
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, b)| b.1 >= bytes)
            .min_by_key(|(_, b)| b.1)
            .map(|(i, _)| i);
        best.map(|i| free.swap_remove(i))
    }

    /// Keeps the block `ptr` of `cap` bytes (a `malloc_host` of this
    /// runtime that nothing uses) if the pool has room for it: `true` if
    /// the pool owns it now.
    pub(crate) fn keep(&self, ptr: HostPtr, cap: usize) -> bool {
        let mut free = lock(&self.free);
        let held: usize = free.iter().map(|b| b.1).sum();
        if held + cap <= POOL_BYTES && cap >= 4096 {
            free.push((ptr, cap));
            return true;
        }
        false
    }

    /// Frees every pooled block (the runtime is going away).
    pub(crate) fn release_all(&self, api: &Api) {
        let mut free = lock(&self.free);
        for (ptr, _) in free.drain(..) {
            // SAFETY: a pooled block: a `malloc_host` of `api` that the pool
            // owns and nothing uses, drained (freed once).
            unsafe { ffi::free_host(api, ptr) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::class_of;

    #[test]
    fn classes_round_up_by_at_most_an_eighth() {
        assert_eq!(class_of(0), 512);
        assert_eq!(class_of(1), 512);
        assert_eq!(class_of(512), 512);
        assert_eq!(class_of(513), 1024);
        assert_eq!(class_of(4096), 4096);
        assert_eq!(class_of(4097), 4096 + 512);
        assert_eq!(class_of(1 << 20), 1 << 20);
        assert_eq!(class_of((1 << 20) + 1), (1 << 20) + (1 << 17));
        for b in [1000usize, 77_777, 3 << 20, 123_456_789] {
            let c = class_of(b);
            assert!(c >= b && c - b <= b / 8 + 512, "{b} -> {c}");
        }
        assert_eq!(class_of(usize::MAX), usize::MAX, "no overflow");
    }
}
