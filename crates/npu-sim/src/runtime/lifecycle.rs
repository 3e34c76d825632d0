//! Init and finalize callbacks (`aclInitCallbackRegister`, ...) and the
//! reference-counted finalisation (`aclFinalizeReference`), as CANN's
//! `02_初始化与去初始化.md` describes them: an init callback registered
//! before `aclInit` runs during it, one registered after runs at once; a
//! finalize callback runs when the runtime is finalised; each `aclInit`
//! (the repeated ones too, which still answer
//! `ACL_ERROR_REPEAT_INITIALIZE`) takes a reference that
//! `aclFinalizeReference` gives back, the last one finalising.

use super::lock;
use crate::abi::fail;
use cann_sys::*;
use std::ffi::{c_char, c_void};
use std::sync::Mutex;

/// One registration: its type, the function (as an address) and its
/// user data (as an address).
#[derive(Clone, Copy)]
struct Reg {
    ty: u32,
    func: usize,
    data: usize,
}

static INIT_CBS: Mutex<Vec<Reg>> = Mutex::new(Vec::new());
static FINI_CBS: Mutex<Vec<Reg>> = Mutex::new(Vec::new());
/// The `aclInit` references outstanding (0 when not initialised).
static REFS: Mutex<u64> = Mutex::new(0);
/// The text of the configuration file of the `aclInit` that initialised.
static CONFIG: Mutex<String> = Mutex::new(String::new());

/// `aclInit` succeeded: one reference, the configuration remembered.
pub(crate) fn initialised(config_path: *const c_char) {
    *lock(&REFS) = 1;
    let path = super::cstr(config_path);
    let text = if path.is_empty() {
        String::new()
    } else {
        std::fs::read_to_string(&path).unwrap_or_default()
    };
    *lock(&CONFIG) = text;
}

/// A repeated `aclInit`: one more reference.
pub(crate) fn add_ref() {
    let mut r = lock(&REFS);
    *r = r.saturating_add(1);
}

/// `aclFinalize`: the count goes to 0.
pub(crate) fn clear_refs() {
    *lock(&REFS) = 0;
}

fn call_init(r: Reg, config: &str) -> aclError {
    // SAFETY: `func` was registered as a non-null `aclInitCallbackFunc`.
    let f: unsafe extern "C" fn(*const c_char, usize, *mut c_void) -> aclError =
        unsafe { std::mem::transmute(r.func) };
    let text = std::ffi::CString::new(config.replace('\0', "")).unwrap_or_default();
    // SAFETY: the caller's callback, with its own user data and a
    // NUL-terminated copy of the configuration valid for the call.
    unsafe { f(text.as_ptr(), config.len(), r.data as *mut c_void) }
}

/// Runs the init callbacks (outside every lock: a callback may call the
/// runtime); the first failure is returned.
pub(crate) fn run_init_callbacks() -> aclError {
    let regs = lock(&INIT_CBS).clone();
    let config = lock(&CONFIG).clone();
    for r in regs {
        let c = call_init(r, &config);
        if c != ACL_SUCCESS {
            return fail(
                c,
                format!(
                    "npu-sim: aclInit: an init callback (type {}) failed with {c}",
                    r.ty
                ),
            );
        }
    }
    ACL_SUCCESS
}

/// Runs the finalize callbacks (outside every lock), before the runtime's
/// resources are released; the first failure is returned (the
/// finalisation goes on).
pub(crate) fn run_finalize_callbacks() -> aclError {
    let regs = lock(&FINI_CBS).clone();
    let mut first = ACL_SUCCESS;
    for r in regs {
        // SAFETY: registered as a non-null `aclFinalizeCallbackFunc`.
        let f: unsafe extern "C" fn(*mut c_void) -> aclError =
            unsafe { std::mem::transmute(r.func) };
        // SAFETY: the caller's callback with its own user data.
        let c = unsafe { f(r.data as *mut c_void) };
        if c != ACL_SUCCESS && first == ACL_SUCCESS {
            first = fail(
                c,
                format!(
                    "npu-sim: aclFinalize: a finalize callback (type {}) failed with {c}",
                    r.ty
                ),
            );
        }
    }
    first
}

fn register(
    api: &str,
    table: &Mutex<Vec<Reg>>,
    ty: aclRegisterCallbackType,
    func: Option<usize>,
    data: *mut c_void,
) -> aclError {
    let Some(func) = func else {
        return fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: the callback is NULL"),
        );
    };
    let mut t = lock(table);
    // CANN: one callback per type, except ACL_REG_TYPE_OTHER (any number).
    if ty != aclRegisterCallbackType::ACL_REG_TYPE_OTHER && t.iter().any(|r| r.ty == ty.0) {
        return fail(
            ACL_ERROR_INTERNAL_ERROR,
            format!(
                "npu-sim: {api}: type {} already has a callback (only ACL_REG_TYPE_OTHER takes several)",
                ty.0
            ),
        );
    }
    t.push(Reg {
        ty: ty.0,
        func,
        data: data as usize,
    });
    ACL_SUCCESS
}

fn unregister(
    api: &str,
    table: &Mutex<Vec<Reg>>,
    ty: aclRegisterCallbackType,
    func: Option<usize>,
) -> aclError {
    let Some(func) = func else {
        return fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: the callback is NULL"),
        );
    };
    let mut t = lock(table);
    match t.iter().position(|r| r.ty == ty.0 && r.func == func) {
        Some(i) => {
            t.remove(i);
            ACL_SUCCESS
        }
        None => fail(
            ACL_ERROR_INTERNAL_ERROR,
            format!(
                "npu-sim: {api}: this callback is not registered for type {}",
                ty.0
            ),
        ),
    }
}

/// `aclInitCallbackRegister`: registers an init callback; registered while
/// the runtime is initialised, it runs at once (its status is not the
/// call's, as CANN's). NULL callback: `ACL_ERROR_INVALID_PARAM`; a second
/// callback of a type other than `ACL_REG_TYPE_OTHER`:
/// `ACL_ERROR_INTERNAL_ERROR` (CANN's status).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclInitCallbackRegister(
    ty: aclRegisterCallbackType,
    cb: aclInitCallbackFunc,
    user_data: *mut c_void,
) -> aclError {
    crate::abi::guard(
        "aclInitCallbackRegister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let func = cb.map(|f| f as usize);
            let c = register("aclInitCallbackRegister", &INIT_CBS, ty, func, user_data);
            if c == ACL_SUCCESS && *lock(&REFS) > 0 {
                let config = lock(&CONFIG).clone();
                let _ = call_init(
                    Reg {
                        ty: ty.0,
                        func: func.unwrap_or_default(),
                        data: user_data as usize,
                    },
                    &config,
                );
            }
            c
        },
    )
}

/// `aclInitCallbackUnRegister`: removes the registration of `cb` for
/// `ty`; not registered: `ACL_ERROR_INTERNAL_ERROR` (CANN's status).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclInitCallbackUnRegister(
    ty: aclRegisterCallbackType,
    cb: aclInitCallbackFunc,
) -> aclError {
    crate::abi::guard(
        "aclInitCallbackUnRegister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            unregister(
                "aclInitCallbackUnRegister",
                &INIT_CBS,
                ty,
                cb.map(|f| f as usize),
            )
        },
    )
}

/// `aclFinalizeCallbackRegister`: registers a finalize callback, run by
/// the finalisation (`aclFinalize`, or the `aclFinalizeReference` that
/// gives back the last reference). Registrations outlive a finalisation.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFinalizeCallbackRegister(
    ty: aclRegisterCallbackType,
    cb: aclFinalizeCallbackFunc,
    user_data: *mut c_void,
) -> aclError {
    crate::abi::guard(
        "aclFinalizeCallbackRegister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            register(
                "aclFinalizeCallbackRegister",
                &FINI_CBS,
                ty,
                cb.map(|f| f as usize),
                user_data,
            )
        },
    )
}

/// `aclFinalizeCallbackUnRegister`: as `aclInitCallbackUnRegister`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclFinalizeCallbackUnRegister(
    ty: aclRegisterCallbackType,
    cb: aclFinalizeCallbackFunc,
) -> aclError {
    crate::abi::guard(
        "aclFinalizeCallbackUnRegister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            unregister(
                "aclFinalizeCallbackUnRegister",
                &FINI_CBS,
                ty,
                cb.map(|f| f as usize),
            )
        },
    )
}

/// `aclFinalizeReference`: gives back one `aclInit` reference and writes
/// the count left to `ref_count` (NULL: not written); the one that brings
/// it to 0 finalises as `aclFinalize` does (and returns its status).
/// Not initialised: `ACL_ERROR_REPEAT_FINALIZE`, as `aclFinalize`.
///
/// # Safety
/// `ref_count` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclFinalizeReference(ref_count: *mut u64) -> aclError {
    crate::abi::guard("aclFinalizeReference", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let acl = crate::state::init_state().acl;
        let left = {
            let mut r = lock(&REFS);
            if *r == 0 || !acl {
                return fail(
                    ACL_ERROR_REPEAT_FINALIZE,
                    "npu-sim: aclFinalizeReference without a matching aclInit",
                );
            }
            *r -= 1;
            *r
        };
        if !ref_count.is_null() {
            // SAFETY: checked non-null; valid for a write by contract.
            unsafe { *ref_count = left };
        }
        if left == 0 {
            return super::init::aclFinalize();
        }
        ACL_SUCCESS
    })
}
