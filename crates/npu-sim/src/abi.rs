//! The C ABI boundary: no `extern "C"` function of the simulator may
//! unwind or abort, whatever its arguments. Every exported body runs inside
//! [`guard`]; a panic there is a simulator bug, turned into the function's
//! failure status (or NULL), explained by `aclGetRecentErrMsg`, and counted
//! ([`crate::NpuSimStats::internal_errors`]) so tests and fuzzers see it.
//!
//! Also here, for every layer above to report through: the calling
//! thread's last error message (what `aclGetRecentErrMsg` returns), set by
//! [`fail`], [`fail_null`] and [`set_error`], all written by one formatter
//! ([`message`]) in CANN's format, keyed by the status code.

use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

static INTERNAL_ERRORS: AtomicU64 = AtomicU64::new(0);

/// Internal errors (caught panics) since the process started.
pub(crate) fn internal_errors() -> u64 {
    INTERNAL_ERRORS.load(Ordering::Relaxed)
}

/// Counts an internal error and describes it.
pub(crate) fn internal_error(api: &str, payload: &(dyn std::any::Any + Send)) -> String {
    INTERNAL_ERRORS.fetch_add(1, Ordering::Relaxed);
    let what = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    format!("npu-sim: {api}: internal error (a simulator bug): {what}")
}

/// The internal-error status of the exported function `api`: aclnn's
/// (`561000`) for the aclnn and meta API, the runtime's (`507000`) for the
/// rest.
fn internal_code(api: &str) -> i32 {
    let aclnn = [
        "aclnn",
        "aclCreate",
        "aclDestroy",
        "aclSet",
        "aclGetViewShape",
    ];
    if aclnn.iter().any(|p| api.starts_with(p)) {
        cann_sys::ACLNN_ERR_INNER
    } else {
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR
    }
}

/// Runs the body of the exported function `api`; a panic becomes
/// `on_panic` with the error message set.
pub(crate) fn guard<T>(api: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(p) => {
            let msg = internal_error(api, &*p);
            set_error(internal_code(api), msg);
            on_panic
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
    /// The thread's last runtime status (`aclrtGetLastError`), 0 if none.
    static LAST_CODE: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

/// Records `code` as the thread's last runtime error (what
/// `aclrtGetLastError` and `aclrtPeekAtLastError` answer): every failure
/// the runtime reports through [`fail`] / [`set_error`], but not aclnn's
/// statuses (`16xxxx`, `36xxxx`, `56xxxx`: the operator library's, not
/// the runtime's).
fn record_code(code: i32) {
    if code != 0 && !matches!(code / 10_000, 16 | 36 | 56) {
        LAST_CODE.with(|c| c.set(code));
    }
}

/// The thread's last runtime error code (0: none since it was last
/// taken); `take` clears it.
pub fn last_code(take: bool) -> i32 {
    LAST_CODE.with(|c| if take { c.replace(0) } else { c.get() })
}

/// Sets the thread's last runtime error code (restoring one a refused
/// query must not change).
pub fn set_last_code(code: i32) {
    LAST_CODE.with(|c| c.set(code));
}

/// Why a call failed, for [`message`].
#[derive(Clone, Debug)]
pub enum Reason<'a> {
    /// A required argument of `api` was NULL: CANN's own sentence for it,
    /// with the simulator's detail after it.
    Null {
        /// The failing function.
        api: &'a str,
        /// The argument's name in CANN's prototype (`self`).
        arg: &'a str,
        /// Its type as CANN's message names it (`aclTensor`).
        ty: &'a str,
    },
    /// The simulator's own text, naming the function and the rule broken
    /// (`"npu-sim: aclnnSlice: dim 2 is outside [-2, 1]"`).
    Text(&'a str),
}

/// The title and code CANN's error manager gives a status (the prefix of
/// its messages), and whether its message is the runtime's "The argument
/// is invalid" form.
///
/// - aclnn's statuses (`16xxxx`, `36xxxx`, `56xxxx`) by their first digit,
///   as opbase's `ReportErrorMessage` maps them (`op_log.h`:
///   `ERRNO_PREFIX_TO_ERROR_CODE`), with the titles of its error table
///   (`op_error_manager.cpp`): `AclNN_Parameter_Error(EZ1001)`,
///   `AclNN_Runtime_Error(EZ9903)`, `AclNN_Inner_Error(EZ9999)`.
/// - The runtime's (`acl_base_rt.h`, `rt_error_codes.h`), with the codes
///   of the runtime's error table (`error_code.json`, "RTS Errors"):
///   parameter errors (`1xxxxx`) `Invalid_Argument(EE1001)` ("The
///   argument is invalid. Reason: ..."), resource errors (`2xxxxx`,
///   `3xxxxx`) `Resource_Error(EE1023)`, internal and device errors
///   (`5xxxxx`) CANN's `EE9999: Inner Error!`.
fn cann_prefix(code: i32) -> &'static str {
    let aclnn = matches!(code / 10_000, 16 | 36 | 56);
    match (aclnn, code / 100_000) {
        (true, 1) => "AclNN_Parameter_Error(EZ1001): ",
        (true, 3) => "AclNN_Runtime_Error(EZ9903): ",
        (true, _) => "AclNN_Inner_Error(EZ9999): ",
        (false, 1) => "Invalid_Argument(EE1001): The argument is invalid. Reason: ",
        (false, 2 | 3) => "Resource_Error(EE1023): ",
        (false, _) => "EE9999: Inner Error! ",
    }
}

/// The text `aclGetRecentErrMsg` gives for a failure with status `code`:
/// CANN's format first (the error manager's `Title(Code): ` and CANN's
/// sentence where the simulator knows it), the simulator's detail after
/// it, in brackets:
///
/// ```text
/// AclNN_Parameter_Error(EZ1001): Expected a value of type [aclTensor] for argument [self] but instead found nullptr. [npu-sim: aclnnSliceGetWorkspaceSize: self is null]
/// AclNN_Parameter_Error(EZ1001): aclnnSlice: dim 2 is outside [-2, 1] [npu-sim]
/// Invalid_Argument(EE1001): The argument is invalid. Reason: aclrtMemcpy: count 64 exceeds destMax 32 [npu-sim]
/// EE9999: Inner Error! aclnnIndexSelect: self reads [...) (32 bytes): ... [npu-sim memcheck]
/// ```
///
/// Where CANN's message is free text (an operator's own rule), the
/// simulator's text stands in for it; the bracket then only names the
/// simulator part that wrote it (`npu-sim`, `npu-sim memcheck`).
pub fn message(code: i32, reason: Reason<'_>) -> String {
    let prefix = cann_prefix(code);
    match reason {
        Reason::Null { api, arg, ty } => format!(
            "{prefix}Expected a value of type [{ty}] for argument [{arg}] but instead found \
             nullptr. [npu-sim: {api}: {arg} is null]"
        ),
        Reason::Text(text) => {
            let (tag, body) = ["npu-sim memcheck", "npu-sim"]
                .iter()
                .find_map(|t| {
                    text.strip_prefix(t)
                        .and_then(|r| r.strip_prefix(": "))
                        .map(|r| (*t, r))
                })
                .unwrap_or(("npu-sim", text));
            format!("{prefix}{body} [{tag}]")
        }
    }
}

fn set_raw(mut s: String) {
    s.retain(|c| c != '\0');
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(CString::new(s).expect("NULs removed")));
}

/// Records the message `aclGetRecentErrMsg` returns on this thread for a
/// failure with status `code` (for calls that return no status: a NULL
/// handle) from the simulator's text ([`message`]).
pub fn set_error(code: i32, msg: impl Into<String>) {
    record_code(code);
    set_raw(message(code, Reason::Text(&msg.into())));
}

/// The message of this thread's last failure (valid until the next call
/// that fails on this thread), or NULL.
pub fn last_error_ptr() -> *const std::ffi::c_char {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
}

/// Records `msg` (the simulator's text: [`message`]) and returns `code`
/// (for `return fail(code, ...)`).
pub fn fail(code: i32, msg: impl Into<String>) -> i32 {
    set_error(code, msg);
    code
}

/// Records that argument `arg` (of CANN type `ty`) of `api` was NULL, in
/// CANN's words ([`Reason::Null`]), and returns `code`.
pub fn fail_null(code: i32, api: &str, arg: &str, ty: &str) -> i32 {
    record_code(code);
    set_raw(message(code, Reason::Null { api, arg, ty }));
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use cann_sys::*;

    #[test]
    fn messages_start_in_cann_s_format() {
        assert_eq!(
            message(
                ACLNN_ERR_PARAM_NULLPTR,
                Reason::Null {
                    api: "aclnnSliceGetWorkspaceSize",
                    arg: "self",
                    ty: "aclTensor"
                }
            ),
            "AclNN_Parameter_Error(EZ1001): Expected a value of type [aclTensor] for argument \
             [self] but instead found nullptr. [npu-sim: aclnnSliceGetWorkspaceSize: self is null]"
        );
        let text = |code, t| message(code, Reason::Text(t));
        assert_eq!(
            text(
                ACLNN_ERR_PARAM_INVALID,
                "npu-sim: aclnnSlice: step 0 must be positive"
            ),
            "AclNN_Parameter_Error(EZ1001): aclnnSlice: step 0 must be positive [npu-sim]"
        );
        assert!(text(ACLNN_ERR_RUNTIME_ERROR, "npu-sim: x")
            .starts_with("AclNN_Runtime_Error(EZ9903): x"));
        assert!(
            text(ACLNN_ERR_INNER_NULLPTR, "npu-sim: x").starts_with("AclNN_Inner_Error(EZ9999): x")
        );
        assert!(
            text(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "x").starts_with("AclNN_Inner_Error(EZ9999): ")
        );
        assert_eq!(
            text(ACL_ERROR_RT_PARAM_INVALID, "npu-sim: aclrtMemcpy: null pointer"),
            "Invalid_Argument(EE1001): The argument is invalid. Reason: aclrtMemcpy: null pointer [npu-sim]"
        );
        assert!(text(ACL_ERROR_INVALID_PARAM, "y").starts_with("Invalid_Argument(EE1001): "));
        assert!(text(ACL_ERROR_RT_MEMORY_ALLOCATION, "y").starts_with("Resource_Error(EE1023): "));
        assert_eq!(
            text(
                ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW,
                "npu-sim memcheck: aclnnSlice: bad"
            ),
            "EE9999: Inner Error! aclnnSlice: bad [npu-sim memcheck]"
        );
    }

    #[test]
    fn internal_errors_take_their_layer_s_code() {
        assert_eq!(internal_code("aclnnSlice"), ACLNN_ERR_INNER);
        assert_eq!(internal_code("aclCreateTensor"), ACLNN_ERR_INNER);
        assert_eq!(internal_code("aclrtMalloc"), ACL_ERROR_RT_INTERNAL_ERROR);
    }
}
