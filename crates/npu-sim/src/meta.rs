//! The aclnn meta API (`libnnopbase.so`), simulated: init, tensors, int
//! arrays, scalars and executor reuse.

use crate::abi::fail;
use crate::objects::{self, Executor, Scalar, Tensor};
use crate::runtime;
use crate::soc;
use crate::state;
use cann_sys::*;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// `aclnnInit`: initialises aclnn (and the runtime, if `aclInit` has not).
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `config_path` is null or a NUL-terminated string (the simulator does not read it).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInit(_config_path: *const c_char) -> aclnnStatus {
    crate::abi::guard("aclnnInit", cann_sys::ACLNN_ERR_INNER, || {
        let mut init = state::init_state();
        if let Err(c) = runtime::start(&mut init) {
            return c;
        }
        init.aclnn = true;
        ACLNN_SUCCESS
    })
}

/// `aclnnFinalize`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub extern "C" fn aclnnFinalize() -> aclnnStatus {
    crate::abi::guard("aclnnFinalize", cann_sys::ACLNN_ERR_INNER, || {
        let mut init = state::init_state();
        init.aclnn = false;
        let teardown = runtime::stop_if_unused(&mut init);
        drop(init);
        teardown.run();
        ACLNN_SUCCESS
    })
}

/// Copies `n` values from a C array (NULL with `n == 0` is an empty array).
///
/// # Safety
/// `p` is null or valid for `n` reads.
unsafe fn read_i64s(p: *const i64, n: u64) -> Option<objects::Dims> {
    if n == 0 {
        return Some(objects::Dims::new());
    }
    if p.is_null() || n > 64 {
        return None;
    }
    // SAFETY: non-null and valid for `n` reads by the caller's contract.
    Some(objects::Dims::from_slice(unsafe {
        std::slice::from_raw_parts(p, n as usize)
    }))
}

/// `aclCreateTensor`: records the view; rejects only null dims with a
/// non-zero count (returns NULL). Whether the view fits its storage is
/// found out by the operators and the memory checker, as on the device.
///
/// # Safety
/// Array arguments are null or valid for their counts.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclCreateTensor(
    view_dims: *const i64,
    view_dims_num: u64,
    data_type: aclDataType,
    stride: *const i64,
    offset: i64,
    _format: aclFormat,
    storage_dims: *const i64,
    storage_dims_num: u64,
    tensor_data: *mut c_void,
) -> *mut aclTensor {
    crate::abi::guard("aclCreateTensor", std::ptr::null_mut(), || {
        // SAFETY: forwarded caller contract.
        let Some(view) = (unsafe { read_i64s(view_dims, view_dims_num) }) else {
            crate::abi::set_error(
                ACLNN_ERR_PARAM_INVALID,
                "npu-sim: aclCreateTensor: null viewDims with a non-zero count (or more than 64 dims)",
            );
            return std::ptr::null_mut();
        };
        // SAFETY: forwarded caller contract.
        let Some(_storage) = (unsafe { read_i64s(storage_dims, storage_dims_num) }) else {
            crate::abi::set_error(ACLNN_ERR_PARAM_INVALID, "npu-sim: aclCreateTensor: null storageDims with a non-zero count (or more than 64 dims)");
            return std::ptr::null_mut();
        };
        let strides = if stride.is_null() {
            objects::Dims::from_slice(&contiguous_strides(&view))
        } else {
            // SAFETY: non-null strides hold one entry per view dim.
            objects::Dims::from_slice(unsafe { std::slice::from_raw_parts(stride, view.len()) })
        };
        let t = Tensor {
            dtype: data_type,
            view,
            strides,
            offset,
            data: tensor_data as u64,
        };
        let h = state::new_handle();
        let t = std::sync::Arc::new(t);
        state::with_handles(|hs| hs.tensors.insert(h, t));
        h as *mut aclTensor
    })
}

/// Row-major strides of `shape`, in elements (saturating; only used for
/// shapes the caller described).
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    s
}

/// `aclDestroyTensor`: NULL is not an error; an unknown handle is.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `tensor` is null or a handle from `aclCreateTensor`. The simulator looks handles up instead of dereferencing them, so any other value gets a status code.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyTensor(tensor: *const aclTensor) -> aclnnStatus {
    crate::abi::guard("aclDestroyTensor", cann_sys::ACLNN_ERR_INNER, || {
        if tensor.is_null() {
            return ACLNN_SUCCESS;
        }
        match state::with_handles(|h| h.tensors.remove(&(tensor as usize))) {
            Some(_) => ACLNN_SUCCESS,
            None => fail(
                ACLNN_ERR_PARAM_INVALID,
                format!("npu-sim: aclDestroyTensor: {tensor:p} is not a live tensor (never created, or destroyed)"),
            ),
        }
    })
}

/// `aclCreateIntArray`.
///
/// # Safety
/// `value` is null or valid for `size` reads.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclCreateIntArray(value: *const i64, size: u64) -> *mut aclIntArray {
    crate::abi::guard("aclCreateIntArray", std::ptr::null_mut(), || {
        let v = if size == 0 {
            Vec::new()
        } else if value.is_null() || size > (1 << 24) {
            crate::abi::set_error(
                ACLNN_ERR_PARAM_INVALID,
                "npu-sim: aclCreateIntArray: null value with a non-zero size (or too large)",
            );
            return std::ptr::null_mut();
        } else {
            // SAFETY: non-null and valid for `size` reads by contract.
            unsafe { std::slice::from_raw_parts(value, size as usize) }.to_vec()
        };
        let a = Arc::new(v);
        let h = state::new_handle();
        state::with_handles(|hs| hs.int_arrays.insert(h, a));
        h as *mut aclIntArray
    })
}

/// `aclDestroyIntArray`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `array` is null or a handle from `aclCreateIntArray` (looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyIntArray(array: *const aclIntArray) -> aclnnStatus {
    crate::abi::guard("aclDestroyIntArray", cann_sys::ACLNN_ERR_INNER, || {
        if array.is_null() {
            return ACLNN_SUCCESS;
        }
        match state::with_handles(|h| h.int_arrays.remove(&(array as usize))) {
            Some(_) => ACLNN_SUCCESS,
            None => fail(
                ACLNN_ERR_PARAM_INVALID,
                format!("npu-sim: aclDestroyIntArray: {array:p} is not a live int array"),
            ),
        }
    })
}

/// `aclCreateScalar`: copies the host value of `data_type` at `value`.
///
/// # Safety
/// `value` is null or points to a value of `data_type`.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclCreateScalar(
    value: *mut c_void,
    data_type: aclDataType,
) -> *mut aclScalar {
    crate::abi::guard("aclCreateScalar", std::ptr::null_mut(), || {
        let Some(size) = soc::dtype_size(data_type) else {
            crate::abi::set_error(
                ACLNN_ERR_PARAM_INVALID,
                format!(
                    "npu-sim: aclCreateScalar: unsupported data type {}",
                    data_type.0
                ),
            );
            return std::ptr::null_mut();
        };
        if value.is_null() {
            crate::abi::set_error(
                ACLNN_ERR_PARAM_NULLPTR,
                "npu-sim: aclCreateScalar: null value",
            );
            return std::ptr::null_mut();
        }
        let mut bytes = [0u8; 16];
        // SAFETY: `value` points to `size` bytes of a `data_type` value.
        unsafe { std::ptr::copy_nonoverlapping(value as *const u8, bytes.as_mut_ptr(), size) };
        let s = Arc::new(Scalar {
            dtype: data_type,
            bytes,
        });
        let h = state::new_handle();
        state::with_handles(|hs| hs.scalars.insert(h, s));
        h as *mut aclScalar
    })
}

/// `aclDestroyScalar`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `scalar` is null or a handle from `aclCreateScalar` (looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyScalar(scalar: *const aclScalar) -> aclnnStatus {
    crate::abi::guard("aclDestroyScalar", cann_sys::ACLNN_ERR_INNER, || {
        if scalar.is_null() {
            return ACLNN_SUCCESS;
        }
        match state::with_handles(|h| h.scalars.remove(&(scalar as usize))) {
            Some(_) => ACLNN_SUCCESS,
            None => fail(
                ACLNN_ERR_PARAM_INVALID,
                format!("npu-sim: aclDestroyScalar: {scalar:p} is not a live scalar"),
            ),
        }
    })
}

fn executor_of(
    ex: *mut aclOpExecutor,
    api: &str,
) -> Result<Arc<std::sync::Mutex<Executor>>, aclnnStatus> {
    if ex.is_null() {
        return Err(null_executor(api));
    }
    state::with_handles(|h| h.executors.get(&(ex as usize)).cloned())
        .ok_or_else(|| dead_executor(ex, api))
}

/// The status (and message) of a null executor argument.
fn null_executor(api: &str) -> aclnnStatus {
    fail(
        ACLNN_ERR_INNER_NULLPTR,
        format!("npu-sim: {api}: null executor"),
    )
}

/// The status (and message) of an executor handle that is not live.
fn dead_executor(ex: *mut aclOpExecutor, api: &str) -> aclnnStatus {
    fail(
        ACLNN_ERR_INNER_NULLPTR,
        format!(
            "npu-sim: {api}: {ex:p} is not a live executor (a one-shot executor is freed by its run; \
             using or destroying it afterwards is a use after free)"
        ),
    )
}

/// `aclSetAclOpExecutorRepeatable`: the executor then survives runs until
/// `aclDestroyAclOpExecutor`. Refused (as CANN refuses) for executors that
/// hold host data copied inside (ConstantPadNd's value) or that copy a buffer
/// onto itself.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `executor` is a handle from a first phase (looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclSetAclOpExecutorRepeatable(
    executor: *mut aclOpExecutor,
) -> aclnnStatus {
    crate::abi::guard(
        "aclSetAclOpExecutorRepeatable",
        cann_sys::ACLNN_ERR_INNER,
        || {
            let ex = match executor_of(executor, "aclSetAclOpExecutorRepeatable") {
                Ok(e) => e,
                Err(c) => return c,
            };
            let mut ex = ex.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(why) = ex.repeatable_refusal() {
                return fail(
                    ACLNN_ERR_INNER,
                    format!(
                        "npu-sim: aclSetAclOpExecutorRepeatable: {} cannot be repeatable: {why}",
                        ex.op.name()
                    ),
                );
            }
            ex.repeatable = true;
            ACLNN_SUCCESS
        },
    )
}

/// `aclDestroyAclOpExecutor`: frees a live executor.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `executor` is a repeatable executor's handle (looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclDestroyAclOpExecutor(executor: *mut aclOpExecutor) -> aclnnStatus {
    crate::abi::guard("aclDestroyAclOpExecutor", cann_sys::ACLNN_ERR_INNER, || {
        if let Err(c) = executor_of(executor, "aclDestroyAclOpExecutor") {
            return c;
        }
        state::with_handles(|h| h.executors.remove(&(executor as usize)));
        ACLNN_SUCCESS
    })
}

/// The alignment aclnn requires of a tensor's data address.
const REBIND_ALIGN: u64 = 32;

fn set_addr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
    output: bool,
) -> aclnnStatus {
    let api = if output {
        "aclSetOutputTensorAddr"
    } else {
        "aclSetInputTensorAddr"
    };
    if executor.is_null() {
        return null_executor(api);
    }
    // One lock of the handle registry for both handles (each is some 80
    // instructions of a rebind's 300).
    let (ex, tensor_live) = state::with_handles(|h| {
        (
            h.executors.get(&(executor as usize)).cloned(),
            tensor.is_null() || h.tensors.contains_key(&(tensor as usize)),
        )
    });
    let Some(ex) = ex else {
        return dead_executor(executor, api);
    };
    if !tensor_live {
        return fail(
            ACLNN_ERR_PARAM_INVALID,
            format!("npu-sim: {api}: {tensor:p} is not a live tensor"),
        );
    }
    let mut ex = ex.lock().unwrap_or_else(|e| e.into_inner());
    let list = if output {
        &mut ex.outputs
    } else {
        &mut ex.inputs
    };
    let n = list.len();
    match list.get_mut(index) {
        // The rule of the first phase: a tensor with elements has a
        // non-null, 32-byte aligned address (an empty one may have any).
        Some(t)
            if (addr.is_null() || !(addr as u64).is_multiple_of(REBIND_ALIGN))
                && !t.view.contains(&0) =>
        {
            fail(
                ACLNN_ERR_PARAM_INVALID,
                format!(
                    "npu-sim: {api}: address {addr:p} for {} {index} must be non-null and \
                     {REBIND_ALIGN}-byte aligned",
                    if output { "output" } else { "input" }
                ),
            )
        }
        Some(t) => {
            // The executor's own copy (its descriptor keeps the address it
            // was created with): copied once when still shared.
            std::sync::Arc::make_mut(t).data = addr as u64;
            ACLNN_SUCCESS
        }
        None => fail(
            ACLNN_ERR_PARAM_INVALID,
            format!("npu-sim: {api}: index {index} out of range (the executor has {n})"),
        ),
    }
}

/// `aclSetInputTensorAddr`: rebinds input `index` to `addr` (non-null and
/// 32-byte aligned, else `ACLNN_ERR_PARAM_INVALID`).
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `executor` and `tensor` are handles (looked up) and `addr` device memory from `aclrtMalloc` (checked against live allocations when the work runs).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclSetInputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    crate::abi::guard("aclSetInputTensorAddr", cann_sys::ACLNN_ERR_INNER, || {
        set_addr(executor, index, tensor, addr, false)
    })
}

/// `aclSetOutputTensorAddr`: rebinds output `index` to `addr` (non-null
/// and 32-byte aligned, else `ACLNN_ERR_PARAM_INVALID`).
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `executor` and `tensor` are handles (looked up) and `addr` device memory from `aclrtMalloc` (checked against live allocations when the work runs).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclSetOutputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    crate::abi::guard("aclSetOutputTensorAddr", cann_sys::ACLNN_ERR_INNER, || {
        set_addr(executor, index, tensor, addr, true)
    })
}
