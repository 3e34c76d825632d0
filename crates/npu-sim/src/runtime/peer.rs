//! Peer access between the simulated devices (`acl_rt.h`):
//! `aclrtDeviceCanAccessPeer`, `aclrtDeviceEnablePeerAccess`,
//! `aclrtDeviceDisablePeerAccess`.
//!
//! Every pair of distinct simulated devices can access each other (they
//! share one host). Which links are enabled is kept, per runtime, as
//! (current device, peer) pairs; copies between devices do not require an
//! enabled link (the safe layer copies across devices without one), a
//! documented difference.

use super::{lock, rt, rt_device};
use crate::abi::fail;
use crate::state::Runtime;
use cann_sys::*;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};

/// The enabled links of one runtime: a later runtime starts with none.
struct Links {
    runtime: Weak<Runtime>,
    enabled: HashSet<(u32, u32)>,
}

static LINKS: Mutex<Option<Links>> = Mutex::new(None);

fn with_links<R>(rt: &Arc<Runtime>, f: impl FnOnce(&mut HashSet<(u32, u32)>) -> R) -> R {
    let mut g = lock(&LINKS);
    let fresh = !matches!(&*g, Some(l) if l.runtime.upgrade().is_some_and(|r| Arc::ptr_eq(&r, rt)));
    if fresh {
        *g = Some(Links {
            runtime: Arc::downgrade(rt),
            enabled: HashSet::new(),
        });
    }
    f(&mut g.as_mut().expect("set above").enabled)
}

/// Whether `from` has enabled access to `to` (for tests and queries).
pub fn peer_access_enabled(from: u32, to: u32) -> bool {
    crate::state::runtime().is_some_and(|rt| with_links(&rt, |l| l.contains(&(from, to))))
}

fn device(rt: &Runtime, id: i32, api: &str, what: &str) -> Result<u32, i32> {
    match u32::try_from(id) {
        Ok(d) if d < rt.config.devices => Ok(d),
        _ => Err(fail(
            ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "npu-sim: {api}: {what} {id} does not exist ({} device(s))",
                rt.config.devices
            ),
        )),
    }
}

/// `aclrtDeviceCanAccessPeer(&canAccessPeer, deviceId, peerDeviceId)`: 1
/// for any two distinct simulated devices. Needs `aclInit`; a device that
/// does not exist `ACL_ERROR_RT_INVALID_DEVICEID`; the same device twice or
/// a NULL output `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `can_access_peer` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtDeviceCanAccessPeer(
    can_access_peer: *mut i32,
    device_id: i32,
    peer_device_id: i32,
) -> aclError {
    const API: &str = "aclrtDeviceCanAccessPeer";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if can_access_peer.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: null output pointer"),
            );
        }
        let rt = match rt() {
            Ok(r) => r,
            Err(c) => return c,
        };
        let r = device(&rt, device_id, API, "device")
            .and_then(|d| Ok((d, device(&rt, peer_device_id, API, "peer device")?)));
        match r {
            Ok((d, p)) if d == p => fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: deviceId and peerDeviceId are both {d}: give two devices"),
            ),
            Ok(_) => {
                // SAFETY: checked non-null.
                unsafe { *can_access_peer = 1 };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtDeviceEnablePeerAccess(peerDeviceId, flags)`: the calling
/// thread's device may access `peerDeviceId`'s memory from now on (until
/// disabled or `aclFinalize`). Enabling a link enabled already succeeds.
/// `flags` is reserved and must be 0, and the peer must be another device
/// (`ACL_ERROR_INVALID_PARAM`); a peer that does not exist
/// `ACL_ERROR_RT_INVALID_DEVICEID`; no device on the thread
/// `ACL_ERROR_RT_CONTEXT_NULL`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDeviceEnablePeerAccess(peer_device_id: i32, flags: u32) -> aclError {
    const API: &str = "aclrtDeviceEnablePeerAccess";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if flags != 0 {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {API}: flags {flags:#x} is reserved and must be 0"),
            );
        }
        match link(API, peer_device_id) {
            Ok((rt, d, p)) => {
                with_links(&rt, |l| l.insert((d, p)));
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtDeviceDisablePeerAccess(peerDeviceId)`: the calling thread's
/// device no longer accesses `peerDeviceId`. Disabling a link that is not
/// enabled succeeds (nothing to undo). The peer must be another device
/// that exists, the thread must have a device, as for enabling.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDeviceDisablePeerAccess(peer_device_id: i32) -> aclError {
    const API: &str = "aclrtDeviceDisablePeerAccess";
    crate::abi::guard(API, ACL_ERROR_RT_INTERNAL_ERROR, || {
        match link(API, peer_device_id) {
            Ok((rt, d, p)) => {
                with_links(&rt, |l| l.remove(&(d, p)));
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// The runtime, the calling thread's device and the peer, checked.
fn link(api: &str, peer_device_id: i32) -> Result<(Arc<Runtime>, u32, u32), i32> {
    let (rt, d) = rt_device()?;
    let p = device(&rt, peer_device_id, api, "peer device")?;
    if p == d {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("npu-sim: {api}: peer device {p} is the calling thread's own device"),
        ));
    }
    Ok((rt, d, p))
}
