//! Tensor and scalar lists of the aclnn meta API (`libnnopbase.so`,
//! `aclnn/acl_meta.h`), simulated: what Cat, Stack, Split and Index take.
//!
//! CANN's contract (aclCreateTensorList / aclDestroyTensorList reference):
//! a list is made of `size > 0` objects created beforehand, and destroying
//! the list destroys its members ("the aclTensor in the aclTensorList does
//! not need to be destroyed again"). The simulator holds members by handle,
//! so what would be a double free or a dangling member on the device (a
//! member destroyed on its own, a member of two lists, one object twice in
//! a list) is reported with a status and a message instead.

use crate::abi::{fail, fail_null, guard, set_error};
use crate::state;
use cann_sys::*;
use std::ptr::null_mut;

/// Most members a list may have (as for int arrays).
const MAX_MEMBERS: u64 = 1 << 24;

/// Which registry a list and its members live in.
#[derive(Clone, Copy)]
enum Kind {
    Tensor,
    Scalar,
}

impl Kind {
    fn member(self) -> &'static str {
        match self {
            Kind::Tensor => "aclTensor",
            Kind::Scalar => "aclScalar",
        }
    }

    fn is_live(self, h: &state::Handles, m: usize) -> bool {
        match self {
            Kind::Tensor => h.tensors.contains_key(&m),
            Kind::Scalar => h.scalars.contains_key(&m),
        }
    }

    fn lists(self, h: &mut state::Handles) -> &mut state::HandleMap<Vec<usize>> {
        match self {
            Kind::Tensor => &mut h.tensor_lists,
            Kind::Scalar => &mut h.scalar_lists,
        }
    }

    fn remove_member(self, h: &mut state::Handles, m: usize) -> bool {
        match self {
            Kind::Tensor => h.tensors.remove(&m).is_some(),
            Kind::Scalar => h.scalars.remove(&m).is_some(),
        }
    }
}

/// Creates a list of `size` live members read from `value`; NULL (with
/// the reason as the recent error message) when `value` is NULL, `size` is
/// 0 or too large, or a member is NULL or not live.
///
/// # Safety
/// `value` is NULL or valid for `size` reads.
unsafe fn create(api: &'static str, kind: Kind, value: *const usize, size: u64) -> usize {
    if size == 0 || size > MAX_MEMBERS {
        set_error(
            ACLNN_ERR_PARAM_INVALID,
            format!("npu-sim: {api}: size must be in [1, {MAX_MEMBERS}], got {size}"),
        );
        return 0;
    }
    if value.is_null() {
        set_error(
            ACLNN_ERR_PARAM_NULLPTR,
            format!("npu-sim: {api}: null value with size {size}"),
        );
        return 0;
    }
    // SAFETY: non-null and valid for `size` reads by the caller's contract.
    let members = unsafe { std::slice::from_raw_parts(value, size as usize) }.to_vec();
    state::with_handles(|h| {
        if let Some(i) = members.iter().position(|&m| !kind.is_live(h, m)) {
            set_error(
                ACLNN_ERR_PARAM_INVALID,
                format!(
                    "npu-sim: {api}: value[{i}] ({:#x}) is not a live {} (null, never created, or destroyed)",
                    members[i],
                    kind.member()
                ),
            );
            return 0;
        }
        let l = state::new_handle();
        kind.lists(h).insert(l, members);
        l
    })
}

/// Destroys a list and its members; NULL is not an error.
fn destroy(api: &'static str, kind: Kind, list: usize) -> aclnnStatus {
    if list == 0 {
        return ACLNN_SUCCESS;
    }
    state::with_handles(|h| {
        let Some(members) = kind.lists(h).remove(&list) else {
            return fail(
                ACLNN_ERR_PARAM_INVALID,
                format!(
                    "npu-sim: {api}: {list:#x} is not a live list (never created, or destroyed)"
                ),
            );
        };
        // Every member goes (the list is gone either way); the first one
        // already gone is reported: on the device it is a double free.
        let mut gone = None;
        for (i, &m) in members.iter().enumerate() {
            if !kind.remove_member(h, m) && gone.is_none() {
                gone = Some(i);
            }
        }
        match gone {
            None => ACLNN_SUCCESS,
            Some(i) => fail(
                ACLNN_ERR_PARAM_INVALID,
                format!(
                    "npu-sim: {api}: member {i} ({:#x}) was already destroyed (on its own, by another \
                     list, or earlier in this list): the list owns its members, so on the device this \
                     is a double free",
                    members[i]
                ),
            ),
        }
    })
}

/// The member count of a live list.
///
/// # Safety
/// `size` is NULL or valid for a write.
unsafe fn size_of(api: &'static str, kind: Kind, list: usize, size: *mut u64) -> aclnnStatus {
    if list == 0 {
        let (arg, ty) = match kind {
            Kind::Tensor => ("tensorList", "aclTensorList"),
            Kind::Scalar => ("scalarList", "aclScalarList"),
        };
        return fail_null(ACLNN_ERR_PARAM_NULLPTR, api, arg, ty);
    }
    if size.is_null() {
        return fail_null(ACLNN_ERR_PARAM_NULLPTR, api, "size", "uint64_t *");
    }
    let n = state::with_handles(|h| kind.lists(h).get(&list).map(Vec::len));
    match n {
        Some(n) => {
            // SAFETY: non-null and valid for a write by the caller's contract.
            unsafe { size.write(n as u64) };
            ACLNN_SUCCESS
        }
        None => fail(
            ACLNN_ERR_PARAM_INVALID,
            format!("npu-sim: {api}: {list:#x} is not a live list (never created, or destroyed)"),
        ),
    }
}

/// The member handles of a live tensor list (for operators that take one).
pub fn tensor_list_members(list: *const aclTensorList) -> Option<Vec<usize>> {
    state::with_handles(|h| h.tensor_lists.get(&(list as usize)).cloned())
}

/// `aclCreateTensorList`: a list of `size` (> 0) live tensors, which it
/// then owns.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `value` is NULL or valid for
/// `size` reads (members are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclCreateTensorList(
    value: *const *const aclTensor,
    size: u64,
) -> *mut aclTensorList {
    guard("aclCreateTensorList", null_mut(), || {
        // SAFETY: the caller's contract; handles are read as integers.
        let h = unsafe { create("aclCreateTensorList", Kind::Tensor, value.cast(), size) };
        h as *mut aclTensorList
    })
}

/// `aclDestroyTensorList`: destroys the list and its tensors.
///
/// # Safety
/// Part of the C ABI: `array` is NULL or a handle (looked up, never
/// dereferenced; any other value gets a status code).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyTensorList(array: *const aclTensorList) -> aclnnStatus {
    guard("aclDestroyTensorList", ACLNN_ERR_INNER, || {
        destroy("aclDestroyTensorList", Kind::Tensor, array as usize)
    })
}

/// `aclGetTensorListSize`.
///
/// # Safety
/// Part of the C ABI: `size` is NULL or valid for a write; `tensor_list`
/// is looked up, never dereferenced.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclGetTensorListSize(
    tensor_list: *const aclTensorList,
    size: *mut u64,
) -> aclnnStatus {
    guard("aclGetTensorListSize", ACLNN_ERR_INNER, || {
        // SAFETY: the caller's contract.
        unsafe {
            size_of(
                "aclGetTensorListSize",
                Kind::Tensor,
                tensor_list as usize,
                size,
            )
        }
    })
}

/// `aclCreateScalarList`: a list of `size` (> 0) live scalars, which it
/// then owns.
///
/// # Safety
/// As [`aclCreateTensorList`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclCreateScalarList(
    value: *const *const aclScalar,
    size: u64,
) -> *mut aclScalarList {
    guard("aclCreateScalarList", null_mut(), || {
        // SAFETY: the caller's contract; handles are read as integers.
        let h = unsafe { create("aclCreateScalarList", Kind::Scalar, value.cast(), size) };
        h as *mut aclScalarList
    })
}

/// `aclDestroyScalarList`: destroys the list and its scalars.
///
/// # Safety
/// As [`aclDestroyTensorList`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyScalarList(array: *const aclScalarList) -> aclnnStatus {
    guard("aclDestroyScalarList", ACLNN_ERR_INNER, || {
        destroy("aclDestroyScalarList", Kind::Scalar, array as usize)
    })
}

/// `aclGetScalarListSize`.
///
/// # Safety
/// As [`aclGetTensorListSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclGetScalarListSize(
    scalar_list: *const aclScalarList,
    size: *mut u64,
) -> aclnnStatus {
    guard("aclGetScalarListSize", ACLNN_ERR_INNER, || {
        // SAFETY: the caller's contract.
        unsafe {
            size_of(
                "aclGetScalarListSize",
                Kind::Scalar,
                scalar_list as usize,
                size,
            )
        }
    })
}
