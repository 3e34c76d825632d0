//! The C ABI boundary: no `extern "C"` function of the simulator may
//! unwind or abort, whatever its arguments. Every exported body runs inside
//! [`guard`]; a panic there is a simulator bug, turned into the function's
//! failure status (or NULL), explained by `aclGetRecentErrMsg`, and counted
//! ([`crate::NpuSimStats::internal_errors`]) so tests and fuzzers see it.
//!
//! Also here, for every layer above to report through: the calling
//! thread's last error message (what `aclGetRecentErrMsg` returns), set by
//! [`fail`] and [`set_error`].

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

/// Runs the body of the exported function `api`; a panic becomes
/// `on_panic` with the error message set.
pub(crate) fn guard<T>(api: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(p) => {
            let msg = internal_error(api, &*p);
            set_error(msg);
            on_panic
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Records the message `aclGetRecentErrMsg` returns on this thread.
pub fn set_error(msg: impl Into<String>) {
    let mut s: String = msg.into();
    s.retain(|c| c != '\0');
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(CString::new(s).expect("NULs removed")));
}

/// The message of this thread's last failure (valid until the next call
/// that fails on this thread), or NULL.
pub fn last_error_ptr() -> *const std::ffi::c_char {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
}

/// Records `msg` and returns `code` (for `return fail(code, ...)`).
pub fn fail(code: i32, msg: impl Into<String>) -> i32 {
    set_error(msg);
    code
}
