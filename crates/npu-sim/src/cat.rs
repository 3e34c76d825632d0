//! Cat (`aclnnCat`, docs/ops.md §10) and Stack (`aclnnStack`, §11): the
//! tensors of an `aclTensorList` joined along a dim (Stack: a new one),
//! over the shared first-phase checks of
//! [`crate::ops`] and the existing copy and cast kernels (no kernel of its
//! own: each member is one strided copy, or casting copy, into its part of
//! `out`).

use crate::abi::fail_null;
use crate::elementwise::{can_cast, promote};
use crate::executor::{self, align, contiguous, elem, numel, views_meet};
use crate::kernels::{kdtype_size, CopyDesc, KDtype};
use crate::lists::tensor_list_members;
use crate::objects::{self, Executor, Plan, Tensor};
use crate::ops::{
    bytes, dtype_ok, finish, first_phase, invalid, kdtype, norm_dim, preamble, structure, tensor,
    writes_once,
};
use crate::soc::Op;
use crate::state::Runtime;
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

/// `aclnnCatGetWorkspaceSize`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnCatGetWorkspaceSize(
    tensors: *const aclTensorList,
    dim: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the caller's contract.
    unsafe { join_first_phase(Op::Cat, tensors, dim, out, workspace_size, executor) }
}

/// `aclnnStackGetWorkspaceSize`.
///
/// # Safety
/// As [`aclnnCatGetWorkspaceSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnStackGetWorkspaceSize(
    tensors: *const aclTensorList,
    dim: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the caller's contract.
    unsafe { join_first_phase(Op::Stack, tensors, dim, out, workspace_size, executor) }
}

/// The first phase of Cat and Stack (`op`), in their sources' orders.
///
/// # Safety
/// As [`aclnnCatGetWorkspaceSize`].
unsafe fn join_first_phase(
    op: Op,
    tensors: *const aclTensorList,
    dim: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let stack = op == Op::Stack;
    first_phase(op, || {
        // aclnn_stack.cpp reports a null list or out as an inner null
        // pointer (561103); aclnn_cat.cpp as a parameter (161001).
        let null_code = if stack {
            ACLNN_ERR_INNER_NULLPTR
        } else {
            ACLNN_ERR_PARAM_NULLPTR
        };
        if tensors.is_null() {
            return Err(fail_null(
                null_code,
                op.first_phase_name(),
                "tensors",
                "aclTensorList",
            ));
        }
        if stack && out.is_null() {
            return Err(fail_null(
                null_code,
                op.first_phase_name(),
                "out",
                "aclTensor",
            ));
        }
        let (fam, [o]) = preamble(
            op,
            &[
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("out", out)],
        )?;
        let Some(handles) = tensor_list_members(tensors) else {
            return Err(invalid(
                op,
                format_args!(
                    "tensors ({tensors:p}) is not a live aclTensorList (never created, or destroyed)"
                ),
            ));
        };
        let mut kept: objects::Tensors = objects::Tensors::new();
        for (i, &h) in handles.iter().enumerate() {
            let t = tensor(op, h as *const aclTensor, &format!("tensors[{i}]"))?;
            // PyTorch's legacy rule, kept by aclnn_cat.cpp: 1-D empty
            // members are dropped before any check (Stack drops none).
            if stack || t.view.as_slice() != [0] {
                kept.push(t);
            }
        }
        if kept.is_empty() {
            // SAFETY: the preamble checked both non-null; valid by this
            // function's contract.
            return Ok(unsafe {
                finish(
                    op,
                    Plan::Empty,
                    objects::Tensors::new(),
                    smallvec::smallvec![o],
                    0,
                    workspace_size,
                    executor,
                )
            });
        }
        for (i, t) in kept.iter().enumerate() {
            dtype_ok(op, fam, t, &format!("kept tensor {i}"))?;
        }
        dtype_ok(op, fam, &o, "out")?;
        // As aclnn_cat.cpp: the members' dtypes promote (§8's table) to
        // one, not COMPLEX128, which casts to out's.
        let kd = |t: &Tensor| kdtype(t.dtype).ok_or_else(|| invalid(op, "unknown data type"));
        let mut promoted = kd(&kept[0])?;
        for (i, t) in kept.iter().enumerate().skip(1) {
            let k = kd(t)?;
            promoted = promote(k, promoted).ok_or_else(|| {
                invalid(
                    op,
                    format_args!(
                        "kept tensor {i}'s data type {} and the promoted {promoted:?} of the                          ones before it do not promote",
                        t.dtype.0
                    ),
                )
            })?;
        }
        // aclnn_cat.cpp; Stack, whose list has COMPLEX128, takes members
        // that all are (docs/ops.md §11).
        if promoted == KDtype::C128 && kept.iter().any(|t| kdtype(t.dtype) != Some(promoted)) {
            return Err(invalid(
                op,
                "the tensors' data types promote to COMPLEX128 from others, which is not \
                 implemented",
            ));
        }
        if !matches!(kdtype(o.dtype), Some(t) if can_cast(promoted, t)) {
            return Err(invalid(
                op,
                format_args!(
                    "the tensors' promoted data type {promoted:?} cannot be cast to out's {}",
                    o.dtype.0
                ),
            ));
        }
        // Mixed dtypes go through the promoted one, unless a single member
        // has elements (aclnn_cat.cpp casts a lone member straight to out).
        let mixed = kept.iter().any(|t| t.dtype != kept[0].dtype);
        let non_empty = kept.iter().filter(|t| numel(&t.view) > 0).count();
        let via = (mixed && non_empty > 1).then_some(promoted);
        for (i, t) in kept.iter().enumerate() {
            structure(op, &[(t, &format!("kept tensor {i}"))])?;
        }
        structure(op, &[(&o, "out")])?;
        let first = kept[0].view.clone();
        if stack {
            if first.len() > 7 {
                return Err(invalid(
                    op,
                    format_args!("tensors have rank {} (at most 7)", first.len()),
                ));
            }
            let d = norm_dim(op, dim, first.len() + 1)?;
            if let Some((i, t)) = kept.iter().enumerate().find(|(_, t)| t.view != first) {
                return Err(invalid(
                    op,
                    format_args!(
                        "tensor {i} has shape {:?}; every tensor must have the first's {:?}",
                        t.view, first
                    ),
                ));
            }
            let mut want = first.clone();
            want.insert(d, kept.len() as i64);
            // SAFETY: the preamble checked both non-null; valid by this
            // function's contract.
            return unsafe {
                finish_join(op, kept, o, &want, d, true, via, workspace_size, executor)
            };
        }
        let d = norm_dim(op, dim, first.len())?;
        let mut want = first.clone();
        want[d] = 0;
        for (i, t) in kept.iter().enumerate() {
            let same = t.view.len() == first.len()
                && t.view
                    .iter()
                    .zip(&first)
                    .enumerate()
                    .all(|(j, (a, b))| j == d || a == b);
            if !same {
                return Err(invalid(
                    op,
                    format_args!(
                        "kept tensor {i} has shape {:?}; every tensor must have the first's {:?} \
                         except along dim {d}",
                        t.view, first
                    ),
                ));
            }
            want[d] = want[d]
                .checked_add(t.view[d])
                .ok_or_else(|| invalid(op, "the joined extent overflows 64 bits"))?;
        }
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { finish_join(op, kept, o, &want, d, false, via, workspace_size, executor) }
    })
}

/// The rules on `out` (shape `want`, written once), the staging decision
/// and the plan, shared by Cat and Stack.
///
/// # Safety
/// `workspace_size` and `executor` are valid for writes.
#[allow(clippy::too_many_arguments)]
unsafe fn finish_join(
    op: Op,
    kept: objects::Tensors,
    o: std::sync::Arc<Tensor>,
    want: &[i64],
    d: usize,
    stack: bool,
    via: Option<KDtype>,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> Result<aclnnStatus, aclnnStatus> {
    {
        if o.view.as_slice() != want {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        writes_once(op, &o, "out")?;
        let empty = numel(&o.view) == 0;
        // A member that shares bytes with out is read through the
        // workspace first (every member is staged then), so the result is
        // as if all were read before any write.
        let stage = !empty && kept.iter().any(|t| views_meet(t, &o));
        let mut workspace = 0u64;
        if !empty {
            for t in &kept {
                let need = match through(t, via, o.dtype) {
                    Some(p) => (numel(&t.view) as u64).saturating_mul(kdtype_size(p) as u64),
                    None if stage => bytes(t),
                    None => 0,
                };
                workspace = workspace
                    .checked_add(align(need))
                    .filter(|w| *w <= i64::MAX as u64)
                    .ok_or_else(|| {
                        invalid(op, "the workspace the staging needs overflows 64 bits")
                    })?;
            }
        }
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::Cat {
                dim: d,
                stage,
                stack,
                via,
            }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                kept,
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    }
}

/// The dtype a member is cast to in the workspace before it is joined
/// (`via`, the promoted dtype, when it is neither the member's nor out's:
/// member, promoted and out dtypes all differ), else `None` (the member
/// goes to out's dtype in one step).
fn through(x: &Tensor, via: Option<KDtype>, out: aclDataType) -> Option<KDtype> {
    let p = via?;
    let (xk, ok) = (kdtype(x.dtype)?, kdtype(out)?);
    (xk != p && p != ok).then_some(p)
}

fn build_cat(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Cat {
        dim,
        stage,
        stack,
        via,
    } = e.plan
    else {
        unreachable!()
    };
    let o = &e.outputs[0];
    let ok = kdtype(o.dtype).expect("validated dtype");
    let mut l = Launch::new(e.op.name());
    // Sources first: a member cast to the promoted dtype in the workspace,
    // or staged there when one meets out (before any write to out).
    let mut cursor = ws;
    let mut sources = Vec::with_capacity(e.inputs.len());
    for x in &e.inputs {
        let Some(src) = l.view(rt, "tensors", x, (&x.view, &x.strides, x.offset), false) else {
            sources.push(None);
            continue;
        };
        let xk = kdtype(x.dtype).expect("validated dtype");
        let c = contiguous(&x.view);
        if let Some(p) = through(x, via, o.dtype) {
            let n = (numel(&x.view) as u64).saturating_mul(kdtype_size(p) as u64);
            let tmp = l.region(
                rt,
                "workspace (tensors in the promoted dtype)",
                cursor,
                n,
                true,
            );
            cursor = cursor.saturating_add(align(n));
            l.steps.push(Step::Cast(
                CopyDesc::new(&x.view, &c, &x.strides, 0),
                p,
                tmp,
                xk,
                src,
            ));
            sources.push(Some((tmp, executor::Strides::of(&c), p)));
        } else if stage {
            let tmp = l.region(rt, "workspace (tensors staging)", cursor, bytes(x), true);
            cursor = cursor.saturating_add(align(bytes(x)));
            l.steps.push(Step::Copy(
                CopyDesc::new(&x.view, &c, &x.strides, elem(x)),
                tmp,
                src,
            ));
            sources.push(Some((tmp, executor::Strides::of(&c), xk)));
        } else {
            sources.push(Some((src, executor::Strides::of(&x.strides), xk)));
        }
    }
    let mut at = 0i64;
    for (x, s) in e.inputs.iter().zip(sources) {
        let offset = o.offset + at * o.strides[dim];
        let Some((src, mut src_strides, sk)) = s else {
            at += if stack { 1 } else { x.view[dim] };
            continue;
        };
        // A Stack member is seen with out's rank: extent 1 at `dim`.
        let mut shape = x.view.clone();
        if stack {
            shape.insert(dim, 1);
            let mut st: objects::Dims = objects::Dims::from_slice(&src_strides);
            st.insert(dim, 0);
            src_strides = executor::Strides::of(&st);
        }
        at += shape[dim];
        let dst = l
            .view(rt, "out", o, (&shape, &o.strides, offset), true)
            .expect("non-empty");
        if sk == ok {
            l.steps.push(Step::Copy(
                CopyDesc::new(&shape, &o.strides, &src_strides, elem(o)),
                dst,
                src,
            ));
        } else {
            l.steps.push(Step::Cast(
                CopyDesc::new(&shape, &o.strides, &src_strides, 0),
                ok,
                dst,
                sk,
                src,
            ));
        }
    }
    l
}

/// `aclnnCat`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnCat(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnCat", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::Cat,
            workspace,
            workspace_size,
            executor,
            stream,
            build_cat,
        )
    })
}

/// `aclnnStack`.
///
/// # Safety
/// As [`aclnnCat`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnStack(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnStack", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::Stack,
            workspace,
            workspace_size,
            executor,
            stream,
            build_cat,
        )
    })
}
