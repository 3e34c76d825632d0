//! The C ABI boundary: no `extern "C"` function of the simulator may
//! unwind or abort, whatever its arguments. Every exported body runs inside
//! [`guard`]; a panic there is a simulator bug, turned into the function's
//! failure status (or NULL), explained by `aclGetRecentErrMsg`, and counted
//! ([`crate::NpuSimStats::internal_errors`]) so tests and fuzzers see it.

use crate::state;
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
            state::set_error(msg);
            on_panic
        }
    }
}
