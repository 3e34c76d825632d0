//! Cast (`docs/ops.md` §14): every element of `self` converted to `dtype`.
//!
//! First phase, in the order of CANN's `aclnn_cast.cpp`: null pointers
//! (`161001`), the product's kernel (`561003`), then `161002` for `self`'s
//! dtype, the `dtype` argument, `out`'s dtype differing from it (the
//! project's rule), the structure of `self` and `out`, `out`'s shape and
//! `out` writing one element twice. The plan casts `self` through its view
//! into the workspace (the cast kernel) and copies the result into `out`
//! through its view, as CANN's Contiguous, Cast and ViewCopy, so `out` may
//! share memory with `self`.

use crate::executor::{align, contiguous, elem, numel};
use crate::kernels::CopyDesc;
use crate::objects::{Executor, Plan};
use crate::ops::{
    dtype_ok, finish, first_phase, invalid, kdtype, preamble, structure, writes_once,
};
use crate::soc::{self, Op};
use crate::state::Runtime;
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

/// `aclnnCastGetWorkspaceSize`: `out = self` converted to `dtype`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnCastGetWorkspaceSize(
    self_: *const aclTensor,
    dtype: aclDataType,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Cast;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        dtype_ok(op, fam, &x, "self")?;
        if !soc::dtype_supported(op, fam, dtype) {
            return Err(invalid(
                op,
                format_args!(
                    "the param dtype {} is not in the supported list on this product",
                    dtype.0
                ),
            ));
        }
        if o.dtype != dtype {
            return Err(invalid(
                op,
                format_args!("out has data type {}, not dtype {}", o.dtype.0, dtype.0),
            ));
        }
        structure(op, &[(&x, "self"), (&o, "out")])?;
        if x.view[..] != o.view[..] {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be self's {:?}", o.view, x.view),
            ));
        }
        writes_once(op, &o, "out")?;
        let n = numel(&x.view);
        let (plan, workspace) = if n == 0 {
            (Plan::Empty, 0)
        } else {
            // out's bytes: within i64 (checked by `structure`).
            (Plan::Cast, align(n as u64 * elem(&o) as u64))
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![x],
                smallvec::smallvec![o],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let shape = &x.view;
    let dense = contiguous(shape);
    let es = elem(o);
    let mut l = Launch::new(Op::Cast.name());
    let tmp = l.region(
        rt,
        "workspace (cast result)",
        ws,
        numel(shape) as u64 * es as u64,
        true,
    );
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty self");
    l.steps.push(Step::Cast(
        CopyDesc::new(shape, &dense, &x.strides, 0),
        kdtype(o.dtype).expect("checked in the first phase"),
        tmp,
        kdtype(x.dtype).expect("checked in the first phase"),
        src,
    ));
    let dst = l
        .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
        .expect("non-empty out");
    l.steps.push(Step::Copy(
        CopyDesc::new(shape, &o.strides, &dense, es),
        dst,
        tmp,
    ));
    l
}

/// `aclnnCast`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnCast(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Cast.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(Op::Cast, workspace, workspace_size, executor, stream, build)
    })
}
