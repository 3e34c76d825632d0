//! API injection (`aclrtApiInjectionSetFunc`, `aclrtApiInjectionGetFunc`):
//! a tool replaces the implementation behind a runtime call's exported
//! name, and finds the original to call through.
//!
//! The hookable calls are those whose exported function dispatches
//! through this table: `aclrtGetDevice` and `aclrtSetDevice`. Their
//! original implementations are separate functions (so a hook calling the
//! original does not come back to itself).

use super::lock;
use crate::abi::fail;
use cann_sys::*;
use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A hookable call: its name, its original implementation, its current
/// one (0: the original).
struct Entry {
    name: &'static str,
    origin: usize,
    current: AtomicUsize,
}

fn table() -> &'static [Entry] {
    static TABLE: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        vec![
            Entry {
                name: "aclrtGetDevice",
                origin: super::device::get_device_impl as unsafe extern "C" fn(*mut i32) -> aclError
                    as usize,
                current: AtomicUsize::new(0),
            },
            Entry {
                name: "aclrtSetDevice",
                origin: super::device::set_device_impl as extern "C" fn(i32) -> aclError as usize,
                current: AtomicUsize::new(0),
            },
        ]
    })
}

/// Serialises the set and get calls (CANN leaves their ordering to the
/// caller; the lock only keeps them whole).
static SETTING: Mutex<()> = Mutex::new(());

/// The implementation `name` dispatches to now.
pub(crate) fn current(name: &str) -> usize {
    table()
        .iter()
        .find(|e| e.name == name)
        .map(|e| match e.current.load(Ordering::Acquire) {
            0 => e.origin,
            f => f,
        })
        .unwrap_or(0)
}

fn entry(api: &str, name: *const c_char) -> Result<&'static Entry, aclError> {
    if name.is_null() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: the name is NULL"),
        ));
    }
    // SAFETY: non-null, NUL-terminated by contract.
    let n = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    table().iter().find(|e| e.name == n).ok_or_else(|| {
        fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "npu-sim: {api}: {n:?} is not a hookable runtime call here (the simulator hooks: {})",
                table().iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// `aclrtApiInjectionSetFunc`: `name` now runs `func` (pass the original,
/// from `aclrtApiInjectionGetFunc`, to undo). NULL name or function, or a
/// name the simulator does not hook, `ACL_ERROR_INVALID_PARAM`. No
/// `aclInit` needed.
///
/// # Safety
/// `name` is null or a NUL-terminated string; `func` is null or a
/// function with the hooked call's C signature.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtApiInjectionSetFunc(
    name: *const c_char,
    func: aclrtApiFunc,
) -> aclError {
    crate::abi::guard(
        "aclrtApiInjectionSetFunc",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtApiInjectionSetFunc";
            let _g = lock(&SETTING);
            let e = match entry(api, name) {
                Ok(e) => e,
                Err(c) => return c,
            };
            let Some(f) = func.map(|f| f as usize) else {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: the function is NULL"),
                );
            };
            e.current
                .store(if f == e.origin { 0 } else { f }, Ordering::Release);
            ACL_SUCCESS
        },
    )
}

/// `aclrtApiInjectionGetFunc`: the original and the current
/// implementation of `name` (equal until a hook is set); either output
/// may be NULL, not both. A name the simulator does not hook
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `name` is null or a NUL-terminated string; the outputs are null or
/// valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtApiInjectionGetFunc(
    name: *const c_char,
    origin_func: *mut aclrtApiFunc,
    current_func: *mut aclrtApiFunc,
) -> aclError {
    crate::abi::guard(
        "aclrtApiInjectionGetFunc",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtApiInjectionGetFunc";
            if origin_func.is_null() && current_func.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: both outputs are NULL"),
                );
            }
            let _g = lock(&SETTING);
            let e = match entry(api, name) {
                Ok(e) => e,
                Err(c) => return c,
            };
            let as_fn = |a: usize| -> aclrtApiFunc {
                // SAFETY: `a` is the address of a function (the original or a
                // hook registered through aclrtApiInjectionSetFunc), never 0.
                Some(unsafe { std::mem::transmute::<usize, unsafe extern "C" fn()>(a) })
            };
            // SAFETY: each output is written only when non-null; valid for a
            // write by contract.
            unsafe {
                if !origin_func.is_null() {
                    *origin_func = as_fn(e.origin);
                }
                if !current_func.is_null() {
                    *current_func = as_fn(current(e.name));
                }
            }
            ACL_SUCCESS
        },
    )
}
