//! The AscendCL runtime functions (`libascendcl.so`), simulated, one file
//! per group of CANN's headers; here, what the groups share (the runtime
//! and the handles resolved, where a pointer lives).

mod allocator;
mod base;
mod buffer;
mod callback;
mod context;
mod copy;
mod device;
mod device_ext;
mod event;
mod group;
mod init;
mod injection;
mod lifecycle;
mod log;
mod memory;
mod memory_ext;
mod model;
mod notify;
mod overflow;
mod peer;
mod query;
mod random;
mod reduce;
mod snapshot;
mod stream;
mod stream_config;
mod sysparam;
mod timeout;
mod value;
mod version;

pub use allocator::*;
pub use base::*;
pub use buffer::*;
pub use callback::*;
pub use context::*;
pub use copy::*;
pub use device::*;
pub use device_ext::*;
pub use event::*;
pub use group::*;
pub use init::*;
pub(crate) use init::{start, stop_if_unused};
pub use injection::*;
pub use lifecycle::*;
pub(crate) use log::device_fault;
pub use log::*;
pub use memory::*;
pub use memory_ext::*;
pub use model::*;
pub use notify::*;
pub use overflow::*;
pub use peer::*;
pub use query::*;
pub use random::*;
pub use reduce::*;
pub use snapshot::*;
pub use stream::*;
pub use stream_config::*;
pub use sysparam::*;
pub use timeout::*;
pub use value::*;
pub use version::*;

use crate::abi::fail;
use crate::memory::Allocation;
use crate::state::{self, Runtime};
use crate::stream::{Event, Stream};
use crate::work::Fault;
use cann_sys::{
    aclError, aclrtEvent, aclrtStream, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, ACL_ERROR_UNINITIALIZE, ACL_SUCCESS,
};
use std::ffi::{c_char, CStr};
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
/// A range that ends in the allocation's padding (past the size asked for,
/// inside what CANN's `aclrtMalloc` really allocates) is allowed with a
/// memory-checker warning, or refused in strict memory mode.
pub(crate) fn locate(rt: &Runtime, addr: u64, len: u64) -> Result<Loc, String> {
    for m in &rt.memory {
        let m = lock(m);
        if m.owns(addr) {
            return match m.find(addr) {
                Some(a) if a.contains(addr, len) => Ok(Loc::Device(a.clone())),
                Some(a) if a.contains_padded(addr, len) => {
                    let what = || format!("[{addr:#x}, +{len}) runs past the end of {a}");
                    match crate::memory::padding_access(what) {
                        Ok(()) => Ok(Loc::Device(a.clone())),
                        Err(()) => Err(format!(
                            "{} (into the padding aclrtMalloc adds: refused, NPU_SIM_STRICT_MEMORY is on)",
                            what()
                        )),
                    }
                }
                Some(a) => Err(format!("[{addr:#x}, +{len}) runs past the end of {a}")),
                None => Err(format!(
                    "{addr:#x} is device memory but not inside a live allocation (freed, or never allocated)"
                )),
            };
        }
    }
    Ok(Loc::Host)
}

/// Entries of the per-thread allocation lookup cache.
const ALLOC_CACHE: usize = 4;

/// An entry of the allocation lookup cache: the serial of the runtime
/// whose memory held the allocation, its padded range (copied, so a miss
/// costs no upgrade) and the allocation.
type AllocHit = (u64, u64, u64, std::sync::Weak<Allocation>);

thread_local! {
    /// The allocations [`find_alloc`] found last on this thread, round
    /// robin. Weak, so the cache never keeps a freed allocation's host
    /// mapping alive.
    static ALLOC_HITS: std::cell::RefCell<([Option<AllocHit>; ALLOC_CACHE], usize)> =
        const { std::cell::RefCell::new(([const { None }; ALLOC_CACHE], 0)) };
}

/// The live allocation containing `addr` (for capturing at enqueue time).
///
/// A per-thread cache of the last allocations found answers first, with no
/// lock: an allocation is in its device's live set exactly while its
/// `freed` flag is clear (`DeviceMemory::free`, the only way out of the
/// set, raises it), live allocations never overlap, and the runtime serial
/// keeps a finalised runtime's allocation (its memory is gone, its address
/// range reused by the next runtime) from being found. So a cached entry
/// that is not freed and holds `addr` in its padded size is what the
/// locked search would return. A free racing with this lookup is the same
/// race as with the locked search: the memory checker sees the flag when
/// the launch runs.
pub(crate) fn find_alloc(rt: &Runtime, addr: u64) -> Option<Arc<Allocation>> {
    let hit = cached_alloc(rt, addr);
    if hit.is_some() {
        return hit;
    }
    let found = rt.memory.iter().find_map(|m| lock(m).find(addr).cloned());
    if let Some(a) = &found {
        ALLOC_HITS.with(|c| {
            let mut c = c.borrow_mut();
            let i = c.1;
            c.0[i] = Some((rt.serial, a.base, a.base + a.padded, Arc::downgrade(a)));
            c.1 = (i + 1) % ALLOC_CACHE;
        });
    }
    found
}

/// [`find_alloc`]'s answer from the thread's cache, if it has one.
#[inline(always)]
fn cached_alloc(rt: &Runtime, addr: u64) -> Option<Arc<Allocation>> {
    ALLOC_HITS.with(|c| {
        let c = c.borrow();
        let (_, _, _, w) =
            c.0.iter().flatten().find(|(serial, base, end, _)| {
                *serial == rt.serial && addr >= *base && addr < *end
            })?;
        Allocation::upgrade_live(w)
    })
}

/// A stream handle, resolved: NULL is the device's default stream.
pub(crate) fn stream_of(
    rt: &Runtime,
    device: Option<u32>,
    s: aclrtStream,
) -> Result<Arc<Stream>, i32> {
    if s.is_null() {
        if let Some(r) = context::explicit_default_stream() {
            return r;
        }
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

/// Reads a C string argument (for messages).
pub(crate) fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a non-null C string argument, NUL-terminated by contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}
