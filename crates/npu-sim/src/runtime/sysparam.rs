//! System parameters (`aclrtSetSysParamOpt`, `aclrtGetSysParamOpt` for the
//! process; `aclrtCtxSetSysParamOpt`, `aclrtCtxGetSysParamOpt` for the
//! calling thread's context) and `aclrtGetPrimaryCtxState`.
//!
//! The parameters (`ACL_OPT_DETERMINISTIC`, `ACL_OPT_ENABLE_DEBUG_KERNEL`,
//! `ACL_OPT_STRONG_CONSISTENCY`) are recorded and answered: the
//! simulator's operators are deterministic and position-independent
//! whatever the setting, and its memory checker is always on.

use super::{lock, rt};
use crate::abi::fail;
use crate::state;
use cann_sys::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// The options there are.
const OPTS: usize = 3;

/// The process's values (0 until set).
static PROCESS: Mutex<[i64; OPTS]> = Mutex::new([0; OPTS]);
/// The values set per context (by context handle).
static PER_CONTEXT: Mutex<Option<HashMap<(usize, usize), i64>>> = Mutex::new(None);

fn index(api: &str, opt: aclSysParamOpt) -> Result<usize, aclError> {
    match usize::try_from(opt.0) {
        Ok(i) if i < OPTS => Ok(i),
        _ => Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "npu-sim: {api}: {} is not an aclSysParamOpt (ACL_OPT_DETERMINISTIC, ACL_OPT_ENABLE_DEBUG_KERNEL, ACL_OPT_STRONG_CONSISTENCY)",
                opt.0
            ),
        )),
    }
}

fn null_out(api: &str) -> aclError {
    fail(
        ACL_ERROR_INVALID_PARAM,
        format!("npu-sim: {api}: null output pointer"),
    )
}

/// The calling thread's live context, else `ACL_ERROR_RT_CONTEXT_NULL`.
fn current_context(api: &str) -> Result<usize, aclError> {
    rt()?;
    let mut ctx = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let c = unsafe { super::context::aclrtGetCurrentContext(&mut ctx) };
    let k = ctx as usize;
    if c != ACL_SUCCESS || k == 0 || !state::with_handles(|h| h.contexts.contains_key(&k)) {
        return Err(fail(
            ACL_ERROR_RT_CONTEXT_NULL,
            format!("npu-sim: {api}: the calling thread has no context (aclrtSetDevice or aclrtSetCurrentContext first)"),
        ));
    }
    Ok(k)
}

/// `aclrtSetSysParamOpt`: sets a process-wide parameter (the last call
/// wins). No `aclInit` needed. Another option `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetSysParamOpt(opt: aclSysParamOpt, value: i64) -> aclError {
    crate::abi::guard(
        "aclrtSetSysParamOpt",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || match index("aclrtSetSysParamOpt", opt) {
            Ok(i) => {
                lock(&PROCESS)[i] = value;
                ACL_SUCCESS
            }
            Err(c) => c,
        },
    )
}

/// `aclrtGetSysParamOpt`: the process-wide value (0 until set). NULL or
/// another option `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetSysParamOpt(opt: aclSysParamOpt, value: *mut i64) -> aclError {
    crate::abi::guard("aclrtGetSysParamOpt", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if value.is_null() {
            return null_out("aclrtGetSysParamOpt");
        }
        match index("aclrtGetSysParamOpt", opt) {
            Ok(i) => {
                // SAFETY: checked non-null; valid for a write by contract.
                unsafe { *value = lock(&PROCESS)[i] };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtCtxSetSysParamOpt`: sets a parameter of the calling thread's
/// context only (the last call wins). No context
/// `ACL_ERROR_RT_CONTEXT_NULL`; another option `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtCtxSetSysParamOpt(opt: aclSysParamOpt, value: i64) -> aclError {
    crate::abi::guard(
        "aclrtCtxSetSysParamOpt",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtCtxSetSysParamOpt";
            let r = index(api, opt).and_then(|i| current_context(api).map(|k| (k, i)));
            match r {
                Ok(key) => {
                    lock(&PER_CONTEXT)
                        .get_or_insert_with(HashMap::new)
                        .insert(key, value);
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `aclrtCtxGetSysParamOpt`: the value set on the calling thread's
/// context, else the process's. Errors as `aclrtCtxSetSysParamOpt`; NULL
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `value` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCtxGetSysParamOpt(opt: aclSysParamOpt, value: *mut i64) -> aclError {
    crate::abi::guard(
        "aclrtCtxGetSysParamOpt",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtCtxGetSysParamOpt";
            if value.is_null() {
                return null_out(api);
            }
            let r = index(api, opt).and_then(|i| current_context(api).map(|k| (k, i)));
            match r {
                Ok(key) => {
                    let v = lock(&PER_CONTEXT)
                        .as_ref()
                        .and_then(|m| m.get(&key).copied())
                        .unwrap_or_else(|| lock(&PROCESS)[key.1]);
                    // SAFETY: checked non-null; valid for a write by contract.
                    unsafe { *value = v };
                    ACL_SUCCESS
                }
                Err(c) => c,
            }
        },
    )
}

/// `aclrtGetPrimaryCtxState`: whether device `device_id`'s default context
/// is active (1: an `aclrtSetDevice` of it is outstanding; 0 before it and
/// after the reset that releases the device). `flags` is reserved: written
/// 0 when not NULL. No such device `ACL_ERROR_RT_INVALID_DEVICEID`; NULL
/// `active` `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `flags` and `active` are null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetPrimaryCtxState(
    device_id: i32,
    flags: *mut u32,
    active: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclrtGetPrimaryCtxState",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if active.is_null() {
                return null_out("aclrtGetPrimaryCtxState");
            }
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            let d = match u32::try_from(device_id) {
            Ok(d) if d < rt.config.devices => d as usize,
            _ => {
                return fail(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    format!(
                        "npu-sim: aclrtGetPrimaryCtxState: device {device_id} does not exist ({} device(s))",
                        rt.config.devices
                    ),
                )
            }
        };
            let on = lock(&rt.set_counts)[d] > 0;
            // SAFETY: `active` checked non-null, `flags` written only when
            // non-null; both valid for a write by contract.
            unsafe {
                *active = i32::from(on);
                if !flags.is_null() {
                    *flags = 0;
                }
            }
            ACL_SUCCESS
        },
    )
}
