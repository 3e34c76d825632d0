//! Compute groups (`aclrtGetGroupCount`, `aclrtCreateGroupInfo`,
//! `aclrtGetAllGroupInfo`, `aclrtGetGroupInfoDetail`, `aclrtSetGroup`,
//! `aclrtDestroyGroupInfo`).
//!
//! A group is a partition of a device's compute (AI Cores, vector cores,
//! AI CPU threads, copy channels, concurrently scheduled streams) that a
//! context's work can be confined to. CANN's reference marks the calls
//! unsupported on A2, A3 and 950: on those SoCs (the simulator's A2 and A3
//! families) every call answers `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`
//! (`aclrtCreateGroupInfo` NULL). On the other families the simulated
//! device has one group, ID 0, holding the whole device; selecting it
//! changes nothing.

use super::{lock, rt_device};
use crate::abi::fail;
use cann_sys::soc::Family;
use cann_sys::*;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// A group's attributes, in `aclrtGroupAttr` order.
type Attrs = [i32; 6];

/// The live `aclrtGroupInfo` blocks (by address): the groups read into
/// each by `aclrtGetAllGroupInfo`.
static INFOS: Mutex<Option<HashMap<usize, Vec<Attrs>>>> = Mutex::new(None);

thread_local! {
    /// The group `aclrtSetGroup` selected on this thread (-1: none).
    static CURRENT_GROUP: Cell<i32> = const { Cell::new(-1) };
}

/// The device's groups, or the status for a SoC without them.
fn groups(api: &str) -> Result<Vec<Attrs>, aclError> {
    let (rt, _) = rt_device()?;
    if matches!(rt.config.family, Family::A2 | Family::A3) {
        return Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "npu-sim: {api}: compute groups are not supported on {} (CANN: not on A2, A3 or 950)",
                rt.config.soc
            ),
        ));
    }
    let (cube, vector) = super::query::cores(&rt.config.soc, rt.config.family);
    // AI Cores, vector cores, AI CPU threads, copy channels, streams
    // scheduled at once (CANN: at most 32), the ID.
    Ok(vec![[cube as i32, vector as i32, 4, 4, 32, 0]])
}

/// `aclrtGetGroupCount`: the groups of the current context's device (1).
///
/// # Safety
/// `count` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetGroupCount(count: *mut u32) -> aclError {
    crate::abi::guard("aclrtGetGroupCount", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if count.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtGetGroupCount: null output pointer",
            );
        }
        match groups("aclrtGetGroupCount") {
            Ok(g) => {
                // SAFETY: checked non-null; valid for a write by contract.
                unsafe { *count = g.len() as u32 };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtCreateGroupInfo`: a block for the device's groups, to fill with
/// `aclrtGetAllGroupInfo`; NULL where groups are not supported or without
/// a device (the reason in `aclGetRecentErrMsg`).
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtCreateGroupInfo() -> *mut aclrtGroupInfo {
    crate::abi::guard("aclrtCreateGroupInfo", std::ptr::null_mut(), || {
        if groups("aclrtCreateGroupInfo").is_err() {
            return std::ptr::null_mut();
        }
        // A real allocation, so that the address is unique while live.
        let p = Box::into_raw(Box::new(0u64)) as usize;
        lock(&INFOS)
            .get_or_insert_with(HashMap::new)
            .insert(p, Vec::new());
        p as *mut aclrtGroupInfo
    })
}

/// `aclrtDestroyGroupInfo`: frees a block. NULL or not a live block
/// `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtDestroyGroupInfo(group_info: *mut aclrtGroupInfo) -> aclError {
    crate::abi::guard("aclrtDestroyGroupInfo", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let k = group_info as usize;
        let removed = lock(&INFOS).as_mut().and_then(|m| m.remove(&k));
        if removed.is_none() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclrtDestroyGroupInfo: {group_info:p} is not a live aclrtGroupInfo"
                ),
            );
        }
        // SAFETY: made by Box::into_raw in aclrtCreateGroupInfo and removed
        // from the registry above, so freed once.
        drop(unsafe { Box::from_raw(k as *mut u64) });
        ACL_SUCCESS
    })
}

/// `aclrtGetAllGroupInfo`: reads the device's groups into the block. Not a
/// live block `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtGetAllGroupInfo(group_info: *mut aclrtGroupInfo) -> aclError {
    crate::abi::guard("aclrtGetAllGroupInfo", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let g = match groups("aclrtGetAllGroupInfo") {
            Ok(g) => g,
            Err(c) => return c,
        };
        match lock(&INFOS)
            .as_mut()
            .and_then(|m| m.get_mut(&(group_info as usize)))
        {
            Some(slot) => {
                *slot = g;
                ACL_SUCCESS
            }
            None => fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclrtGetAllGroupInfo: {group_info:p} is not a live aclrtGroupInfo"
                ),
            ),
        }
    })
}

/// `aclrtGetGroupInfoDetail`: one attribute (an `int32_t`) of group
/// `group_index` of the block; `param_ret_size` gets 4. A block not live
/// or not filled, an index out of range, another attribute, NULL outputs
/// or `value_len` below 4 `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `attr_value` is null or valid for `value_len` bytes of writes;
/// `param_ret_size` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetGroupInfoDetail(
    group_info: *const aclrtGroupInfo,
    group_index: i32,
    attr: aclrtGroupAttr,
    attr_value: *mut c_void,
    value_len: usize,
    param_ret_size: *mut usize,
) -> aclError {
    crate::abi::guard(
        "aclrtGetGroupInfoDetail",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let api = "aclrtGetGroupInfoDetail";
            if let Err(c) = groups(api) {
                return c;
            }
            let bad = |m: String| fail(ACL_ERROR_INVALID_PARAM, format!("npu-sim: {api}: {m}"));
            if attr_value.is_null() || param_ret_size.is_null() {
                return bad("null output pointer".into());
            }
            if value_len < 4 {
                return bad(format!("valueLen {value_len} is below 4 (an int32_t)"));
            }
            let Some(a) = usize::try_from(attr.0).ok().filter(|&a| a < 6) else {
                return bad(format!("{} is not an aclrtGroupAttr", attr.0));
            };
            let infos = lock(&INFOS);
            let Some(g) = infos.as_ref().and_then(|m| m.get(&(group_info as usize))) else {
                return bad(format!("{group_info:p} is not a live aclrtGroupInfo"));
            };
            let Some(group) = usize::try_from(group_index).ok().and_then(|i| g.get(i)) else {
                return bad(format!(
                    "group index {group_index} is not in [0, {}) (aclrtGetAllGroupInfo first)",
                    g.len()
                ));
            };
            // SAFETY: checked non-null; at least 4 writable bytes by contract.
            unsafe {
                (attr_value as *mut i32).write_unaligned(group[a]);
                *param_ret_size = 4;
            }
            ACL_SUCCESS
        },
    )
}

/// `aclrtSetGroup`: selects the group for the calling thread's work (no
/// effect: the one group is the whole device). Not a group ID
/// `ACL_ERROR_INVALID_PARAM`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclrtSetGroup(group_id: i32) -> aclError {
    crate::abi::guard("aclrtSetGroup", ACL_ERROR_RT_INTERNAL_ERROR, || {
        let g = match groups("aclrtSetGroup") {
            Ok(g) => g,
            Err(c) => return c,
        };
        if !g.iter().any(|a| a[5] == group_id) {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: aclrtSetGroup: {group_id} is not a group ID of the device"),
            );
        }
        CURRENT_GROUP.with(|c| c.set(group_id));
        ACL_SUCCESS
    })
}
