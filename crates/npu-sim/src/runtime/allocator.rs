//! A user allocator registered per stream (`acl_rt_allocator.h`):
//! `aclrtAllocatorCreateDesc`, the `aclrtAllocatorSet*ToDesc` setters,
//! `aclrtAllocatorRegister`, `aclrtAllocatorGetByStream`,
//! `aclrtAllocatorUnregister`, `aclrtAllocatorDestroyDesc`.
//!
//! CANN calls a registered allocator for the workspace of single-operator
//! and dynamic-shape model execution on that stream; the simulator runs
//! neither (aclnn operators take their workspace from the caller), so it
//! stores what is registered and hands it back, and never calls it.

use super::{lock, rt, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::Stream;
use cann_sys::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

/// What a description holds (all optional until registered).
#[derive(Clone, Copy, Default)]
struct Desc {
    obj: usize,
    alloc: aclrtAllocatorAllocFunc,
    free: aclrtAllocatorFreeFunc,
    advise: aclrtAllocatorAllocAdviseFunc,
    addr: aclrtAllocatorGetAddrFromBlockFunc,
}

#[derive(Default)]
struct Registry {
    /// Live descriptions, by handle.
    descs: HashMap<usize, Desc>,
    /// Stream (address of its `Stream`) -> the stream, the user's
    /// description handle and a copy of it taken at registration.
    streams: HashMap<usize, (Weak<Stream>, usize, Desc)>,
}

// SAFETY: the registry holds plain addresses and C function pointers,
// never dereferenced by the simulator.
unsafe impl Send for Registry {}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    f(lock(&REGISTRY).get_or_insert_with(Registry::default))
}

fn bad_desc(api: &str, d: aclrtAllocatorDesc) -> i32 {
    fail(
        ACL_ERROR_INVALID_PARAM,
        if d.is_null() {
            format!("npu-sim: {api}: allocatorDesc is null")
        } else {
            format!(
                "npu-sim: {api}: {d:p} is not a live allocator description (never created by \
                 aclrtAllocatorCreateDesc, or destroyed)"
            )
        },
    )
}

/// Sets one field of a live description; NULL value `ACL_ERROR_INVALID_PARAM`.
fn set(api: &str, d: aclrtAllocatorDesc, null: bool, f: impl FnOnce(&mut Desc)) -> aclError {
    crate::abi::guard(api, ACL_ERROR_RT_INTERNAL_ERROR, || {
        with(|r| match r.descs.get_mut(&(d as usize)) {
            None => bad_desc(api, d),
            Some(_) if null => fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {api}: the value set is null"),
            ),
            Some(desc) => {
                f(desc);
                ACL_SUCCESS
            }
        })
    })
}

/// `aclrtAllocatorCreateDesc`: a new, empty description (no `aclInit`
/// needed, as CANN's).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc {
    crate::abi::guard("aclrtAllocatorCreateDesc", std::ptr::null_mut(), || {
        // A unique non-null handle while live (a small heap block, freed
        // by aclrtAllocatorDestroyDesc).
        let h = Box::into_raw(Box::new(0u64)) as usize;
        with(|r| {
            r.descs.insert(h, Desc::default());
        });
        h as aclrtAllocatorDesc
    })
}

/// `aclrtAllocatorDestroyDesc`: destroys a description; a stream it was
/// registered on keeps its copy (as CANN's). NULL or not a live
/// description `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorDestroyDesc(allocator_desc: aclrtAllocatorDesc) -> aclError {
    const API: &str = "aclrtAllocatorDestroyDesc";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        with(|r| match r.descs.remove(&(allocator_desc as usize)) {
            Some(_) => {
                // SAFETY: a live handle is a block from Box::into_raw in
                // aclrtAllocatorCreateDesc, freed once (removed above).
                drop(unsafe { Box::from_raw(allocator_desc as *mut u64) });
                ACL_SUCCESS
            }
            None => bad_desc(API, allocator_desc),
        })
    })
}

/// `aclrtAllocatorSetObjToDesc`: the allocator object passed back to the
/// functions. NULL description or object `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorSetObjToDesc(
    allocator_desc: aclrtAllocatorDesc,
    allocator: aclrtAllocator,
) -> aclError {
    set(
        "aclrtAllocatorSetObjToDesc",
        allocator_desc,
        allocator.is_null(),
        |d| d.obj = allocator as usize,
    )
}

/// `aclrtAllocatorSetAllocFuncToDesc`: the allocation function (NULL
/// `ACL_ERROR_INVALID_PARAM`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorSetAllocFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocFunc,
) -> aclError {
    set(
        "aclrtAllocatorSetAllocFuncToDesc",
        allocator_desc,
        func.is_none(),
        |d| d.alloc = func,
    )
}

/// `aclrtAllocatorSetFreeFuncToDesc`: the free function (NULL
/// `ACL_ERROR_INVALID_PARAM`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorSetFreeFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorFreeFunc,
) -> aclError {
    set(
        "aclrtAllocatorSetFreeFuncToDesc",
        allocator_desc,
        func.is_none(),
        |d| d.free = func,
    )
}

/// `aclrtAllocatorSetAllocAdviseFuncToDesc`: the advised-allocation
/// function, optional at registration (NULL `ACL_ERROR_INVALID_PARAM`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorSetAllocAdviseFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocAdviseFunc,
) -> aclError {
    set(
        "aclrtAllocatorSetAllocAdviseFuncToDesc",
        allocator_desc,
        func.is_none(),
        |d| d.advise = func,
    )
}

/// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc`: the block-to-address
/// function (NULL `ACL_ERROR_INVALID_PARAM`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    set(
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
        allocator_desc,
        func.is_none(),
        |d| d.addr = func,
    )
}

/// The stream a registration call names: not NULL (CANN: "the stream
/// must not be null"), live.
fn stream(api: &str, s: aclrtStream) -> Result<Arc<Stream>, i32> {
    if s.is_null() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "npu-sim: {api}: stream is null: an allocator is registered on a created stream"
            ),
        ));
    }
    let rt = rt()?;
    stream_of(&rt, state::current_device(), s)
}

/// `aclrtAllocatorRegister`: registers a copy of the description on
/// `stream` (a later change of the description does not change it; a
/// second registration replaces the first). Errors: NULL stream, NULL or
/// dead description, or a description without object, allocation, free or
/// block-to-address function `ACL_ERROR_INVALID_PARAM`; a stale stream
/// `ACL_ERROR_RT_INVALID_HANDLE`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorRegister(
    stream_: aclrtStream,
    allocator_desc: aclrtAllocatorDesc,
) -> aclError {
    const API: &str = "aclrtAllocatorRegister";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let s = match stream(API, stream_) {
            Ok(s) => s,
            Err(c) => return c,
        };
        with(|r| {
            let Some(d) = r.descs.get(&(allocator_desc as usize)).copied() else {
                return bad_desc(API, allocator_desc);
            };
            let missing = [
                (d.obj == 0, "allocatorDesc->obj"),
                (d.alloc.is_none(), "allocatorDesc->allocFunc"),
                (d.free.is_none(), "allocatorDesc->freeFunc"),
                (d.addr.is_none(), "allocatorDesc->getAddrFromBlockFunc"),
            ];
            if let Some((_, what)) = missing.iter().find(|(m, _)| *m) {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {API}: {what} is not set"),
                );
            }
            r.streams.retain(|_, (w, _, _)| w.strong_count() > 0);
            r.streams.insert(
                Arc::as_ptr(&s) as usize,
                (Arc::downgrade(&s), allocator_desc as usize, d),
            );
            ACL_SUCCESS
        })
    })
}

/// `aclrtAllocatorGetByStream`: the description handle registered on
/// `stream` and, for each non-NULL output, the object and functions of the
/// copy taken at registration. Errors: NULL `allocatorDesc` output or
/// stream, no allocator registered on the stream `ACL_ERROR_INVALID_PARAM`;
/// a stale stream `ACL_ERROR_RT_INVALID_HANDLE`.
///
/// # Safety
/// Every non-NULL output is valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorGetByStream(
    stream_: aclrtStream,
    allocator_desc: *mut aclrtAllocatorDesc,
    allocator: *mut aclrtAllocator,
    alloc_func: *mut aclrtAllocatorAllocFunc,
    free_func: *mut aclrtAllocatorFreeFunc,
    alloc_advise_func: *mut aclrtAllocatorAllocAdviseFunc,
    get_addr_from_block_func: *mut aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    const API: &str = "aclrtAllocatorGetByStream";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if allocator_desc.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: allocatorDesc (output) is null"),
            );
        }
        let s = match stream(API, stream_) {
            Ok(s) => s,
            Err(c) => return c,
        };
        let found = with(|r| {
            r.streams
                .get(&(Arc::as_ptr(&s) as usize))
                .map(|e| (e.1, e.2))
        });
        let Some((h, d)) = found else {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: {API}: the stream {stream_:p} is not registered with any allocator"
                ),
            );
        };
        // SAFETY: each output is non-null (checked) and valid for a write
        // by the caller's contract.
        unsafe {
            *allocator_desc = h as aclrtAllocatorDesc;
            if !allocator.is_null() {
                *allocator = d.obj as aclrtAllocator;
            }
            if !alloc_func.is_null() {
                *alloc_func = d.alloc;
            }
            if !free_func.is_null() {
                *free_func = d.free;
            }
            if !alloc_advise_func.is_null() {
                *alloc_advise_func = d.advise;
            }
            if !get_addr_from_block_func.is_null() {
                *get_addr_from_block_func = d.addr;
            }
        }
        ACL_SUCCESS
    })
}

/// `aclrtAllocatorUnregister`: the stream has no registered allocator from
/// now on (success also when it had none, as CANN's). NULL stream
/// `ACL_ERROR_INVALID_PARAM`; a stale stream `ACL_ERROR_RT_INVALID_HANDLE`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtAllocatorUnregister(stream_: aclrtStream) -> aclError {
    const API: &str = "aclrtAllocatorUnregister";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let s = match stream(API, stream_) {
            Ok(s) => s,
            Err(c) => return c,
        };
        with(|r| r.streams.remove(&(Arc::as_ptr(&s) as usize)));
        ACL_SUCCESS
    })
}
