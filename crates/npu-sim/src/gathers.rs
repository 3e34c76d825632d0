//! The gathers of issue 21: GatherV2 (`aclnnGatherV2`, `docs/ops.md`
//! §24), over the shared first-phase checks of [`crate::ops`] and
//! IndexSelect's gather plan (the index read flat, each index checked as
//! it is loaded: out of range is a device fault).
//!
//! GatherV2's first phase, in the order of CANN's `aclnn_gather_v2.cpp`:
//! null `self`, `index`, `out`, `workspaceSize`, `executor` (`161001`), the
//! product's kernel (`561003`), then `161002` for `out`'s dtype differing
//! from `self`'s, `self`'s dtype, `index`'s dtype (INT32 or INT64), a rank
//! above 8, `dim` out of range, `out`'s shape, then the structure of the
//! views, `out` writing one element twice and the project's rule on a 0-D
//! `self`'s index. An empty `self` or `index` plans nothing (CANN returns
//! at once).

use crate::executor::{align, is_contiguous, numel};
use crate::objects::{Dims, Plan};
use crate::ops::{
    bytes, dtype_ok, finish, first_phase, invalid, norm_dim, preamble, same_dtype, structure,
    writes_once,
};
use crate::soc::Op;
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
        let n_index = numel(&i.view);
        if scalar && n_index != 1 {
            return Err(invalid(
                op,
                format_args!("a 0-D self needs an index of one element, got {n_index}"),
            ));
        }
        let empty = numel(&x.view) == 0 || n_index == 0;
        // Staging for each non-contiguous tensor; the sum is checked.
        let mut workspace = 0u64;
        if !empty {
            for t in [&x, &i, &o] {
                if !is_contiguous(&t.view, &t.strides) {
                    workspace = workspace
                        .checked_add(align(bytes(t)))
                        .filter(|w| *w <= i64::MAX as u64)
                        .ok_or_else(|| {
                            invalid(op, "the workspace the views need overflows 64 bits")
                        })?;
                }
            }
        }
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
