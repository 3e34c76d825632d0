//! The reflection, replication and circular pads (`docs/ops.md` §16, §17):
//! `aclnnReflectionPad1d/2d/3d`, `aclnnReplicationPad1d/2d/3d`,
//! `aclnnCircularPad2d/3d`, one shared first phase and one shared plan.
//!
//! First phase, in the order of CANN's `aclnn_reflection_pad*d.cpp` /
//! `aclnn_replication_pad*d.cpp`: null pointers (`161001`), the product's
//! kernel (`561003`), then `161002` for `self`'s dtype, `out`'s dtype, the
//! ranks, the length of `padding`, a negative value (the project's rule),
//! the upper bound of reflection and circular, `out`'s shape, a zero
//! extent other than the batch, the structure of `self` and `out`, and
//! `out` writing one element twice.
//!
//! The launch reuses the copy kernel: one row copy of `self` into the
//! interior of `out`, then, for each padded dim from the innermost, copies
//! of slabs of `out` already written into its edges (reflection: one per
//! padded index; replication: one stride-0 copy per side; circular: one
//! block per side). `out` goes through the workspace when it is not
//! contiguous or shares memory with `self`.

use crate::executor::{align, contiguous, elem, is_contiguous, numel, views_meet};
use crate::kernels::CopyDesc;
use crate::objects::{Executor, Plan};
use crate::ops::{
    bytes, dtype_ok, finish, first_phase, invalid, preamble, same_dtype, structure, writes_once,
};
use crate::soc::Op;
use crate::state::{self, Runtime};
use crate::work::{Launch, Ref, Step};
use cann_sys::*;
use std::ffi::c_void;

/// How a padded dim maps an out index to a `self` index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PadMode {
    /// `-i` before, `2(N-1) - i` after.
    Reflect,
    /// `clamp(i, 0, N-1)`.
    Replicate,
    /// `i mod N`.
    Circular,
}

/// The mode and the number of padded dims of a pad operator.
fn kind(op: Op) -> (PadMode, usize) {
    match op {
        Op::ReflectionPad1d => (PadMode::Reflect, 1),
        Op::ReflectionPad2d => (PadMode::Reflect, 2),
        Op::ReflectionPad3d => (PadMode::Reflect, 3),
        Op::ReplicationPad1d => (PadMode::Replicate, 1),
        Op::ReplicationPad2d => (PadMode::Replicate, 2),
        Op::ReplicationPad3d => (PadMode::Replicate, 3),
        Op::CircularPad2d => (PadMode::Circular, 2),
        _ => (PadMode::Circular, 3),
    }
}

/// The first phase shared by the eight operators.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
unsafe fn first(
    op: Op,
    self_: *const aclTensor,
    padding: *const aclIntArray,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("padding", padding.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let pads =
            state::with_handles(|h| h.int_arrays.get(&(padding as usize)).map(|a| (**a).clone()))
                .ok_or_else(|| {
                invalid(
                    op,
                    format_args!("padding ({padding:p}) is not a live int array"),
                )
            })?;
        let (mode, k) = kind(op);
        dtype_ok(op, fam, &x, "self")?;
        dtype_ok(op, fam, &o, "out")?;
        same_dtype(op, &o, &x)?;
        let rank = x.view.len();
        if rank != k + 1 && rank != k + 2 {
            return Err(invalid(
                op,
                format_args!("self has rank {rank}; it must be {} or {}", k + 1, k + 2),
            ));
        }
        if o.view.len() != rank {
            return Err(invalid(
                op,
                format_args!("out has rank {}; it must be self's {rank}", o.view.len()),
            ));
        }
        if pads.len() != 2 * k {
            return Err(invalid(
                op,
                format_args!("padding has {} values; it needs {}", pads.len(), 2 * k),
            ));
        }
        if let Some(v) = pads.iter().find(|v| **v < 0) {
            return Err(invalid(op, format_args!("padding value {v} is negative")));
        }
        let mut per_dim = vec![(0i64, 0i64); rank];
        for (j, pair) in pads.chunks(2).enumerate() {
            per_dim[rank - 1 - j] = (pair[0], pair[1]);
        }
        let mut want = Vec::with_capacity(rank);
        for (d, (&n, &(a, b))) in x.view.iter().zip(&per_dim).enumerate() {
            if mode != PadMode::Replicate && rank - d <= k && (a >= n || b >= n) {
                return Err(invalid(
                    op,
                    format_args!("padding ({a}, {b}) of dim {d} must be below its extent {n}"),
                ));
            }
            match n.checked_add(a).and_then(|v| v.checked_add(b)) {
                Some(v) => want.push(v),
                None => {
                    return Err(invalid(
                        op,
                        format_args!("dim {d}: {n} + {a} + {b} overflows"),
                    ))
                }
            }
        }
        if o.view[..] != want[..] {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        let first_dim = usize::from(rank == k + 2);
        if x.view.iter().any(|&n| n < 0) || x.view[first_dim..].contains(&0) {
            return Err(invalid(
                op,
                format_args!(
                    "self {:?}: only a batch dim (dim 0 of rank {}) may be empty",
                    x.view,
                    k + 2
                ),
            ));
        }
        structure(op, &[(&x, "self"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        let (plan, workspace) = if numel(&x.view) == 0 {
            (Plan::Empty, 0)
        } else {
            let stage = !is_contiguous(&o.view, &o.strides) || views_meet(&x, &o);
            // out's bytes: within i64 (checked by `structure`).
            let ws = if stage { align(bytes(&o)) } else { 0 };
            (
                Plan::Pad {
                    mode,
                    pads: per_dim,
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

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Pad { mode, pads, stage } = &e.plan else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let es = elem(x);
    let rank = x.view.len();
    let ostr = contiguous(&o.view);
    let mut l = Launch::new(e.op.name());
    let src = l
        .view(rt, "self", x, (&x.view, &x.strides, x.offset), false)
        .expect("non-empty self");
    let dst = if *stage {
        l.region(rt, "workspace (out staging)", ws, bytes(o), true)
    } else {
        l.view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out")
    };
    // Element offsets within out (row-major); every one is below out's
    // element count, which fits i64 (the first phase's structure check).
    let at = |elems: i64| Ref::offset(dst, elems as u64 * es as u64);
    let interior: i64 = (0..rank).map(|d| pads[d].0 * ostr[d]).sum();
    l.steps.push(Step::Copy(
        CopyDesc::new(&x.view, &ostr, &x.strides, es),
        at(interior),
        src,
    ));
    // The written part of out: extents and starts per dim.
    let mut ext: Vec<i64> = x.view.to_vec();
    let mut base: Vec<i64> = pads.iter().map(|p| p.0).collect();
    for d in (0..rank).rev() {
        let (a, b) = pads[d];
        if a == 0 && b == 0 {
            continue;
        }
        let n = x.view[d];
        let rest: i64 = (0..rank)
            .filter(|&k| k != d)
            .map(|k| base[k] * ostr[k])
            .sum();
        // Copies `count` slabs of dim `d` from index `from` (stepping by
        // `step`: 0 repeats one slab, -1 walks backwards) to index `to`.
        let slab = |l: &mut Launch, to: i64, from: i64, count: i64, step: i64| {
            let mut shape = ext.clone();
            shape[d] = count;
            let mut sst = ostr.to_vec();
            sst[d] *= step;
            l.steps.push(Step::Copy(
                CopyDesc::new(&shape, &ostr, &sst, es),
                at(rest + to * ostr[d]),
                at(rest + from * ostr[d]),
            ));
        };
        match mode {
            // One copy per side, walking the source backwards: out index
            // `t < a` mirrors `2a - t`, index `a + n + j` mirrors
            // `a + n - 2 - j` (a and b are below n: the first phase), so
            // each side reads written slabs apart from the ones it writes.
            // (One copy per padded index made a step per index: billions
            // of them for a wide pad, before the memory checker ran.)
            PadMode::Reflect => {
                if a > 0 {
                    slab(&mut l, 0, 2 * a, a, -1);
                }
                if b > 0 {
                    slab(&mut l, a + n, a + n - 2, b, -1);
                }
            }
            PadMode::Replicate => {
                if a > 0 {
                    slab(&mut l, 0, a, a, 0);
                }
                if b > 0 {
                    slab(&mut l, a + n, a + n - 1, b, 0);
                }
            }
            PadMode::Circular => {
                if a > 0 {
                    slab(&mut l, 0, n, a, 1);
                }
                if b > 0 {
                    slab(&mut l, a + n, a, b, 1);
                }
            }
        }
        ext[d] = n + a + b;
        base[d] = 0;
    }
    if *stage {
        let out = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &ostr, es),
            out,
            dst,
        ));
    }
    l
}

/// The two C entry points of one pad operator.
macro_rules! pad_entry_points {
    ($op:ident, $first:ident, $second:ident, $doc:literal) => {
        #[doc = concat!("`", stringify!($first), "`: ", $doc, " (ops.md §16, §17).")]
        ///
        /// # Safety
        /// `workspace_size` and `executor` are null or valid for writes (the
        /// handles are looked up, never dereferenced).
        #[cfg_attr(feature = "cabi", no_mangle)]
        pub unsafe extern "C" fn $first(
            self_: *const aclTensor,
            padding: *const aclIntArray,
            out: *mut aclTensor,
            workspace_size: *mut u64,
            executor: *mut *mut aclOpExecutor,
        ) -> aclnnStatus {
            // SAFETY: this function's contract.
            unsafe { first(Op::$op, self_, padding, out, workspace_size, executor) }
        }

        #[doc = concat!("`", stringify!($second), "`.")]
        ///
        /// # Safety
        /// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
        #[cfg_attr(feature = "cabi", no_mangle)]
        pub unsafe extern "C" fn $second(
            workspace: *mut c_void,
            workspace_size: u64,
            executor: *mut aclOpExecutor,
            stream: aclrtStream,
        ) -> aclnnStatus {
            crate::abi::guard(Op::$op.name(), ACLNN_ERR_INNER, || {
                crate::executor::run(Op::$op, workspace, workspace_size, executor, stream, build)
            })
        }
    };
}

pad_entry_points!(
    ReflectionPad1d,
    aclnnReflectionPad1dGetWorkspaceSize,
    aclnnReflectionPad1d,
    "the last dim of `self` padded with its reflection"
);
pad_entry_points!(
    ReflectionPad2d,
    aclnnReflectionPad2dGetWorkspaceSize,
    aclnnReflectionPad2d,
    "the last two dims of `self` padded with their reflection"
);
pad_entry_points!(
    ReflectionPad3d,
    aclnnReflectionPad3dGetWorkspaceSize,
    aclnnReflectionPad3d,
    "the last three dims of `self` padded with their reflection"
);
pad_entry_points!(
    ReplicationPad1d,
    aclnnReplicationPad1dGetWorkspaceSize,
    aclnnReplicationPad1d,
    "the last dim of `self` padded with its edge elements"
);
pad_entry_points!(
    ReplicationPad2d,
    aclnnReplicationPad2dGetWorkspaceSize,
    aclnnReplicationPad2d,
    "the last two dims of `self` padded with their edge elements"
);
pad_entry_points!(
    ReplicationPad3d,
    aclnnReplicationPad3dGetWorkspaceSize,
    aclnnReplicationPad3d,
    "the last three dims of `self` padded with their edge elements"
);
pad_entry_points!(
    CircularPad2d,
    aclnnCircularPad2dGetWorkspaceSize,
    aclnnCircularPad2d,
    "the last two dims of `self` padded by wrapping around"
);
pad_entry_points!(
    CircularPad3d,
    aclnnCircularPad3dGetWorkspaceSize,
    aclnnCircularPad3d,
    "the last three dims of `self` padded by wrapping around"
);
