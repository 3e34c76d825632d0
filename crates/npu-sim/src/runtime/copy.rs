//! Copies and fills (`acl_rt.h`): `aclrtMemcpy`, `aclrtMemcpyAsync`,
//! `aclrtMemset`, `aclrtMemsetAsync`, with the checks of their ends.

use super::{code_of, locate, report, rt, stream_of, Loc};
use crate::abi::fail;
use crate::memory::Allocation;
use crate::state::{self, Runtime};
use crate::work::{Copy, Memset, SendCopy};
use cann_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

fn plan_copy(
    rt: &Runtime,
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    api: &str,
) -> Result<Copy, i32> {
    if count > dest_max {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: count {count} exceeds destMax {dest_max}"),
        ));
    }
    if count > 0 && (dst.is_null() || src.is_null()) {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: null pointer"),
        ));
    }
    let loc = |p: u64, what: &str| {
        locate(rt, p, count as u64).map_err(|m| {
            fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: {what} {m}"),
            )
        })
    };
    let d = loc(dst as u64, "destination")?;
    let s = loc(src as u64, "source")?;
    for (l, p, what) in [(&d, dst as u64, "destination"), (&s, src as u64, "source")] {
        if matches!(l, Loc::Host) && count > 0 {
            check_host(p, count as u64).map_err(|m| {
                fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!("npu-sim: {api}: host {what} {m}"),
                )
            })?;
        }
    }
    let (want_dst_dev, want_src_dev) = match kind {
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST => (Some(false), Some(false)),
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE => (Some(true), Some(false)),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST => (Some(false), Some(true)),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
        | aclrtMemcpyKind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE => (Some(true), Some(true)),
        aclrtMemcpyKind::ACL_MEMCPY_DEFAULT => (None, None),
        other => {
            return Err(fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: unknown copy kind {}", other.0),
            ))
        }
    };
    let is_dev = |l: &Loc| matches!(l, Loc::Device(_));
    let side = |dev: bool| if dev { "device" } else { "host" };
    for (want, l, what) in [
        (want_dst_dev, &d, "destination"),
        (want_src_dev, &s, "source"),
    ] {
        if let Some(w) = want {
            if w != is_dev(l) {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: {api}: copy kind {} needs a {} {what}, got a {} pointer",
                        kind.0,
                        side(w),
                        side(is_dev(l))
                    ),
                ));
            }
        }
    }
    let alloc = |l: Loc| match l {
        Loc::Device(a) => Some(a),
        Loc::Host => None,
    };
    Ok(Copy {
        dst: (dst as u64, alloc(d)),
        src: (src as u64, alloc(s)),
        count,
        ext: None,
    })
}

/// Whether `[addr, addr + len)` lies in one `aclrtMallocHost` block
/// (page-locked host memory).
pub(crate) fn is_pinned(addr: u64, len: u64) -> bool {
    state::with_handles(|h| {
        h.host
            .range(..=addr as usize)
            .next_back()
            .is_some_and(|(&b, &n)| addr.saturating_add(len) <= (b + n) as u64)
    })
}

/// The lowest address a host end may have: nothing is ever mapped in the
/// first page (a pointer there is NULL plus an offset).
const HOST_MIN: u64 = 4096;

/// The checks a host range `[addr, addr + len)` can get (the simulator
/// cannot know whether an arbitrary host address is mapped; it knows its
/// own memory): it does not wrap, does not lie in the first page or (on
/// x86-64) beyond user space, does not reach into a device address range
/// (this runtime's or an earlier one's: device memory is never host
/// memory), and, if it starts inside an `aclrtMallocHost` block, ends
/// inside it.
pub(crate) fn check_host(addr: u64, len: u64) -> Result<(), String> {
    let Some(end) = addr.checked_add(len) else {
        return Err(format!(
            "[{addr:#x}, +{len}) wraps around the address space"
        ));
    };
    if addr < HOST_MIN {
        return Err(format!(
            "{addr:#x} is not a host address (the first {HOST_MIN} bytes are never mapped)"
        ));
    }
    // User space ends below 2^56 on x86-64 (2^47 with 4-level paging);
    // other architectures may tag pointers in their top byte.
    if cfg!(target_arch = "x86_64") && end > 1 << 56 {
        return Err(format!(
            "[{addr:#x}, +{len}) is not in user space (not a host address)"
        ));
    }
    if let Some((b, e)) = crate::memory::pinned::retired_overlapping(addr, end) {
        return Err(format!(
            "[{addr:#x}, +{len}) reaches into a freed aclrtMallocHost block [{b:#x}, {e:#x}) \
             (freed by aclrtFreeHost or aclFinalize: not host memory any more)"
        ));
    }
    if let Some((b, e)) = crate::memory::device_range_overlapping(addr, end) {
        return Err(format!(
            "[{addr:#x}, +{len}) reaches into the simulator's device address range \
             [{b:#x}, {e:#x}) (device memory, of this runtime or a finalised one, is \
             not host memory)"
        ));
    }
    let block = state::with_handles(|h| {
        h.host
            .range(..=addr as usize)
            .next_back()
            .map(|(&b, &n)| (b as u64, n as u64))
    });
    if let Some((b, n)) = block {
        if addr < b + n && end > b + n {
            return Err(format!(
                "[{addr:#x}, +{len}) runs past the end of the aclrtMallocHost block \
                 [{b:#x}, {:#x}) ({n} bytes)",
                b + n
            ));
        }
    }
    Ok(())
}

/// `aclrtMemcpy`: synchronous; checks the kind against where each pointer
/// lives, `count` against `destMax`, and each host end as far as the
/// simulator can know it (see `check_host`).
///
/// # Safety
/// Host ends are valid for `count` bytes (and, for the async form, stay
/// valid until the stream has run the copy), as with CANN; device ends are
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    crate::abi::guard("aclrtMemcpy", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        let rt = match rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        if let Err(c) = crate::stream::capture::check_unsafe_call("aclrtMemcpy") {
            return c;
        }
        match plan_copy(&rt, dst, dest_max, src, count, kind, "aclrtMemcpy") {
            Ok(c) => match c.run("aclrtMemcpy", Some(&rt.pool)) {
                Ok(()) => ACL_SUCCESS,
                Err(f) => report(f),
            },
            Err(code) => code,
        }
    })
}

/// `aclrtMemcpyAsync`: checked now, copied in stream order.
///
/// # Safety
/// Host ends are valid for `count` bytes (and, for the async form, stay
/// valid until the stream has run the copy), as with CANN; device ends are
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtMemcpyAsync",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                let c = plan_copy(&rt, dst, dest_max, src, count, kind, "aclrtMemcpyAsync")?;
                // A host end outside aclrtMallocHost memory (pageable): CANN
                // turns the copy into a stream synchronisation and a
                // synchronous copy, which capture restricts.
                let pageable = |end: &(u64, Option<Arc<Allocation>>)| {
                    end.1.is_none() && count > 0 && !is_pinned(end.0, count as u64)
                };
                if pageable(&c.dst) || pageable(&c.src) {
                    crate::stream::capture::check_pageable_async(&s, "aclrtMemcpyAsync")?;
                }
                // The raw host pointers are only addresses here; the caller keeps
                // host buffers alive until the stream has run the copy, as with CANN.
                // By value in the queue: no allocation per copy.
                let (c, cores, bytes) = (SendCopy(c), rt.pool.clone(), 2 * count as u64);
                s.submit(crate::stream::Job::Copy(c, cores), bytes)
                    .map_err(report)
            })())
        },
    )
}

fn plan_memset(
    rt: &Runtime,
    dev_ptr: *mut c_void,
    max: usize,
    count: usize,
    api: &str,
) -> Result<Option<Arc<Allocation>>, i32> {
    if count > max {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: count {count} exceeds maxCount {max}"),
        ));
    }
    match locate(rt, dev_ptr as u64, count as u64) {
        Ok(Loc::Device(a)) => Ok(Some(a)),
        Ok(Loc::Host) if count == 0 => Ok(None),
        Ok(Loc::Host) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {dev_ptr:p} is not device memory"),
        )),
        Err(m) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {m}"),
        )),
    }
}

/// Fills `count` bytes of host memory at `addr` with `pattern` repeated
/// (1, 2 or 4 bytes: `count` a multiple of its length) through the
/// kernel (`process_vm_writev` on this process), which refuses a page that
/// is not mapped or not writable with `EFAULT` instead of faulting: a wild
/// host pointer is a status, never a crash (CANN's would crash). A fault
/// part way leaves the bytes before it filled. Where the call is not
/// allowed (a seccomp filter), the bytes are written directly, as CANN
/// does, trusting the caller's contract.
pub(crate) fn fill_host(addr: u64, count: usize, pattern: &[u8]) -> Result<(), String> {
    debug_assert!(!pattern.is_empty() && 4096 % pattern.len() == 0);
    let mut chunk = [0u8; 4096];
    for (i, b) in chunk.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
    let mut done = 0usize;
    while done < count {
        let n = (count - done).min(chunk.len());
        let local = libc::iovec {
            iov_base: chunk.as_ptr() as *mut c_void,
            iov_len: n,
        };
        let remote = libc::iovec {
            iov_base: (addr as usize + done) as *mut c_void,
            iov_len: n,
        };
        // SAFETY: `local` is `n` readable bytes of `chunk`; the kernel
        // checks `remote` against this process's mappings and their
        // protections and reports a bad range instead of touching it.
        let w = unsafe { libc::process_vm_writev(libc::getpid(), &local, 1, &remote, 1, 0) };
        if w < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOSYS) | Some(libc::EPERM) => {
                    // SAFETY: the caller's contract (writable host memory
                    // of `count` bytes), as CANN's fills trust it; `done` is
                    // a multiple of 4096, so the pattern stays in phase.
                    let rest = unsafe {
                        std::slice::from_raw_parts_mut(
                            (addr as usize + done) as *mut u8,
                            count - done,
                        )
                    };
                    for (i, b) in rest.iter_mut().enumerate() {
                        *b = pattern[i % pattern.len()];
                    }
                    Ok(())
                }
                _ => Err(format!(
                    "[{:#x}, +{}) is not writable host memory ({e}); {done} bytes before it were filled",
                    addr as usize + done,
                    count - done
                )),
            };
        }
        if w == 0 {
            return Err(format!(
                "[{:#x}, +{}) is not writable host memory",
                addr as usize + done,
                count - done
            ));
        }
        done += w as usize;
    }
    Ok(())
}

/// `aclrtMemset`: fills `count` bytes with the low byte of `value`. As
/// CANN's, it decides by the address: device memory (checked against live
/// allocations) or host memory, plain or `aclrtMallocHost` (given the
/// checks a host range can get: not NULL's page, not device addresses,
/// inside its pinned block), filled at once on the calling thread.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` is `max_count` bytes
/// of device memory, or of writable host memory.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemset(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
) -> aclError {
    crate::abi::guard("aclrtMemset", cann_sys::ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            if count > 0 && count <= max_count {
                if let Ok(Loc::Host) = locate(&rt, dev_ptr as u64, count as u64) {
                    check_host(dev_ptr as u64, count as u64).map_err(|m| {
                        fail(
                            ACL_ERROR_RT_PARAM_INVALID,
                            format!("npu-sim: aclrtMemset: host memory {m}"),
                        )
                    })?;
                    crate::stream::capture::check_unsafe_call("aclrtMemset")?;
                    return fill_host(dev_ptr as u64, count, &[value as u8]).map_err(|m| {
                        fail(
                            ACL_ERROR_RT_PARAM_INVALID,
                            format!("npu-sim: aclrtMemset: host memory {m}"),
                        )
                    });
                }
            }
            let a = plan_memset(&rt, dev_ptr, max_count, count, "aclrtMemset")?;
            crate::stream::capture::check_unsafe_call("aclrtMemset")?;
            let m = Memset {
                alloc: a,
                addr: dev_ptr as u64,
                value,
                count,
            };
            m.run("aclrtMemset").map_err(report)
        })())
    })
}

/// `aclrtMemsetAsync`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `dev_ptr` is device memory of `max_count` bytes (checked against live allocations when the work runs).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemsetAsync(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard(
        "aclrtMemsetAsync",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            code_of((|| {
                let rt = rt()?;
                let s = stream_of(&rt, state::current_device(), stream)?;
                let a = plan_memset(&rt, dev_ptr, max_count, count, "aclrtMemsetAsync")?;
                let m = Memset {
                    alloc: a,
                    addr: dev_ptr as u64,
                    value,
                    count,
                };
                s.submit(crate::stream::Job::Memset(m), count as u64)
                    .map_err(report)
            })())
        },
    )
}
