//! The slices family over the copy kernel: SliceV2 (`aclnnSliceV2`,
//! docs/ops.md §31: Slice along several axes at once) and SliceV3
//! (`aclnnSliceV3`, §31: the box `begin .. begin + size`) and AsStrided
//! (`aclnnAsStrided`, §33: a window over the flat elements of `x`) and
//! StridedSliceAssignV2 (`aclnnStridedSliceAssignV2`, §35: a strided
//! view of `varRef` overwritten in place); StridedSlice
//! (`aclnnStridedSlice`, §32) is Ascend 950 only and refused, as on every
//! product the simulator models.
//!
//! No kernel and no plan of its own: the sliced view of `self` (each
//! sliced axis starting at its normalised start, its stride multiplied by
//! its step) is one [`crate::objects::Plan::ViewCopy`], run by the views module's launch,
//! through the workspace when `out` is not contiguous or shares bytes with
//! `self` (as CANN's Contiguous, StridedSliceV3 and ViewCopy).

use crate::executor::{self, align, contiguous, elem, is_contiguous, numel, views_meet};
use crate::kernels::CopyDesc;
use crate::objects::{self, Executor, Plan};
use crate::ops::bytes;
use crate::ops::{dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use crate::state::Runtime;
use crate::views::{build_view_copy, copy_plan, int_array, out_shape, same_dtype};
use crate::work::{Launch, Ref, Step};
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
                // b < n: within the span `structure` checked (saturating:
                // an empty view's other strides are not bounded).
                start = start.saturating_add(b.saturating_mul(x.strides[d]));
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

// -------------------------------------------------------------- AsStrided

/// `aclnnAsStridedGetWorkspaceSize`: `out[i] = flat(x)[storageOffset[0] +
/// sum_j(i_j * stride_j)]`, `out.shape = size` (ops.md §33).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnAsStridedGetWorkspaceSize(
    x: *const aclTensor,
    size: *const aclIntArray,
    stride: *const aclIntArray,
    storage_offset: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::AsStrided;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("x", x.is_null()),
                ("size", size.is_null()),
                ("stride", stride.is_null()),
                ("storageOffset", storage_offset.is_null()),
                ("out", out.is_null()),
            ],
            [("x", x), ("out", out)],
        )?;
        let size = int_array(op, size, "size")?;
        let stride = int_array(op, stride, "stride")?;
        let offset = int_array(op, storage_offset, "storageOffset")?;
        dtype_ok(op, fam, &x, "x")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "x"), (&o, "out")])?;
        if size.is_empty() || size.len() > 8 || stride.len() != size.len() {
            return Err(invalid(
                op,
                format_args!(
                    "size has {} entries and stride {} (the same number, 1 to 8)",
                    size.len(),
                    stride.len()
                ),
            ));
        }
        if let Some(v) = size.iter().chain(&stride).chain(&offset).find(|&&v| v < 0) {
            return Err(invalid(
                op,
                format_args!("size, stride and storageOffset must not hold a negative entry ({v})"),
            ));
        }
        if offset.len() != 1 {
            return Err(invalid(
                op,
                format_args!("storageOffset has {} entries (exactly 1)", offset.len()),
            ));
        }
        let n = numel(&x.view);
        if !size.contains(&0) {
            let last = executor::window_reach(&size, &stride, offset[0]);
            if last >= i128::from(n) {
                return Err(invalid(
                    op,
                    format_args!(
                        "the largest position read, {last}, is not below x's {n} elements"
                    ),
                ));
            }
        }
        out_shape(op, &o, &size)?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = if numel(&o.view) == 0 {
            (Plan::Empty, 0)
        } else {
            let stage_in = !is_contiguous(&x.view, &x.strides);
            let stage = !is_contiguous(&o.view, &o.strides) || views_meet(&x, &o);
            let ws = (if stage_in { align(bytes(&x)) } else { 0 })
                .checked_add(if stage { align(bytes(&o)) } else { 0 })
                .filter(|w| *w <= i64::MAX as u64)
                .ok_or_else(|| invalid(op, "the workspace the staging needs overflows 64 bits"))?;
            (
                Plan::AsStrided {
                    strides: stride.iter().copied().collect(),
                    start: offset[0],
                    stage_in,
                    stage,
                },
                ws,
            )
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

/// The launch of a [`Plan::AsStrided`]: flat(x) (x itself, or its flat
/// copy in the workspace), then one strided copy of the window into `out`
/// (two when staged). Every position the window reads lies below
/// numel(x), so within the region declared.
fn build_as_strided(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::AsStrided {
        strides,
        start,
        stage_in,
        stage,
    } = &e.plan
    else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(x);
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let mut flat = l
        .view(rt, "x", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty x");
    if *stage_in {
        let tmp = l.region(rt, "workspace (x staging)", cursor, bytes(x), true);
        cursor = cursor.saturating_add(align(bytes(x)));
        l.steps.push(Step::Copy(
            CopyDesc::new(&x.view, &contiguous(&x.view), &x.strides, es),
            tmp,
            flat,
        ));
        flat = tmp;
    }
    let src = Ref::offset(flat, *start as u64 * es as u64);
    let dense = contiguous(&o.view);
    if *stage {
        let tmp = l.region(rt, "workspace (out staging)", cursor, bytes(o), true);
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &dense, strides, es),
            tmp,
            src,
        ));
        let dst = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &dense, es),
            dst,
            tmp,
        ));
    } else {
        let dst = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, strides, es),
            dst,
            src,
        ));
    }
    l
}

/// `aclnnAsStrided`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnAsStrided(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::AsStrided.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::AsStrided,
            workspace,
            workspace_size,
            executor,
            stream,
            build_as_strided,
        )
    })
}

// --------------------------------------------------- StridedSliceAssignV2

/// `aclnnStridedSliceAssignV2GetWorkspaceSize`: the elements of `varRef`
/// at `begin + i * strides` along `axesOptional` (absent: `0, 1, ..`)
/// become `inputValue`'s, in place (ops.md §35).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclnnStridedSliceAssignV2GetWorkspaceSize(
    var_ref: *mut aclTensor,
    input_value: *const aclTensor,
    begin: *const aclIntArray,
    end: *const aclIntArray,
    strides: *const aclIntArray,
    axes_optional: *const aclIntArray,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::StridedSliceAssignV2;
    first_phase(op, || {
        let (fam, [var, v]) = preamble(
            op,
            &[
                ("varRef", var_ref.is_null()),
                ("inputValue", input_value.is_null()),
                ("begin", begin.is_null()),
                ("end", end.is_null()),
                ("strides", strides.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("varRef", var_ref), ("inputValue", input_value)],
        )?;
        let begin = int_array(op, begin, "begin")?;
        let end = int_array(op, end, "end")?;
        let steps = int_array(op, strides, "strides")?;
        let axes = if axes_optional.is_null() {
            None
        } else {
            Some(int_array(op, axes_optional, "axesOptional")?)
        };
        dtype_ok(op, fam, &var, "varRef")?;
        if v.dtype != var.dtype {
            return Err(invalid(
                op,
                format_args!(
                    "inputValue data type {} differs from varRef's {}",
                    v.dtype.0, var.dtype.0
                ),
            ));
        }
        structure(op, &[(&var, "varRef"), (&v, "inputValue")])?;
        let rank = var.view.len();
        if rank == 0 {
            return Err(invalid(op, format_args!("varRef is 0-D (rank 1 to 8)")));
        }
        let k = begin.len();
        if k > rank || end.len() != k || steps.len() != k {
            return Err(invalid(
                op,
                format_args!(
                    "begin, end and strides have {k}, {} and {} entries (the same number, at most {rank})",
                    end.len(),
                    steps.len()
                ),
            ));
        }
        let dims: Vec<usize> = match &axes {
            None => (0..k).collect(),
            Some(axes) => {
                if axes.len() != k {
                    return Err(invalid(
                        op,
                        format_args!("axesOptional has {} entries, begin {k}", axes.len()),
                    ));
                }
                let r = rank as i64;
                let mut seen = [false; 8];
                let mut dims = Vec::with_capacity(k);
                for &a in axes {
                    if a < -r || a >= r {
                        return Err(invalid(
                            op,
                            format_args!("axesOptional entry {a} is outside [{}, {}]", -r, r - 1),
                        ));
                    }
                    let d = if a < 0 { a + r } else { a } as usize;
                    if std::mem::replace(&mut seen[d], true) {
                        return Err(invalid(
                            op,
                            format_args!("axesOptional names axis {d} twice"),
                        ));
                    }
                    dims.push(d);
                }
                dims
            }
        };
        for (i, &st) in steps.iter().enumerate() {
            if st < 1 || (dims[i] == rank - 1 && st != 1) {
                return Err(invalid(
                    op,
                    format_args!(
                        "strides entry {st} for axis {}: at least 1, and 1 on the last axis",
                        dims[i]
                    ),
                ));
            }
        }
        let mut want: objects::Dims = var.view.iter().copied().collect();
        let mut dst: objects::Dims = var.strides.iter().copied().collect();
        let mut start = 0i64;
        for (i, &d) in dims.iter().enumerate() {
            let n = var.view[d];
            let norm = |x: i64| -> i64 {
                let x = if x < 0 { x.saturating_add(n) } else { x };
                x.clamp(0, n)
            };
            let (b, e, st) = (norm(begin[i]), norm(end[i]), steps[i]);
            // e - b <= n: no overflow; ceil without overflow for any step.
            let len = if e > b { (e - b - 1) / st + 1 } else { 0 };
            want[d] = len;
            if len > 1 {
                // st < n here: within the span `structure` checked
                // (saturating: an empty view's strides are not bounded).
                dst[d] = var.strides[d].saturating_mul(st);
            }
            if len > 0 {
                start = start.saturating_add(b.saturating_mul(var.strides[d]));
            }
        }
        if v.view[..] != want[..] {
            return Err(invalid(
                op,
                format_args!(
                    "inputValue shape {:?} must be the sliced shape {:?}",
                    v.view, want
                ),
            ));
        }
        if numel(&var.view) > 0 {
            // ops.md §35: varRef, when not empty, does not overlap itself.
            writes_once(op, &var, "varRef")?;
        }
        let (plan, workspace) = if numel(&v.view) == 0 {
            (Plan::Empty, 0)
        } else {
            let stage = views_meet(&v, &var);
            (
                Plan::SliceAssign {
                    strides: dst,
                    start,
                    stage,
                },
                if stage { align(bytes(&v)) } else { 0 },
            )
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![v],
                smallvec::smallvec![var],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

/// The launch of a [`Plan::SliceAssign`]: `inputValue` (or its copy in
/// the workspace) copied into the sliced view of `varRef`, which lies in
/// `varRef`'s own view (the first phase checked the slice inside it).
fn build_slice_assign(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::SliceAssign {
        strides,
        start,
        stage,
    } = &e.plan
    else {
        unreachable!()
    };
    let (v, var) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(v);
    let mut l = Launch::new(e.op.name());
    let mut src = l
        .view(rt, "inputValue", v, (&v.view, &v.strides, v.offset), false)
        .expect("non-empty inputValue");
    let dense = contiguous(&v.view);
    let mut src_strides: &[i64] = &v.strides;
    if *stage {
        let tmp = l.region(rt, "workspace (inputValue staging)", ws, bytes(v), true);
        l.steps.push(Step::Copy(
            CopyDesc::new(&v.view, &dense, &v.strides, es),
            tmp,
            src,
        ));
        src = tmp;
        src_strides = &dense;
    }
    let base = l
        .view(
            rt,
            "varRef",
            var,
            (&var.view, &var.strides, var.offset),
            true,
        )
        .expect("non-empty varRef");
    let dst = Ref::offset(base, *start as u64 * es as u64);
    l.steps.push(Step::Copy(
        CopyDesc::new(&v.view, strides, src_strides, es),
        dst,
        src,
    ));
    l
}

/// `aclnnStridedSliceAssignV2`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnStridedSliceAssignV2(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::StridedSliceAssignV2.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::StridedSliceAssignV2,
            workspace,
            workspace_size,
            executor,
            stream,
            build_slice_assign,
        )
    })
}

// ------------------------------------------------------------ StridedSlice

/// `aclnnStridedSliceGetWorkspaceSize` (ops.md §32): Ascend 950 only. On
/// every product the simulator models, CANN's op_api refuses it after the
/// null checks (161002, "only supports ASCEND950"); so does this, never
/// writing an executor.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclnnStridedSliceGetWorkspaceSize(
    x: *const aclTensor,
    begin: *const aclIntArray,
    end: *const aclIntArray,
    strides: *const aclIntArray,
    _begin_mask: i64,
    _end_mask: i64,
    _ellipsis_mask: i64,
    _new_axis_mask: i64,
    _shrink_axis_mask: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::StridedSlice;
    first_phase(op, || {
        let (fam, _) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("self", x.is_null()),
                ("begin", begin.is_null()),
                ("end", end.is_null()),
                ("strides", strides.is_null()),
                ("out", out.is_null()),
            ],
            [("self", x), ("out", out)],
        )?;
        for (p, name) in [(begin, "begin"), (end, "end"), (strides, "strides")] {
            int_array(op, p, name)?;
        }
        Err(invalid(
            op,
            format_args!(
                "aclnnStridedSlice only supports ASCEND950 (this product is {fam:?}; docs/ops.md §32)"
            ),
        ))
    })
}

/// The launch of a StridedSlice executor: none exists on a modeled
/// product (the first phase never writes one), and `executor::run`
/// refuses any other operator's before this is reached; an empty launch.
fn build_strided_slice(_rt: &Runtime, e: &Executor, _ws: u64) -> Launch {
    Launch::new(e.op.name())
}

/// `aclnnStridedSlice`: refuses every executor (ops.md §32).
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnStridedSlice(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::StridedSlice.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::StridedSlice,
            workspace,
            workspace_size,
            executor,
            stream,
            build_strided_slice,
        )
    })
}
