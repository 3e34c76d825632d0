//! Memory management (`acl_rt.h`): device memory (`aclrtMalloc`,
//! `aclrtFree`), page-locked host memory (`aclrtMallocHost`,
//! `aclrtFreeHost`), `aclrtGetMemInfo`.

use super::{lock, rt, rt_device};
use crate::abi::fail;
use crate::memory::AllocError;
use crate::state;
use cann_sys::*;
use std::ffi::c_void;

/// `aclrtMalloc`: device memory on the current device, in the simulator's
/// non-host-dereferenceable address range. Beyond capacity:
/// `ACL_ERROR_RT_MEMORY_ALLOCATION`.
///
/// # Safety
/// `dev_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMalloc(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _policy: aclrtMemMallocPolicy,
) -> aclError {
    crate::abi::guard("aclrtMalloc", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        if dev_ptr.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtMalloc: null output pointer",
            );
        }
        let (rt, dev) = match rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        let mut m = lock(&rt.memory[dev as usize]);
        match m.alloc(size as u64) {
            Ok(a) => {
                // SAFETY: checked non-null.
                unsafe { *dev_ptr = a.base as *mut c_void };
                ACL_SUCCESS
            }
            Err(AllocError::ZeroSize) => fail(ACL_ERROR_INVALID_PARAM, "npu-sim: aclrtMalloc: size 0"),
            Err(AllocError::OutOfMemory) => fail(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!(
                    "npu-sim: aclrtMalloc: out of device memory: {size} bytes requested, {} of {} in use on device {dev}",
                    m.used(),
                    m.capacity()
                ),
            ),
        }
    })
}

/// `aclrtFree`. Work still enqueued that uses the memory faults its stream
/// (use after free) instead of touching it.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` came from `aclrtMalloc` (any other value gets a status code).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtFree(dev_ptr: *mut c_void) -> aclError {
    crate::abi::guard("aclrtFree", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let rt = match rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        let addr = dev_ptr as u64;
        for m in &rt.memory {
            let mut m = lock(m);
            if m.owns(addr) {
                return match m.free(addr) {
                    Some(_) => ACL_SUCCESS,
                    None => fail(
                        ACL_ERROR_RT_MEMORY_FREE,
                        format!("npu-sim: aclrtFree({addr:#x}): not the start of a live allocation (double free?)"),
                    ),
                };
            }
        }
        fail(
            ACL_ERROR_RT_MEMORY_FREE,
            format!("npu-sim: aclrtFree({addr:#x}): not device memory"),
        )
    })
}

/// `aclrtMallocHost`: page-locked host memory (plain host memory here).
///
/// # Safety
/// `host_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocHost(host_ptr: *mut *mut c_void, size: usize) -> aclError {
    crate::abi::guard(
        "aclrtMallocHost",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if host_ptr.is_null() || size == 0 {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtMallocHost: null output pointer or size 0",
                );
            }
            if let Err(c) = rt() {
                return c;
            }
            let Some(p) = crate::memory::pinned::alloc(size) else {
                return fail(
                    ACL_ERROR_BAD_ALLOC,
                    format!("npu-sim: aclrtMallocHost: {size} bytes not available"),
                );
            };
            state::with_handles(|h| h.host.insert(p as usize, size));
            // SAFETY: checked non-null.
            unsafe { *host_ptr = p.cast() };
            ACL_SUCCESS
        },
    )
}

/// `aclrtFreeHost`: only pointers from `aclrtMallocHost` are freed (others
/// are an error), so no caller-supplied pointer is trusted.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `host_ptr` came from `aclrtMallocHost` (any other value gets a status code).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub unsafe extern "C" fn aclrtFreeHost(host_ptr: *mut c_void) -> aclError {
    crate::abi::guard(
        "aclrtFreeHost",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            match state::with_handles(|h| h.host.remove(&(host_ptr as usize))) {
            Some(n) => {
                // Removed from the registry, so freed once.
                crate::memory::pinned::free(host_ptr as usize, n);
                ACL_SUCCESS
            }
            None => fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclrtFreeHost({host_ptr:p}): not from aclrtMallocHost (or freed already)"
                ),
            ),
        }
        },
    )
}

/// `aclrtGetMemInfo`: free and total bytes of the current device (every
/// attribute reports the one simulated memory).
///
/// # Safety
/// `free` and `total` are null or valid for writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetMemInfo(
    _attr: aclrtMemAttr,
    free: *mut usize,
    total: *mut usize,
) -> aclError {
    crate::abi::guard(
        "aclrtGetMemInfo",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if free.is_null() || total.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetMemInfo: null output pointer",
                );
            }
            let (rt, dev) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let m = lock(&rt.memory[dev as usize]);
            // SAFETY: checked non-null.
            unsafe {
                *total = m.capacity() as usize;
                *free = (m.capacity() - m.used()) as usize;
            }
            ACL_SUCCESS
        },
    )
}
