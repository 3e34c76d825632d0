//! Simulated device memory.
//!
//! Each device owns a range of virtual addresses reserved with `PROT_NONE`:
//! device pointers handed to callers lie in it, so a host dereference of a
//! device pointer faults, as it would with a real NPU. The bytes live in a
//! separate host mapping per allocation (backed lazily by the kernel), which
//! only the simulator's kernels touch, after the memory checker has proved
//! every access lies inside a live allocation.
//!
//! Sizes are CANN's: `aclrtMalloc` rounds every request up to a multiple
//! of 32 bytes and adds 32 (CANN's aclrtMalloc reference: "m =
//! ALIGN_UP[len, 32] + 32"), so a program may touch a little past what it
//! asked for and still work on the device. Each allocation keeps both its
//! requested size and that padded size ([`padded_size`]): an access past
//! the requested size but inside the padded one succeeds, as on the
//! device, and is counted ([`padding_accesses`]) and reported on stderr as
//! a memory-checker warning; [`set_strict_memory`] (or
//! `NPU_SIM_STRICT_MEMORY=1`) refuses it instead, as any access past the
//! padded size always is.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Alignment of device allocations (aclnn requires 32 bytes; 512 like the
/// real allocator).
pub const ALIGN: u64 = 512;

/// The size CANN's `aclrtMalloc` really allocates for a request of `size`
/// bytes: rounded up to a multiple of 32, plus 32 (`None` on overflow).
pub fn padded_size(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(32)?.checked_add(32)
}

static STRICT_MEMORY: AtomicBool = AtomicBool::new(false);
static PADDING_ACCESSES: AtomicU64 = AtomicU64::new(0);

/// Warnings printed on stderr at most (every access is still counted).
const PADDING_WARNINGS: u64 = 32;

/// Refuses (`true`) or allows (`false`, the default unless
/// `NPU_SIM_STRICT_MEMORY=1`) accesses past an allocation's requested size
/// that stay inside the padding CANN's `aclrtMalloc` adds.
pub fn set_strict_memory(on: bool) {
    STRICT_MEMORY.store(on, Ordering::Relaxed);
}

/// Whether accesses into an allocation's padding are refused
/// ([`set_strict_memory`]).
pub fn strict_memory() -> bool {
    STRICT_MEMORY.load(Ordering::Relaxed)
}

/// Accesses into an allocation's padding allowed since the process
/// started (copies and kernels; each call or launch region counts once).
pub fn padding_accesses() -> u64 {
    PADDING_ACCESSES.load(Ordering::Relaxed)
}

/// Reads `NPU_SIM_STRICT_MEMORY` (at initialisation).
pub(crate) fn configure_from_env() {
    if let Ok(v) = std::env::var("NPU_SIM_STRICT_MEMORY") {
        set_strict_memory(matches!(v.trim(), "1" | "true" | "yes"));
    }
}

/// An access past the requested size of an allocation but inside its
/// padding: `Ok` (counted, and a warning on stderr) unless strict memory
/// is on. `what` describes the access for the warning.
pub(crate) fn padding_access(what: impl FnOnce() -> String) -> Result<(), ()> {
    if strict_memory() {
        return Err(());
    }
    let n = PADDING_ACCESSES.fetch_add(1, Ordering::Relaxed);
    if n < PADDING_WARNINGS {
        eprintln!(
            "npu-sim memcheck: warning: {} (inside the padding aclrtMalloc adds: allowed, as on the \
             device; NPU_SIM_STRICT_MEMORY=1 refuses it){}",
            what(),
            if n + 1 == PADDING_WARNINGS {
                "; further such accesses are only counted"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// One live (or freed but still referenced) device allocation.
pub struct Allocation {
    /// Unique id, never reused.
    pub id: u64,
    /// Device the memory belongs to.
    pub device: u32,
    /// Device address of the first byte.
    pub base: u64,
    /// Size requested by the caller.
    pub size: u64,
    /// Size CANN's `aclrtMalloc` allocates for it ([`padded_size`]): the
    /// device lets programs touch up to here.
    pub padded: u64,
    backing: *mut u8,
    backing_len: usize,
    /// Set by `aclrtFree`; kernels that still hold the allocation fault.
    pub freed: AtomicBool,
}

// SAFETY: `backing` is a private mapping owned by this value; concurrent
// kernel writes go to disjoint bytes by construction of the plans, and the
// mapping is released only in `Drop`, after every holder is gone.
unsafe impl Send for Allocation {}
// SAFETY: as above.
unsafe impl Sync for Allocation {}

impl Allocation {
    /// The allocation `w` points to, if it is still held and not freed:
    /// the live allocation a lookup of its addresses would find (live
    /// allocations never overlap).
    pub fn upgrade_live(w: &std::sync::Weak<Allocation>) -> Option<Arc<Allocation>> {
        w.upgrade().filter(|a| !a.freed.load(Ordering::Acquire))
    }

    /// Host pointer to the byte at device address `addr` (inside this
    /// allocation, as checked by the caller).
    pub fn host_ptr(&self, addr: u64) -> *mut u8 {
        debug_assert!(addr >= self.base && addr - self.base <= self.padded);
        // SAFETY: the offset is within the mapping (checked above by callers).
        unsafe { self.backing.add((addr - self.base) as usize) }
    }

    /// Whether `[addr, addr + len)` lies inside the size requested.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.base
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.base + self.size)
    }

    /// Whether `[addr, addr + len)` lies inside the padded size (what the
    /// device allows: [`padded_size`]).
    pub fn contains_padded(&self, addr: u64, len: u64) -> bool {
        addr >= self.base
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.base + self.padded)
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "allocation #{} [{:#x}, {:#x}) ({} bytes, {} with aclrtMalloc's padding, device {})",
            self.id,
            self.base,
            self.base + self.size,
            self.size,
            self.padded,
            self.device
        )
    }
}

impl fmt::Debug for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if self.backing_len > 0 {
            release_backing(self.backing, self.backing_len);
        }
    }
}

/// Host mappings of freed allocations, by length, kept for reuse: a fresh
/// lazily backed mapping page-faults on first touch, which would make every
/// new output cost far more than the kernel writing it. Reused memory keeps
/// its old contents, as device memory does.
struct BackingCache {
    free: std::collections::HashMap<usize, Vec<usize>>,
    bytes: usize,
}

/// Host bytes the cache may hold.
const BACKING_CACHE_BYTES: usize = 1 << 30;

static BACKING: std::sync::Mutex<Option<BackingCache>> = std::sync::Mutex::new(None);

fn release_backing(ptr: *mut u8, len: usize) {
    let mut g = BACKING.lock().unwrap_or_else(|e| e.into_inner());
    let c = g.get_or_insert_with(|| BackingCache {
        free: Default::default(),
        bytes: 0,
    });
    if c.bytes + len <= BACKING_CACHE_BYTES {
        c.free.entry(len).or_default().push(ptr as usize);
        c.bytes += len;
        return;
    }
    drop(g);
    // SAFETY: the mapping was created by `map_backing` with this length and
    // nothing refers to it any more.
    unsafe { libc::munmap(ptr.cast(), len) };
}

fn map_backing(len: usize) -> Option<*mut u8> {
    {
        let mut g = BACKING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = g.as_mut() {
            if let Some(p) = c.free.get_mut(&len).and_then(|v| v.pop()) {
                c.bytes -= len;
                return Some(p as *mut u8);
            }
        }
    }
    // SAFETY: a fresh anonymous private mapping; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// The device-address space and allocations of one device.
pub struct DeviceMemory {
    device: u32,
    range_base: u64,
    range_len: u64,
    capacity: u64,
    used: u64,
    /// Free address blocks: offset -> length.
    free: BTreeMap<u64, u64>,
    /// Where the next search starts (next fit: freed addresses are not
    /// reused at once, so stale pointers are caught longer).
    cursor: u64,
    live: BTreeMap<u64, Arc<Allocation>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Why an allocation failed.
#[derive(Debug, PartialEq, Eq)]
pub enum AllocError {
    /// More than the device's capacity, or no address range left.
    OutOfMemory,
    /// Zero bytes requested.
    ZeroSize,
}

impl DeviceMemory {
    /// Reserves the address range for a device of `capacity` bytes.
    pub fn new(device: u32, capacity: u64) -> Option<DeviceMemory> {
        // Twice the capacity so that fragmentation never makes a request
        // that fits the capacity fail for lack of addresses.
        let range_len = capacity
            .checked_mul(2)?
            .max(1 << 20)
            .next_multiple_of(1 << 21);
        let p = reserve(range_len)?;
        let mut free = BTreeMap::new();
        free.insert(0, range_len);
        Some(DeviceMemory {
            device,
            range_base: p,
            range_len,
            capacity,
            used: 0,
            free,
            cursor: 0,
            live: BTreeMap::new(),
        })
    }

    /// Capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Bytes currently allocated.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Number of live allocations.
    pub fn live_count(&self) -> usize {
        self.live.len()
    }

    /// Whether `addr` is inside this device's reserved range.
    pub fn owns(&self, addr: u64) -> bool {
        addr >= self.range_base && addr - self.range_base < self.range_len
    }

    fn take_range(&mut self, len: u64) -> Option<u64> {
        // The cursor inside a free block (freed space merged with it): carve
        // from the cursor, leaving the freed part below it for later.
        if let Some((&o, &l)) = self.free.range(..self.cursor).next_back() {
            if o + l >= self.cursor.saturating_add(len) {
                let cur = self.cursor;
                self.free.insert(o, cur - o);
                let tail = o + l - (cur + len);
                if tail > 0 {
                    self.free.insert(cur + len, tail);
                }
                self.cursor = cur + len;
                return Some(cur);
            }
        }
        let pick = self
            .free
            .range(self.cursor..)
            .chain(self.free.range(..self.cursor))
            .find(|(_, l)| **l >= len)
            .map(|(o, l)| (*o, *l))?;
        let (off, l) = pick;
        self.free.remove(&off);
        if l > len {
            self.free.insert(off + len, l - len);
        }
        self.cursor = off + len;
        Some(off)
    }

    fn give_back(&mut self, off: u64, len: u64) {
        let (mut off, mut len) = (off, len);
        if let Some((&po, &pl)) = self.free.range(..off).next_back() {
            if po + pl == off {
                self.free.remove(&po);
                off = po;
                len += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(off + len)) {
            self.free.remove(&(off + len));
            len += nl;
        }
        self.free.insert(off, len);
    }

    /// Bytes of address space and capacity an allocation of `size`
    /// takes: its padded size ([`padded_size`]) in [`ALIGN`] blocks.
    fn charge(padded: u64) -> Option<u64> {
        padded.checked_next_multiple_of(ALIGN)
    }

    /// Allocates `size` bytes (and the padding CANN adds to them).
    pub fn alloc(&mut self, size: u64) -> Result<Arc<Allocation>, AllocError> {
        self.alloc_padded(size, padded_size)
    }

    /// Allocates `size` bytes of which programs may touch `pad(size)`
    /// (`None`: too large): [`padded_size`] for `aclrtMalloc`, the size
    /// rounded up to 32 for `aclrtMallocAlign32`.
    pub fn alloc_padded(
        &mut self,
        size: u64,
        pad: impl FnOnce(u64) -> Option<u64>,
    ) -> Result<Arc<Allocation>, AllocError> {
        if size == 0 {
            return Err(AllocError::ZeroSize);
        }
        let padded = pad(size)
            .filter(|&p| p >= size)
            .ok_or(AllocError::OutOfMemory)?;
        let rounded = Self::charge(padded).ok_or(AllocError::OutOfMemory)?;
        if self
            .used
            .checked_add(rounded)
            .is_none_or(|u| u > self.capacity)
        {
            return Err(AllocError::OutOfMemory);
        }
        let off = self.take_range(rounded).ok_or(AllocError::OutOfMemory)?;
        let backing_len = usize::try_from(rounded).map_err(|_| AllocError::OutOfMemory)?;
        let Some(backing) = map_backing(backing_len) else {
            self.give_back(off, rounded);
            return Err(AllocError::OutOfMemory);
        };
        let a = Arc::new(Allocation {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device: self.device,
            base: self.range_base + off,
            size,
            padded,
            backing,
            backing_len,
            freed: AtomicBool::new(false),
        });
        self.used += rounded;
        self.live.insert(a.base, a.clone());
        Ok(a)
    }

    /// Frees the allocation starting at `addr`. Kernels still holding it
    /// see `freed` and fault instead of touching it.
    pub fn free(&mut self, addr: u64) -> Option<Arc<Allocation>> {
        let a = self.live.remove(&addr)?;
        a.freed.store(true, Ordering::Release);
        let rounded = Self::charge(a.padded).expect("charged when allocated");
        self.used -= rounded;
        self.give_back(a.base - self.range_base, rounded);
        Some(a)
    }

    /// Every live allocation, now (what a device reset or a finalisation
    /// will free: [`DeviceMemory::free_these`]).
    pub fn live_allocations(&self) -> Vec<Arc<Allocation>> {
        self.live.values().cloned().collect()
    }

    /// Frees those of `allocs` that are still live (the device was reset,
    /// or the runtime finalised): pending work that still holds one faults
    /// instead of touching it; later frees of the addresses are errors.
    /// Allocations made since the list was taken (the device set again
    /// meanwhile) are not touched.
    pub fn free_these(&mut self, allocs: &[Arc<Allocation>]) -> usize {
        let mut n = 0;
        for a in allocs {
            if self.live.get(&a.base).is_some_and(|l| Arc::ptr_eq(l, a)) {
                self.free(a.base);
                n += 1;
            }
        }
        n
    }

    /// The live allocation containing `addr` (in its padded size), if any.
    pub fn find(&self, addr: u64) -> Option<&Arc<Allocation>> {
        let (_, a) = self.live.range(..=addr).next_back()?;
        (addr < a.base + a.padded).then_some(a)
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        // The reservation stays mapped (PROT_NONE) for the next runtime of
        // the same size: a device pointer kept past `aclFinalize` never
        // becomes host memory, so it is still recognised (and refused) as
        // device memory rather than dereferenced.
        let mut r = RESERVED.write().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = r.iter_mut().find(|e| e.base == self.range_base) {
            e.in_use = false;
        }
    }
}

/// One reserved device address range.
struct Reservation {
    base: u64,
    len: u64,
    in_use: bool,
}

/// Every device address range ever reserved (never unmapped; reused by
/// later runtimes of the same size, so their number stays bounded).
static RESERVED: std::sync::RwLock<Vec<Reservation>> = std::sync::RwLock::new(Vec::new());

/// A `PROT_NONE` range of `len` bytes: a free earlier one, or a new one.
fn reserve(len: u64) -> Option<u64> {
    let mut r = RESERVED.write().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = r.iter_mut().find(|e| !e.in_use && e.len == len) {
        e.in_use = true;
        return Some(e.base);
    }
    // SAFETY: a fresh PROT_NONE reservation; never readable or writable.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            usize::try_from(len).ok()?,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    r.push(Reservation {
        base: p as u64,
        len,
        in_use: true,
    });
    Some(p as u64)
}

/// The device address range (of this runtime or an earlier one) that
/// `[addr, end)` overlaps, if any: such memory is never host memory.
pub fn device_range_overlapping(addr: u64, end: u64) -> Option<(u64, u64)> {
    let r = RESERVED.read().unwrap_or_else(|e| e.into_inner());
    r.iter()
        .find(|e| addr < e.base + e.len && e.base < end)
        .map(|e| (e.base, e.base + e.len))
}

/// `aclrtMallocHost` blocks: whole pages of their own mapping. A freed
/// block (`aclrtFreeHost`, or `aclFinalize` releasing it) is never handed
/// back to the process's allocator: its pages are dropped and the range
/// stays mapped `PROT_NONE` until a later `aclrtMallocHost` reuses it, so
/// a pointer kept past the free is recognised (and refused by the copies)
/// instead of reaching memory that another owner now has, or none.
pub mod pinned {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    /// Retired (freed) blocks kept reserved: base -> mapping length.
    static RETIRED: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

    /// Retired blocks kept at most (each is a mapping; the process has a
    /// limited number): beyond it the oldest is unmapped.
    const KEPT: usize = 4096;

    fn page() -> usize {
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
    }

    fn mapping_len(size: usize) -> Option<usize> {
        size.checked_next_multiple_of(page())
    }

    /// A block of `size` (> 0) bytes, readable and writable, or `None`.
    pub fn alloc(size: usize) -> Option<*mut u8> {
        let len = mapping_len(size)?;
        let reused = {
            let mut r = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
            let base = r.iter().find(|&(_, &l)| l == len).map(|(&b, _)| b);
            base.inspect(|b| {
                r.remove(b);
            })
        };
        if let Some(b) = reused {
            // SAFETY: a range this module mapped with length `len` and
            // retired: nobody else uses it.
            if unsafe {
                libc::mprotect(
                    b as *mut libc::c_void,
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            } == 0
            {
                return Some(b as *mut u8);
            }
            // SAFETY: as above; given up.
            unsafe { libc::munmap(b as *mut libc::c_void, len) };
        }
        // SAFETY: a fresh anonymous private mapping; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(p.cast())
    }

    /// Frees the block at `base` of `size` bytes (from [`alloc`], freed
    /// once: the caller removed it from its registry): its pages are
    /// dropped, its range kept unreadable.
    pub fn free(base: usize, size: usize) {
        let Some(len) = mapping_len(size) else { return };
        // SAFETY: replaces this module's own mapping of `len` bytes at
        // `base` (nobody else uses it) with a fresh PROT_NONE one: the old
        // pages are released, the addresses stay reserved.
        let p = unsafe {
            libc::mmap(
                base as *mut libc::c_void,
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            // SAFETY: as above.
            unsafe { libc::munmap(base as *mut libc::c_void, len) };
            return;
        }
        let mut r = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
        r.insert(base, len);
        if r.len() > KEPT {
            // The lowest address goes (any one will do).
            if let Some((b, l)) = r.pop_first() {
                // SAFETY: a retired range of this module, no longer kept.
                unsafe { libc::munmap(b as *mut libc::c_void, l) };
            }
        }
    }

    /// The freed block `[addr, end)` overlaps, if any.
    pub fn retired_overlapping(addr: u64, end: u64) -> Option<(u64, u64)> {
        let r = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
        let (&b, &l) = r.range(..end as usize).next_back()?;
        ((b + l) as u64 > addr).then_some((b as u64, (b + l) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_free_and_lookup() {
        let mut m = DeviceMemory::new(0, 1 << 20).unwrap();
        let a = m.alloc(100).unwrap();
        let b = m.alloc(1000).unwrap();
        assert_eq!(a.base % ALIGN, 0);
        assert!(m.owns(a.base) && m.owns(b.base));
        assert_eq!(m.find(a.base + 99).unwrap().id, a.id);
        // 100 bytes are 128 + 32 on the device: the padding is a's.
        assert_eq!(a.padded, 160);
        assert_eq!(m.find(a.base + 159).unwrap().id, a.id);
        assert!(m.find(a.base + 160).is_none(), "past the padding is not a");
        assert!(a.contains(a.base, 100) && !a.contains(a.base, 101));
        assert!(a.contains_padded(a.base, 160) && !a.contains_padded(a.base, 161));
        // 1000 bytes: 1024 + 32 padded, three blocks.
        assert_eq!(m.used(), 512 + 1536);
        m.free(a.base).unwrap();
        assert!(a.freed.load(Ordering::Acquire));
        assert!(m.find(a.base).is_none());
        assert!(m.free(a.base).is_none(), "double free is detected");
        assert_eq!(m.used(), 1536);
    }

    #[test]
    fn padded_sizes_are_cann_s() {
        assert_eq!(padded_size(1), Some(64));
        assert_eq!(padded_size(16), Some(64));
        assert_eq!(padded_size(32), Some(64));
        assert_eq!(padded_size(33), Some(96));
        assert_eq!(padded_size(480), Some(512));
        assert_eq!(padded_size(481), Some(544));
        assert_eq!(padded_size(u64::MAX), None);
        assert_eq!(padded_size(u64::MAX - 40), None);
    }

    #[test]
    fn capacity_is_enforced() {
        let mut m = DeviceMemory::new(0, 4096).unwrap();
        // The padding counts: 4064 bytes take 4096 on the device.
        let a = m.alloc(4064).unwrap();
        assert_eq!(m.alloc(1).unwrap_err(), AllocError::OutOfMemory);
        m.free(a.base);
        assert_eq!(m.alloc(4065).unwrap_err(), AllocError::OutOfMemory);
        assert!(m.alloc(4064).is_ok());
        assert_eq!(m.alloc(0).unwrap_err(), AllocError::ZeroSize);
        assert_eq!(m.alloc(u64::MAX).unwrap_err(), AllocError::OutOfMemory);
    }

    #[test]
    fn freed_addresses_are_not_reused_at_once_and_ranges_coalesce() {
        let mut m = DeviceMemory::new(0, 1 << 16).unwrap();
        let a = m.alloc(480).unwrap();
        let base = a.base;
        m.free(base);
        let b = m.alloc(480).unwrap();
        assert_ne!(b.base, base, "next fit moves on");
        m.free(b.base);
        // All space coalesced back: a request of the whole range fits.
        assert!(m.alloc((1 << 16) - 32).is_ok());
    }

    #[test]
    fn backing_is_usable() {
        let mut m = DeviceMemory::new(0, 1 << 20).unwrap();
        let a = m.alloc(64).unwrap();
        // SAFETY: 64 bytes inside the allocation's backing.
        unsafe {
            a.host_ptr(a.base).write_bytes(7, 64);
            assert_eq!(*a.host_ptr(a.base + 63), 7);
        }
    }
}
