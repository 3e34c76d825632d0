//! Process snapshots (`aclrtSnapShotProcessLock`, `...Backup`,
//! `...Restore`, `...Unlock`, and the stage callbacks), an experimental
//! feature CANN documents for A2, A3 and 950PR.
//!
//! The process moves RUNNING → LOCKED (lock) → BACKED_UP (backup) →
//! LOCKED (restore) → RUNNING (unlock); unlock also goes from BACKED_UP.
//! A restore needs a lock and a backup taken in this runtime, not
//! necessarily under the same lock (CANN's example restores under a
//! second lock).
//! Locking drains every stream; a backup copies the bytes of every live
//! device allocation to the host, a restore writes them back into the
//! allocations that are still live (the last backup wins). The callbacks
//! of a stage run once per device with an `aclrtSetDevice` outstanding.
//! Other runtime calls are not blocked while locked. On the other SoC
//! families the process calls answer `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`.

use super::{lock, rt};
use crate::abi::fail;
use crate::memory::Allocation;
use crate::state;
use cann_sys::soc::Family;
use cann_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, Weak};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Running,
    Locked,
    BackedUp,
}

struct Snap {
    phase: Phase,
    /// The last backup (none taken yet: `None`): each allocation and its
    /// bytes.
    backup: Option<Vec<(Arc<Allocation>, Vec<u8>)>>,
    /// The runtime the phase belongs to (a new runtime starts RUNNING). A
    /// weak reference: it keeps the address from being reused by a later
    /// runtime.
    runtime: Weak<super::Runtime>,
}

static SNAP: Mutex<Snap> = Mutex::new(Snap {
    phase: Phase::Running,
    backup: None,
    runtime: Weak::new(),
});

/// Registered callbacks: stage, function address, argument address.
static CALLBACKS: Mutex<Vec<(u32, usize, usize)>> = Mutex::new(Vec::new());

/// The runtime and the phase (RUNNING for a runtime not seen before).
fn phase(api: &str) -> Result<(Arc<super::Runtime>, Phase), aclError> {
    let rt = rt()?;
    if !matches!(rt.config.family, Family::A2 | Family::A3) {
        return Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: snapshots are not supported on {} (CANN: A2, A3 and 950PR only)",
                rt.config.soc
            ),
        ));
    }
    let mut s = lock(&SNAP);
    if !std::ptr::eq(s.runtime.as_ptr(), Arc::as_ptr(&rt)) {
        s.runtime = Arc::downgrade(&rt);
        s.phase = Phase::Running;
        s.backup = None;
    }
    Ok((rt, s.phase))
}

fn wrong(api: &str, now: Phase, need: &str) -> aclError {
    fail(
        ACL_ERROR_INVALID_PARAM,
        format!("npu-sim: {api}: the process is {now:?}, it must be {need}"),
    )
}

/// Runs the callbacks of `stage` for each device in use; the first
/// non-zero answer fails the step.
fn run_stage(api: &str, rt: &super::Runtime, stage: aclrtSnapShotStage) -> Result<(), aclError> {
    let cbs: Vec<(usize, usize)> = lock(&CALLBACKS)
        .iter()
        .filter(|(s, _, _)| *s == stage.0)
        .map(|&(_, f, a)| (f, a))
        .collect();
    let devices: Vec<i32> = lock(&rt.set_counts)
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(d, _)| d as i32)
        .collect();
    for d in devices {
        for &(f, a) in &cbs {
            // SAFETY: registered as a non-null `aclrtSnapShotCallBack`.
            let f: unsafe extern "C" fn(i32, *mut c_void) -> u32 =
                unsafe { std::mem::transmute(f) };
            // SAFETY: the caller's callback with its own argument.
            let r = unsafe { f(d, a as *mut c_void) };
            if r != 0 {
                return Err(fail(
                    ACL_ERROR_INTERNAL_ERROR,
                    format!("npu-sim: {api}: a snapshot callback (stage {}) answered {r} for device {d}", stage.0),
                ));
            }
        }
    }
    Ok(())
}

fn set_phase(p: Phase) {
    lock(&SNAP).phase = p;
}

/// Every stream of every device, drained (faults are the streams' own).
fn drain_all(rt: &super::Runtime) {
    let mut streams: Vec<Arc<crate::stream::Stream>> =
        state::with_handles(|h| h.streams.values().cloned().collect());
    streams.extend(lock(&rt.default_streams).iter().flatten().cloned());
    for s in streams.iter().filter(|s| !s.building()) {
        let _ = s.synchronize();
    }
}

/// `aclrtSnapShotProcessLock`: RUNNING → LOCKED, after the
/// `ACL_RT_SNAPSHOT_LOCK_PRE` callbacks; every stream is drained. In
/// another phase `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotProcessLock() -> aclError {
    crate::abi::guard(
        "aclrtSnapShotProcessLock",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotProcessLock";
            let (rt, p) = match phase(api) {
                Ok(x) => x,
                Err(c) => return c,
            };
            if p != Phase::Running {
                return wrong(api, p, "Running");
            }
            if let Err(c) = run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_LOCK_PRE) {
                return c;
            }
            drain_all(&rt);
            set_phase(Phase::Locked);
            ACL_SUCCESS
        },
    )
}

/// `aclrtSnapShotProcessBackup`: LOCKED → BACKED_UP: copies every live
/// device allocation to the host, between the `BACKUP_PRE` and
/// `BACKUP_POST` callbacks. In another phase `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotProcessBackup() -> aclError {
    crate::abi::guard(
        "aclrtSnapShotProcessBackup",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotProcessBackup";
            let (rt, p) = match phase(api) {
                Ok(x) => x,
                Err(c) => return c,
            };
            if p != Phase::Locked {
                return wrong(api, p, "Locked");
            }
            if let Err(c) = run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_BACKUP_PRE) {
                return c;
            }
            drain_all(&rt);
            let mut backup = Vec::new();
            for m in &rt.memory {
                for a in lock(m).live_allocations() {
                    let mut bytes = vec![0u8; a.size as usize];
                    // SAFETY: the allocation is live (held by `a`) and spans
                    // `size` bytes from `base`; the streams are drained.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            a.host_ptr(a.base),
                            bytes.as_mut_ptr(),
                            bytes.len(),
                        )
                    };
                    backup.push((a, bytes));
                }
            }
            lock(&SNAP).backup = Some(backup);
            if let Err(c) = run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_BACKUP_POST) {
                return c;
            }
            set_phase(Phase::BackedUp);
            ACL_SUCCESS
        },
    )
}

/// `aclrtSnapShotProcessRestore`: LOCKED or BACKED_UP → LOCKED: writes
/// the last backup back into the allocations still live, between the
/// `RESTORE_PRE` and `RESTORE_POST` callbacks. While RUNNING, or with no
/// backup taken, `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotProcessRestore() -> aclError {
    crate::abi::guard(
        "aclrtSnapShotProcessRestore",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotProcessRestore";
            let (rt, p) = match phase(api) {
                Ok(x) => x,
                Err(c) => return c,
            };
            if p == Phase::Running || lock(&SNAP).backup.is_none() {
                // CANN's example restores under a later lock, from the backup
                // of an earlier one.
                return wrong(api, p, "Locked or BackedUp, after a backup");
            }
            if let Err(c) = run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_RESTORE_PRE) {
                return c;
            }
            drain_all(&rt);
            let snap = lock(&SNAP);
            for (a, bytes) in snap.backup.iter().flatten() {
                if !a.freed.load(std::sync::atomic::Ordering::Acquire) {
                    // SAFETY: a live allocation of `bytes.len()` bytes; the
                    // streams are drained.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            bytes.as_ptr(),
                            a.host_ptr(a.base),
                            bytes.len(),
                        )
                    };
                }
            }
            drop(snap);
            if let Err(c) = run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_RESTORE_POST) {
                return c;
            }
            set_phase(Phase::Locked);
            ACL_SUCCESS
        },
    )
}

/// `aclrtSnapShotProcessUnlock`: LOCKED or BACKED_UP → RUNNING, then the
/// `UNLOCK_POST` callbacks. While RUNNING `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotProcessUnlock() -> aclError {
    crate::abi::guard(
        "aclrtSnapShotProcessUnlock",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotProcessUnlock";
            let (rt, p) = match phase(api) {
                Ok(x) => x,
                Err(c) => return c,
            };
            if p == Phase::Running {
                return wrong(api, p, "Locked or BackedUp");
            }
            set_phase(Phase::Running);
            match run_stage(api, &rt, aclrtSnapShotStage::ACL_RT_SNAPSHOT_UNLOCK_POST) {
                Ok(()) => ACL_SUCCESS,
                Err(c) => c,
            }
        },
    )
}

fn stage_ok(api: &str, stage: aclrtSnapShotStage) -> Result<(), aclError> {
    if stage.0 <= 5 {
        Ok(())
    } else {
        Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: {} is not an aclrtSnapShotStage", stage.0),
        ))
    }
}

/// `aclrtSnapShotCallbackRegister`: `callback` runs at `stage`. NULL, a
/// stage out of range, or the same callback twice for a stage ("not
/// supported": no duplicate registration) `ACL_ERROR_INVALID_PARAM`. No
/// `aclInit` needed.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotCallbackRegister(
    stage: aclrtSnapShotStage,
    callback: aclrtSnapShotCallBack,
    args: *mut c_void,
) -> aclError {
    crate::abi::guard(
        "aclrtSnapShotCallbackRegister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotCallbackRegister";
            if let Err(c) = stage_ok(api, stage) {
                return c;
            }
            let Some(f) = callback.map(|f| f as usize) else {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: the callback is NULL"),
                );
            };
            let mut cbs = lock(&CALLBACKS);
            if cbs.iter().any(|&(s, g, _)| s == stage.0 && g == f) {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {api}: this callback is already registered for stage {}",
                        stage.0
                    ),
                );
            }
            cbs.push((stage.0, f, args as usize));
            ACL_SUCCESS
        },
    )
}

/// `aclrtSnapShotCallbackUnregister`: removes it. NULL, a stage out of
/// range, or not registered `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSnapShotCallbackUnregister(
    stage: aclrtSnapShotStage,
    callback: aclrtSnapShotCallBack,
) -> aclError {
    crate::abi::guard(
        "aclrtSnapShotCallbackUnregister",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtSnapShotCallbackUnregister";
            if let Err(c) = stage_ok(api, stage) {
                return c;
            }
            let Some(f) = callback.map(|f| f as usize) else {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!("npu-sim: {api}: the callback is NULL"),
                );
            };
            let mut cbs = lock(&CALLBACKS);
            match cbs.iter().position(|&(s, g, _)| s == stage.0 && g == f) {
                Some(i) => {
                    cbs.remove(i);
                    ACL_SUCCESS
                }
                None => fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: {api}: this callback is not registered for stage {}",
                        stage.0
                    ),
                ),
            }
        },
    )
}
