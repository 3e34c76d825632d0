//! Embedding (`aclnnEmbedding`, `docs/ops.md` §23): the rows of a 2-D
//! `weight` picked by an index tensor of any rank, over the shared
//! first-phase checks of [`crate::ops`] and IndexSelect's gather plan
//! (dim 0, every index at once).
//!
//! First phase, in the order of CANN's `aclnn_embedding.cpp`: null
//! `weight`, `indices`, `out`, `workspaceSize`, `executor` (`161001`), the
//! product's kernel (`561003`), then `161002` for `weight`'s dtype, `out`'s
//! dtype differing from it, `indices`' dtype (INT32 or INT64), a rank above
//! 8, `out`'s rank or leading dims not matching `indices`, then the
//! project's rules: `weight` 2-D, `out`'s last dim `weight`'s row length,
//! the structure of the views and `out` writing one element twice. An empty
//! `weight` or `indices` plans nothing (CANN returns at once); otherwise the
//! gather checks each index as it loads it (out of range: a device fault).

use crate::executor::numel;
use crate::objects::Plan;
use crate::ops::{dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use cann_sys::*;
use std::ffi::c_void;

/// `aclnnEmbeddingGetWorkspaceSize`: `out[i.., :] = weight[indices[i..], :]`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnEmbeddingGetWorkspaceSize(
    weight: *const aclTensor,
    indices: *const aclTensor,
    out: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Embedding;
    first_phase(op, || {
        let (fam, [w, i, o]) = preamble(
            op,
            &[
                ("weight", weight.is_null()),
                ("indices", indices.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("weight", weight), ("indices", indices), ("out", out)],
        )?;
        dtype_ok(op, fam, &w, "weight")?;
        if o.dtype != w.dtype {
            return Err(invalid(
                op,
                format_args!(
                    "out data type {} differs from weight's {}",
                    o.dtype.0, w.dtype.0
                ),
            ));
        }
        if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("indices data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        for (t, name) in [(&w, "weight"), (&i, "indices"), (&o, "out")] {
            if t.view.len() > 8 {
                return Err(invalid(
                    op,
                    format_args!("{name} has rank {} (at most 8)", t.view.len()),
                ));
            }
        }
        if o.view.len() != i.view.len() + 1 || o.view[..i.view.len()] != i.view[..] {
            return Err(invalid(
                op,
                format_args!(
                    "out shape {:?} must be indices' {:?} and one more dim",
                    o.view, i.view
                ),
            ));
        }
        if w.view.len() != 2 {
            return Err(invalid(
                op,
                format_args!("weight must be 2-D, got rank {}", w.view.len()),
            ));
        }
        if o.view[i.view.len()] != w.view[1] {
            return Err(invalid(
                op,
                format_args!(
                    "out's last dim {} must be weight's row length {}",
                    o.view[i.view.len()],
                    w.view[1]
                ),
            ));
        }
        structure(op, &[(&w, "weight"), (&i, "indices"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        crate::ops::out_apart(op, &o, &[(&w, "weight"), (&i, "indices")])?;
        let empty = numel(&w.view) == 0 || numel(&i.view) == 0;
        let workspace = if empty {
            0
        } else {
            crate::ops::staging_workspace(op, &[&w, &i, &o])?
        };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::IndexSelect { dim: 0 }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![w, i],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// `aclnnEmbedding`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnEmbedding(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Embedding.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(
            Op::Embedding,
            workspace,
            workspace_size,
            executor,
            stream,
            crate::ops::build_index_select,
        )
    })
}
