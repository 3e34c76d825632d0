//! Stream memory operations (`acl_rt.h`, CANN's "stream memory
//! operations"): `aclrtValueWrite` and `aclrtValueWait`.
//!
//! Both are tasks of the stream, in its order. A write stores a 64-bit
//! value at an 8-byte aligned device address when the stream reaches it; a
//! wait holds the stream's later work until the 64-bit value at the address
//! meets its condition, whoever changes it (another stream's
//! `aclrtValueWrite`, a copy, a fill, a kernel). Both are sync tasks for the
//! fault rule: they run after an earlier fault of the stream too, as event
//! records and waits do, so a stream that faulted still signals a stream
//! waiting for it. The value is read and written as one aligned atomic
//! 64-bit access.

use super::{locate, rt, stream_of, Loc};
use crate::abi::fail;
use crate::memory::Allocation;
use crate::soc::Family;
use crate::state::{self, Runtime};
use crate::work::Fault;
use cann_sys::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Value write and wait exist on Atlas A2, A3 (and 950), not on the
/// training series, the inference series nor Atlas 200I/500 A2 (CANN's
/// product table): `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` there.
fn supported(rt: &Runtime, api: &str) -> Result<(), i32> {
    match crate::soc::family_of(&rt.config.soc) {
        Some(Family::A2) | Some(Family::A3) | None => Ok(()),
        Some(_) => Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: not supported on {} (Atlas A2 and A3 only)",
                rt.config.soc
            ),
        )),
    }
}

/// The checks both calls share: a non-null, 8-byte aligned address of 8
/// bytes inside one live device allocation.
fn plan(rt: &Runtime, addr: *mut c_void, api: &str) -> Result<Arc<Allocation>, i32> {
    if addr.is_null() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: devAddr is null"),
        ));
    }
    supported(rt, api)?;
    let a = addr as u64;
    if !a.is_multiple_of(8) {
        return Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: devAddr {addr:p} is not 8-byte aligned"),
        ));
    }
    match locate(rt, a, 8) {
        Ok(Loc::Device(alloc)) => Ok(alloc),
        Ok(Loc::Host) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {addr:p} is not device memory (allocate it with aclrtMalloc)"),
        )),
        Err(m) => Err(fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: {m}"),
        )),
    }
}

/// The 64-bit word at `addr` of `a`, or the use-after-free fault.
fn word<'a>(api: &str, a: &'a Arc<Allocation>, addr: u64) -> Result<&'a AtomicU64, Fault> {
    if a.freed.load(Ordering::Acquire) {
        return Err(Fault {
            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
            message: format!(
                "npu-sim: {api}: use after free: {a} was freed while the task was pending"
            ),
        });
    }
    let p = a.host_ptr(addr);
    if !(p as usize).is_multiple_of(std::mem::align_of::<AtomicU64>()) {
        return Err(Fault {
            code: ACL_ERROR_RT_PARAM_INVALID,
            message: format!("npu-sim: {api}: the memory behind {addr:#x} is not aligned"),
        });
    }
    // SAFETY: [addr, addr + 8) lies in the allocation `a` (checked when the
    // task was planned), which is live (checked above) and kept mapped by
    // the Arc; the pointer is aligned for an AtomicU64 (checked above).
    Ok(unsafe { &*(p as *const AtomicU64) })
}

/// Whether the value `v` at the address meets the wait condition `flag`
/// for `value` (CANN's `ACL_STREAM_WAIT_VALUE_*`):
/// - GEQ: `(int64)(v - value) >= 0` (wrapping, as the header's cast);
/// - EQ: `v == value`;
/// - AND: `(v & value) != 0`;
/// - NOR: `!(v | value) != 0`.
pub fn wait_condition(flag: u32, v: u64, value: u64) -> bool {
    const GEQ: u32 = ACL_STREAM_WAIT_VALUE_GEQ as u32;
    const EQ: u32 = ACL_STREAM_WAIT_VALUE_EQ as u32;
    const AND: u32 = ACL_STREAM_WAIT_VALUE_AND as u32;
    match flag {
        GEQ => v.wrapping_sub(value) as i64 >= 0,
        EQ => v == value,
        AND => v & value != 0,
        _ => !(v | value) != 0,
    }
}

fn not_in_capture(s: &crate::stream::Stream, api: &str) -> Result<(), i32> {
    if let (_, Some(m)) = crate::stream::capture::status_of(s) {
        m.invalidate();
        return Err(fail(
            ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
            format!(
                "npu-sim: {api}: stream memory operations are not captured by the simulator; \
                 the stream's capture is invalidated (aclmdlRICaptureEnd will fail)"
            ),
        ));
    }
    Ok(())
}

/// `aclrtValueWrite`: when the stream (NULL: the default stream) reaches
/// it, stores `value` in the 64-bit word at `devAddr`. Errors: NULL
/// `devAddr` `ACL_ERROR_INVALID_PARAM`; a flag other than 0, an address not
/// 8-byte aligned, not device memory or not inside a live allocation
/// `ACL_ERROR_RT_PARAM_INVALID`; a product without it
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`; memory freed before the task runs
/// faults the stream with `ACL_ERROR_RT_DEVICE_MEM_ERROR`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtValueWrite(
    dev_addr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtValueWrite";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            let a = plan(&rt, dev_addr, API)?;
            if flag != 0 {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!("npu-sim: {API}: flag {flag}: reserved, must be 0"),
                ));
            }
            let s = stream_of(&rt, state::current_device(), stream)?;
            not_in_capture(&s, API)?;
            let addr = dev_addr as u64;
            s.enqueue(crate::stream::TaskKind::Sync, move || {
                word(API, &a, addr)?.store(value, Ordering::SeqCst);
                Ok(())
            });
            Ok(())
        })())
    })
}

/// `aclrtValueWait`: when the stream (NULL: the default stream) reaches
/// it, the stream's later work waits until the 64-bit word at `devAddr`
/// meets `flag` for `value` ([`wait_condition`]). A condition that never
/// holds keeps the stream blocked (a synchronisation of it waits, as on
/// the device; `aclrtSynchronizeStreamWithTimeout` times out) until the
/// stream is destroyed: plain or forced destruction, a device reset and
/// `aclFinalize` release the wait, so teardown never hangs. Errors as
/// `aclrtValueWrite`; a flag above `ACL_STREAM_WAIT_VALUE_NOR`
/// `ACL_ERROR_RT_PARAM_INVALID`; memory freed while waiting faults the
/// stream with `ACL_ERROR_RT_DEVICE_MEM_ERROR` (the wait ends).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtValueWait(
    dev_addr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtValueWait";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            let a = plan(&rt, dev_addr, API)?;
            if flag > ACL_STREAM_WAIT_VALUE_NOR as u32 {
                return Err(fail(
                    ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "npu-sim: {API}: flag {flag}: one of ACL_STREAM_WAIT_VALUE_GEQ (0), _EQ \
                         (1), _AND (2), _NOR (3)"
                    ),
                ));
            }
            let s = stream_of(&rt, state::current_device(), stream)?;
            not_in_capture(&s, API)?;
            let addr = dev_addr as u64;
            s.enqueue_wait_until(move || {
                let v = word(API, &a, addr)?.load(Ordering::SeqCst);
                Ok(wait_condition(flag, v, value))
            });
            Ok(())
        })())
    })
}
