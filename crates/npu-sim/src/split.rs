//! SplitTensor and SplitWithSize (`docs/ops.md` §12): `self` cut along a
//! dim into the tensors of an output `aclTensorList`, over the shared
//! first-phase checks of [`crate::ops`] and the copy kernel (no kernel of
//! its own: each piece is one strided copy from its part of `self`).
//!
//! First phase, in the order of CANN's `aclnn_split_with_size.cpp` (and
//! the SplitTensor page): null `self`, `splitSize`, `out` (`161001`, the
//! list pointer checked outside the preamble, as Cat's), null
//! `workspaceSize` / `executor`, the product's kernel (`561003`), the list's
//! members (not live: `161002`), then `161002` for `self`'s dtype, each
//! output's dtype, `self`'s rank (1 to 8), each output's rank, `dim`, the
//! sizes (each non-negative, summing to the extent; SplitTensor's
//! sections), their count against the list's, the project's rules (at most
//! 32 pieces of DOUBLE or complex for SplitWithSize, each output of its
//! piece's shape and of `self`'s dtype), the structure of every view, each
//! output written once and no two outputs meeting. The executor's inputs
//! are `[self]`, its outputs the list's members in order. An empty `self`
//! plans nothing. When an output meets `self`, `self` is read into the
//! workspace first.

use crate::abi::fail_null;
use crate::executor::{self, align, contiguous, elem, numel, views_meet};
use crate::kernels::CopyDesc;
use crate::lists::tensor_list_members;
use crate::objects::{self, Executor, Plan};
use crate::ops::{
    bytes, dtype_ok, finish, first_phase, invalid, norm_dim, preamble, structure, tensor,
    writes_once,
};
use crate::soc::Op;
use crate::state::{self, Runtime};
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

/// How the pieces are given.
enum Sizes {
    /// SplitTensor's `splitSections`.
    Sections(u64),
    /// SplitWithSize's `splitSize` (its handle).
    Array(*const aclIntArray),
}

/// The shared first phase.
///
/// # Safety
/// `ws` and `ex` are null or valid for writes.
unsafe fn split_first_phase(
    op: Op,
    self_: *const aclTensor,
    sizes: Sizes,
    dim: i64,
    out: *mut aclTensorList,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    first_phase(op, || {
        let null = |arg: &str, ty: &str| {
            Err(fail_null(
                ACLNN_ERR_PARAM_NULLPTR,
                op.first_phase_name(),
                arg,
                ty,
            ))
        };
        if self_.is_null() {
            return null("self", "aclTensor");
        }
        if let Sizes::Array(a) = sizes {
            if a.is_null() {
                return null("splitSize", "aclIntArray");
            }
        }
        if out.is_null() {
            return null("out", "aclTensorList");
        }
        let (fam, [x]) = preamble(
            op,
            &[("workspaceSize", ws.is_null()), ("executor", ex.is_null())],
            [("self", self_)],
        )?;
        let Some(handles) = tensor_list_members(out) else {
            return Err(invalid(
                op,
                format_args!(
                    "out ({out:p}) is not a live aclTensorList (never created, or destroyed)"
                ),
            ));
        };
        let mut outs: objects::Tensors = objects::Tensors::new();
        for (i, &h) in handles.iter().enumerate() {
            outs.push(tensor(op, h as *const aclTensor, &format!("out[{i}]"))?);
        }
        dtype_ok(op, fam, &x, "self")?;
        for (i, o) in outs.iter().enumerate() {
            dtype_ok(op, fam, o, &format!("out[{i}]"))?;
        }
        let rank = x.view.len();
        if !(1..=8).contains(&rank) {
            return Err(invalid(
                op,
                format_args!("self has rank {rank}; it must be 1 to 8"),
            ));
        }
        if let Some((i, o)) = outs.iter().enumerate().find(|(_, o)| o.view.len() > 8) {
            return Err(invalid(
                op,
                format_args!("out[{i}] has rank {} (at most 8)", o.view.len()),
            ));
        }
        let d = norm_dim(op, dim, rank)?;
        let n = x.view[d];
        let pieces: Vec<i64> = match sizes {
            Sizes::Sections(s) => match (n, s) {
                (0, 0) => vec![0],
                (0, _) => {
                    return Err(invalid(
                        op,
                        format_args!(
                            "the extent along dim is 0, so splitSections must be 0, got {s}"
                        ),
                    ))
                }
                (_, 0) => {
                    return Err(invalid(
                        op,
                        format_args!("splitSections must be positive for an extent of {n}"),
                    ))
                }
                (n, s) => {
                    let s = i64::try_from(s).unwrap_or(i64::MAX).min(n);
                    // The count first: an extent of 2^40 split by 1 must
                    // not build its list before out's length refuses it.
                    let count = (n - 1) / s + 1;
                    if count != outs.len() as i64 {
                        return Err(invalid(
                            op,
                            format_args!("{count} pieces, but out holds {} tensors", outs.len()),
                        ));
                    }
                    (0..n).step_by(s as usize).map(|a| s.min(n - a)).collect()
                }
            },
            Sizes::Array(a) => {
                let v =
                    state::with_handles(|h| h.int_arrays.get(&(a as usize)).map(|a| (**a).clone()))
                        .ok_or_else(|| {
                            invalid(
                                op,
                                format_args!("splitSize ({a:p}) is not a live int array"),
                            )
                        })?;
                if let Some(bad) = v.iter().find(|&&s| s < 0) {
                    return Err(invalid(
                        op,
                        format_args!("splitSize holds {bad}; sizes must be non-negative"),
                    ));
                }
                let sum = v.iter().try_fold(0i64, |acc, &s| acc.checked_add(s));
                if v.is_empty() || sum != Some(n) {
                    return Err(invalid(
                        op,
                        format_args!("splitSize {v:?} must sum to the extent {n} along dim {d}"),
                    ));
                }
                v
            }
        };
        if pieces.len() != outs.len() {
            return Err(invalid(
                op,
                format_args!(
                    "{} pieces, but out holds {} tensors",
                    pieces.len(),
                    outs.len()
                ),
            ));
        }
        let wide = matches!(
            x.dtype,
            aclDataType::ACL_DOUBLE | aclDataType::ACL_COMPLEX64 | aclDataType::ACL_COMPLEX128
        );
        if op == Op::SplitWithSize && wide && pieces.len() > 32 {
            return Err(invalid(
                op,
                format_args!(
                    "{} pieces of data type {}: at most 32",
                    pieces.len(),
                    x.dtype.0
                ),
            ));
        }
        for (i, (o, &len)) in outs.iter().zip(&pieces).enumerate() {
            let mut want = x.view.clone();
            want[d] = len;
            if o.view != want {
                return Err(invalid(
                    op,
                    format_args!("out[{i}] has shape {:?}, the piece {:?}", o.view, want),
                ));
            }
            if o.dtype != x.dtype {
                return Err(invalid(
                    op,
                    format_args!("out[{i}] has data type {}, self {}", o.dtype.0, x.dtype.0),
                ));
            }
        }
        structure(op, &[(&x, "self")])?;
        for (i, o) in outs.iter().enumerate() {
            structure(op, &[(o, &format!("out[{i}]"))])?;
            if numel(&o.view) > 0 {
                writes_once(op, o, &format!("out[{i}]"))?;
            }
        }
        for i in 0..outs.len() {
            for j in i + 1..outs.len() {
                if numel(&outs[i].view) > 0
                    && numel(&outs[j].view) > 0
                    && views_meet(&outs[i], &outs[j])
                {
                    return Err(invalid(
                        op,
                        format_args!("out[{i}] and out[{j}] share memory"),
                    ));
                }
            }
        }
        let empty = numel(&x.view) == 0;
        let stage = !empty && outs.iter().any(|o| numel(&o.view) > 0 && views_meet(o, &x));
        let (plan, workspace) = if empty {
            (Plan::Empty, 0)
        } else {
            (
                Plan::Split { dim: d, stage },
                if stage { align(bytes(&x)) } else { 0 },
            )
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe { finish(op, plan, smallvec::smallvec![x], outs, workspace, ws, ex) })
    })
}

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Split { dim, stage } = e.plan else {
        unreachable!()
    };
    let x = &e.inputs[0];
    let es = elem(x);
    let mut l = Launch::new(e.op.name());
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty self");
    let (src, strides, offset) = if stage {
        let tmp = l.region(rt, "workspace (self staging)", ws, bytes(x), true);
        let c = contiguous(&x.view);
        l.steps.push(Step::Copy(
            CopyDesc::new(&x.view, &c, &x.strides, es),
            tmp,
            src,
        ));
        (tmp, c, 0)
    } else {
        (src, executor::Strides::of(&x.strides), x.offset)
    };
    let mut at = 0i64;
    for o in &e.outputs {
        let len = o.view[dim];
        let from = offset + at * strides[dim];
        at += len;
        let Some(dst) = l.view(rt, "out", o, (&o.view, &o.strides, o.offset), true) else {
            continue;
        };
        // The piece's part of self (or of its staged copy), from `src`.
        let piece = crate::work::Ref::offset(src, (from - offset) as u64 * es as u64);
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &strides, es),
            dst,
            piece,
        ));
    }
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
        executor::run(op, workspace, workspace_size, executor, stream, build)
    })
}

/// `aclnnSplitTensorGetWorkspaceSize`: `self` cut along `dim` into pieces
/// of `splitSections` (the last one shorter), one per tensor of `out`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSplitTensorGetWorkspaceSize(
    self_: *const aclTensor,
    split_sections: u64,
    dim: i64,
    out: *mut aclTensorList,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        split_first_phase(
            Op::SplitTensor,
            self_,
            Sizes::Sections(split_sections),
            dim,
            out,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnSplitTensor`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSplitTensor(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::SplitTensor, workspace, workspace_size, executor, stream)
}

/// `aclnnSplitWithSizeGetWorkspaceSize`: `self` cut along `dim` into
/// pieces of the extents `splitSize`, one per tensor of `out`.
///
/// # Safety
/// As [`aclnnSplitTensorGetWorkspaceSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSplitWithSizeGetWorkspaceSize(
    self_: *const aclTensor,
    split_size: *const aclIntArray,
    dim: i64,
    out: *mut aclTensorList,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: this function's contract.
    unsafe {
        split_first_phase(
            Op::SplitWithSize,
            self_,
            Sizes::Array(split_size),
            dim,
            out,
            workspace_size,
            executor,
        )
    }
}

/// `aclnnSplitWithSize`.
///
/// # Safety
/// As [`aclnnSplitTensor`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSplitWithSize(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(
        Op::SplitWithSize,
        workspace,
        workspace_size,
        executor,
        stream,
    )
}
