//! Saturation and overflow (`acl_rt.h`): `aclrtSetDeviceSatMode`,
//! `aclrtGetDeviceSatMode`, `aclrtSetStreamOverflowSwitch`,
//! `aclrtGetStreamOverflowSwitch`, `aclrtGetOverflowStatus`,
//! `aclrtResetOverflowStatus`.
//!
//! Kept per runtime: each device's float overflow mode, each stream's
//! overflow-detection switch, and one overflow status for the process (as
//! CANN documents it on A2 and A3). The built-in reduce task
//! (`aclrtReduceAsync`) is the simulator's kernel that honours them: see
//! [`Float`].

use super::{lock, rt, rt_device, stream_of, Loc};
use crate::abi::fail;
use crate::state::{self, Runtime};
use crate::stream::Stream;
use cann_sys::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, Weak};

/// The size of the status `aclrtGetOverflowStatus` writes (CANN: fixed,
/// 64 bytes).
pub const OVERFLOW_STATUS_SIZE: usize = 64;

struct State {
    runtime: Weak<Runtime>,
    modes: HashMap<u32, aclrtFloatOverflowMode>,
    switches: HashMap<usize, (Weak<Stream>, u32)>,
    overflowed: bool,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with<R>(rt: &Arc<Runtime>, f: impl FnOnce(&mut State) -> R) -> R {
    let mut g = lock(&STATE);
    let fresh = !matches!(&*g, Some(s) if s.runtime.upgrade().is_some_and(|r| Arc::ptr_eq(&r, rt)));
    if fresh {
        *g = Some(State {
            runtime: Arc::downgrade(rt),
            modes: HashMap::new(),
            switches: HashMap::new(),
            overflowed: false,
        });
    }
    f(g.as_mut().expect("set above"))
}

/// Whether the product has the INF/NaN mode (A2 and A3: their CANN
/// attribute `ACL_CANN_ATTR_INF_NAN`); the others saturate only.
fn has_inf_nan(rt: &Runtime) -> bool {
    crate::soc::family_of(&rt.config.soc).is_none_or(|f| f.has_bf16())
}

/// A device's mode: as set, else INF_NAN where the product has it, else
/// SATURATION.
fn mode(rt: &Arc<Runtime>, device: u32) -> aclrtFloatOverflowMode {
    let default = if has_inf_nan(rt) {
        aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_INFNAN
    } else {
        aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_SATURATION
    };
    with(rt, |s| s.modes.get(&device).copied().unwrap_or(default))
}

/// How a float task on a stream treats a result that is not finite, taken
/// when the task is enqueued.
#[derive(Clone)]
pub(crate) struct Float {
    /// Saturation mode: ±inf becomes ±max finite, NaN becomes 0.
    pub(crate) saturate: bool,
    /// The stream's overflow detection is on: an inf or NaN produced from
    /// finite inputs sets the process's overflow status.
    detect: Option<Weak<Runtime>>,
}

impl Float {
    /// The rules for a task enqueued now on `s`.
    pub(crate) fn of(rt: &Arc<Runtime>, s: &Arc<Stream>) -> Float {
        let saturate =
            mode(rt, s.device) == aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_SATURATION;
        let on = with(rt, |st| {
            st.switches
                .get(&(Arc::as_ptr(s) as usize))
                .filter(|(w, _)| w.strong_count() > 0)
                .is_none_or(|(_, f)| *f != 0)
        });
        Float {
            saturate,
            detect: on.then(|| Arc::downgrade(rt)),
        }
    }

    /// Records an overflow (when detection is on).
    pub(crate) fn overflowed(&self) {
        if let Some(rt) = self.detect.as_ref().and_then(|w| w.upgrade()) {
            with(&rt, |s| s.overflowed = true);
        }
    }
}

/// Whether the process's overflow status is set (for tests).
pub fn overflow_status() -> bool {
    state::runtime().is_some_and(|rt| with(&rt, |s| s.overflowed))
}

fn check_mode(m: aclrtFloatOverflowMode) -> bool {
    matches!(
        m,
        aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_SATURATION
            | aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_INFNAN
    )
}

/// `aclrtSetDeviceSatMode(mode)`: the float overflow mode of the calling
/// thread's device. SATURATION everywhere; INFNAN on A2 and A3 (elsewhere
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`); another value (UNDEF included)
/// `ACL_ERROR_INVALID_PARAM`. The simulator applies it to every float task
/// enqueued afterwards on the device's streams (CANN: to streams created
/// afterwards).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetDeviceSatMode(mode_: aclrtFloatOverflowMode) -> aclError {
    const API: &str = "aclrtSetDeviceSatMode";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let (rt, dev) = match rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        if !check_mode(mode_) {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: {API}: mode {}: ACL_RT_OVERFLOW_MODE_SATURATION (0) or \
                     ACL_RT_OVERFLOW_MODE_INFNAN (1)",
                    mode_.0
                ),
            );
        }
        if mode_ == aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_INFNAN && !has_inf_nan(&rt) {
            return fail(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!(
                    "npu-sim: {API}: {} has the saturation mode only",
                    rt.config.soc
                ),
            );
        }
        with(&rt, |s| s.modes.insert(dev, mode_));
        ACL_SUCCESS
    })
}

/// `aclrtGetDeviceSatMode(&mode)`: the calling thread's device's mode
/// (INFNAN by default on A2 and A3, SATURATION on the others). NULL
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `mode` is NULL or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceSatMode(mode_: *mut aclrtFloatOverflowMode) -> aclError {
    const API: &str = "aclrtGetDeviceSatMode";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if mode_.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: mode is null"),
            );
        }
        let (rt, dev) = match rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        // SAFETY: non-null, valid for a write by the caller's contract.
        unsafe { *mode_ = mode(&rt, dev) };
        ACL_SUCCESS
    })
}

fn switch_stream(api: &str, stream: aclrtStream) -> Result<(Arc<Runtime>, Arc<Stream>), i32> {
    let rt = rt()?;
    if !has_inf_nan(&rt) {
        return Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: not supported on {} (Atlas A2 and A3 only)",
                rt.config.soc
            ),
        ));
    }
    let s = stream_of(&rt, state::current_device(), stream)?;
    Ok((rt, s))
}

/// `aclrtSetStreamOverflowSwitch(stream, flag)`: overflow detection of the
/// stream's later tasks on (1) or off (0); another flag
/// `ACL_ERROR_INVALID_PARAM`. A2 and A3 only (else
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`). NULL is the default stream.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetStreamOverflowSwitch(stream: aclrtStream, flag: u32) -> aclError {
    const API: &str = "aclrtSetStreamOverflowSwitch";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        let (rt, s) = match switch_stream(API, stream) {
            Ok(x) => x,
            Err(c) => return c,
        };
        if flag > 1 {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: flag {flag}: 0 (off) or 1 (on)"),
            );
        }
        with(&rt, |st| {
            st.switches.retain(|_, (w, _)| w.strong_count() > 0);
            st.switches
                .insert(Arc::as_ptr(&s) as usize, (Arc::downgrade(&s), flag))
        });
        ACL_SUCCESS
    })
}

/// `aclrtGetStreamOverflowSwitch(stream, &flag)`: the stream's switch (1,
/// on, until set otherwise). NULL output `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `flag` is NULL or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetStreamOverflowSwitch(
    stream: aclrtStream,
    flag: *mut u32,
) -> aclError {
    const API: &str = "aclrtGetStreamOverflowSwitch";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if flag.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: flag is null"),
            );
        }
        let (rt, s) = match switch_stream(API, stream) {
            Ok(x) => x,
            Err(c) => return c,
        };
        let on = Float::of(&rt, &s).detect.is_some();
        // SAFETY: non-null, valid for a write by the caller's contract.
        unsafe { *flag = on as u32 };
        ACL_SUCCESS
    })
}

/// `aclrtGetOverflowStatus(outputAddr, outputSize, stream)`: a task of the
/// stream that writes the process's overflow status to `outputAddr`: 64
/// bytes, the first little-endian 64-bit word 1 if a detected overflow
/// happened since the last reset, else 0, the rest 0. Errors: NULL address
/// or a size other than 64 `ACL_ERROR_INVALID_PARAM`; an address that is
/// not 64 bytes of device memory `ACL_ERROR_RT_PARAM_INVALID`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtGetOverflowStatus(
    output_addr: *mut c_void,
    output_size: usize,
    stream: aclrtStream,
) -> aclError {
    const API: &str = "aclrtGetOverflowStatus";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            if output_addr.is_null() || output_size != OVERFLOW_STATUS_SIZE {
                return Err(fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {API}: outputAddr {output_addr:p}, outputSize {output_size}: a \
                         device buffer of {OVERFLOW_STATUS_SIZE} bytes"
                    ),
                ));
            }
            let addr = output_addr as u64;
            let a = match super::locate(&rt, addr, OVERFLOW_STATUS_SIZE as u64) {
                Ok(Loc::Device(a)) => a,
                Ok(Loc::Host) => {
                    return Err(fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!("npu-sim: {API}: {output_addr:p} is not device memory"),
                    ))
                }
                Err(m) => {
                    return Err(fail(
                        ACL_ERROR_RT_PARAM_INVALID,
                        format!("npu-sim: {API}: {m}"),
                    ))
                }
            };
            let s = stream_of(&rt, state::current_device(), stream)?;
            let weak = Arc::downgrade(&rt);
            s.enqueue(crate::stream::TaskKind::Work, move || {
                let set = weak.upgrade().is_some_and(|rt| with(&rt, |s| s.overflowed));
                let mut out = [0u8; OVERFLOW_STATUS_SIZE];
                out[0] = set as u8;
                if a.freed.load(std::sync::atomic::Ordering::Acquire) {
                    return Err(crate::work::Fault {
                        code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
                        message: format!(
                            "npu-sim: {API}: use after free: {a} was freed while the task was \
                             pending"
                        ),
                    });
                }
                // SAFETY: [addr, addr + 64) lies in `a` (checked when
                // enqueued), live (checked just above), mapped by the Arc.
                unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), a.host_ptr(addr), out.len()) };
                Ok(())
            });
            Ok(())
        })())
    })
}

/// `aclrtResetOverflowStatus(stream)`: a task of the stream that clears
/// the process's overflow status.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtResetOverflowStatus(stream: aclrtStream) -> aclError {
    const API: &str = "aclrtResetOverflowStatus";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        super::code_of((|| {
            let rt = rt()?;
            let s = stream_of(&rt, state::current_device(), stream)?;
            let weak = Arc::downgrade(&rt);
            s.enqueue(crate::stream::TaskKind::Work, move || {
                if let Some(rt) = weak.upgrade() {
                    with(&rt, |s| s.overflowed = false);
                }
                Ok(())
            });
            Ok(())
        })())
    })
}
