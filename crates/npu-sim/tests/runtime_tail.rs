//! The rest of the runtime calls of CANN's host-only examples (issue 19,
//! item 2, "by area"), through the C ABI: data buffers, error queries,
//! CANN attributes and compatibility, context queries, peer access,
//! stream configuration, stream memory operations, built-in tasks, the
//! registered allocator, saturation and overflow. Each with its misuses
//! (NULL, stale handles, enums out of range, the wrong device): a status,
//! never a crash or a hang.
//!
//! Its own test binary: every test initialises and finalises the simulator
//! (two devices), so the tests run one at a time.

use cann_sys::*;
use npu_sim as sim;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

mod misuse_support;
use misuse_support::{api, finalize, last_error, malloc, no_internal_errors};

fn init() {
    std::env::set_var("NPU_SIM_DEVICES", "2");
    misuse_support::init();
}

// ------------------------------------------------------------ data buffers

#[test]
#[serial]
fn data_buffers_record_an_address_and_a_size() {
    // No aclInit needed, as CANN's.
    let mut word = 7u64;
    let p = &mut word as *mut u64 as *mut c_void;
    let b = sim::aclCreateDataBuffer(p, 8);
    assert!(!b.is_null());
    assert_eq!(sim::aclGetDataBufferAddr(b), p);
    assert_eq!(sim::aclGetDataBufferSizeV2(b), 8);
    // Empty buffers exist too (CANN's examples make them for outputs).
    let e = sim::aclCreateDataBuffer(null_mut(), 0);
    assert!(!e.is_null() && e != b);
    assert_eq!(sim::aclGetDataBufferAddr(e), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(e), 0);
    // Update: the new pair, the old memory untouched.
    init();
    let d = malloc(64);
    assert_eq!(sim::aclUpdateDataBuffer(e, d, 64), ACL_SUCCESS);
    assert_eq!(
        (sim::aclGetDataBufferAddr(e), sim::aclGetDataBufferSizeV2(e)),
        (d, 64)
    );
    assert_eq!(word, 7);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_eq!(sim::aclDestroyDataBuffer(e), ACL_SUCCESS);
    // SAFETY: a live allocation.
    assert_eq!(unsafe { (api().aclrtFree)(d) }, ACL_SUCCESS);
    finalize();
    no_internal_errors();
}

#[test]
#[serial]
fn data_buffer_misuse_is_a_status() {
    // NULL: the getters answer NULL and 0 (as CANN's), the rest refuse.
    assert_eq!(sim::aclGetDataBufferAddr(null()), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(null()), 0);
    assert_eq!(sim::aclDestroyDataBuffer(null()), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        sim::aclUpdateDataBuffer(null_mut(), null_mut(), 0),
        ACL_ERROR_INVALID_PARAM
    );
    assert!(
        last_error().contains("dataBuffer is null"),
        "{}",
        last_error()
    );
    // Destroyed twice, or used after its destroy: a status, never a free.
    let b = sim::aclCreateDataBuffer(null_mut(), 4);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_eq!(sim::aclDestroyDataBuffer(b), ACL_ERROR_INVALID_PARAM);
    assert!(
        last_error().starts_with("Invalid_Argument(EE1001)")
            && last_error().contains("not a live aclDataBuffer"),
        "{}",
        last_error()
    );
    assert_eq!(
        sim::aclUpdateDataBuffer(b, null_mut(), 1),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(sim::aclGetDataBufferAddr(b), null_mut());
    assert_eq!(sim::aclGetDataBufferSizeV2(b), 0);
    // A pointer that was never a buffer.
    let mut x = 0u8;
    let fake = &mut x as *mut u8 as *mut aclDataBuffer;
    assert_eq!(sim::aclDestroyDataBuffer(fake), ACL_ERROR_INVALID_PARAM);
    assert_eq!(sim::aclGetDataBufferSizeV2(fake), 0);
    assert_eq!(x, 0);
    no_internal_errors();
}
