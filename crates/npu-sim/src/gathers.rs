//! The gathers of issue 21, over the shared first-phase checks of
//! [`crate::ops`]: GatherV2 (`aclnnGatherV2`, `docs/ops.md` §24) on
//! IndexSelect's gather plan (the index read flat), Gather (`aclnnGather`,
//! §25: torch.gather) on one element-wise gather step, and Take
//! (`aclnnTake`, §26) on IndexSelect's along `self` read flat; IndexCopy
//! (§27) on a scatter step and GatherNd (§28) on a gather-nd step. Each index is
//! checked as it is loaded: out of range is a device fault.
//!
//! GatherV2's first phase, in the order of CANN's `aclnn_gather_v2.cpp`:
//! null `self`, `index`, `out`, `workspaceSize`, `executor` (`161001`), the
//! product's kernel (`561003`), then `161002` for `out`'s dtype differing
//! from `self`'s, `self`'s dtype, `index`'s dtype (INT32 or INT64), a rank
//! above 8, `dim` out of range, `out`'s shape, then the structure of the
//! views, `out` writing one element twice and the project's rule on a 0-D
//! `self`'s index. An empty `self` or `index` plans nothing (CANN returns
//! at once).

use crate::executor::{align, contiguous, elem, is_contiguous, numel};
use crate::kernels::CopyDesc;
use crate::objects::{Dims, Executor, Plan};
use crate::ops::{
    bytes, dtype_ok, finish, first_phase, invalid, norm_dim, preamble, same_dtype, staged, store,
    structure, writes_once,
};
use crate::soc::Op;
use crate::state::Runtime;
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

/// `aclnnGatherV2GetWorkspaceSize`:
/// `out[a.., i.., b..] = self[a.., index[i..], b..]` along `dim`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGatherV2GetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    index: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::GatherV2;
    first_phase(op, || {
        let (fam, [x, i, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("index", index.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("index", index), ("out", out.cast_const())],
        )?;
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("index data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        for (t, name) in [(&x, "self"), (&i, "index"), (&o, "out")] {
            if t.view.len() > 8 {
                return Err(invalid(
                    op,
                    format_args!("{name} has rank {} (at most 8)", t.view.len()),
                ));
            }
        }
        let scalar = x.view.is_empty();
        let d = norm_dim(op, dim, x.view.len().max(1))?;
        let want: Dims = if scalar {
            Dims::new()
        } else {
            let mut w = Dims::from_slice(&x.view[..d]);
            if i.view.is_empty() {
                w.push(1);
            } else {
                w.extend_from_slice(&i.view);
            }
            w.extend_from_slice(&x.view[d + 1..]);
            w
        };
        if o.view != want {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        structure(op, &[(&x, "self"), (&i, "index"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&x, "self"), (&i, "index")])?;
        let n_index = numel(&i.view);
        if scalar && n_index != 1 {
            return Err(invalid(
                op,
                format_args!("a 0-D self needs an index of one element, got {n_index}"),
            ));
        }
        let empty = numel(&x.view) == 0 || n_index == 0;
        // Staging for each non-contiguous tensor; the sum is checked.
        let workspace = if empty {
            0
        } else {
            crate::ops::staging_workspace(op, &[&x, &i, &o])?
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::IndexSelect { dim: d }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x, i],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// `aclnnGatherV2`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGatherV2(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::GatherV2.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::GatherV2,
            workspace,
            workspace_size,
            executor,
            stream,
            crate::ops::build_index_select,
        )
    })
}

/// `aclnnGatherGetWorkspaceSize`: torch.gather,
/// `out[p] = self[p with p[dim] = index[p]]` over `index`'s shape.
///
/// In `aclnn_gather.cpp`'s order: null `self`, `index`, `out`,
/// `workspaceSize`, `executor` (`161001`), the product's kernel
/// (`561003`), then `161002` for `self`'s dtype, a non-empty `index`'s
/// dtype (INT32 or INT64), `out`'s dtype differing from `self`'s, the
/// ranks of `self` and `index` differing (0-D counts as 1), a rank above 8,
/// `out`'s shape not `index`'s, `dim` out of range, and for a non-empty
/// `index` an extent above `self`'s (but along `dim`) or `self`'s extent 0
/// along `dim`; then the structure of the views and `out` writing one
/// element twice. An empty `index` (or `self`) plans nothing.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGatherGetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    index: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Gather;
    first_phase(op, || {
        let (fam, [x, i, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("index", index.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("index", index), ("out", out.cast_const())],
        )?;
        dtype_ok(op, fam, &x, "self")?;
        let n_index = numel(&i.view);
        if n_index != 0 && i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("index data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        same_dtype(op, &o, &x)?;
        let xs: Dims = if x.view.is_empty() {
            Dims::from_slice(&[1])
        } else {
            x.view.clone()
        };
        let is: Dims = if i.view.is_empty() {
            Dims::from_slice(&[1])
        } else {
            i.view.clone()
        };
        if xs.len() != is.len() {
            return Err(invalid(
                op,
                format_args!(
                    "index has rank {}, self rank {}: they must be the same",
                    i.view.len(),
                    x.view.len()
                ),
            ));
        }
        for (t, name) in [(&x, "self"), (&i, "index"), (&o, "out")] {
            if t.view.len() > 8 {
                return Err(invalid(
                    op,
                    format_args!("{name} has rank {} (at most 8)", t.view.len()),
                ));
            }
        }
        if o.view != i.view {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be index's {:?}", o.view, i.view),
            ));
        }
        let d = norm_dim(op, dim, xs.len())?;
        if n_index != 0 {
            for k in 0..xs.len() {
                if k != d && is[k] > xs[k] {
                    return Err(invalid(
                        op,
                        format_args!(
                            "index extent {} along dim {k} is larger than self's {}",
                            is[k], xs[k]
                        ),
                    ));
                }
            }
            if xs[d] == 0 {
                return Err(invalid(
                    op,
                    format_args!("a non-empty index along dim {d}, where self has no element"),
                ));
            }
        }
        structure(op, &[(&x, "self"), (&i, "index"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&x, "self"), (&i, "index")])?;
        let empty = n_index == 0 || numel(&x.view) == 0;
        // Staging for a non-contiguous index and out (self is read through
        // its own strides); the sum is checked.
        let workspace = if empty {
            0
        } else {
            crate::ops::staging_workspace(op, &[&i, &o])?
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::GatherElements { dim: d }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x, i],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// Gather's plan: one element-wise gather step from `self`'s own view and
/// the index (staged contiguous if it is not) into `out` (through the
/// workspace if it is not contiguous).
fn build_gather(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::GatherElements { dim } = e.plan else {
        unreachable!()
    };
    let (x, i, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty");
    let idx = staged(&mut l, rt, i, "index", &mut cursor);
    // 0-D tensors as rank 1 of length 1.
    let (xv, xst): (&[i64], &[i64]) = if x.view.is_empty() {
        (&[1], &[1])
    } else {
        (&x.view, &x.strides)
    };
    let shape: &[i64] = if i.view.is_empty() { &[1] } else { &i.view };
    let desc = CopyDesc::new(shape, &contiguous(shape), xst, elem(x));
    let (n_src, is64) = (xv[dim], i.dtype == aclDataType::ACL_INT64);
    store(&mut l, rt, o, cursor, |l, dst| {
        l.steps.push(Step::GatherElements(
            desc, dim as u8, n_src, dst, src, idx, is64,
        ));
    });
    l
}

/// `aclnnGather`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGather(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Gather.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::Gather,
            workspace,
            workspace_size,
            executor,
            stream,
            build_gather,
        )
    })
}

/// `aclnnTakeGetWorkspaceSize`: `out[p] = flat(self)[index[p]]`.
///
/// In `aclnn_take.cpp`'s order: null `self`, `index`, `out`,
/// `workspaceSize`, `executor` (`161001`), the product's kernel
/// (`561003`), then `161002` for `self`'s dtype, `out`'s dtype differing
/// from it, `index`'s dtype (INT32 or INT64), `index`'s rank above 8,
/// `out`'s shape not `index`'s, a non-empty `index` into an empty `self`;
/// then the structure of the views and `out` writing one element twice.
/// An empty `self` or `index` plans nothing.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTakeGetWorkspaceSize(
    self_: *const aclTensor,
    index: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Take;
    first_phase(op, || {
        let (fam, [x, i, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("index", index.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("index", index), ("out", out.cast_const())],
        )?;
        dtype_ok(op, fam, &x, "self")?;
        same_dtype(op, &o, &x)?;
        if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("index data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        if i.view.len() > 8 {
            return Err(invalid(
                op,
                format_args!("index has rank {} (at most 8)", i.view.len()),
            ));
        }
        if o.view != i.view {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be index's {:?}", o.view, i.view),
            ));
        }
        let (n_self, n_index) = (numel(&x.view), numel(&i.view));
        if n_self == 0 && n_index != 0 {
            return Err(invalid(op, "a non-empty index into an empty self"));
        }
        structure(op, &[(&x, "self"), (&i, "index"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&x, "self"), (&i, "index")])?;
        let empty = n_self == 0 || n_index == 0;
        let workspace = if empty {
            0
        } else {
            crate::ops::staging_workspace(op, &[&x, &i, &o])?
        };
        let plan = if empty { Plan::Empty } else { Plan::Take };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x, i],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// Take's plan: IndexSelect's gather (each index checked as loaded) along
/// the one dim of `self` read flat (staged contiguous when it is not).
fn build_take(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let (x, i, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let src = staged(&mut l, rt, x, "self", &mut cursor);
    let idx = staged(&mut l, rt, i, "index", &mut cursor);
    let is64 = i.dtype == aclDataType::ACL_INT64;
    let (n_src, n_index, es) = (numel(&x.view), numel(&i.view), elem(x) as i64);
    store(&mut l, rt, o, cursor, |l, dst| {
        l.steps
            .push(Step::Gather(dst, src, 1, n_src, es, idx, is64, n_index));
    });
    l
}

/// `aclnnTake`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnTake(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Take.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::Take,
            workspace,
            workspace_size,
            executor,
            stream,
            build_take,
        )
    })
}

/// The first phase both IndexCopy forms share, after the preamble: in
/// `aclnn_index_copy.cpp`'s order, `161002` for `self`'s dtype, `index`'s
/// dtype, `source`'s and `out`'s dtypes differing from `self`'s, a rank
/// above 8 (`self`, `source`) or 1 (`index`), `out`'s shape not `self`'s,
/// the ranks of `self` and `source` differing (0-D counts as 1-D), `dim`
/// out of range, `source`'s extents (`self`'s but along `dim`, where it
/// has one element per index); then the structure of the views and the
/// output writing one element twice.
///
/// # Safety
/// `workspace_size` and `executor` are valid for writes (checked non-null
/// by the preamble; valid by the caller's contract).
#[allow(clippy::too_many_arguments)]
unsafe fn index_copy_first(
    op: Op,
    fam: crate::soc::Family,
    x: std::sync::Arc<crate::objects::Tensor>,
    dim: i64,
    i: std::sync::Arc<crate::objects::Tensor>,
    src: std::sync::Arc<crate::objects::Tensor>,
    out: Option<std::sync::Arc<crate::objects::Tensor>>,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> Result<aclnnStatus, aclnnStatus> {
    let inplace = out.is_none();
    let o = out.clone().unwrap_or_else(|| x.clone());
    dtype_ok(op, fam, &x, "selfRef")?;
    if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
        return Err(invalid(
            op,
            format_args!("index data type {} must be INT64 or INT32", i.dtype.0),
        ));
    }
    if src.dtype != x.dtype {
        return Err(invalid(
            op,
            format_args!(
                "source data type {} differs from selfRef's {}",
                src.dtype.0, x.dtype.0
            ),
        ));
    }
    same_dtype(op, &o, &x)?;
    for (t, name, most) in [(&x, "selfRef", 8), (&src, "source", 8), (&i, "index", 1)] {
        if t.view.len() > most {
            return Err(invalid(
                op,
                format_args!("{name} has rank {} (at most {most})", t.view.len()),
            ));
        }
    }
    if o.view != x.view {
        return Err(invalid(
            op,
            format_args!("outRef shape {:?} must be selfRef's {:?}", o.view, x.view),
        ));
    }
    let one = Dims::from_slice(&[1]);
    let xs = if x.view.is_empty() {
        one.clone()
    } else {
        x.view.clone()
    };
    let ss = if src.view.is_empty() {
        one
    } else {
        src.view.clone()
    };
    if xs.len() != ss.len() {
        return Err(invalid(
            op,
            format_args!(
                "source has rank {}, selfRef rank {}: they must be the same",
                src.view.len(),
                x.view.len()
            ),
        ));
    }
    let d = norm_dim(op, dim, xs.len())?;
    let n_index = numel(&i.view);
    for k in 0..xs.len() {
        let want = if k == d { n_index } else { xs[k] };
        if ss[k] != want {
            return Err(invalid(
                op,
                format_args!(
                    "source shape {:?} must be selfRef's {:?} with {n_index} along dim {d}",
                    src.view, x.view
                ),
            ));
        }
    }
    structure(
        op,
        &[
            (&x, "selfRef"),
            (&i, "index"),
            (&src, "source"),
            (&o, "outRef"),
        ],
    )?;
    writes_once(op, &o, if inplace { "selfRef" } else { "outRef" })?;
    let empty = numel(&x.view) == 0 || (inplace && n_index == 0);
    // In place, an index or source meeting selfRef is copied first; out of
    // place, an output meeting an input is written through the workspace.
    let stage = if inplace {
        crate::executor::views_meet(&x, &i) || crate::executor::views_meet(&x, &src)
    } else {
        [&x, &i, &src]
            .iter()
            .any(|t| crate::executor::views_meet(&o, t))
    };
    let mut workspace = 0u64;
    if !empty {
        let mut parts: smallvec::SmallVec<[u64; 3]> = smallvec::SmallVec::new();
        if n_index > 0 {
            for t in [&i, &src] {
                if (inplace && stage) || !is_contiguous(&t.view, &t.strides) {
                    parts.push(bytes(t));
                }
            }
        }
        if (stage && !inplace) || !is_contiguous(&o.view, &o.strides) {
            parts.push(bytes(&o));
        }
        for b in parts {
            workspace = workspace
                .checked_add(align(b))
                .filter(|w| *w <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the workspace the views need overflows 64 bits"))?;
        }
    }
    let plan = if empty {
        Plan::Empty
    } else {
        Plan::IndexCopy {
            dim: d,
            inplace,
            stage,
        }
    };
    let (inputs, outputs) = if inplace {
        (smallvec::smallvec![i, src], smallvec::smallvec![x])
    } else {
        (smallvec::smallvec![x, i, src], smallvec::smallvec![o])
    };
    // SAFETY: the caller's contract.
    Ok(unsafe {
        finish(
            op,
            plan,
            inputs,
            outputs,
            workspace,
            workspace_size,
            executor,
        )
    })
}

/// `aclnnIndexCopyGetWorkspaceSize`: `outRef = selfRef`, then
/// `outRef[.., index[i], ..] = source[.., i, ..]` along `dim`; null
/// `selfRef`, `index`, `source`, `outRef`, `workspaceSize`, `executor`
/// (`161001`), the product's kernel (`561003`), then
/// `index_copy_first`'s rules.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndexCopyGetWorkspaceSize(
    self_ref: *mut aclTensor,
    dim: i64,
    index: *const aclTensor,
    source: *const aclTensor,
    out_ref: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::IndexCopy;
    first_phase(op, || {
        let (fam, [x, i, s, o]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("index", index.is_null()),
                ("source", source.is_null()),
                ("outRef", out_ref.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [
                ("selfRef", self_ref.cast_const()),
                ("index", index),
                ("source", source),
                ("outRef", out_ref.cast_const()),
            ],
        )?;
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { index_copy_first(op, fam, x, dim, i, s, Some(o), workspace_size, executor) }
    })
}

/// `aclnnInplaceIndexCopyGetWorkspaceSize`: `selfRef[.., index[i], ..] =
/// source[.., i, ..]` along `dim`; null `selfRef`, `index`, `source`,
/// `workspaceSize`, `executor` (`161001`), the product's kernel
/// (`561003`), then `index_copy_first`'s rules. The executor's inputs are
/// `[index, source]`, its output `selfRef`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceIndexCopyGetWorkspaceSize(
    self_ref: *mut aclTensor,
    dim: i64,
    index: *const aclTensor,
    source: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceIndexCopy;
    first_phase(op, || {
        let (fam, [x, i, s]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("index", index.is_null()),
                ("source", source.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [
                ("selfRef", self_ref.cast_const()),
                ("index", index),
                ("source", source),
            ],
        )?;
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { index_copy_first(op, fam, x, dim, i, s, None, workspace_size, executor) }
    })
}

/// A contiguous copy of `t` in the workspace at `*ws` (advanced past it)
/// when `force` or `t` is not contiguous; else `t` itself.
fn contiguous_source(
    l: &mut Launch,
    rt: &Runtime,
    t: &crate::objects::Tensor,
    name: &'static str,
    ws: &mut u64,
    force: bool,
) -> crate::work::Ref {
    if !force {
        return staged(l, rt, t, name, ws);
    }
    let src = l
        .view(rt, name, t, (&t.view, &t.strides, t.offset), false)
        .expect("non-empty");
    let tmp = l.region(rt, "workspace (input copy)", *ws, bytes(t), true);
    // Within the workspace the first phase sized (checked there).
    *ws = ws.saturating_add(align(bytes(t)));
    l.steps.push(Step::Copy(
        CopyDesc::new(&t.view, &contiguous(&t.view), &t.strides, elem(t)),
        tmp,
        src,
    ));
    tmp
}

/// IndexCopy's plan: `self` copied into the output (skipped in place when
/// `selfRef` is written directly), then one scatter step from the
/// (contiguous) source; the output through the workspace when it is not
/// contiguous or, out of place, meets an input.
fn build_index_copy(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::IndexCopy {
        dim,
        inplace,
        stage,
    } = e.plan
    else {
        unreachable!()
    };
    let (x, i, src, o) = if inplace {
        (&e.outputs[0], &e.inputs[0], &e.inputs[1], &e.outputs[0])
    } else {
        (&e.inputs[0], &e.inputs[1], &e.inputs[2], &e.outputs[0])
    };
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let n_index = numel(&i.view);
    let sources = (n_index > 0).then(|| {
        let force = inplace && stage;
        let idx = contiguous_source(&mut l, rt, i, "index", &mut cursor, force);
        let s = contiguous_source(&mut l, rt, src, "source", &mut cursor, force);
        (idx, s)
    });
    let es = elem(x);
    let xs: &[i64] = if x.view.is_empty() { &[1] } else { &x.view };
    let (outer, n_dst) = (numel(&xs[..dim]), xs[dim]);
    let inner_bytes = numel(&xs[dim + 1..]) * es as i64;
    let through = (stage && !inplace) || !is_contiguous(&o.view, &o.strides);
    let out = l
        .view(rt, "outRef", o, (&o.view, &o.strides, o.offset), true)
        .expect("non-empty");
    let dst = if through {
        l.region(rt, "workspace (out staging)", cursor, bytes(o), true)
    } else {
        out
    };
    if !inplace || through {
        let from = if inplace {
            out
        } else {
            l.view(rt, "selfRef", x, (&x.view, &x.strides, x.offset), false)
                .expect("non-empty")
        };
        l.steps.push(Step::Copy(
            CopyDesc::new(&x.view, &contiguous(&x.view), &x.strides, es),
            dst,
            from,
        ));
    }
    if let Some((idx, s)) = sources {
        l.steps.push(Step::Scatter(
            dst,
            s,
            outer,
            n_dst,
            inner_bytes,
            idx,
            i.dtype == aclDataType::ACL_INT64,
            n_index,
        ));
    }
    if through {
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &contiguous(&o.view), es),
            out,
            dst,
        ));
    }
    l
}

/// `aclnnIndexCopy`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndexCopy(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::IndexCopy.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::IndexCopy,
            workspace,
            workspace_size,
            executor,
            stream,
            build_index_copy,
        )
    })
}

/// `aclnnInplaceIndexCopy`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceIndexCopy(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::InplaceIndexCopy.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::InplaceIndexCopy,
            workspace,
            workspace_size,
            executor,
            stream,
            build_index_copy,
        )
    })
}

/// `aclnnGatherNdGetWorkspaceSize`: the slices of `self` at the coordinate
/// tuples of `indices`' last dim.
///
/// In `aclnn_gather_nd.cpp`'s order: null `self`, `indices`, `out`,
/// `workspaceSize`, `executor` (`161001`), the product's kernel
/// (`561003`), then `161002` for `out`'s dtype differing from `self`'s,
/// `self`'s dtype, `indices`' dtype, a rank of `self` or `indices` outside
/// 1..8, `K = indices.shape[-1]` outside `[1, rank(self)]`, `out`'s shape
/// not `indices.shape[..-1] + self.shape[K..]`; then the structure of the
/// views and `out` writing one element twice. An empty `self` or
/// `indices` plans nothing.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGatherNdGetWorkspaceSize(
    self_: *const aclTensor,
    indices: *const aclTensor,
    negative_index_support: bool,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::GatherNd;
    first_phase(op, || {
        let (fam, [x, i, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("indices", indices.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [
                ("self", self_),
                ("indices", indices),
                ("out", out.cast_const()),
            ],
        )?;
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("indices data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        for (t, name) in [(&x, "self"), (&i, "indices")] {
            if t.view.is_empty() || t.view.len() > 8 {
                return Err(invalid(
                    op,
                    format_args!("{name} has rank {} (1 to 8)", t.view.len()),
                ));
            }
        }
        let k = i.view[i.view.len() - 1];
        if k < 1 || k > x.view.len() as i64 {
            return Err(invalid(
                op,
                format_args!(
                    "indices' last extent {k} must lie in [1, {}] (self's rank)",
                    x.view.len()
                ),
            ));
        }
        let k = k as usize;
        let mut want = Dims::from_slice(&i.view[..i.view.len() - 1]);
        want.extend_from_slice(&x.view[k..]);
        if o.view != want {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        structure(op, &[(&x, "self"), (&i, "indices"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&x, "self"), (&i, "indices")])?;
        let empty = numel(&x.view) == 0 || numel(&i.view) == 0;
        let workspace = if empty {
            0
        } else {
            crate::ops::staging_workspace(op, &[&x, &i, &o])?
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::GatherNd {
                negative: negative_index_support,
            }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x, i],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// GatherNd's plan: one gather-nd step from `self` and `indices` (staged
/// contiguous when they are not) into `out` (through the workspace when it
/// is not contiguous).
fn build_gather_nd(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::GatherNd { negative } = e.plan else {
        unreachable!()
    };
    let (x, i, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let src = staged(&mut l, rt, x, "self", &mut cursor);
    let idx = staged(&mut l, rt, i, "index", &mut cursor);
    let k = i.view[i.view.len() - 1] as usize;
    let dims = crate::executor::Strides::of(&x.view[..k]);
    let inner = numel(&x.view[k..]) * elem(x) as i64;
    let tuples = numel(&i.view[..i.view.len() - 1]);
    let is64 = i.dtype == aclDataType::ACL_INT64;
    store(&mut l, rt, o, cursor, |l, dst| {
        l.steps.push(Step::GatherNd(
            dst, src, dims, inner, idx, is64, negative, tuples,
        ));
    });
    l
}

/// `aclnnGatherNd`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnGatherNd(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::GatherNd.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::GatherNd,
            workspace,
            workspace_size,
            executor,
            stream,
            build_gather_nd,
        )
    })
}

/// `aclnnMaskedSelectGetWorkspaceSize`: the elements of `self` where the
/// broadcast `mask` is set, packed at the front of `out` (1-D of the
/// broadcast element count; the rest of `out` is left as it was).
///
/// Null `self`, `mask`, `out`, `workspaceSize`, `executor` (`161001`), the
/// product's kernel (`561003`), then `161002` for `self`'s dtype, `mask`'s
/// dtype (BOOL or UINT8), `out`'s dtype differing from `self`'s, shapes
/// that do not broadcast, `out` not 1-D of the broadcast element count;
/// then the structure of the views and `out` writing one element twice.
/// A broadcast shape with a zero extent plans nothing.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnMaskedSelectGetWorkspaceSize(
    self_: *const aclTensor,
    mask: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::MaskedSelect;
    first_phase(op, || {
        let (fam, [x, m, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("mask", mask.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("mask", mask), ("out", out.cast_const())],
        )?;
        dtype_ok(op, fam, &x, "self")?;
        if m.dtype != aclDataType::ACL_BOOL && m.dtype != aclDataType::ACL_UINT8 {
            return Err(invalid(
                op,
                format_args!("mask data type {} must be BOOL or UINT8", m.dtype.0),
            ));
        }
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "self"), (&m, "mask"), (&o, "out")])?;
        let r = x.view.len().max(m.view.len());
        let mut shape = Dims::new();
        for k in 0..r {
            let at = |v: &[i64]| {
                let lead = r - v.len();
                if k < lead {
                    1
                } else {
                    v[k - lead]
                }
            };
            let (a, b) = (at(&x.view), at(&m.view));
            if a != b && a != 1 && b != 1 {
                return Err(invalid(
                    op,
                    format_args!(
                        "self's shape {:?} and mask's {:?} do not broadcast",
                        x.view, m.view
                    ),
                ));
            }
            shape.push(if a == 1 { b } else { a });
        }
        // A zero extent makes no elements, whatever the others multiply to.
        let n = if shape.contains(&0) {
            Some(0)
        } else {
            crate::executor::numel_checked(&shape)
        }
        .ok_or_else(|| invalid(op, "the broadcast shape overflows 64 bits"))?;
        if o.view.len() != 1 || o.view[0] != n {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be [{n}]", o.view),
            ));
        }
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&x, "self"), (&m, "mask")])?;
        let empty = n == 0;
        let workspace = if !empty && !is_contiguous(&o.view, &o.strides) {
            align(bytes(&o))
        } else {
            0
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::MaskedSelect
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x, m],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// MaskedSelect's plan: one compaction step reading `self` and `mask`
/// through their own broadcast strides into `out` (through the workspace,
/// holding `out`'s old values first, when it is not contiguous).
fn build_masked_select(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let (x, m, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let mut l = Launch::new(e.op.name());
    let r = x.view.len().max(m.view.len());
    let mut shape = Dims::new();
    for k in 0..r {
        let at = |v: &[i64]| {
            let lead = r - v.len();
            if k < lead {
                1
            } else {
                v[k - lead]
            }
        };
        shape.push(at(&x.view).max(at(&m.view)));
    }
    let xs = crate::ops::broadcast(&shape, &x.view, &x.strides).expect("checked");
    let ms = crate::ops::broadcast(&shape, &m.view, &m.strides).expect("checked");
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty");
    let mask = l
        .view(rt, "mask", m, (&m.view, &m.strides, m.offset), false)
        .expect("non-empty");
    let out = l
        .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
        .expect("non-empty");
    let es = elem(x);
    let desc = CopyDesc::new(&shape, &ms, &xs, es);
    if is_contiguous(&o.view, &o.strides) {
        l.steps.push(Step::MaskedSelect(desc, out, src, mask));
    } else {
        let tmp = l.region(rt, "workspace (out staging)", ws, bytes(o), true);
        let (to, from) = (contiguous(&o.view), &o.strides);
        l.steps
            .push(Step::Copy(CopyDesc::new(&o.view, &to, from, es), tmp, out));
        l.steps.push(Step::MaskedSelect(desc, tmp, src, mask));
        l.steps
            .push(Step::Copy(CopyDesc::new(&o.view, from, &to, es), out, tmp));
    }
    l
}

/// `aclnnMaskedSelect`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnMaskedSelect(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::MaskedSelect.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::MaskedSelect,
            workspace,
            workspace_size,
            executor,
            stream,
            build_masked_select,
        )
    })
}
