//! Notifies (`aclrtCreateNotify`, `aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify`, ...): a flag on the device, set by a record
//! task on one stream and consumed by a wait task on another, which blocks
//! its stream until the flag is set and then clears it.
//!
//! A wait is a gate in the waiting stream ([`crate::stream::Hold`]),
//! queued at once and registered with the notify: the record task that
//! comes next in device order (or a record already reached) opens it. A
//! stream torn down opens its gates, and a destroyed notify opens its
//! waiters', so no wait outlives them: teardown never hangs.

use super::{lock, rt, stream_of};
use crate::abi::fail;
use crate::state;
use crate::stream::{Hold, TaskKind};
use crate::work::Fault;
use cann_sys::*;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// One waiting stream's gate and whether it gave up (its timeout).
struct Waiter {
    hold: Hold,
    timed_out: Arc<AtomicBool>,
    id: u64,
}

#[derive(Default)]
struct Flag {
    set: bool,
    waiters: VecDeque<Waiter>,
    next_waiter: u64,
}

/// A notify.
struct Notify {
    /// The runtime it belongs to (its handles are stale after
    /// `aclFinalize`). A weak reference: it keeps the address from being
    /// reused by a later runtime.
    runtime: Weak<super::Runtime>,
    id: u32,
    flag: Mutex<Flag>,
}

impl Notify {
    /// The record task: opens the first waiter's gate, else sets the flag.
    fn record(&self) {
        let mut f = lock(&self.flag);
        match f.waiters.pop_front() {
            Some(w) => w.hold.release(),
            None => f.set = true,
        }
    }
}

static NOTIFIES: Mutex<Option<HashMap<usize, Arc<Notify>>>> = Mutex::new(None);
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

fn same_runtime(n: &Notify, rt: &Arc<super::Runtime>) -> bool {
    std::ptr::eq(n.runtime.as_ptr(), Arc::as_ptr(rt))
}

fn notify_of(api: &str, n: aclrtNotify) -> Result<Arc<Notify>, aclError> {
    let rt = rt()?;
    lock(&NOTIFIES)
        .as_ref()
        .and_then(|m| m.get(&(n as usize)).cloned())
        .filter(|x| same_runtime(x, &rt))
        .ok_or_else(|| {
            fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {api}: {n:p} is not a live notify (never created, destroyed, or from before aclFinalize)"),
            )
        })
}

/// `aclrtCreateNotify`: a notify of the calling thread's device, its flag
/// clear. `flag` is `ACL_NOTIFY_DEFAULT` or `ACL_NOTIFY_DEVICE_USE_ONLY`
/// (recorded, no difference here); other bits or NULL
/// `ACL_ERROR_INVALID_PARAM`; no device `ACL_ERROR_RT_CONTEXT_NULL`.
///
/// # Safety
/// `notify` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtCreateNotify(notify: *mut aclrtNotify, flag: u64) -> aclError {
    crate::abi::guard("aclrtCreateNotify", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if notify.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtCreateNotify: null output pointer",
            );
        }
        if flag & !(ACL_NOTIFY_DEVICE_USE_ONLY as u64) != 0 {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: aclrtCreateNotify: flag {flag:#x} is not ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY"),
            );
        }
        let (rt, _dev) = match super::rt_device() {
            Ok(x) => x,
            Err(c) => return c,
        };
        let h = state::new_handle();
        let n = Notify {
            runtime: Arc::downgrade(&rt),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            flag: Mutex::new(Flag::default()),
        };
        let mut all = lock(&NOTIFIES);
        let m = all.get_or_insert_with(HashMap::new);
        // Those of an earlier runtime are stale: forgotten.
        m.retain(|_, x| same_runtime(x, &rt));
        m.insert(h, Arc::new(n));
        drop(all);
        // SAFETY: checked non-null; valid for a write by contract.
        unsafe { *notify = h as aclrtNotify };
        ACL_SUCCESS
    })
}

/// `aclrtDestroyNotify`: the handle becomes stale; streams waiting on it
/// go on (their gates open). Not a live notify `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyNotify(notify: aclrtNotify) -> aclError {
    crate::abi::guard("aclrtDestroyNotify", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let n = match notify_of("aclrtDestroyNotify", notify) {
            Ok(n) => n,
            Err(c) => return c,
        };
        if let Some(m) = lock(&NOTIFIES).as_mut() {
            m.remove(&(notify as usize));
        }
        // Dropping the holds opens the gates.
        let waiters = std::mem::take(&mut lock(&n.flag).waiters);
        drop(waiters);
        ACL_SUCCESS
    })
}

fn stream_for(api: &str, stream: aclrtStream) -> Result<Arc<crate::stream::Stream>, aclError> {
    let rt = rt()?;
    let s = stream_of(&rt, state::current_device(), stream)?;
    super::stream::not_capturing(api, s)
}

/// `aclrtRecordNotify`: queues on `stream` a task that sets the flag (or
/// releases the first stream waiting on it). Not a live notify
/// `ACL_ERROR_INVALID_PARAM`; a stream not live
/// `ACL_ERROR_RT_INVALID_HANDLE`; a stream being captured is refused as
/// for a synchronisation.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtRecordNotify(notify: aclrtNotify, stream: aclrtStream) -> aclError {
    crate::abi::guard("aclrtRecordNotify", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let api = "aclrtRecordNotify";
        let r = notify_of(api, notify).and_then(|n| stream_for(api, stream).map(|s| (n, s)));
        match r {
            Ok((n, s)) => {
                s.enqueue(TaskKind::Sync, move || {
                    n.record();
                    Ok(())
                });
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtWaitAndResetNotify`: later work on `stream` waits until the flag
/// is set (by a record already reached, or the next one), which the wait
/// consumes (clears). `timeout` in seconds, 0 for ever: past it the stream
/// goes on, faulted with `ACL_ERROR_RT_WAIT_TIMEOUT` (what its
/// synchronisation reports). Errors as `aclrtRecordNotify`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtWaitAndResetNotify(
    notify: aclrtNotify,
    stream: aclrtStream,
    timeout: u32,
) -> aclError {
    crate::abi::guard(
        "aclrtWaitAndResetNotify",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtWaitAndResetNotify";
            let (n, s) = match notify_of(api, notify)
                .and_then(|n| stream_for(api, stream).map(|s| (n, s)))
            {
                Ok(x) => x,
                Err(c) => return c,
            };
            let timed_out = Arc::new(AtomicBool::new(false));
            let hold = s.hold();
            let id = {
                let mut f = lock(&n.flag);
                if f.set && f.waiters.is_empty() {
                    f.set = false;
                    hold.release();
                    None
                } else {
                    let id = f.next_waiter;
                    f.next_waiter += 1;
                    f.waiters.push_back(Waiter {
                        hold,
                        timed_out: timed_out.clone(),
                        id,
                    });
                    Some(id)
                }
            };
            if let (Some(id), true) = (id, timeout > 0) {
                let weak = Arc::downgrade(&n);
                let limit = Duration::from_secs(u64::from(timeout));
                std::thread::spawn(move || {
                    std::thread::sleep(limit);
                    if let Some(n) = weak.upgrade() {
                        let mut f = lock(&n.flag);
                        if let Some(i) = f.waiters.iter().position(|w| w.id == id) {
                            if let Some(w) = f.waiters.remove(i) {
                                w.timed_out.store(true, Ordering::Release);
                            }
                        }
                    }
                });
            }
            let notify_id = n.id;
            s.enqueue(TaskKind::Sync, move || {
            if timed_out.load(Ordering::Acquire) {
                return Err(Fault {
                    code: ACL_ERROR_RT_WAIT_TIMEOUT,
                    message: format!(
                        "npu-sim: aclrtWaitAndResetNotify: notify {notify_id} was not recorded within {timeout} s"
                    ),
                });
            }
            Ok(())
        });
            ACL_SUCCESS
        },
    )
}

/// `aclrtGetNotifyId`: the notify's ID (unique in the process, the same on
/// every call). Not a live notify or NULL `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `notify_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetNotifyId(notify: aclrtNotify, notify_id: *mut u32) -> aclError {
    crate::abi::guard("aclrtGetNotifyId", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if notify_id.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtGetNotifyId: null output pointer",
            );
        }
        match notify_of("aclrtGetNotifyId", notify) {
            Ok(n) => {
                // SAFETY: checked non-null; valid for a write by contract.
                unsafe { *notify_id = n.id };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtNotifyBatchReset`: clears the flags of `num` notifies now (a
/// record reached but not yet waited for no longer counts). All are
/// checked first: NULL array with `num` > 0, or one not live,
/// `ACL_ERROR_INVALID_PARAM` and none is reset.
///
/// # Safety
/// `notifies` is null or valid for `num` reads.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtNotifyBatchReset(notifies: *mut aclrtNotify, num: usize) -> aclError {
    crate::abi::guard("aclrtNotifyBatchReset", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if num == 0 {
            return ACL_SUCCESS;
        }
        if notifies.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtNotifyBatchReset: null array",
            );
        }
        // SAFETY: non-null and valid for `num` reads by contract.
        let hs = unsafe { std::slice::from_raw_parts(notifies, num) };
        let mut all = Vec::with_capacity(num);
        for &h in hs {
            match notify_of("aclrtNotifyBatchReset", h) {
                Ok(n) => all.push(n),
                Err(c) => return c,
            }
        }
        for n in all {
            lock(&n.flag).set = false;
        }
        ACL_SUCCESS
    })
}
