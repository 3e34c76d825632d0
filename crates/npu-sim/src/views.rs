//! The slices-and-views family over the copy kernel: Permute
//! (`aclnnPermute`, docs/ops.md §18), Flip (`aclnnFlip`, §19) and Roll
//! (`aclnnRoll`, §20: `2^m` box copies for `m` rolled dims, or two copies
//! of the flat sequence) and Expand (`aclnnExpand`, §21: one copy from the
//! broadcast view, stride 0 on the new and repeated dims) and Repeat
//! (`aclnnRepeat`, §22: one copy from a view with each tiled dim split in
//! two, the repeat at stride 0; more copies when that needs over 8 dims).
//!
//! No kernel of its own: each is one strided copy from a view of `self`
//! into `out`, through the workspace when `out` is not contiguous or
//! shares bytes with `self`, as CANN's Contiguous, Transpose / ReverseV2
//! and ViewCopy. Permute's view has `self`'s strides reordered (the copy
//! kernel's block transposes take the transposing shapes); Flip's has the
//! flipped dims' strides negated, starting from their last element (the
//! kernel walks signed strides).

use crate::executor::Strides;
use crate::executor::{self, align, contiguous, elem, is_contiguous, numel, views_meet};
use crate::kernels::CopyDesc;
use crate::objects::{self, Executor, Plan, Tensor};
use crate::ops::{bytes, dtype_ok, finish, first_phase, invalid, preamble, structure, writes_once};
use crate::soc::Op;
use crate::state::{self, Runtime};
use crate::work::{Launch, Ref, Step};
use cann_sys::*;
use std::ffi::c_void;

type R<T> = Result<T, aclnnStatus>;

/// The live int array behind `p` (`161002` when it is not one).
pub(crate) fn int_array(op: Op, p: *const aclIntArray, name: &str) -> R<Vec<i64>> {
    state::with_handles(|h| h.int_arrays.get(&(p as usize)).map(|a| (**a).clone()))
        .ok_or_else(|| invalid(op, format_args!("{name} ({p:p}) is not a live int array")))
}

/// `out`'s dtype must be `self`'s.
pub(crate) fn same_dtype(op: Op, o: &Tensor, x: &Tensor) -> R<()> {
    if o.dtype != x.dtype {
        return Err(invalid(
            op,
            format_args!(
                "out data type {} differs from self's {}",
                o.dtype.0, x.dtype.0
            ),
        ));
    }
    Ok(())
}

/// `out`'s shape must be `want`.
pub(crate) fn out_shape(op: Op, o: &Tensor, want: &[i64]) -> R<()> {
    if o.view[..] != want[..] {
        return Err(invalid(
            op,
            format_args!("out shape {:?} must be {:?}", o.view, want),
        ));
    }
    Ok(())
}

/// The plan of a copy from the view `(out's shape, strides)` of `x` into
/// `o`, and its workspace: staged when `o` is not contiguous or meets `x`.
pub(crate) fn copy_plan(x: &Tensor, o: &Tensor, strides: objects::Dims, start: i64) -> (Plan, u64) {
    if numel(&o.view) == 0 {
        return (Plan::Empty, 0);
    }
    let stage = !is_contiguous(&o.view, &o.strides) || views_meet(x, o);
    let ws = if stage { align(bytes(o)) } else { 0 };
    (
        Plan::ViewCopy {
            strides,
            start,
            stage,
        },
        ws,
    )
}

// ---------------------------------------------------------------- Permute

/// `aclnnPermuteGetWorkspaceSize`: dim `k` of `out` is dim `dims[k]` of
/// `self`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnPermuteGetWorkspaceSize(
    self_: *const aclTensor,
    dims: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Permute;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("dims", dims.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let dims = int_array(op, dims, "dims")?;
        dtype_ok(op, fam, &x, "self")?;
        dtype_ok(op, fam, &o, "out")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        let rank = x.view.len();
        if o.view.len() != rank {
            return Err(invalid(
                op,
                format_args!("out has rank {}, self {rank}", o.view.len()),
            ));
        }
        if dims.len() != rank {
            return Err(invalid(
                op,
                format_args!("dims has {} entries for rank {rank}", dims.len()),
            ));
        }
        let r = rank as i64;
        let mut seen = [false; 8];
        let mut want = objects::Dims::new();
        let mut strides = objects::Dims::new();
        for &d in &dims {
            if d < -r || d >= r {
                return Err(invalid(
                    op,
                    format_args!("dims entry {d} is outside [{}, {}]", -r, r - 1),
                ));
            }
            let n = if d < 0 { d + r } else { d } as usize;
            if std::mem::replace(&mut seen[n], true) {
                return Err(invalid(op, format_args!("dims names dim {n} twice")));
            }
            want.push(x.view[n]);
            strides.push(x.strides[n]);
        }
        out_shape(op, &o, &want)?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = copy_plan(&x, &o, strides, 0);
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

/// The launch of a [`Plan::ViewCopy`]: `out = (out's shape, strides @
/// self's offset + start)` of `self`, one strided copy (two when staged).
/// The region declared is `self`'s own view, which holds every element the
/// source view reads (the same elements, in another order).
pub(crate) fn build_view_copy(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::ViewCopy {
        strides,
        start,
        stage,
    } = &e.plan
    else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(x);
    let mut l = Launch::new(e.op.name());
    let base = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty self");
    // Within self's region: the first phase checked the view (`start` is
    // at most its span).
    let src = Ref::offset(base, *start as u64 * es as u64);
    if *stage {
        let dense = contiguous(&o.view);
        let tmp = l.region(rt, "workspace (out staging)", ws, bytes(o), true);
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

/// `aclnnPermute`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnPermute(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Permute.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::Permute,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy,
        )
    })
}

// ------------------------------------------------------------------- Flip

/// `aclnnFlipGetWorkspaceSize`: `out` is `self` with the dims of `dims`
/// reversed.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnFlipGetWorkspaceSize(
    self_: *const aclTensor,
    dims: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Flip;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("dims", dims.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let dims = int_array(op, dims, "dims")?;
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        out_shape(op, &o, &x.view)?;
        let rank = x.view.len();
        // A 0-D self takes the dims of a 1-D one (aclnn_flip.cpp).
        let r = rank.max(1) as i64;
        let mut flipped = [false; 8];
        for &d in &dims {
            if d < -r || d >= r {
                return Err(invalid(
                    op,
                    format_args!("dims entry {d} is outside [{}, {}]", -r, r - 1),
                ));
            }
            let n = if d < 0 { d + r } else { d } as usize;
            if std::mem::replace(&mut flipped[n], true) {
                return Err(invalid(op, format_args!("dims names dim {n} twice")));
            }
        }
        writes_once(op, &o, "out")?;
        let mut strides = objects::Dims::from_slice(&x.strides);
        let mut start = 0i64;
        for k in 0..rank {
            if flipped[k] && x.view[k] > 0 {
                // Within the view's span (checked by `structure`).
                start += (x.view[k] - 1) * x.strides[k];
                strides[k] = -x.strides[k];
            }
        }
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

/// `aclnnFlip`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnFlip(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Flip.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::Flip,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy,
        )
    })
}

// ------------------------------------------------------------------- Roll

/// `aclnnRollGetWorkspaceSize`: `out` is `x` with its elements moved
/// `shifts[k]` places along `dims[k]`, wrapping (or `flat(x)` moved by
/// `shifts[0]` when `dims` is empty).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnRollGetWorkspaceSize(
    x: *const aclTensor,
    shifts: *const aclIntArray,
    dims: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Roll;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("x", x.is_null()),
                ("shifts", shifts.is_null()),
                ("dims", dims.is_null()),
                ("out", out.is_null()),
            ],
            [("x", x), ("out", out)],
        )?;
        let shifts = int_array(op, shifts, "shifts")?;
        let dims = int_array(op, dims, "dims")?;
        dtype_ok(op, fam, &x, "x")?;
        dtype_ok(op, fam, &o, "out")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "x"), (&o, "out")])?;
        out_shape(op, &o, &x.view)?;
        if !dims.is_empty() && shifts.len() != dims.len() {
            return Err(invalid(
                op,
                format_args!(
                    "shifts has {} entries, dims {}: they must match",
                    shifts.len(),
                    dims.len()
                ),
            ));
        }
        if dims.is_empty() && shifts.len() != 1 {
            return Err(invalid(
                op,
                format_args!(
                    "shifts must have one entry when dims is empty, got {}",
                    shifts.len()
                ),
            ));
        }
        let rank = x.view.len();
        let n = numel(&x.view);
        if rank == 0 && !dims.is_empty() {
            return Err(invalid(op, "a 0-D x takes no dims"));
        }
        let mut per_dim = objects::Dims::from_elem(0, rank);
        let mut flat = None;
        if n > 0 && dims.is_empty() {
            flat = Some(i128::from(shifts[0]).rem_euclid(n as i128) as i64);
        } else if n > 0 {
            let r = rank as i64;
            for (&d, &s) in dims.iter().zip(&shifts) {
                if d < -r || d >= r {
                    return Err(invalid(
                        op,
                        format_args!("dims entry {d} is outside [{}, {}]", -r, r - 1),
                    ));
                }
                let k = if d < 0 { d + r } else { d } as usize;
                let m = i128::from(x.view[k]);
                per_dim[k] = ((i128::from(per_dim[k]) + i128::from(s).rem_euclid(m)) % m) as i64;
            }
        }
        // Last, as ops.md §20 lists it.
        writes_once(op, &o, "out")?;
        let (plan, workspace) = if n == 0 {
            (Plan::Empty, 0)
        } else {
            let stage_in = flat.is_some() && !is_contiguous(&x.view, &x.strides);
            let stage = !is_contiguous(&o.view, &o.strides) || views_meet(&x, &o);
            let ws = if stage_in { align(bytes(&x)) } else { 0 }
                + if stage { align(bytes(&o)) } else { 0 };
            (
                Plan::Roll {
                    shifts: per_dim,
                    flat,
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

/// The launch of a [`Plan::Roll`]: the source (`x`, or its contiguous
/// copy for a flat roll), the destination (`out`, or the workspace), then
/// the box copies and, when staged, the copy into `out`.
fn build_roll(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Roll {
        shifts,
        flat,
        stage_in,
        stage,
    } = &e.plan
    else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(x);
    let dense = contiguous(&x.view);
    let mut l = Launch::new(Op::Roll.name());
    let mut cursor = ws;
    let mut src = l
        .view(rt, "x", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty x");
    let mut src_strides = Strides::of(&x.strides);
    if *stage_in {
        let tmp = l.region(rt, "workspace (x staging)", cursor, bytes(x), true);
        cursor = cursor.saturating_add(align(bytes(x)));
        l.steps.push(Step::Copy(
            CopyDesc::new(&x.view, &dense, &x.strides, es),
            tmp,
            src,
        ));
        src = tmp;
        src_strides = Strides::of(&dense);
    }
    let (dst, dst_strides) = if *stage {
        let tmp = l.region(rt, "workspace (out staging)", cursor, bytes(o), true);
        (tmp, Strides::of(&dense))
    } else {
        let d = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        (d, Strides::of(&o.strides))
    };
    let at = |r: Ref, elems: i64| Ref::offset(r, elems as u64 * es as u64);
    if let Some(k) = *flat {
        // Both sides contiguous: dst[k..] = src[..n-k], dst[..k] = src[n-k..].
        let n = numel(&x.view);
        for (d0, s0, len) in [(k, 0, n - k), (0, n - k, k)] {
            if len > 0 {
                l.steps.push(Step::Copy(
                    CopyDesc::new(&[len], &[1], &[1], es),
                    at(dst, d0),
                    at(src, s0),
                ));
            }
        }
    } else {
        // Each rolled dim splits in two: out[k..] = x[..n-k], out[..k] = x[n-k..].
        let rolled: Vec<usize> = (0..x.view.len()).filter(|&d| shifts[d] > 0).collect();
        for combo in 0..1u32 << rolled.len() {
            let mut shape = objects::Dims::from_slice(&x.view);
            let (mut s_off, mut d_off) = (0i64, 0i64);
            for (bit, &d) in rolled.iter().enumerate() {
                let (n, k) = (x.view[d], shifts[d]);
                let (s0, d0, len) = if combo >> bit & 1 == 0 {
                    (0, k, n - k)
                } else {
                    (n - k, 0, k)
                };
                shape[d] = len;
                s_off += s0 * src_strides[d];
                d_off += d0 * dst_strides[d];
            }
            l.steps.push(Step::Copy(
                CopyDesc::new(&shape, &dst_strides, &src_strides, es),
                at(dst, d_off),
                at(src, s_off),
            ));
        }
    }
    if *stage {
        let out = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &dense, es),
            out,
            dst,
        ));
    }
    l
}

/// `aclnnRoll`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnRoll(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Roll.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::Roll,
            workspace,
            workspace_size,
            executor,
            stream,
            build_roll,
        )
    })
}

// ----------------------------------------------------------------- Expand

/// `aclnnExpandGetWorkspaceSize`: `out` is `self` broadcast to `size`
/// (aligned from the right; new leading dims).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnExpandGetWorkspaceSize(
    self_: *const aclTensor,
    size: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Expand;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
                ("self", self_.is_null()),
                ("size", size.is_null()),
                ("out", out.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let size = int_array(op, size, "size")?;
        same_dtype(op, &o, &x)?;
        dtype_ok(op, fam, &x, "self")?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        let rank = x.view.len();
        if size.len() < rank || size.len() > 8 {
            return Err(invalid(
                op,
                format_args!(
                    "size has {} entries; self has rank {rank} (at most 8 entries)",
                    size.len()
                ),
            ));
        }
        if let Some(v) = size.iter().find(|&&v| v < 0) {
            return Err(invalid(op, format_args!("size entry {v} is negative")));
        }
        let off = size.len() - rank;
        let mut strides = objects::Dims::from_elem(0, size.len());
        for d in 0..rank {
            let (n, want) = (x.view[d], size[off + d]);
            if n != 1 && n != want {
                return Err(invalid(
                    op,
                    format_args!("self shape {:?} does not match size {size:?}", x.view),
                ));
            }
            if n == want {
                strides[off + d] = x.strides[d];
            }
        }
        out_shape(op, &o, &size)?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = if numel(&x.view) == 0 {
            (Plan::Empty, 0)
        } else {
            copy_plan(&x, &o, strides, 0)
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

/// `aclnnExpand`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnExpand(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Expand.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::Expand,
            workspace,
            workspace_size,
            executor,
            stream,
            build_view_copy,
        )
    })
}

// ----------------------------------------------------------------- Repeat

/// `aclnnRepeatGetWorkspaceSize`: `out` is `self` tiled `repeats` times
/// along each dim (aligned from the right).
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnRepeatGetWorkspaceSize(
    self_: *const aclTensor,
    repeats: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Repeat;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("repeats", repeats.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let reps = int_array(op, repeats, "repeats")?;
        dtype_ok(op, fam, &x, "self")?;
        dtype_ok(op, fam, &o, "out")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        let rank = x.view.len();
        if reps.len() < rank || reps.len() > 8 {
            return Err(invalid(
                op,
                format_args!(
                    "repeats has {} entries; self has rank {rank} (at most 8 entries)",
                    reps.len()
                ),
            ));
        }
        if let Some(v) = reps.iter().find(|&&v| v < 0) {
            return Err(invalid(op, format_args!("repeats entry {v} is negative")));
        }
        let off = reps.len() - rank;
        let mut want = objects::Dims::new();
        for (d, &r) in reps.iter().enumerate() {
            let n = if d < off { 1 } else { x.view[d - off] };
            want.push(
                r.checked_mul(n)
                    .ok_or_else(|| invalid(op, "the tiled shape overflows 64 bits"))?,
            );
        }
        out_shape(op, &o, &want)?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = if numel(&o.view) == 0 {
            (Plan::Empty, 0)
        } else {
            let stage = !is_contiguous(&o.view, &o.strides) || views_meet(&x, &o);
            (
                Plan::Repeat {
                    reps: objects::Dims::from_slice(&reps),
                    stage,
                },
                if stage { align(bytes(&o)) } else { 0 },
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

/// The launch of a [`Plan::Repeat`]: the tiled view of `self` (each dim
/// split into its repeat, stride 0, and its extent) copied into `out` (or
/// the workspace) seen the same way; its leading dims looped over when it
/// has more than 8.
fn build_repeat(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Repeat { reps, stage } = &e.plan else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(x);
    let mut l = Launch::new(Op::Repeat.name());
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty self");
    let dense = contiguous(&o.view);
    let (dst, dst_strides) = if *stage {
        let tmp = l.region(rt, "workspace (out staging)", ws, bytes(o), true);
        (tmp, Strides::of(&dense))
    } else {
        let d = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        (d, Strides::of(&o.strides))
    };
    // self (padded with leading 1s to out's rank) into the first tile of
    // out, then each repeated dim filled by doubling: tiles [0, m) copied
    // to [m, 2m) along that dim, from out to out (apart: c <= m). At most
    // 1 + 8 * 63 copies whatever the repeats, each of out's rank (<= 8).
    // (One copy per outer index of a split view took up to numel/256
    // steps, built before the memory checker ran.)
    let rank = reps.len();
    let off = rank - x.view.len();
    let n: Vec<i64> = (0..rank)
        .map(|d| if d < off { 1 } else { x.view[d - off] })
        .collect();
    let xs: Vec<i64> = (0..rank)
        .map(|d| if d < off { 0 } else { x.strides[d - off] })
        .collect();
    let ds: Vec<i64> = (0..rank).map(|d| dst_strides[d]).collect();
    l.steps
        .push(Step::Copy(CopyDesc::new(&n, &ds, &xs, es), dst, src));
    let at = |r: Ref, elems: i64| Ref::offset(r, elems as u64 * es as u64);
    let mut ext = n.clone();
    for d in (0..rank).rev() {
        let r = reps[d];
        let mut m = 1i64;
        while m < r {
            let c = m.min(r - m);
            let mut shape = ext.clone();
            shape[d] = c * n[d];
            l.steps.push(Step::Copy(
                CopyDesc::new(&shape, &ds, &ds, es),
                at(dst, m * n[d] * ds[d]),
                dst,
            ));
            m += c;
        }
        ext[d] = r * n[d];
    }
    if *stage {
        let out = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &dense, es),
            out,
            dst,
        ));
    }
    l
}

/// `aclnnRepeat`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnRepeat(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(Op::Repeat.name(), ACLNN_ERR_INNER, || {
        executor::run(
            Op::Repeat,
            workspace,
            workspace_size,
            executor,
            stream,
            build_repeat,
        )
    })
}
