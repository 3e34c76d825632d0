//! What the runtime answers about itself: the thread's last error
//! (`aclrtGetLastError`, `aclrtPeekAtLastError`, `acl_rt.h`), the CANN
//! attributes (`aclGetCannAttributeList`, `aclGetCannAttribute`,
//! `acl_base_rt.h`), SoC compatibility and device capabilities
//! (`aclrtCheckArchCompatibility`, `aclrtGetDeviceCapability`), and the
//! compute resources of the calling thread (`aclrtGetResInCurrentThread`).
//!
//! The answers depend on the simulated SoC's product family
//! ([`cann_sys::soc::Family`]): the initialised runtime's, or, before
//! `aclInit`, the one `aclInit` would pick (as `aclrtGetSocName`).

use super::rt_device;
use crate::abi::fail;
use crate::soc::Family;
use crate::state;
use cann_sys::*;
use std::ffi::c_char;

/// The simulated SoC and its family: the runtime's, else `NPU_SIM_SOC`'s
/// (an unknown name is the status `aclInit` would give, explained).
fn soc(api: &str) -> Result<(String, Family), i32> {
    match state::runtime() {
        Some(rt) => Ok((rt.config.soc.clone(), rt.config.family)),
        None => crate::config::soc_from_env()
            .map_err(|m| fail(ACL_ERROR_RT_SOC_VERSION, format!("npu-sim: {api}: {m}"))),
    }
}

/// The AI Cores a SoC has, as (cube cores, vector cores): the numbers of
/// CANN's platform configuration for the SoC as far as they are public;
/// the simulator runs every kernel on `NPU_SIM_THREADS` host threads
/// whatever they are, so they only answer queries.
pub(crate) fn cores(soc: &str, family: Family) -> (u32, u32) {
    match family {
        Family::A2 if matches!(soc, "Ascend910B3" | "Ascend910B4" | "Ascend910B4-1") => (20, 40),
        Family::A2 | Family::A3 => (24, 48),
        Family::Training => (32, 0),
        Family::Inference => (8, 7),
        _ => (1, 1),
    }
}

fn last_error(api: &str, level: aclrtLastErrLevel, take: bool) -> aclError {
    if level != aclrtLastErrLevel::ACL_RT_THREAD_LEVEL {
        // Refused without touching the thread's recorded code.
        let kept = crate::abi::last_code(false);
        let code = fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "npu-sim: {api}: level {} is not ACL_RT_THREAD_LEVEL (0), the only level CANN has",
                level.0
            ),
        );
        crate::abi::set_last_code(kept);
        return code;
    }
    crate::abi::last_code(take)
}

/// `aclrtGetLastError(level)`: the calling thread's last runtime error
/// code (the status of its last failed runtime call, or of a stream fault
/// its synchronisation reported), then cleared: `ACL_SUCCESS` until the
/// thread's next failure. aclnn statuses (`16xxxx`, `56xxxx`) are the
/// operator library's and are not recorded. `level` must be
/// `ACL_RT_THREAD_LEVEL` (CANN has no other), else `ACL_ERROR_INVALID_PARAM`
/// and the recorded code is kept. No `aclInit` needed.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtGetLastError(level: aclrtLastErrLevel) -> aclError {
    crate::abi::guard("aclrtGetLastError", ACL_ERROR_RT_INTERNAL_ERROR, || {
        last_error("aclrtGetLastError", level, true)
    })
}

/// `aclrtPeekAtLastError(level)`: as `aclrtGetLastError`, without
/// clearing the code.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtPeekAtLastError(level: aclrtLastErrLevel) -> aclError {
    crate::abi::guard("aclrtPeekAtLastError", ACL_ERROR_RT_INTERNAL_ERROR, || {
        last_error("aclrtPeekAtLastError", level, false)
    })
}

/// `aclrtGetErrorVerbose(deviceId, &info)`: CANN's reference marks it a
/// reserved interface, not yet supported, for hardware errors (memory UCE,
/// L2, AI Core, links) between a device fault event and a task abort. The
/// simulator has no such errors (its device faults are explained by
/// `aclGetRecentErrMsg`), so after CANN's argument checks (NULL `info`
/// `ACL_ERROR_INVALID_PARAM`; before `aclInit` `ACL_ERROR_UNINITIALIZE`; a
/// device that does not exist `ACL_ERROR_RT_INVALID_DEVICEID`) it answers
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` and leaves `info` alone.
///
/// # Safety
/// `info` is null or valid for a write (never written).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetErrorVerbose(
    device_id: i32,
    info: *mut aclrtErrorInfo,
) -> aclError {
    crate::abi::guard("aclrtGetErrorVerbose", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if info.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtGetErrorVerbose: null errorInfo",
            );
        }
        let rt = match super::rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        if !u32::try_from(device_id).is_ok_and(|d| d < rt.config.devices) {
            return fail(
                ACL_ERROR_RT_INVALID_DEVICEID,
                format!(
                    "npu-sim: aclrtGetErrorVerbose: device {device_id} does not exist ({} device(s))",
                    rt.config.devices
                ),
            );
        }
        fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "npu-sim: aclrtGetErrorVerbose: a reserved interface in CANN (hardware error details: \
             memory UCE, L2, AI Core, links); the simulator has no hardware errors, and \
             aclGetRecentErrMsg explains its device faults",
        )
    })
}

const ALL_ATTRS: [aclCannAttr; 3] = [
    aclCannAttr::ACL_CANN_ATTR_INF_NAN,
    aclCannAttr::ACL_CANN_ATTR_BF16,
    aclCannAttr::ACL_CANN_ATTR_JIT_COMPILE,
];
static ATTRS_A2_A3: [aclCannAttr; 3] = ALL_ATTRS;
static ATTRS_OTHERS: [aclCannAttr; 1] = [aclCannAttr::ACL_CANN_ATTR_JIT_COMPILE];

/// Whether the family has `attr`: Inf/NaN mode and bfloat16 on Atlas A2
/// and A3 only (the older families saturate and have no bf16), the
/// operators as binaries (no compilation) everywhere.
fn has_attr(family: Family, attr: aclCannAttr) -> bool {
    match attr {
        aclCannAttr::ACL_CANN_ATTR_INF_NAN | aclCannAttr::ACL_CANN_ATTR_BF16 => family.has_bf16(),
        _ => true,
    }
}

/// `aclGetCannAttributeList(&list, &num)`: the attributes this
/// installation and SoC support (`num` of them, in a list that stays valid
/// for the process): `ACL_CANN_ATTR_INF_NAN`, `ACL_CANN_ATTR_BF16` and
/// `ACL_CANN_ATTR_JIT_COMPILE` on Atlas A2/A3, `ACL_CANN_ATTR_JIT_COMPILE`
/// alone on the others. No `aclInit` needed. NULL
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `list` and `num` are null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclGetCannAttributeList(
    list: *mut *const aclCannAttr,
    num: *mut usize,
) -> aclError {
    crate::abi::guard(
        "aclGetCannAttributeList",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if list.is_null() || num.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclGetCannAttributeList: null output pointer",
                );
            }
            let family = match soc("aclGetCannAttributeList") {
                Ok((_, f)) => f,
                Err(c) => return c,
            };
            let attrs: &'static [aclCannAttr] = if family.has_bf16() {
                &ATTRS_A2_A3
            } else {
                &ATTRS_OTHERS
            };
            debug_assert!(attrs.iter().all(|a| has_attr(family, *a)));
            // SAFETY: both checked non-null; the list is a static.
            unsafe {
                *list = attrs.as_ptr();
                *num = attrs.len();
            }
            ACL_SUCCESS
        },
    )
}

/// `aclGetCannAttribute(attr, &value)`: 1 if the installation and SoC
/// support `attr`, else 0 (see `aclGetCannAttributeList`). An attribute
/// CANN does not define (`ACL_CANN_ATTR_UNDEFINED` included) or a NULL
/// `value`: `ACL_ERROR_INVALID_PARAM`. No `aclInit` needed.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclGetCannAttribute(attr: aclCannAttr, value: *mut i32) -> aclError {
    crate::abi::guard("aclGetCannAttribute", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if value.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclGetCannAttribute: null output pointer",
            );
        }
        if !ALL_ATTRS.contains(&attr) {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclGetCannAttribute: attribute {} is not one CANN defines \
                     (ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE)",
                    attr.0
                ),
            );
        }
        match soc("aclGetCannAttribute") {
            Ok((_, family)) => {
                // SAFETY: checked non-null.
                unsafe { *value = has_attr(family, attr) as i32 };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtCheckArchCompatibility(socVersion, &canCompatible)`: 1 if a
/// program built for `socVersion` runs on the simulated SoC, which the
/// simulator answers by architecture: the two SoCs are of the same product
/// family (Ascend910B1 .. Ascend910B4-1 share one, as do the Ascend910_93
/// SoCs); 0 for another family or a name the simulator does not know. NULL
/// `ACL_ERROR_INVALID_PARAM`. No `aclInit` needed.
///
/// # Safety
/// `soc_version` is null or a NUL-terminated string; `can_compatible` is
/// null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCheckArchCompatibility(
    soc_version: *const c_char,
    can_compatible: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclrtCheckArchCompatibility",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if soc_version.is_null() || can_compatible.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtCheckArchCompatibility: null pointer",
                );
            }
            let asked = super::cstr(soc_version);
            match soc("aclrtCheckArchCompatibility") {
                Ok((_, family)) => {
                    let same = crate::soc::family_of(&asked) == Some(family);
                    // SAFETY: checked non-null.
                    unsafe { *can_compatible = same as i32 };
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `aclrtGetDeviceCapability(deviceId, feature, &value)`:
/// `ACL_DEV_FEATURE_SUPPORT` or `ACL_DEV_FEATURE_NOT_SUPPORT`.
/// `ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV` (updating captured
/// kernel tasks): supported on Atlas A2 and A3, the products CANN's graph
/// capture documents. `ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV` (memory
/// queue events across devices, a tdt feature the simulator does not
/// have): not supported. Needs `aclInit`; a device that does not exist
/// `ACL_ERROR_RT_INVALID_DEVICEID`; another feature or a NULL `value`
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceCapability(
    device_id: i32,
    feature: aclrtDevFeatureType,
    value: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclrtGetDeviceCapability",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if value.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetDeviceCapability: null output pointer",
                );
            }
            let rt = match super::rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            if !u32::try_from(device_id).is_ok_and(|d| d < rt.config.devices) {
                return fail(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    format!(
                        "npu-sim: aclrtGetDeviceCapability: device {device_id} does not exist \
                         ({} device(s))",
                        rt.config.devices
                    ),
                );
            }
            let supported = match feature {
                aclrtDevFeatureType::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV => {
                    matches!(rt.config.family, Family::A2 | Family::A3)
                }
                aclrtDevFeatureType::ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV => false,
                other => {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclrtGetDeviceCapability: feature {} is not an \
                             aclrtDevFeatureType",
                            other.0
                        ),
                    )
                }
            };
            let v = if supported {
                ACL_DEV_FEATURE_SUPPORT
            } else {
                ACL_DEV_FEATURE_NOT_SUPPORT
            };
            // SAFETY: checked non-null.
            unsafe { *value = v };
            ACL_SUCCESS
        },
    )
}

/// `aclrtGetResInCurrentThread(type, &value)`: the cube cores
/// (`ACL_RT_DEV_RES_CUBE_CORE`) or vector cores
/// (`ACL_RT_DEV_RES_VECTOR_CORE`) the calling thread's work may use: the
/// whole device's (no per-stream or per-thread limit is simulated), by SoC
/// (Ascend910B3: 20 and 40). Needs the thread's device or context
/// (`ACL_ERROR_RT_CONTEXT_NULL`); another type or a NULL `value`
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetResInCurrentThread(
    kind: aclrtDevResLimitType,
    value: *mut u32,
) -> aclError {
    crate::abi::guard(
        "aclrtGetResInCurrentThread",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if value.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetResInCurrentThread: null output pointer",
                );
            }
            let cube = match kind {
                aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE => true,
                aclrtDevResLimitType::ACL_RT_DEV_RES_VECTOR_CORE => false,
                other => {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclrtGetResInCurrentThread: type {} is not an \
                             aclrtDevResLimitType",
                            other.0
                        ),
                    )
                }
            };
            let (rt, _) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let (c, v) = cores(&rt.config.soc, rt.config.family);
            // SAFETY: checked non-null.
            unsafe { *value = if cube { c } else { v } };
            ACL_SUCCESS
        },
    )
}
