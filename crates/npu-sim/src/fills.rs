//! The fills: InplaceFillScalar and InplaceZero (`docs/ops.md` §13).
//!
//! First phase, in the order of CANN's `aclnn_fill_scalar.cpp` /
//! `aclnn_zero.cpp`: null pointers (`161001`), the product's kernel
//! (`561003`), then `161002` for `selfRef`'s dtype, (FillScalar) the
//! value's cast to it, `selfRef`'s structure and its writing one element
//! twice. The value is converted in the first phase by the cast kernel;
//! the plan is one FILL kernel over `selfRef`, through the workspace when
//! `selfRef` is not contiguous (ops' shared `store`).

use crate::executor::{align, elem, is_contiguous, numel};
use crate::kernels::{self, CopyDesc, KDtype};
use crate::objects::{Executor, Plan};
use crate::ops::{
    dtype_ok, finish, first_phase, invalid, kdtype, preamble, store, structure, writes_once,
};
use crate::runtime;
use crate::soc::Op;
use crate::state::{self, Runtime};
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

type R<T> = Result<T, aclnnStatus>;

/// Whether a scalar of `from` may fill a tensor of `to` (ops.md §13: §8's
/// conversion relationship, or an integer into BOOL).
fn value_casts(from: KDtype, to: KDtype) -> bool {
    use KDtype::*;
    let int = |t: KDtype| matches!(t, I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64);
    let float = |t: KDtype| matches!(t, F16 | Bf16 | F32 | F64);
    match from {
        _ if from == to => true,
        Bool => true,
        // Into BOOL too (value != 0), as alpha of a BOOL Add.
        _ if int(from) => true,
        _ if float(from) => float(to) || matches!(to, C64 | C128),
        _ => matches!(to, C64 | C128),
    }
}

/// The shared tail: `selfRef`'s structure, its writing each element once,
/// then the plan (one fill element) and its workspace.
///
/// # Safety
/// `ws` and `ex` are valid for writes (checked non-null by the preamble).
unsafe fn plan(
    op: Op,
    x: std::sync::Arc<crate::objects::Tensor>,
    value: [u8; 16],
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> R<aclnnStatus> {
    structure(op, &[(&x, "selfRef")])?;
    writes_once(op, &x, "selfRef")?;
    let (plan, workspace) = if numel(&x.view) == 0 {
        (Plan::Empty, 0)
    } else {
        let len = elem(&x) as u8;
        let ws = if is_contiguous(&x.view, &x.strides) {
            0
        } else {
            // Checked to fit i64 by `structure`.
            align(numel(&x.view) as u64 * u64::from(len))
        };
        (Plan::Fill { value, len }, ws)
    };
    // SAFETY: the caller's contract.
    Ok(unsafe {
        finish(
            op,
            plan,
            smallvec::smallvec![],
            smallvec::smallvec![x],
            workspace,
            ws,
            ex,
        )
    })
}

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Fill { value, len } = &e.plan else {
        unreachable!()
    };
    let x = &e.outputs[0];
    let n = numel(&x.view);
    let mut l = Launch::new(e.op.name());
    store(&mut l, rt, x, ws, |l, dst| {
        l.steps.push(Step::Fill(dst, n, *value, *len));
    });
    l
}

fn second(
    op: Op,
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(op.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(op, workspace, workspace_size, executor, stream, build)
    })
}

// ------------------------------------------------------- InplaceFillScalar

/// `aclnnInplaceFillScalarGetWorkspaceSize`: every element of `selfRef`
/// becomes `value`, converted to `selfRef`'s dtype.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceFillScalarGetWorkspaceSize(
    self_ref: *mut aclTensor,
    value: *const aclScalar,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceFillScalar;
    first_phase(op, || {
        let (fam, [x]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("value", value.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("selfRef", self_ref as *const aclTensor)],
        )?;
        dtype_ok(op, fam, &x, "selfRef")?;
        let v = state::with_handles(|h| h.scalars.get(&(value as usize)).map(|s| (**s).clone()))
            .ok_or_else(|| invalid(op, format_args!("value ({value:p}) is not a live scalar")))?;
        let xt = kdtype(x.dtype).expect("a supported dtype has a kernel type");
        let vt = kdtype(v.dtype)
            .filter(|&vt| value_casts(vt, xt))
            .ok_or_else(|| {
                invalid(
                    op,
                    format_args!(
                        "value of data type {} cannot be cast to selfRef's data type {}",
                        v.dtype.0, x.dtype.0
                    ),
                )
            })?;
        let mut conv = [0u8; 16];
        let rt = runtime::rt()?;
        // SAFETY: one element of each type, in host buffers of 16 bytes.
        let done = unsafe {
            kernels::cast(
                &rt.pool,
                CopyDesc::new(&[], &[], &[], 0),
                xt,
                conv.as_mut_ptr(),
                vt,
                v.bytes.as_ptr(),
            )
        };
        if !done {
            return Err(invalid(op, "value cannot be converted"));
        }
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { plan(op, x, conv, workspace_size, executor) }
    })
}

/// `aclnnInplaceFillScalar`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceFillScalar(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(
        Op::InplaceFillScalar,
        workspace,
        workspace_size,
        executor,
        stream,
    )
}

// ------------------------------------------------------------- InplaceZero

/// `aclnnInplaceZeroGetWorkspaceSize`: every element of `selfRef` becomes
/// zero (all bytes zero: +0.0, false, (0, 0)).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceZeroGetWorkspaceSize(
    self_ref: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceZero;
    first_phase(op, || {
        let (fam, [x]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("selfRef", self_ref as *const aclTensor)],
        )?;
        dtype_ok(op, fam, &x, "selfRef")?;
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { plan(op, x, [0; 16], workspace_size, executor) }
    })
}

/// `aclnnInplaceZero`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceZero(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::InplaceZero, workspace, workspace_size, executor, stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_cast_rules() {
        use KDtype::*;
        assert!(value_casts(I64, Bool) && value_casts(I64, I8) && value_casts(I64, F16));
        assert!(!value_casts(F64, I32) && !value_casts(C128, F32) && !value_casts(F64, Bool));
        assert!(value_casts(F64, C64) && value_casts(Bool, C128) && value_casts(C128, C64));
    }
}
