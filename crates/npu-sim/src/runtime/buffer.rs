//! Data buffers (`acl_base_rt.h`): `aclCreateDataBuffer`,
//! `aclDestroyDataBuffer`, `aclUpdateDataBuffer`, `aclGetDataBufferAddr`,
//! `aclGetDataBufferSizeV2`.
//!
//! As CANN's: a data buffer is a host-side record of an address and a
//! size, nothing more. Creating one needs no `aclInit` and checks neither
//! the address nor the size (the memory stays the caller's: CANN's
//! reference says "managed by the user, freed with aclrtFree"), and the
//! getters answer NULL and 0 for a NULL buffer. What the simulator adds:
//! buffers are tracked handles, so a destroyed or foreign one is a status
//! (`ACL_ERROR_INVALID_PARAM`, explained) where CANN's would be a double
//! free or a wild read.

use crate::abi::fail;
use crate::state::{new_handle, HandleMap};
use cann_sys::*;
use std::ffi::c_void;
use std::sync::Mutex;

/// One buffer: its address and size in bytes.
#[derive(Clone, Copy)]
struct Buffer {
    data: usize,
    size: usize,
}

static BUFFERS: Mutex<Option<HandleMap<Buffer>>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut HandleMap<Buffer>) -> R) -> R {
    let mut g = BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HandleMap::default))
}

/// Live data buffers (for tests that prove nothing leaked).
pub fn live_data_buffers() -> usize {
    with(|b| b.len())
}

fn stale(api: &str, h: *const aclDataBuffer) -> String {
    format!(
        "npu-sim: {api}: {h:p} is not a live aclDataBuffer (never created by \
         aclCreateDataBuffer, or destroyed)"
    )
}

/// `aclCreateDataBuffer`: a buffer recording `data` and `size` (either may
/// be 0: CANN's creates one for any pair). Never NULL (CANN returns NULL
/// only when out of host memory).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut aclDataBuffer {
    crate::abi::guard("aclCreateDataBuffer", std::ptr::null_mut(), || {
        let h = new_handle();
        with(|b| {
            b.insert(
                h,
                Buffer {
                    data: data as usize,
                    size,
                },
            )
        });
        h as *mut aclDataBuffer
    })
}

/// `aclDestroyDataBuffer`: destroys the record (never the memory it
/// names). NULL, or a buffer not live: `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclDestroyDataBuffer(data_buffer: *const aclDataBuffer) -> aclError {
    crate::abi::guard("aclDestroyDataBuffer", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if data_buffer.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclDestroyDataBuffer: dataBuffer is null",
            );
        }
        match with(|b| b.remove(&(data_buffer as usize))) {
            Some(_) => ACL_SUCCESS,
            None => fail(
                ACL_ERROR_INVALID_PARAM,
                stale("aclDestroyDataBuffer", data_buffer),
            ),
        }
    })
}

/// `aclUpdateDataBuffer`: the buffer now records `data` and `size` (the
/// old memory stays the caller's to free). NULL, or a buffer not live:
/// `ACL_ERROR_INVALID_PARAM`, the buffer unchanged.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclUpdateDataBuffer(
    data_buffer: *mut aclDataBuffer,
    data: *mut c_void,
    size: usize,
) -> aclError {
    crate::abi::guard("aclUpdateDataBuffer", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if data_buffer.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclUpdateDataBuffer: dataBuffer is null",
            );
        }
        let updated = with(|b| match b.get_mut(&(data_buffer as usize)) {
            Some(buf) => {
                *buf = Buffer {
                    data: data as usize,
                    size,
                };
                true
            }
            None => false,
        });
        if updated {
            ACL_SUCCESS
        } else {
            fail(
                ACL_ERROR_INVALID_PARAM,
                stale("aclUpdateDataBuffer", data_buffer),
            )
        }
    })
}

fn get(api: &str, data_buffer: *const aclDataBuffer) -> Option<Buffer> {
    if data_buffer.is_null() {
        return None;
    }
    let b = with(|b| b.get(&(data_buffer as usize)).copied());
    if b.is_none() {
        crate::abi::set_error(ACL_ERROR_INVALID_PARAM, stale(api, data_buffer));
    }
    b
}

/// `aclGetDataBufferAddr`: the address the buffer records; NULL for a
/// NULL buffer (as CANN's) or one not live (with the reason in
/// `aclGetRecentErrMsg`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclGetDataBufferAddr(data_buffer: *const aclDataBuffer) -> *mut c_void {
    crate::abi::guard("aclGetDataBufferAddr", std::ptr::null_mut(), || {
        get("aclGetDataBufferAddr", data_buffer)
            .map_or(std::ptr::null_mut(), |b| b.data as *mut c_void)
    })
}

/// `aclGetDataBufferSizeV2`: the size the buffer records, in bytes; 0 for
/// a NULL buffer (as CANN's) or one not live (with the reason in
/// `aclGetRecentErrMsg`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclGetDataBufferSizeV2(data_buffer: *const aclDataBuffer) -> usize {
    crate::abi::guard("aclGetDataBufferSizeV2", 0, || {
        get("aclGetDataBufferSizeV2", data_buffer).map_or(0, |b| b.size)
    })
}
