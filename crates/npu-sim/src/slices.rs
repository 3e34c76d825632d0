//! The slices family over the copy kernel: SliceV2 (`aclnnSliceV2`,
//! docs/ops.md §31: Slice along several axes at once) and SliceV3
//! (`aclnnSliceV3`, §31: the box `begin .. begin + size`).
//!
//! No kernel and no plan of its own: the sliced view of `self` (each
//! sliced axis starting at its normalised start, its stride multiplied by
//! its step) is one [`crate::objects::Plan::ViewCopy`], run by the views module's launch,
//! through the workspace when `out` is not contiguous or shares bytes with
//! `self` (as CANN's Contiguous, StridedSliceV3 and ViewCopy).

use crate::executor;
use crate::objects;
use crate::ops::{dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use crate::views::{build_view_copy, copy_plan, int_array, out_shape, same_dtype};
use cann_sys::*;
use std::ffi::c_void;

/// One axis of a slice after ops.md §1's normalisation: `(start', len)`
/// for an extent `n`, a positive `step` and any `start`, `end` (computed
/// in i128, so no i64 value overflows).
fn normalise(n: i64, start: i64, end: i64, step: i64) -> (i64, i64) {
    if n <= 0 {
        return (0, 0);
    }
    let (n, start, end, step) = (n as i128, start as i128, end as i128, step as i128);
    let s = if start < -n {
        0
    } else if start >= n {
        n
    } else {
        (start + n) % n
    };
    let e = if end >= n {
        n
    } else if (end + n) % n < s {
        s
    } else {
        (end + n) % n
    };
    // Both in 0..=n, so they fit in i64.
    (s as i64, ((e - s + step - 1) / step) as i64)
}

// ---------------------------------------------------------------- SliceV2

/// `aclnnSliceV2GetWorkspaceSize`: `self` cut along each of `axes` to
/// `starts[i], starts[i] + steps[i], ..` below `ends[i]`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclnnSliceV2GetWorkspaceSize(
    self_: *const aclTensor,
    starts: *const aclIntArray,
    ends: *const aclIntArray,
    axes: *const aclIntArray,
    steps: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::SliceV2;
    first_phase(op, || {
        // aclnn_slice_v2.cpp: the two out-pointers, then self, out, starts,
        // ends, axes, steps.
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("self", self_.is_null()),
                ("out", out.is_null()),
                ("starts", starts.is_null()),
                ("ends", ends.is_null()),
                ("axes", axes.is_null()),
                ("steps", steps.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let starts = int_array(op, starts, "starts")?;
        let ends = int_array(op, ends, "ends")?;
        let axes = int_array(op, axes, "axes")?;
        let steps = int_array(op, steps, "steps")?;
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        let r = x.view.len() as i64;
        let mut seen = [false; 8];
        let mut dims = Vec::with_capacity(axes.len());
        for &a in &axes {
            if a < -r || a >= r {
                return Err(invalid(
                    op,
                    format_args!("axes entry {a} is outside [{}, {}]", -r, r - 1),
                ));
            }
            let d = if a < 0 { a + r } else { a } as usize;
            if std::mem::replace(&mut seen[d], true) {
                return Err(invalid(op, format_args!("axes names axis {d} twice")));
            }
            dims.push(d);
        }
        for (name, len) in [
            ("starts", starts.len()),
            ("ends", ends.len()),
            ("steps", steps.len()),
        ] {
            if len != axes.len() {
                return Err(invalid(
                    op,
                    format_args!("{name} has {len} entries, axes {}", axes.len()),
                ));
            }
        }
        if let Some(s) = steps.iter().find(|&&s| s <= 0) {
            return Err(invalid(
                op,
                format_args!("steps entry {s} must be at least 1"),
            ));
        }
        let mut want: objects::Dims = x.view.iter().copied().collect();
        let mut strides: objects::Dims = x.strides.iter().copied().collect();
        let mut start = 0i64;
        for (i, &d) in dims.iter().enumerate() {
            let (s, len) = normalise(x.view[d], starts[i], ends[i], steps[i]);
            want[d] = len;
            if len > 1 {
                // step < extent here, so the product lies within the span
                // `structure` checked.
                strides[d] = x.strides[d].saturating_mul(steps[i]);
            }
            if len > 0 {
                start = start.saturating_add(s.saturating_mul(x.strides[d]));
            }
        }
        out_shape(op, &o, &want)?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = copy_plan(&x, &o, strides, start);
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

/// `aclnnSliceV2`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSliceV2(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::SliceV2.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::SliceV2,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy,
        )
    })
}

// ---------------------------------------------------------------- SliceV3

/// `aclnnSliceV3GetWorkspaceSize`: `y` is the box of `x` from `begin`
/// with extents `size` (the generated pair of CANN's experimental
/// operator; the box must lie inside `x`, ops.md §31).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSliceV3GetWorkspaceSize(
    x: *const aclTensor,
    begin: *const aclIntArray,
    size: *const aclIntArray,
    y: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::SliceV3;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("x", x.is_null()),
                ("begin", begin.is_null()),
                ("size", size.is_null()),
                ("y", y.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("x", x), ("y", y)],
        )?;
        let begin = int_array(op, begin, "begin")?;
        let size = int_array(op, size, "size")?;
        dtype_ok(op, fam, &x, "x")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "x"), (&o, "y")])?;
        let rank = x.view.len();
        if rank == 0 {
            return Err(invalid(op, format_args!("x is 0-D (rank 1 to 8)")));
        }
        for (name, len) in [("begin", begin.len()), ("size", size.len())] {
            if len != rank {
                return Err(invalid(
                    op,
                    format_args!("{name} has {len} entries for a rank-{rank} x"),
                ));
            }
        }
        let mut start = 0i64;
        for d in 0..rank {
            let (b, z, n) = (begin[d], size[d], x.view[d]);
            if b < 0 || b > n {
                return Err(invalid(
                    op,
                    format_args!("begin entry {b} of dim {d} lies outside [0, {n}]"),
                ));
            }
            if z < 0 || z > n - b {
                return Err(invalid(
                    op,
                    format_args!("size entry {z} of dim {d} passes its extent {n} from {b}"),
                ));
            }
            if z > 0 {
                // b < n: within the span `structure` checked.
                start += b * x.strides[d];
            }
        }
        out_shape(op, &o, &size)?;
        writes_once(op, &o, "y")?;
        let strides: objects::Dims = x.strides.iter().copied().collect();
        let (plan, workspace) = copy_plan(&x, &o, strides, start);
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

/// `aclnnSliceV3`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSliceV3(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::SliceV3.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::SliceV3,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy,
        )
    })
}
