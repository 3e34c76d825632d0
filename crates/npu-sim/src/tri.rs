//! Tril and Triu, and their in-place twins (`docs/ops.md` §15): the lower
//! or upper triangle of each matrix of the last two dims, the rest zero.
//!
//! First phase, in the order of CANN's `aclnn_tril.cpp` (Triu's header
//! documents the same pattern): null `workspaceSize` / `executor`, then
//! null tensors (`161001`), the product's kernel (`561003`), then `161002`
//! for `self`'s dtype, `out`'s dtype (in the list, equal to `self`'s), a
//! rank outside `2..=8`, `out`'s shape, the structure of the views and
//! `out` writing one element twice. The in-place first phase is the
//! out-of-place one with `out = selfRef`; its executor has no inputs and
//! one output (`selfRef`), as the fills'.
//!
//! The plan copies `self` through its view into the workspace, masks it
//! (the triangle kernel) and copies it into `out` through its view, as
//! CANN's Contiguous, Tril and ViewCopy, so `out` may share memory with
//! `self`. A contiguous in-place `selfRef` is masked where it lies, with
//! no workspace.

use crate::executor::{align, contiguous, elem, is_contiguous, numel, views_meet};
use crate::kernels::CopyDesc;
use crate::objects::{Executor, Plan, Tensor};
use crate::ops::{dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use crate::state::Runtime;
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

type R<T> = Result<T, aclnnStatus>;

/// The shared first phase after the preamble: `x` into `o` (the same
/// tensor for the in-place forms).
///
/// # Safety
/// `ws` and `ex` are valid for writes (checked non-null by the preamble).
#[allow(clippy::too_many_arguments)]
unsafe fn plan(
    op: Op,
    fam: crate::soc::Family,
    x: std::sync::Arc<Tensor>,
    o: Option<std::sync::Arc<Tensor>>,
    diagonal: i64,
    lower: bool,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> R<aclnnStatus> {
    let in_place = o.is_none();
    let (xn, on) = if in_place {
        ("selfRef", "selfRef")
    } else {
        ("self", "out")
    };
    dtype_ok(op, fam, &x, xn)?;
    if let Some(o) = &o {
        dtype_ok(op, fam, o, on)?;
        if o.dtype != x.dtype {
            return Err(invalid(
                op,
                format_args!(
                    "out data type {} differs from self's {}",
                    o.dtype.0, x.dtype.0
                ),
            ));
        }
    }
    let rank = x.view.len();
    if !(2..=8).contains(&rank) {
        return Err(invalid(
            op,
            format_args!("{xn} has rank {rank}; it must be 2 to 8"),
        ));
    }
    if let Some(o) = &o {
        if o.view[..] != x.view[..] {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be self's {:?}", o.view, x.view),
            ));
        }
        structure(op, &[(&x, xn), (o, on)])?;
        // An empty target writes nothing: never refused for overlapping
        // itself (ops.md §15).
        if numel(&o.view) > 0 {
            writes_once(op, o, on)?;
        }
    } else {
        structure(op, &[(&x, xn)])?;
        if numel(&x.view) > 0 {
            writes_once(op, &x, xn)?;
        }
    }
    let n = numel(&x.view);
    let contiguous_in_place = in_place && is_contiguous(&x.view, &x.strides);
    let (plan, workspace) = if n == 0 {
        (Plan::Empty, 0)
    } else {
        let ws = if contiguous_in_place {
            0
        } else {
            // self's bytes: within i64 (checked by `structure`).
            align(n as u64 * elem(&x) as u64)
        };
        (
            Plan::Tri {
                diagonal,
                lower,
                in_place: contiguous_in_place,
            },
            ws,
        )
    };
    let (inputs, outputs) = match o {
        Some(o) => (smallvec::smallvec![x], smallvec::smallvec![o]),
        None => (smallvec::smallvec![], smallvec::smallvec![x]),
    };
    // SAFETY: the caller's contract.
    Ok(unsafe { finish(op, plan, inputs, outputs, workspace, ws, ex) })
}

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Tri {
        diagonal,
        lower,
        in_place,
    } = e.plan
    else {
        unreachable!()
    };
    let o = &e.outputs[0];
    let x = e.inputs.first().unwrap_or(o);
    let shape = &x.view;
    let r = shape.len();
    let (rows, cols) = (shape[r - 2], shape[r - 1]);
    let dims = [numel(&shape[..r - 2]), rows, cols];
    let es = elem(x);
    let mut l = Launch::new(e.op.name());
    if in_place {
        let data = l
            .view(rt, "selfRef", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty selfRef");
        l.steps
            .push(Step::Tri(data, dims, diagonal, lower, es as u8));
        return l;
    }
    let dense = contiguous(shape);
    // Out of place into a contiguous `out` apart from `self` (decided
    // here, from the addresses of this launch: a rebinding cannot make it
    // wrong): copied straight into `out` and masked there, two passes
    // instead of three through the workspace.
    if !e.inputs.is_empty() && is_contiguous(&o.view, &o.strides) && !views_meet(x, o) {
        let src = l
            .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
            .expect("non-empty self");
        let dst = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(shape, &dense, &x.strides, es),
            dst,
            src,
        ));
        l.steps
            .push(Step::Tri(dst, dims, diagonal, lower, es as u8));
        return l;
    }
    let tmp = l.region(
        rt,
        "workspace (triangle)",
        ws,
        numel(shape) as u64 * es as u64,
        true,
    );
    let src = l
        .view(
            rt,
            if e.inputs.is_empty() {
                "selfRef"
            } else {
                "self"
            },
            x,
            (&x.view, &x.strides, x.offset),
            false,
        )
        .expect("non-empty self");
    l.steps.push(Step::Copy(
        CopyDesc::new(shape, &dense, &x.strides, es),
        tmp,
        src,
    ));
    l.steps
        .push(Step::Tri(tmp, dims, diagonal, lower, es as u8));
    let dst = l
        .view(
            rt,
            if e.inputs.is_empty() {
                "selfRef"
            } else {
                "out"
            },
            o,
            (&o.view, &o.strides, o.offset),
            true,
        )
        .expect("non-empty out");
    l.steps.push(Step::Copy(
        CopyDesc::new(shape, &o.strides, &dense, es),
        dst,
        tmp,
    ));
    l
}

/// The out-of-place first phase.
///
/// # Safety
/// `ws` and `ex` are null or valid for writes.
unsafe fn out_of_place(
    op: Op,
    lower: bool,
    self_: *const aclTensor,
    diagonal: i64,
    out: *mut aclTensor,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("workspaceSize", ws.is_null()),
                ("executor", ex.is_null()),
                ("self", self_.is_null()),
                ("out", out.is_null()),
            ],
            [("self", self_), ("out", out as *const aclTensor)],
        )?;
        // SAFETY: the preamble checked both non-null; valid by the contract.
        unsafe { plan(op, fam, x, Some(o), diagonal, lower, ws, ex) }
    })
}

/// The in-place first phase.
///
/// # Safety
/// `ws` and `ex` are null or valid for writes.
unsafe fn in_place(
    op: Op,
    lower: bool,
    self_ref: *const aclTensor,
    diagonal: i64,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    first_phase(op, || {
        let (fam, [x]) = preamble(
            op,
            &[
                ("workspaceSize", ws.is_null()),
                ("executor", ex.is_null()),
                ("selfRef", self_ref.is_null()),
            ],
            [("selfRef", self_ref)],
        )?;
        // SAFETY: the preamble checked both non-null; valid by the contract.
        unsafe { plan(op, fam, x, None, diagonal, lower, ws, ex) }
    })
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

// ---------------------------------------------------------------- Tril

/// `aclnnTrilGetWorkspaceSize`: `out` = the lower triangle of each matrix
/// of `self` (`j - i <= diagonal`), the rest zero.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTrilGetWorkspaceSize(
    self_: *const aclTensor,
    diagonal: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        out_of_place(
            Op::Tril,
            true,
            self_,
            diagonal,
            out,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnTril`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTril(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::Tril, workspace, workspace_size, executor, stream)
}

/// `aclnnInplaceTrilGetWorkspaceSize`: `selfRef` = its lower triangle.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceTrilGetWorkspaceSize(
    self_ref: *const aclTensor,
    diagonal: i64,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        in_place(
            Op::InplaceTril,
            true,
            self_ref,
            diagonal,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnInplaceTril`.
///
/// # Safety
/// As [`aclnnTril`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceTril(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::InplaceTril, workspace, workspace_size, executor, stream)
}

// ---------------------------------------------------------------- Triu

/// `aclnnTriuGetWorkspaceSize`: `out` = the upper triangle of each matrix
/// of `self` (`j - i >= diagonal`), the rest zero.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTriuGetWorkspaceSize(
    self_: *const aclTensor,
    diagonal: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        out_of_place(
            Op::Triu,
            false,
            self_,
            diagonal,
            out,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnTriu`.
///
/// # Safety
/// As [`aclnnTril`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTriu(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::Triu, workspace, workspace_size, executor, stream)
}

/// `aclnnInplaceTriuGetWorkspaceSize`: `selfRef` = its upper triangle.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceTriuGetWorkspaceSize(
    self_ref: *mut aclTensor,
    diagonal: i64,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        in_place(
            Op::InplaceTriu,
            false,
            self_ref,
            diagonal,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnInplaceTriu`.
///
/// # Safety
/// As [`aclnnTril`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceTriu(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::InplaceTriu, workspace, workspace_size, executor, stream)
}
