//! Operator timeouts (`aclrtGetOpTimeOutInterval`,
//! `aclrtSetOpExecuteTimeOut`, `aclrtSetOpExecuteTimeOutV2`,
//! `aclrtGetOpExecuteTimeout`, `aclrtSetOpWaitTimeout`) and
//! `aclrtSynchronizeDeviceWithTimeout`.
//!
//! The operator timeouts are process-wide settings, aligned as CANN's
//! execution-control reference describes for A2, A3 and 950: a multiple of
//! the hardware interval, at most 254 of them, 0 meaning the maximum. The
//! simulator's operators run to completion on the host and never time
//! out: the settings are recorded and answered, not enforced.

use super::{lock, report, rt_device};
use crate::abi::fail;
use crate::state;
use crate::stream::Stream;
use cann_sys::*;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hardware's timeout interval, in microseconds (2^32 ns: 254 of them
/// are the 1091 s CANN documents as the AI Core default).
pub const OP_TIMEOUT_INTERVAL_US: u64 = 4_294_967;
/// The most intervals a timeout can span.
const MAX_INTERVALS: u64 = 254;

/// The operator execute timeout in effect (µs), the event-wait timeout (s).
struct Timeouts {
    execute_us: u64,
    wait_s: u32,
}

static TIMEOUTS: Mutex<Timeouts> = Mutex::new(Timeouts {
    execute_us: OP_TIMEOUT_INTERVAL_US * MAX_INTERVALS,
    wait_s: 0,
});

/// `us` as the hardware takes it: rounded up to whole intervals, at least
/// one, at most 254; 0 is the maximum.
fn align(us: u64) -> u64 {
    if us == 0 {
        return OP_TIMEOUT_INTERVAL_US * MAX_INTERVALS;
    }
    us.div_ceil(OP_TIMEOUT_INTERVAL_US).clamp(1, MAX_INTERVALS) * OP_TIMEOUT_INTERVAL_US
}

/// `aclrtGetOpTimeOutInterval`: the interval (µs) timeouts are multiples
/// of. No `aclInit` needed. NULL `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `interval` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetOpTimeOutInterval(interval: *mut u64) -> aclError {
    crate::abi::guard(
        "aclrtGetOpTimeOutInterval",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if interval.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetOpTimeOutInterval: null output pointer",
                );
            }
            // SAFETY: checked non-null; valid for a write by contract.
            unsafe { *interval = OP_TIMEOUT_INTERVAL_US };
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetOpExecuteTimeOut`: the operator execute timeout, in seconds
/// (0: the maximum), aligned to the interval; the last call wins.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetOpExecuteTimeOut(timeout: u32) -> aclError {
    crate::abi::guard(
        "aclrtSetOpExecuteTimeOut",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            lock(&TIMEOUTS).execute_us = align(u64::from(timeout) * 1_000_000);
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetOpExecuteTimeOutV2`: the operator execute timeout in
/// microseconds (0: the maximum), aligned to the interval; the timeout in
/// effect is written to `actual_timeout`. NULL `ACL_ERROR_INVALID_PARAM`,
/// nothing set.
///
/// # Safety
/// `actual_timeout` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtSetOpExecuteTimeOutV2(
    timeout: u64,
    actual_timeout: *mut u64,
) -> aclError {
    crate::abi::guard(
        "aclrtSetOpExecuteTimeOutV2",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if actual_timeout.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtSetOpExecuteTimeOutV2: null output pointer",
                );
            }
            let us = align(timeout);
            lock(&TIMEOUTS).execute_us = us;
            // SAFETY: checked non-null; valid for a write by contract.
            unsafe { *actual_timeout = us };
            ACL_SUCCESS
        },
    )
}

/// `aclrtGetOpExecuteTimeout`: the timeout in effect, in milliseconds
/// (rounded down); before any set, the default (the maximum, 1091 s).
///
/// # Safety
/// `timeout_ms` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetOpExecuteTimeout(timeout_ms: *mut u32) -> aclError {
    crate::abi::guard(
        "aclrtGetOpExecuteTimeout",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if timeout_ms.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtGetOpExecuteTimeout: null output pointer",
                );
            }
            let ms = lock(&TIMEOUTS).execute_us / 1000;
            // SAFETY: checked non-null; valid for a write by contract.
            unsafe { *timeout_ms = u32::try_from(ms).unwrap_or(u32::MAX) };
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetOpWaitTimeout`: the event-wait timeout, in seconds (0: never),
/// recorded. The simulator's event waits end when the record runs (or the
/// stream is torn down), so the setting is not needed to avoid a hang.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetOpWaitTimeout(timeout: u32) -> aclError {
    crate::abi::guard("aclrtSetOpWaitTimeout", ACL_ERROR_RT_INTERNAL_ERROR, || {
        lock(&TIMEOUTS).wait_s = timeout;
        ACL_SUCCESS
    })
}

/// The event-wait timeout set by `aclrtSetOpWaitTimeout` (s; 0: never).
pub fn op_wait_timeout() -> u32 {
    lock(&TIMEOUTS).wait_s
}

/// `aclrtSynchronizeDeviceWithTimeout`: as `aclrtSynchronizeDevice`, but
/// gives up once `timeout` milliseconds have passed (-1: never) with
/// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`, the work still queued. Other
/// values `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError {
    crate::abi::guard(
        "aclrtSynchronizeDeviceWithTimeout",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let deadline = match timeout {
                -1 => None,
                t if t > 0 => Some(Instant::now() + Duration::from_millis(t as u64)),
                t => {
                    return fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!(
                            "npu-sim: aclrtSynchronizeDeviceWithTimeout: timeout {t} must be -1 or > 0 (ms)"
                        ),
                    )
                }
            };
            let (rt, dev) = match rt_device() {
                Ok(x) => x,
                Err(c) => return c,
            };
            let mut streams: Vec<Arc<Stream>> = state::with_handles(|h| {
                h.streams
                    .values()
                    .filter(|s| s.device == dev)
                    .cloned()
                    .collect()
            });
            streams.extend(lock(&rt.default_streams)[dev as usize].clone());
            streams.retain(|s| !s.building());
            for s in &streams {
                if let Err(c) =
                    super::stream::not_capturing("aclrtSynchronizeDeviceWithTimeout", s.clone())
                {
                    return c;
                }
            }
            let mut first = Ok(());
            for s in streams {
                let limit = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                // A deadline already passed still checks the stream once.
                let limit = limit.map(|l| l.max(Duration::from_millis(1)));
                match s.synchronize_within(limit) {
                    Ok(()) => {}
                    Err(f) if f.code == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT => {
                        return fail(
                            f.code,
                            format!(
                                "npu-sim: aclrtSynchronizeDeviceWithTimeout: device {dev}'s work did not finish within {timeout} ms (it stays queued)"
                            ),
                        )
                    }
                    Err(f) => {
                        if first.is_ok() {
                            first = Err(f);
                        }
                    }
                }
            }
            match first {
                Ok(()) => ACL_SUCCESS,
                Err(f) => report(f),
            }
        },
    )
}
