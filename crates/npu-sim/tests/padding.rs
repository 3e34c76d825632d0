//! Allocation sizes as CANN's: `aclrtMalloc` rounds every size up to a
//! multiple of 32 bytes and adds 32 (CANN's aclrtMalloc reference), and
//! programs rely on it (CANN's SliceV2 sample copies 32 bytes back from a
//! 16-byte allocation). Accesses inside the padded size succeed, counted
//! as memory-checker warnings; past it they fail; strict memory mode
//! refuses the padding too.
mod common;

use cann_sys::*;
use common::*;
use serial_test::serial;
use std::ffi::c_void;

fn d2h(dst: &mut [u8], src: *const c_void, count: usize) -> aclError {
    // SAFETY: `dst` is host memory of at least `count` bytes; the device
    // end is checked by the simulator.
    unsafe {
        (api().aclrtMemcpy)(
            dst.as_mut_ptr().cast(),
            dst.len(),
            src,
            count,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
}

fn h2d(dst: *mut c_void, dst_max: usize, src: &[u8]) -> aclError {
    // SAFETY: as in `d2h`.
    unsafe {
        (api().aclrtMemcpy)(
            dst,
            dst_max,
            src.as_ptr().cast(),
            src.len(),
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
}

/// Restores the default (lenient) memory mode when dropped.
struct Strict;
impl Strict {
    fn on() -> Strict {
        npu_sim::set_strict_memory(true);
        Strict
    }
}
impl Drop for Strict {
    fn drop(&mut self) {
        npu_sim::set_strict_memory(false);
    }
}

#[test]
#[serial]
fn copies_inside_the_padding_succeed_and_are_counted() {
    leak_checked(|| {
        let b = Buf::new(16);
        b.write(&[7u8; 16]);
        let before = npu_sim::stats().padding_accesses;
        // The SliceV2 sample: 32 bytes back from a 16-byte allocation.
        let mut host = [0u8; 32];
        assert_eq!(d2h(&mut host, b.ptr, 32), ACL_SUCCESS, "{}", last_error());
        assert_eq!(&host[..16], &[7u8; 16]);
        assert_eq!(npu_sim::stats().padding_accesses, before + 1);
        // Up to the padded size (16 -> 32 + 32 = 64 bytes), both ways.
        let mut host = [0u8; 64];
        assert_eq!(d2h(&mut host, b.ptr, 64), ACL_SUCCESS, "{}", last_error());
        assert_eq!(h2d(b.ptr, 64, &[1u8; 64]), ACL_SUCCESS, "{}", last_error());
        // Starting inside the padding too.
        let tail = (b.addr() + 48) as *mut c_void;
        assert_eq!(
            d2h(&mut host[..16], tail, 16),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(host[..16], [1u8; 16]);
        assert_eq!(npu_sim::stats().padding_accesses, before + 4);
        // Within the requested size: no warning.
        assert_eq!(d2h(&mut host[..16], b.ptr, 16), ACL_SUCCESS);
        assert_eq!(npu_sim::stats().padding_accesses, before + 4);
    });
}

#[test]
#[serial]
fn copies_past_the_padding_fail() {
    leak_checked(|| {
        let b = Buf::new(16);
        let mut host = [0u8; 65];
        assert_eq!(d2h(&mut host, b.ptr, 65), ACL_ERROR_RT_PARAM_INVALID);
        assert!(
            last_error().contains("runs past the end"),
            "{}",
            last_error()
        );
        assert_eq!(h2d(b.ptr, 65, &[0u8; 65]), ACL_ERROR_RT_PARAM_INVALID);
        // A 32-byte request is padded to 64 as well; 100 bytes to 160.
        let b = Buf::new(100);
        let mut host = [0u8; 161];
        assert_eq!(
            d2h(&mut host[..160], b.ptr, 160),
            ACL_SUCCESS,
            "{}",
            last_error()
        );
        assert_eq!(d2h(&mut host, b.ptr, 161), ACL_ERROR_RT_PARAM_INVALID);
    });
}

#[test]
#[serial]
fn strict_memory_refuses_the_padding() {
    leak_checked(|| {
        let _strict = Strict::on();
        let b = Buf::new(16);
        let before = npu_sim::stats().padding_accesses;
        let mut host = [0u8; 32];
        assert_eq!(d2h(&mut host, b.ptr, 32), ACL_ERROR_RT_PARAM_INVALID);
        assert!(
            last_error().contains("NPU_SIM_STRICT_MEMORY"),
            "{}",
            last_error()
        );
        assert_eq!(d2h(&mut host[..16], b.ptr, 16), ACL_SUCCESS);
        assert_eq!(npu_sim::stats().padding_accesses, before);
    });
}

/// A kernel's view that reaches into the padding: allowed (and counted),
/// refused in strict mode, and a fault past the padding.
#[test]
#[serial]
fn kernels_inside_the_padding() {
    leak_checked(|| {
        let s = Stream::new();
        // 16 bytes asked for; a float view of 12 elements (48 bytes).
        let src = Buf::new(16);
        let dst = Buf::new(48);
        let x = view(aclDataType::ACL_FLOAT, &[12], &[1], 0, src.ptr, 12);
        let y = dense(aclDataType::ACL_FLOAT, &[12], &dst);
        let before = npu_sim::stats().padding_accesses;
        assert_eq!(inplace_copy(&y, &x, &s), Ok(()));
        assert_eq!(npu_sim::stats().padding_accesses, before + 1);
        {
            let _strict = Strict::on();
            let err = inplace_copy(&y, &x, &s).unwrap_err();
            assert_eq!(err.0, "sync", "{err:?}");
            assert_eq!(err.1, ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, "{err:?}");
            assert!(err.2.contains("runs past the end"), "{err:?}");
        }
        // 17 floats (68 bytes) pass the 64 the device has: a fault.
        let x = view(aclDataType::ACL_FLOAT, &[17], &[1], 0, src.ptr, 17);
        let dst = Buf::new(68);
        let y = dense(aclDataType::ACL_FLOAT, &[17], &dst);
        let err = inplace_copy(&y, &x, &s).unwrap_err();
        assert_eq!(err.1, ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, "{err:?}");
    });
}

#[test]
#[serial]
fn memory_info_accounts_the_padded_size() {
    leak_checked(|| {
        let free_now = || {
            let (mut free, mut total) = (0usize, 0usize);
            // SAFETY: valid out-pointers.
            let rc = unsafe {
                (api().aclrtGetMemInfo)(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total)
            };
            assert_eq!(rc, ACL_SUCCESS);
            free
        };
        let f0 = free_now();
        // 480 bytes are 512 on the device; 481 are 544, two 512-byte blocks.
        let a = Buf::new(480);
        assert_eq!(f0 - free_now(), 512);
        let b = Buf::new(481);
        assert_eq!(f0 - free_now(), 512 + 1024);
        drop((a, b));
        assert_eq!(free_now(), f0);
    });
}
