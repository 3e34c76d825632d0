//! More memory calls (`acl_rt.h`): `aclrtMallocAlign32`, the 32-bit fills
//! (`aclrtMemsetD32`, `aclrtMemsetD32Async`), copies through
//! device-resident base pointers (`aclrtMemcpyAsyncWithOffset`), pitched
//! copies (`aclrtMemcpy2d`, `aclrtMemcpy2dAsync`) and `aclrtGetDeviceInfo`.
//!
//! Every copy or fill here is a [`Copy`] with a [`CopyExt`]: it is checked
//! when called with the checks of `aclrtMemcpy` (where each end lives, the
//! kind, host ends as far as the simulator can know them), queued and
//! captured like `aclrtMemcpyAsync`'s, and faults if its device memory was
//! freed before it ran.

use super::copy::{check_host, is_pinned};
use super::{code_of, locate, report, rt, rt_device, stream_of, Loc};
use crate::abi::fail;
use crate::memory::{AllocError, Allocation};
use crate::state;
use crate::work::{Copy, Fault, SendCopy};
use cann_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// The shape of a copy other than `count` contiguous bytes.
pub(crate) enum CopyExt {
    /// `height` rows of `count` bytes; rows `dpitch` and `spitch` bytes
    /// apart (both ends checked over their whole extent when planned).
    Pitched {
        height: usize,
        dpitch: usize,
        spitch: usize,
    },
    /// `count / 4` 32-bit `value`s written at the destination (the source
    /// is unused).
    Fill32(u32),
    /// The ends are 8-byte slots in device memory holding base addresses,
    /// read when the copy runs (as the device does): `count` bytes from
    /// `*src + src_off` to `*dst + dst_off`, both inside live device
    /// allocations of one device.
    Indirect {
        dst_off: usize,
        src_off: usize,
        api: &'static str,
    },
    /// The destination end is a memcpy descriptor in device memory
    /// ([`MEMCPY_DESC_SIZE`] bytes), read when the copy runs: the source,
    /// destination and length `aclrtSetMemcpyDesc` stored in it.
    Desc,
}

type End = (u64, Option<Arc<Allocation>>);

fn end_ptr(end: &End) -> *mut u8 {
    match &end.1 {
        Some(a) => a.host_ptr(end.0),
        None => end.0 as *mut u8,
    }
}

/// Runs a copy of another shape (its ends' allocations checked live by
/// [`Copy::run`] just before).
pub(crate) fn run_copy_ext(c: &Copy, e: &CopyExt) -> Result<(), Fault> {
    match *e {
        CopyExt::Pitched {
            height,
            dpitch,
            spitch,
        } => {
            let (dst, src) = (end_ptr(&c.dst), end_ptr(&c.src));
            for r in 0..height {
                // SAFETY: both ends were located over their whole extent
                // ((height - 1) * pitch + width bytes, overflow-checked) when
                // planned: host ends by the caller's promise, device ends in
                // a live allocation kept mapped by the Arc. `copy` tolerates
                // overlap.
                unsafe { std::ptr::copy(src.add(r * spitch), dst.add(r * dpitch), c.count) };
            }
            Ok(())
        }
        CopyExt::Fill32(v) => {
            let dst = end_ptr(&c.dst).cast::<u32>();
            for i in 0..c.count / 4 {
                // SAFETY: the destination was located for `count` bytes when
                // planned (device: in a live allocation kept mapped by the
                // Arc); unaligned writes are allowed.
                unsafe { dst.add(i).write_unaligned(v) };
            }
            Ok(())
        }
        CopyExt::Indirect {
            dst_off,
            src_off,
            api,
        } => run_indirect(c, dst_off, src_off, api),
        CopyExt::Desc => run_desc(c),
    }
}

fn run_indirect(c: &Copy, dst_off: usize, src_off: usize, api: &str) -> Result<(), Fault> {
    // SAFETY: each slot was located as 8 bytes of a live device
    // allocation when planned, still live (checked by Copy::run).
    let read = |end: &End| unsafe { end_ptr(end).cast::<u64>().read_unaligned() };
    let (db, sb) = (read(&c.dst), read(&c.src));
    copy_between(db, dst_off, sb, src_off, c.count, api)
}

/// Copies `count` bytes from `sb + src_off` to `db + dst_off`, addresses
/// read from device memory by a running copy: both must lie in live
/// allocations of one device, else a fault and nothing touched.
fn copy_between(
    db: u64,
    dst_off: usize,
    sb: u64,
    src_off: usize,
    count: usize,
    api: &str,
) -> Result<(), Fault> {
    let fault = |message: String| Fault {
        code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
        message,
    };
    let Some(rt) = state::runtime() else {
        return Err(fault(format!("npu-sim: {api}: the runtime was finalised")));
    };
    let target = |base: u64, off: usize, what: &str| -> Result<Arc<Allocation>, Fault> {
        let addr = base.checked_add(off as u64).ok_or_else(|| {
            fault(format!(
                "npu-sim: {api}: {what} base {base:#x} + offset {off} wraps around"
            ))
        })?;
        match locate(&rt, addr, count as u64) {
            Ok(Loc::Device(a)) => Ok(a),
            Ok(Loc::Host) => Err(fault(format!(
                "npu-sim: {api}: {what} [{addr:#x}, +{}) (base {base:#x} read from device \
                 memory, + offset {off}) is not device memory; no memory was touched",
                count
            ))),
            Err(m) => Err(fault(format!(
                "npu-sim: {api}: {what} (base {base:#x} read from device memory, + offset \
                 {off}): {m}; no memory was touched"
            ))),
        }
    };
    let d = target(db, dst_off, "destination")?;
    let s = target(sb, src_off, "source")?;
    if d.device != s.device {
        return Err(fault(format!(
            "npu-sim: {api}: ACL_MEMCPY_INNER_DEVICE_TO_DEVICE between devices {} and {}",
            s.device, d.device
        )));
    }
    let (da, sa) = (db + dst_off as u64, sb + src_off as u64);
    // SAFETY: both ranges were just located in live allocations, kept
    // mapped by the Arcs held here; `copy` tolerates overlap.
    unsafe { std::ptr::copy(s.host_ptr(sa), d.host_ptr(da), count) };
    Ok(())
}

/// Bytes of a memcpy descriptor (`aclrtGetMemcpyDescSize`): the source,
/// destination and length, and a mark that `aclrtSetMemcpyDesc` wrote it.
pub const MEMCPY_DESC_SIZE: usize = 32;
const DESC_MAGIC: u64 = 0x6e70_752d_6465_7363; // "npu-desc"

fn run_desc(c: &Copy) -> Result<(), Fault> {
    let mut w = [0u64; 4];
    let p = end_ptr(&c.dst).cast::<u64>();
    for (i, x) in w.iter_mut().enumerate() {
        // SAFETY: the descriptor was located as MEMCPY_DESC_SIZE bytes of a
        // live device allocation when planned, still live (Copy::run).
        *x = unsafe { p.add(i).read_unaligned() };
    }
    if w[3] != DESC_MAGIC {
        return Err(Fault {
            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
            message: format!(
                "npu-sim: aclrtMemcpyAsyncWithDesc: {:#x} holds no descriptor set by \
                 aclrtSetMemcpyDesc (overwritten?); nothing was copied",
                c.dst.0
            ),
        });
    }
    let count = usize::try_from(w[2]).unwrap_or(usize::MAX);
    copy_between(w[1], 0, w[0], 0, count, "aclrtMemcpyAsyncWithDesc")
}

fn invalid(api: &str, what: impl std::fmt::Display) -> i32 {
    fail(ACL_ERROR_INVALID_PARAM, format!("npu-sim: {api}: {what}"))
}

/// Locates one end of `len` bytes and checks it is where `want_dev` says
/// (`ACL_ERROR_INVALID_PARAM` otherwise, as CANN's reference gives for a
/// kind the call does not support).
fn plan_end(
    rt: &state::Runtime,
    p: u64,
    len: u64,
    want_dev: bool,
    api: &str,
    what: &str,
) -> Result<End, i32> {
    let l = locate(rt, p, len).map_err(|m| invalid(api, format_args!("{what} {m}")))?;
    match l {
        Loc::Device(a) if want_dev => Ok((p, Some(a))),
        Loc::Host if !want_dev => {
            check_host(p, len).map_err(|m| invalid(api, format_args!("host {what} {m}")))?;
            Ok((p, None))
        }
        _ => Err(invalid(
            api,
            format_args!(
                "the copy kind needs a {} {what}, got a {} pointer",
                if want_dev { "device" } else { "host" },
                if want_dev { "host" } else { "device" }
            ),
        )),
    }
}

/// `aclrtMallocAlign32`: device memory like `aclrtMalloc`, but CANN
/// allocates only the size rounded up to 32 bytes (no extra 32): touching
/// past `size` inside that is a padding access (a memory-checker warning,
/// refused in strict mode), past it an overflow.
///
/// # Safety
/// `dev_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocAlign32(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _policy: aclrtMemMallocPolicy,
) -> aclError {
    crate::abi::guard("aclrtMallocAlign32", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if dev_ptr.is_null() {
            return invalid("aclrtMallocAlign32", "null output pointer");
        }
        let (rt, dev) = match rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        let mut m = super::lock(&rt.memory[dev as usize]);
        match m.alloc_padded(size as u64, |s| s.checked_next_multiple_of(32)) {
            Ok(a) => {
                // SAFETY: checked non-null.
                unsafe { *dev_ptr = a.base as *mut c_void };
                ACL_SUCCESS
            }
            Err(AllocError::ZeroSize) => invalid("aclrtMallocAlign32", "size 0"),
            Err(AllocError::OutOfMemory) => fail(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!(
                    "npu-sim: aclrtMallocAlign32: out of device memory: {size} bytes requested, \
                     {} of {} in use on device {dev}",
                    m.used(),
                    m.capacity()
                ),
            ),
        }
    })
}

/// Plans a 32-bit fill: `n` values in `mem_size` bytes at `ptr`; `None`
/// for host memory (filled at once by the caller).
fn plan_d32(
    rt: &state::Runtime,
    ptr: *mut c_void,
    mem_size: usize,
    value: u32,
    n: usize,
    api: &str,
) -> Result<Option<Copy>, i32> {
    let bytes = n.checked_mul(4).filter(|&b| b <= mem_size).ok_or_else(|| {
        invalid(
            api,
            format_args!("N {n} values need more than memSize {mem_size} bytes"),
        )
    })?;
    if ptr.is_null() {
        return Err(invalid(api, "null pointer"));
    }
    match locate(rt, ptr as u64, bytes as u64) {
        Ok(Loc::Device(a)) => Ok(Some(Copy {
            dst: (ptr as u64, Some(a)),
            src: (0, None),
            count: bytes,
            ext: Some(Box::new(CopyExt::Fill32(value))),
        })),
        Ok(Loc::Host) => {
            check_host(ptr as u64, bytes as u64)
                .map_err(|m| invalid(api, format_args!("host memory {m}")))?;
            Ok(None)
        }
        Err(m) => Err(invalid(api, m)),
    }
}

/// Host memory: through the kernel-checked fill (a wild pointer is a
/// status, not a crash).
fn fill_host32(ptr: *mut c_void, value: u32, n: usize, api: &str) -> Result<(), i32> {
    super::copy::fill_host(ptr as u64, n * 4, &value.to_ne_bytes())
        .map_err(|m| invalid(api, format_args!("host memory {m}")))
}

/// `aclrtMemsetD32`: sets `N` 32-bit values (`N * 4 <= memSize`, else
/// `ACL_ERROR_INVALID_PARAM`) at `ptr`, device or host memory, at once.
///
/// # Safety
/// A host `ptr` is valid for `N * 4` bytes, as with CANN; device memory is
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemsetD32(
    ptr: *mut c_void,
    mem_size: usize,
    value: u32,
    n: usize,
) -> aclError {
    crate::abi::guard("aclrtMemsetD32", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let plan = plan_d32(&rt, ptr, mem_size, value, n, "aclrtMemsetD32")?;
            crate::stream::capture::check_unsafe_call("aclrtMemsetD32")?;
            match plan {
                Some(c) => c.run("aclrtMemsetD32", None).map_err(report),
                None => fill_host32(ptr, value, n, "aclrtMemsetD32"),
            }
        })())
    })
}

/// `aclrtMemsetD32Async`: as `aclrtMemsetD32`, in stream order for device
/// memory; host memory is filled at once (CANN: not put on the stream).
///
/// # Safety
/// As `aclrtMemsetD32`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemsetD32Async(
    ptr: *mut c_void,
    mem_size: usize,
    value: u32,
    n: usize,
    stream: aclrtStream,
) -> aclError {
    crate::abi::guard("aclrtMemsetD32Async", ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let s = stream_of(&rt, state::current_device(), stream)?;
            match plan_d32(&rt, ptr, mem_size, value, n, "aclrtMemsetD32Async")? {
                Some(c) => {
                    let bytes = c.count as u64;
                    s.submit(
                        crate::stream::Job::Copy(SendCopy(c), rt.pool.clone()),
                        bytes,
                    )
                    .map_err(report)
                }
                None => fill_host32(ptr, value, n, "aclrtMemsetD32Async"),
            }
        })())
    })
}

/// `aclrtMemcpyAsyncWithOffset`: `dst` and `src` point to device memory
/// holding a base address each; when the copy runs, `count` bytes are
/// copied from `*src + srcDataOffset` to `*dst + dstDataOffset`. Only
/// `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE` (else `ACL_ERROR_INVALID_PARAM`);
/// `count > destMax`, a NULL or non-device slot, `ACL_ERROR_INVALID_PARAM`;
/// a base that does not lead into a live allocation faults the stream
/// (`ACL_ERROR_RT_DEVICE_MEM_ERROR` at synchronisation).
///
/// # Safety
/// Part of the C ABI; every pointer is checked against device memory.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithOffset(
    dst: *mut *mut c_void,
    dest_max: usize,
    dst_data_offset: usize,
    src: *mut *const c_void,
    count: usize,
    src_data_offset: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtMemcpyAsyncWithOffset";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let s = stream_of(&rt, state::current_device(), stream)?;
            if kind != aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE {
                return Err(invalid(
                    API,
                    format_args!(
                        "copy kind {} is not ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, the only one supported",
                        kind.0
                    ),
                ));
            }
            if count > dest_max {
                return Err(invalid(
                    API,
                    format_args!("count {count} exceeds destMax {dest_max}"),
                ));
            }
            if dst.is_null() || src.is_null() {
                return Err(invalid(API, "null pointer"));
            }
            let d = plan_end(&rt, dst as u64, 8, true, API, "destination base slot")?;
            let sr = plan_end(&rt, src as u64, 8, true, API, "source base slot")?;
            let c = Copy {
                dst: d,
                src: sr,
                count,
                ext: Some(Box::new(CopyExt::Indirect {
                    dst_off: dst_data_offset,
                    src_off: src_data_offset,
                    api: API,
                })),
            };
            s.submit(
                crate::stream::Job::Copy(SendCopy(c), rt.pool.clone()),
                2 * count as u64,
            )
            .map_err(report)
        })())
    })
}

/// The widest row CANN's reference allows a 2D copy.
pub const MEMCPY_2D_MAX_WIDTH: usize = 5_000_000;
/// The most rows CANN's reference allows a 2D copy.
pub const MEMCPY_2D_MAX_HEIGHT: usize = 5 * 1024 * 1024;

#[allow(clippy::too_many_arguments)]
fn plan_2d(
    rt: &state::Runtime,
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
    device_to_device: bool,
    api: &str,
) -> Result<Copy, i32> {
    let (dd, sd) = match kind {
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE => (true, false),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST => (false, true),
        aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE if device_to_device => (true, true),
        other => {
            return Err(invalid(
                api,
                format_args!(
                    "copy kind {} is not supported (ACL_MEMCPY_HOST_TO_DEVICE, \
                     ACL_MEMCPY_DEVICE_TO_HOST{} only)",
                    other.0,
                    if device_to_device {
                        ", ACL_MEMCPY_DEVICE_TO_DEVICE"
                    } else {
                        ""
                    }
                ),
            ))
        }
    };
    if dst.is_null() || src.is_null() {
        return Err(invalid(api, "null pointer"));
    }
    if width == 0 || height == 0 {
        return Err(invalid(
            api,
            format_args!("width {width} and height {height} must not be 0"),
        ));
    }
    if width > MEMCPY_2D_MAX_WIDTH || height > MEMCPY_2D_MAX_HEIGHT {
        return Err(invalid(
            api,
            format_args!(
                "width {width} or height {height} exceeds the limit \
                 ({MEMCPY_2D_MAX_WIDTH} and {MEMCPY_2D_MAX_HEIGHT})"
            ),
        ));
    }
    if width > dpitch || width > spitch {
        return Err(invalid(
            api,
            format_args!("width {width} exceeds dpitch {dpitch} or spitch {spitch}"),
        ));
    }
    let extent = |pitch: usize, what: &str| {
        (height - 1)
            .checked_mul(pitch)
            .and_then(|x| x.checked_add(width))
            .ok_or_else(|| {
                invalid(
                    api,
                    format_args!("{what}: (height - 1) * pitch + width overflows ({height} rows of pitch {pitch})"),
                )
            })
    };
    let (de, se) = (extent(dpitch, "destination")?, extent(spitch, "source")?);
    let d = plan_end(rt, dst as u64, de as u64, dd, api, "destination")?;
    let s = plan_end(rt, src as u64, se as u64, sd, api, "source")?;
    Ok(Copy {
        dst: d,
        src: s,
        count: width,
        ext: Some(Box::new(CopyExt::Pitched {
            height,
            dpitch,
            spitch,
        })),
    })
}

/// `aclrtMemcpy2d`: synchronous pitched copy of `height` rows of `width`
/// bytes (`dpitch`/`spitch` apart); `ACL_MEMCPY_HOST_TO_DEVICE` or
/// `ACL_MEMCPY_DEVICE_TO_HOST` only. Bad arguments (kind, NULL, zero or
/// too large width/height, width above a pitch, an extent that overflows
/// or leaves its allocation): `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// Host ends are valid over their extent, as with CANN; device ends are
/// checked.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    const API: &str = "aclrtMemcpy2d";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let c = plan_2d(
                &rt, dst, dpitch, src, spitch, width, height, kind, false, API,
            )?;
            crate::stream::capture::check_unsafe_call(API)?;
            c.run(API, None).map_err(report)
        })())
    })
}

/// `aclrtMemcpy2dAsync`: as `aclrtMemcpy2d`, in stream order, and
/// `ACL_MEMCPY_DEVICE_TO_DEVICE` too; a pageable host end is restricted
/// under capture as for `aclrtMemcpyAsync`.
///
/// # Safety
/// As `aclrtMemcpy2d`; host ends stay valid until the stream has run the
/// copy.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpy2dAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtMemcpy2dAsync";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let s = stream_of(&rt, state::current_device(), stream)?;
            let c = plan_2d(
                &rt, dst, dpitch, src, spitch, width, height, kind, true, API,
            )?;
            let pageable = |end: &End| end.1.is_none() && !is_pinned(end.0, 1);
            if pageable(&c.dst) || pageable(&c.src) {
                crate::stream::capture::check_pageable_async(&s, API)?;
            }
            let bytes = 2 * (width as u64).saturating_mul(height as u64);
            s.submit(
                crate::stream::Job::Copy(SendCopy(c), rt.pool.clone()),
                bytes,
            )
            .map_err(report)
        })())
    })
}

/// `aclrtGetDeviceInfo(deviceId, attr, &value)`: an attribute of a device
/// of the simulated product (`NPU_SIM_SOC`): core counts as
/// `aclrtGetResInCurrentThread` reports them, the simulated device memory
/// (`ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE`, what `aclrtGetMemInfo` calls
/// total), L2 and unified-buffer sizes of the family. Attributes of other
/// products (warp size, super-pod ids off Atlas A3):
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`; an unknown attribute or NULL
/// `value`: `ACL_ERROR_INVALID_PARAM`; a device that does not exist:
/// `ACL_ERROR_RT_INVALID_DEVICEID`.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceInfo(
    device_id: u32,
    attr: aclrtDevAttr,
    value: *mut i64,
) -> aclError {
    const API: &str = "aclrtGetDeviceInfo";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            if device_id >= rt.config.devices {
                return Err(fail(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    format!(
                        "npu-sim: {API}: device {device_id} does not exist ({} device(s))",
                        rt.config.devices
                    ),
                ));
            }
            if value.is_null() {
                return Err(invalid(API, "null output pointer"));
            }
            use cann_sys::soc::Family;
            let fam = rt.config.family;
            let (cube, vector) = super::query::cores(&rt.config.soc, fam);
            let unsupported = |what: &str| {
                fail(
                    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    format!(
                        "npu-sim: {API}: {what} is not an attribute of {}",
                        rt.config.soc
                    ),
                )
            };
            let v: i64 = match attr {
                aclrtDevAttr::ACL_DEV_ATTR_AICPU_CORE_NUM => match fam {
                    Family::Training => 14,
                    Family::Inference | Family::Atlas200I500A2 => 4,
                    _ => 6,
                },
                aclrtDevAttr::ACL_DEV_ATTR_AICORE_CORE_NUM
                | aclrtDevAttr::ACL_DEV_ATTR_CUBE_CORE_NUM => cube.into(),
                aclrtDevAttr::ACL_DEV_ATTR_VECTOR_CORE_NUM => vector.into(),
                aclrtDevAttr::ACL_DEV_ATTR_WARP_SIZE => {
                    return Err(unsupported("ACL_DEV_ATTR_WARP_SIZE"))
                }
                aclrtDevAttr::ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE => {
                    return Err(unsupported("ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE"))
                }
                aclrtDevAttr::ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE => match fam {
                    Family::A2 | Family::A3 => 192 << 10,
                    _ => 256 << 10,
                },
                aclrtDevAttr::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE => {
                    i64::try_from(rt.config.mem).unwrap_or(i64::MAX)
                }
                aclrtDevAttr::ACL_DEV_ATTR_L2_CACHE_SIZE => match fam {
                    Family::A2 | Family::A3 => 192 << 20,
                    Family::Training => 32 << 20,
                    _ => 16 << 20,
                },
                aclrtDevAttr::ACL_DEV_ATTR_SMP_ID => 0,
                aclrtDevAttr::ACL_DEV_ATTR_PHY_CHIP_ID => device_id.into(),
                aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_DEVICE_ID
                | aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_SERVER_ID
                | aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_ID
                    if fam != Family::A3 =>
                {
                    return Err(unsupported("a super-pod id"))
                }
                aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_DEVICE_ID => device_id.into(),
                aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_SERVER_ID
                | aclrtDevAttr::ACL_DEV_ATTR_SUPER_POD_ID => 0,
                aclrtDevAttr::ACL_DEV_ATTR_CUST_OP_PRIVILEGE
                | aclrtDevAttr::ACL_DEV_ATTR_MAINBOARD_ID
                | aclrtDevAttr::ACL_DEV_ATTR_IS_VIRTUAL => 0,
                other => {
                    return Err(invalid(
                        API,
                        format_args!("attribute {} is not an aclrtDevAttr", other.0),
                    ))
                }
            };
            // SAFETY: checked non-null.
            unsafe { *value = v };
            Ok(())
        })())
    })
}

/// The arguments of a batch copy, as the C call passes them.
struct Batch {
    dsts: *mut *mut c_void,
    dest_maxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    n: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrs_indexes: *mut usize,
    num_attrs: usize,
}

/// Whether a location type names host memory (`Some(false)`), device
/// memory (`Some(true)`), or neither the simulator knows (`None`).
fn location_is_device(t: aclrtMemLocationType) -> Option<bool> {
    match t {
        aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_HOST
        | aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_UNREGISTERED => Some(false),
        aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE => Some(true),
        _ => None,
    }
}

/// Checks a batch and plans its copies. `Err((code, failIndex))`: the
/// index of the copy at fault, `usize::MAX` for an error of no one copy.
fn plan_batch(rt: &state::Runtime, b: &Batch, api: &str) -> Result<Vec<Copy>, (i32, usize)> {
    let whole = |m: &str| (invalid(api, m), usize::MAX);
    if b.n == 0 || b.num_attrs == 0 || b.num_attrs > b.n {
        return Err(whole(&format!(
            "numBatches {} and numAttrs {} must be 1 <= numAttrs <= numBatches",
            b.n, b.num_attrs
        )));
    }
    if b.dsts.is_null()
        || b.dest_maxs.is_null()
        || b.srcs.is_null()
        || b.sizes.is_null()
        || b.attrs.is_null()
        || b.attrs_indexes.is_null()
    {
        return Err(whole("null array"));
    }
    // SAFETY: non-null arrays of numBatches / numAttrs elements, as CANN's
    // contract has them.
    let (dsts, maxs, srcs, sizes, attrs, idx) = unsafe {
        (
            std::slice::from_raw_parts(b.dsts, b.n),
            std::slice::from_raw_parts(b.dest_maxs, b.n),
            std::slice::from_raw_parts(b.srcs, b.n),
            std::slice::from_raw_parts(b.sizes, b.n),
            std::slice::from_raw_parts(b.attrs, b.num_attrs),
            std::slice::from_raw_parts(b.attrs_indexes, b.num_attrs),
        )
    };
    if idx[0] != 0 || idx.windows(2).any(|w| w[1] <= w[0]) || idx[b.num_attrs - 1] >= b.n {
        return Err(whole(&format!(
            "attrsIndexes {idx:?} must start at 0, increase, and stay below numBatches {}",
            b.n
        )));
    }
    let mut plans = Vec::with_capacity(b.n);
    let mut direction = None;
    let mut k = 0;
    for i in 0..b.n {
        if k + 1 < b.num_attrs && idx[k + 1] == i {
            k += 1;
        }
        let at = |m: String| (invalid(api, format_args!("copy {i}: {m}")), i);
        let a = &attrs[k];
        let (Some(dd), Some(sd)) = (
            location_is_device(a.dstLoc.type_),
            location_is_device(a.srcLoc.type_),
        ) else {
            return Err(at(format!(
                "location types {} -> {} (attrs[{k}]): only ACL_MEM_LOCATION_TYPE_HOST, \
                 ACL_MEM_LOCATION_TYPE_UNREGISTERED and ACL_MEM_LOCATION_TYPE_DEVICE are supported",
                a.srcLoc.type_.0, a.dstLoc.type_.0
            )));
        };
        if dd == sd {
            return Err(at(format!(
                "attrs[{k}] is not host to device or device to host (the only directions of a batch)"
            )));
        }
        if *direction.get_or_insert(dd) != dd {
            return Err(at(
                "the batch mixes host to device and device to host".into()
            ));
        }
        if sizes[i] > maxs[i] {
            return Err(at(format!("size {} exceeds destMax {}", sizes[i], maxs[i])));
        }
        let n = sizes[i] as u64;
        let d = plan_end(rt, dsts[i] as u64, n, dd, api, "destination").map_err(|c| (c, i))?;
        let s = plan_end(rt, srcs[i] as u64, n, sd, api, "source").map_err(|c| (c, i))?;
        for (end, loc, what) in [(&d, &a.dstLoc, "destination"), (&s, &a.srcLoc, "source")] {
            if let Some(al) = &end.1 {
                if al.device != loc.id {
                    return Err(at(format!(
                        "the {what} is memory of device {}, attrs[{k}] says device {}",
                        al.device, loc.id
                    )));
                }
            }
        }
        if sizes[i] > 0 && (dsts[i].is_null() || srcs[i].is_null()) {
            return Err(at("null pointer".into()));
        }
        plans.push(Copy {
            dst: d,
            src: s,
            count: sizes[i],
            ext: None,
        });
    }
    Ok(plans)
}

fn batch_sync(b: Batch, fail_index: Option<*mut usize>, api: &'static str) -> aclError {
    crate::abi::guard(api, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let set = |v: usize| {
            if let Some(p) = fail_index {
                // SAFETY: checked non-null by the caller.
                unsafe { *p = v };
            }
        };
        set(usize::MAX);
        let r = (|| {
            let rt = rt().map_err(|c| (c, usize::MAX))?;
            let plans = plan_batch(&rt, &b, api)?;
            crate::stream::capture::check_unsafe_call(api).map_err(|c| (c, usize::MAX))?;
            for (i, c) in plans.iter().enumerate() {
                c.run(api, Some(&rt.pool)).map_err(|f| (report(f), i))?;
            }
            Ok(())
        })();
        match r {
            Ok(()) => ACL_SUCCESS,
            Err((c, i)) => {
                set(i);
                c
            }
        }
    })
}

fn batch_async(
    b: Batch,
    fail_index: Option<*mut usize>,
    stream: aclrtStream,
    api: &'static str,
) -> aclError {
    crate::abi::guard(api, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let set = |v: usize| {
            if let Some(p) = fail_index {
                // SAFETY: checked non-null by the caller.
                unsafe { *p = v };
            }
        };
        set(usize::MAX);
        let r = (|| {
            let rt = rt().map_err(|c| (c, usize::MAX))?;
            let s = stream_of(&rt, state::current_device(), stream).map_err(|c| (c, usize::MAX))?;
            let plans = plan_batch(&rt, &b, api)?;
            let pageable = |c: &Copy| {
                [&c.dst, &c.src]
                    .iter()
                    .any(|e| e.1.is_none() && c.count > 0 && !is_pinned(e.0, c.count as u64))
            };
            if plans.iter().any(pageable) {
                crate::stream::capture::check_pageable_async(&s, api)
                    .map_err(|c| (c, usize::MAX))?;
            }
            for (i, c) in plans.into_iter().enumerate() {
                let bytes = 2 * c.count as u64;
                s.submit(
                    crate::stream::Job::Copy(SendCopy(c), rt.pool.clone()),
                    bytes,
                )
                .map_err(|f| (report(f), i))?;
            }
            Ok(())
        })();
        match r {
            Ok(()) => ACL_SUCCESS,
            Err((c, i)) => {
                set(i);
                c
            }
        }
    })
}

/// `aclrtMemcpyBatch`: `numBatches` copies, each host to device or device
/// to host as its attribute says (`attrs[k]` applies from
/// `attrsIndexes[k]` up to the next index); every copy is checked before
/// any runs, then all run at once. `*failIndex`: the copy a check refused,
/// `SIZE_MAX` on success or for an error of no one copy (bad counts or
/// indexes, NULL arrays: `ACL_ERROR_INVALID_PARAM`). A NULL `failIndex`:
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// The arrays hold `numBatches` (`numAttrs`) elements; host ends are valid
/// for their sizes, as with CANN; device ends are checked.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpyBatch(
    dsts: *mut *mut c_void,
    dest_maxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    num_batches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrs_indexes: *mut usize,
    num_attrs: usize,
    fail_index: *mut usize,
) -> aclError {
    if fail_index.is_null() {
        return invalid("aclrtMemcpyBatch", "null failIndex");
    }
    let b = Batch {
        dsts,
        dest_maxs,
        srcs,
        sizes,
        n: num_batches,
        attrs,
        attrs_indexes,
        num_attrs,
    };
    batch_sync(b, Some(fail_index), "aclrtMemcpyBatch")
}

/// `aclrtMemcpyBatchV2`: `aclrtMemcpyBatch` without `failIndex`.
///
/// # Safety
/// As `aclrtMemcpyBatch`.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpyBatchV2(
    dsts: *mut *mut c_void,
    dest_maxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    num_batches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrs_indexes: *mut usize,
    num_attrs: usize,
) -> aclError {
    let b = Batch {
        dsts,
        dest_maxs,
        srcs,
        sizes,
        n: num_batches,
        attrs,
        attrs_indexes,
        num_attrs,
    };
    batch_sync(b, None, "aclrtMemcpyBatchV2")
}

/// `aclrtMemcpyBatchAsync`: `aclrtMemcpyBatch` in stream order (each copy
/// queued, captured and memory-checked as `aclrtMemcpyAsync`'s).
///
/// # Safety
/// As `aclrtMemcpyBatch`; host ends stay valid until the stream has run
/// the copies.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpyBatchAsync(
    dsts: *mut *mut c_void,
    dest_maxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    num_batches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrs_indexes: *mut usize,
    num_attrs: usize,
    fail_index: *mut usize,
    stream: aclrtStream,
) -> aclError {
    if fail_index.is_null() {
        return invalid("aclrtMemcpyBatchAsync", "null failIndex");
    }
    let b = Batch {
        dsts,
        dest_maxs,
        srcs,
        sizes,
        n: num_batches,
        attrs,
        attrs_indexes,
        num_attrs,
    };
    batch_async(b, Some(fail_index), stream, "aclrtMemcpyBatchAsync")
}

/// `aclrtMemcpyBatchAsyncV2`: `aclrtMemcpyBatchAsync` without `failIndex`.
///
/// # Safety
/// As `aclrtMemcpyBatchAsync`.
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpyBatchAsyncV2(
    dsts: *mut *mut c_void,
    dest_maxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    num_batches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrs_indexes: *mut usize,
    num_attrs: usize,
    stream: aclrtStream,
) -> aclError {
    let b = Batch {
        dsts,
        dest_maxs,
        srcs,
        sizes,
        n: num_batches,
        attrs,
        attrs_indexes,
        num_attrs,
    };
    batch_async(b, None, stream, "aclrtMemcpyBatchAsyncV2")
}

fn check_desc_kind(kind: aclrtMemcpyKind, api: &str) -> Result<(), i32> {
    if kind == aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE {
        Ok(())
    } else {
        Err(invalid(
            api,
            format_args!(
                "copy kind {} is not ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, the only one supported",
                kind.0
            ),
        ))
    }
}

/// `aclrtGetMemcpyDescSize(kind, &size)`: [`MEMCPY_DESC_SIZE`] bytes for
/// `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE`; another kind or NULL
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `desc_size` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetMemcpyDescSize(
    kind: aclrtMemcpyKind,
    desc_size: *mut usize,
) -> aclError {
    const API: &str = "aclrtGetMemcpyDescSize";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            rt()?;
            check_desc_kind(kind, API)?;
            if desc_size.is_null() {
                return Err(invalid(API, "null output pointer"));
            }
            // SAFETY: checked non-null.
            unsafe { *desc_size = MEMCPY_DESC_SIZE };
            Ok(())
        })())
    })
}

/// `aclrtSetMemcpyDesc(desc, kind, src, dst, count, config)`: writes the
/// source, destination and length into the descriptor, device memory of
/// at least [`MEMCPY_DESC_SIZE`] bytes. The source and destination must be
/// `count` bytes of device memory now (they are checked again when a copy
/// reads the descriptor); `config` is reserved (non-NULL, another kind, a
/// descriptor not in device memory: `ACL_ERROR_INVALID_PARAM`).
///
/// # Safety
/// Every pointer is checked against device memory.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtSetMemcpyDesc(
    desc: *mut c_void,
    kind: aclrtMemcpyKind,
    src_addr: *mut c_void,
    dst_addr: *mut c_void,
    count: usize,
    config: *mut c_void,
) -> aclError {
    const API: &str = "aclrtSetMemcpyDesc";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            check_desc_kind(kind, API)?;
            if !config.is_null() {
                return Err(invalid(API, "config is reserved and must be NULL"));
            }
            if desc.is_null() || src_addr.is_null() || dst_addr.is_null() {
                return Err(invalid(API, "null pointer"));
            }
            let d = plan_end(
                &rt,
                desc as u64,
                MEMCPY_DESC_SIZE as u64,
                true,
                API,
                "descriptor",
            )?;
            plan_end(&rt, src_addr as u64, count as u64, true, API, "source")?;
            plan_end(&rt, dst_addr as u64, count as u64, true, API, "destination")?;
            let words = [src_addr as u64, dst_addr as u64, count as u64, DESC_MAGIC];
            let p = end_ptr(&d).cast::<u64>();
            for (i, w) in words.iter().enumerate() {
                // SAFETY: the descriptor was just located as MEMCPY_DESC_SIZE
                // bytes of a live allocation, kept mapped by the Arc in `d`.
                unsafe { p.add(i).write_unaligned(*w) };
            }
            Ok(())
        })())
    })
}

/// `aclrtMemcpyAsyncWithDesc(desc, kind, stream)`: in stream order, the
/// copy the descriptor describes, read from device memory when the copy
/// runs (at every replay when captured). `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE`
/// only; a descriptor not in device memory `ACL_ERROR_INVALID_PARAM`; one
/// that `aclrtSetMemcpyDesc` did not write, or whose ends are no longer
/// live, faults the stream (`ACL_ERROR_RT_DEVICE_MEM_ERROR`).
///
/// # Safety
/// Every pointer is checked against device memory.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithDesc(
    desc: *mut c_void,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtMemcpyAsyncWithDesc";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let s = stream_of(&rt, state::current_device(), stream)?;
            check_desc_kind(kind, API)?;
            if desc.is_null() {
                return Err(invalid(API, "null descriptor"));
            }
            let d = plan_end(
                &rt,
                desc as u64,
                MEMCPY_DESC_SIZE as u64,
                true,
                API,
                "descriptor",
            )?;
            let c = Copy {
                dst: d,
                src: (0, None),
                count: 0,
                ext: Some(Box::new(CopyExt::Desc)),
            };
            s.submit(crate::stream::Job::Copy(SendCopy(c), rt.pool.clone()), 64)
                .map_err(report)
        })())
    })
}

/// Checks an allocation configuration (NULL: none); returns the device a
/// `ACL_RT_MEM_ATTR_DEVICE_ID` attribute names, if any. Other attributes
/// (module id, VA flag, reserved) are accepted and have no effect.
fn check_cfg(cfg: *const aclrtMallocConfig, api: &str) -> Result<Option<u32>, i32> {
    if cfg.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-null configuration, as CANN's contract has it.
    let c = unsafe { &*cfg };
    if c.numAttrs == 0 {
        return Ok(None);
    }
    if c.attrs.is_null() {
        return Err(invalid(
            api,
            format_args!("cfg has {} attributes and a NULL attrs", c.numAttrs),
        ));
    }
    if c.numAttrs > 1 << 16 {
        return Err(invalid(
            api,
            format_args!("cfg has {} attributes", c.numAttrs),
        ));
    }
    // SAFETY: `numAttrs` (bounded) attributes, as CANN's contract has it.
    let attrs = unsafe { std::slice::from_raw_parts(c.attrs, c.numAttrs) };
    let mut device = None;
    for (i, a) in attrs.iter().enumerate() {
        match a.attr {
            aclrtMallocAttrType::ACL_RT_MEM_ATTR_DEVICE_ID => {
                // SAFETY: the attribute says which member is meant; every
                // member is plain data.
                device = Some(unsafe { a.value.deviceId });
            }
            aclrtMallocAttrType::ACL_RT_MEM_ATTR_RSV
            | aclrtMallocAttrType::ACL_RT_MEM_ATTR_MODULE_ID
            | aclrtMallocAttrType::ACL_RT_MEM_ATTR_VA_FLAG => {}
            other => {
                return Err(invalid(
                    api,
                    format_args!(
                        "cfg attribute {i}: type {} is not an aclrtMallocAttrType",
                        other.0
                    ),
                ))
            }
        }
    }
    Ok(device)
}

/// Allocates like `aclrtMalloc` on `device` (else the thread's device).
fn malloc_on(dev_ptr: *mut *mut c_void, size: usize, device: Option<u32>, api: &str) -> aclError {
    if dev_ptr.is_null() {
        return invalid(api, "null output pointer");
    }
    let (rt, dev) = match rt_device() {
        Ok(x) => x,
        Err(c) => return c,
    };
    let dev = match device {
        None => dev,
        Some(d) if d < rt.config.devices => d,
        Some(d) => {
            return fail(
                ACL_ERROR_RT_INVALID_DEVICEID,
                format!(
                    "npu-sim: {api}: cfg names device {d}, which does not exist ({} device(s))",
                    rt.config.devices
                ),
            )
        }
    };
    let mut m = super::lock(&rt.memory[dev as usize]);
    match m.alloc(size as u64) {
        Ok(a) => {
            // SAFETY: checked non-null.
            unsafe { *dev_ptr = a.base as *mut c_void };
            ACL_SUCCESS
        }
        Err(AllocError::ZeroSize) => invalid(api, "size 0"),
        Err(AllocError::OutOfMemory) => fail(
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "npu-sim: {api}: out of device memory: {size} bytes requested, {} of {} in use on device {dev}",
                m.used(),
                m.capacity()
            ),
        ),
    }
}

/// `aclrtMallocWithCfg`: `aclrtMalloc` with a configuration (NULL: none):
/// `ACL_RT_MEM_ATTR_DEVICE_ID` allocates on that device (one that does not
/// exist: `ACL_ERROR_RT_INVALID_DEVICEID`); module id, VA flag and reserved
/// attributes are accepted; another attribute type, or attributes with a
/// NULL array, `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `dev_ptr` is null or valid for a write; `cfg` is null or a valid
/// configuration.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocWithCfg(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _policy: aclrtMemMallocPolicy,
    cfg: *mut aclrtMallocConfig,
) -> aclError {
    const API: &str = "aclrtMallocWithCfg";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        match check_cfg(cfg, API) {
            Ok(d) => malloc_on(dev_ptr, size, d, API),
            Err(c) => c,
        }
    })
}

/// `aclrtMallocCached`: `aclrtMalloc` (CANN: the two are equivalent, both
/// cached).
///
/// # Safety
/// `dev_ptr` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocCached(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _policy: aclrtMemMallocPolicy,
) -> aclError {
    crate::abi::guard("aclrtMallocCached", ACL_ERROR_RT_INTERNAL_ERROR, || {
        malloc_on(dev_ptr, size, None, "aclrtMallocCached")
    })
}

/// `aclrtMallocHostWithCfg`: `aclrtMallocHost` with a configuration,
/// checked as for `aclrtMallocWithCfg` (a device id has no effect on host
/// memory). A size that does not fit the host's address space:
/// `ACL_ERROR_BAD_ALLOC`.
///
/// # Safety
/// `ptr` is null or valid for a write; `cfg` is null or a valid
/// configuration.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtMallocHostWithCfg(
    ptr: *mut *mut c_void,
    size: u64,
    cfg: *mut aclrtMallocConfig,
) -> aclError {
    const API: &str = "aclrtMallocHostWithCfg";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if let Err(c) = check_cfg(cfg, API) {
            return c;
        }
        let Ok(n) = usize::try_from(size) else {
            return fail(
                ACL_ERROR_BAD_ALLOC,
                format!("npu-sim: {API}: {size} bytes not available"),
            );
        };
        // SAFETY: `ptr` is passed on as the caller gave it (checked there).
        unsafe { super::aclrtMallocHost(ptr, n) }
    })
}

/// `aclrtCheckMemType(addrList, size, memType, &result, reserve)`: 1 when
/// every address is device memory of a live allocation (`aclrtMalloc` and
/// relatives) and `memType` includes `ACL_RT_MEM_TYPE_DEV`, else 0 (the
/// simulator has no DVPP or reserved virtual memory). NULL, `size` 0,
/// `memType` with bits other than `ACL_RT_MEM_TYPE_DEV`, `_DVPP`, `_RSVD`,
/// or `reserve` not 0: `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `addr_list` holds `size` addresses; `check_result` is null or valid for
/// a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCheckMemType(
    addr_list: *mut *mut c_void,
    size: u32,
    mem_type: u32,
    check_result: *mut u32,
    reserve: u32,
) -> aclError {
    const API: &str = "aclrtCheckMemType";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let known = (ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD) as u32;
            if addr_list.is_null() || check_result.is_null() || size == 0 {
                return Err(invalid(API, "NULL addrList or checkResult, or size 0"));
            }
            if mem_type == 0 || mem_type & !known != 0 || reserve != 0 {
                return Err(invalid(
                    API,
                    format_args!(
                        "memType {mem_type:#x} must be ACL_RT_MEM_TYPE_DEV, _DVPP, _RSVD or'ed; \
                         reserve {reserve} must be 0"
                    ),
                ));
            }
            // SAFETY: `size` addresses, as CANN's contract has it.
            let addrs = unsafe { std::slice::from_raw_parts(addr_list, size as usize) };
            let dev = mem_type & ACL_RT_MEM_TYPE_DEV as u32 != 0;
            let all = dev
                && addrs
                    .iter()
                    .all(|&p| super::find_alloc(&rt, p as u64).is_some());
            // SAFETY: checked non-null.
            unsafe { *check_result = u32::from(all) };
            Ok(())
        })())
    })
}

/// `aclrtPointerGetAttributes(ptr, &attrs)`: device memory of a live
/// allocation: `ACL_MEM_LOCATION_TYPE_DEVICE`, its device, page size 2 MiB
/// for allocations of 2 MiB or more (huge pages, as `HUGE_FIRST` takes
/// them) else 4 KiB; `aclrtMallocHost` memory: `ACL_MEM_LOCATION_TYPE_HOST`,
/// id 0, 4 KiB; other host memory: `ACL_MEM_LOCATION_TYPE_UNREGISTERED`.
/// NULL, or a device address outside every live allocation (freed):
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `attributes` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtPointerGetAttributes(
    ptr: *const c_void,
    attributes: *mut aclrtPtrAttributes,
) -> aclError {
    const API: &str = "aclrtPointerGetAttributes";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            if ptr.is_null() || attributes.is_null() {
                return Err(invalid(API, "null pointer"));
            }
            let (t, id, page) = match locate(&rt, ptr as u64, 1) {
                Ok(Loc::Device(a)) => (
                    aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE,
                    a.device,
                    if a.size >= 2 << 20 { 2 << 20 } else { 4096 },
                ),
                Ok(Loc::Host) if is_pinned(ptr as u64, 1) => {
                    (aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_HOST, 0, 4096)
                }
                Ok(Loc::Host) => (
                    aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_UNREGISTERED,
                    0,
                    4096,
                ),
                Err(m) => return Err(invalid(API, m)),
            };
            // SAFETY: checked non-null.
            unsafe {
                *attributes = aclrtPtrAttributes {
                    location: aclrtMemLocation { id, type_: t },
                    pageSize: page,
                    rsv: [0; 4],
                }
            };
            Ok(())
        })())
    })
}

/// Waits for the streams of `device` (every device: `None`), as a device
/// synchronisation does; the first fault found is returned (each stream's
/// fault is reported once, as by `aclrtSynchronizeDevice`).
fn sync_streams(rt: &state::Runtime, device: Option<u32>, api: &str) -> Result<(), i32> {
    let mut streams: Vec<Arc<crate::stream::Stream>> = state::with_handles(|h| {
        h.streams
            .values()
            .filter(|s| device.is_none_or(|d| s.device == d))
            .cloned()
            .collect()
    });
    for (d, s) in super::lock(&rt.default_streams).iter().enumerate() {
        if device.is_none_or(|x| x as usize == d) {
            streams.extend(s.clone());
        }
    }
    streams.retain(|s| !s.building());
    for s in &streams {
        super::stream::not_capturing(api, s.clone())?;
    }
    let mut first = Ok(());
    for s in streams {
        if let Err(f) = s.synchronize() {
            if first.is_ok() {
                first = Err(report(f));
            }
        }
    }
    first
}

/// `aclrtFreeWithDevSync(devPtr)`: waits for the work of the device that
/// holds the memory (every stream of it), then frees it as `aclrtFree`.
/// The memory is freed even if a stream faulted; the fault's status is
/// returned then. NULL or not the start of a live allocation: as
/// `aclrtFree` (`ACL_ERROR_RT_MEMORY_FREE`), nothing waited for; a stream
/// being captured: refused as by `aclrtSynchronizeDevice`, nothing freed.
///
/// # Safety
/// As `aclrtFree`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtFreeWithDevSync(dev_ptr: *mut c_void) -> aclError {
    const API: &str = "aclrtFreeWithDevSync";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let addr = dev_ptr as u64;
            let dev = rt
                .memory
                .iter()
                .find_map(|m| {
                    let m = super::lock(m);
                    m.find(addr).filter(|a| a.base == addr).map(|a| a.device)
                })
                .ok_or_else(|| {
                    fail(
                        ACL_ERROR_RT_MEMORY_FREE,
                        format!(
                            "npu-sim: {API}({addr:#x}): not the start of a live device allocation"
                        ),
                    )
                })?;
            let waited = sync_streams(&rt, Some(dev), API);
            if let Err(c) = waited {
                if c == ACL_ERROR_RT_STREAM_CAPTURED || c == ACL_ERROR_RT_STREAM_NOT_CAPTURED {
                    return Err(c);
                }
            }
            // SAFETY: as the caller's contract.
            match unsafe { super::aclrtFree(dev_ptr) } {
                ACL_SUCCESS => waited,
                c => Err(c),
            }
        })())
    })
}

/// `aclrtFreeHostWithDevSync(ptr)`: waits for the work of every device,
/// then frees as `aclrtFreeHost` (only `aclrtMallocHost` memory;
/// another pointer `ACL_ERROR_INVALID_PARAM`, nothing waited for).
///
/// # Safety
/// As `aclrtFreeHost`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtFreeHostWithDevSync(ptr: *mut c_void) -> aclError {
    const API: &str = "aclrtFreeHostWithDevSync";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        code_of((|| {
            let rt = rt()?;
            let known = state::with_handles(|h| h.host.contains_key(&(ptr as usize)));
            if !known {
                return Err(invalid(
                    API,
                    format_args!("{ptr:p} is not from aclrtMallocHost (or freed already)"),
                ));
            }
            let waited = sync_streams(&rt, None, API);
            if let Err(c) = waited {
                if c == ACL_ERROR_RT_STREAM_CAPTURED || c == ACL_ERROR_RT_STREAM_NOT_CAPTURED {
                    return Err(c);
                }
            }
            // SAFETY: as the caller's contract.
            match unsafe { super::aclrtFreeHost(ptr) } {
                ACL_SUCCESS => waited,
                c => Err(c),
            }
        })())
    })
}
