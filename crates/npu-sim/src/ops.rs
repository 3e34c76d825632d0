//! The aclnn operators: Slice, IndexSelect, InplaceCopy, ConstantPadNd.
//!
//! First phase: checks in aclnn's order (null pointers `161001`; missing
//! kernel for the product `561003`; dtype, then shape `161002`), then a plan
//! and its real workspace size. Second phase: [`executor::run`].

use crate::abi::{fail, fail_null};
use crate::executor::{
    self, align, contiguous, elem, is_contiguous, numel, numel_checked, publish, view_range,
};
use crate::kernels::{self, CopyDesc, KDtype};
use crate::objects::{self, Executor, Plan, Tensor};
use crate::runtime;
use crate::soc::{self, Op};
use crate::state::{self, Runtime};
use crate::work::{Launch, Ref, Step};
use cann_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

type R<T> = Result<T, aclnnStatus>;

pub(crate) fn invalid(op: Op, msg: impl std::fmt::Display) -> aclnnStatus {
    fail(
        ACLNN_ERR_PARAM_INVALID,
        format!("npu-sim: {}: {msg}", op.name()),
    )
}

/// The status (and message) of a tensor argument that is not live.
fn dead_tensor(op: Op, p: *const aclTensor, name: &str) -> aclnnStatus {
    invalid(
        op,
        format_args!("{name} ({p:p}) is not a live tensor (never created, or destroyed)"),
    )
}

/// The live tensor behind `p`, or the status of a dead one.
pub(crate) fn tensor(op: Op, p: *const aclTensor, name: &str) -> R<Arc<Tensor>> {
    state::with_handles(|h| h.tensors.get(&(p as usize)).cloned())
        .ok_or_else(|| dead_tensor(op, p, name))
}

/// The first-phase preamble every operator shares, in aclnn's order: null
/// pointers (`161001`: each argument in `nulls`, in order), then the live
/// tensor handles, the runtime and the product's kernel (`561003`). Returns
/// the family and the tensors; each operator then checks dtypes, and
/// [`structure`] the views.
pub(crate) fn preamble<const N: usize>(
    op: Op,
    nulls: &[(&str, bool)],
    tensors: [(&str, *const aclTensor); N],
) -> R<(soc::Family, [Arc<Tensor>; N])> {
    if let Some((name, _)) = nulls.iter().find(|(_, null)| *null) {
        // The type CANN's message names for the argument.
        let ty = match *name {
            "workspaceSize" => "uint64_t *",
            "executor" => "aclOpExecutor **",
            "pad" | "padding" => "aclIntArray",
            "value" | "alpha" => "aclScalar",
            _ => "aclTensor",
        };
        return Err(fail_null(
            ACLNN_ERR_PARAM_NULLPTR,
            op.first_phase_name(),
            name,
            ty,
        ));
    }
    // One lock of the handle registry for every tensor (each lock and
    // lookup is some 85 instructions); the first one not live, in
    // argument order, is the error.
    let mut found: [Option<Arc<Tensor>>; N] = std::array::from_fn(|_| None);
    state::with_handles(|h| {
        for (slot, (_, p)) in found.iter_mut().zip(&tensors) {
            match h.tensors.get(&(*p as usize)) {
                Some(t) => *slot = Some(t.clone()),
                None => break,
            }
        }
    });
    if let Some((name, p)) = tensors
        .iter()
        .zip(&found)
        .find_map(|(t, f)| f.is_none().then_some(t))
    {
        return Err(dead_tensor(op, *p, name));
    }
    let fam = family(op)?;
    Ok((fam, found.map(|t| t.expect("every slot was filled"))))
}

fn family(op: Op) -> R<soc::Family> {
    let rt = runtime::rt().map_err(|_| {
        fail(
            ACLNN_ERR_RUNTIME_ERROR,
            format!(
                "npu-sim: {}: not initialised: call aclnnInit or aclInit first",
                op.name()
            ),
        )
    })?;
    let fam = rt.config.family;
    if !soc::op_available(op, fam) {
        return Err(fail(
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
            format!(
                "npu-sim: {}: no kernel for {} ({:?} family)",
                op.name(),
                rt.config.soc,
                fam
            ),
        ));
    }
    Ok(fam)
}

pub(crate) fn dtype_ok(op: Op, fam: soc::Family, t: &Tensor, name: &str) -> R<()> {
    if soc::dtype_supported(op, fam, t.dtype) {
        Ok(())
    } else {
        Err(invalid(
            op,
            format_args!(
                "{name} has data type {}, which is not supported on this product",
                t.dtype.0
            ),
        ))
    }
}

/// The structure every tensor must have, every size checked: a known
/// element size, rank <= 8, one stride per dim, non-negative extents,
/// strides and offset; the element count, its bytes, the last element
/// addressed and the bytes up to it within `i64` (so no later arithmetic
/// on the view overflows); a 32-byte aligned, non-null base when it has
/// elements.
pub(crate) fn structure(op: Op, tensors: &[(&Tensor, &str)]) -> R<()> {
    tensors
        .iter()
        .try_for_each(|&(t, name)| structure_of(op, t, name))
}

fn structure_of(op: Op, t: &Tensor, name: &str) -> R<()> {
    structure_parts(op, t, (&t.view, &t.strides, t.offset), name)
}

/// [`structure_of`] of the view `(shape, strides, offset)` over `base`'s
/// storage and dtype: a derived view (Slice's source) is checked without
/// building a tensor for it, which cost four clones of its shape and
/// strides.
fn structure_parts(op: Op, base: &Tensor, view: (&[i64], &[i64], i64), name: &str) -> R<()> {
    /// The view under check, borrowed.
    struct View<'a> {
        view: &'a [i64],
        strides: &'a [i64],
        offset: i64,
        data: u64,
    }
    let t = View {
        view: view.0,
        strides: view.1,
        offset: view.2,
        data: base.data,
    };
    let Some(es) = soc::dtype_size(base.dtype) else {
        return Err(invalid(
            op,
            format_args!(
                "{name} has data type {}, which is not supported",
                base.dtype.0
            ),
        ));
    };
    if t.view.len() > 8 {
        return Err(invalid(
            op,
            format_args!("{name} has rank {} (at most 8)", t.view.len()),
        ));
    }
    if t.strides.len() != t.view.len() {
        return Err(invalid(
            op,
            format_args!(
                "{name} has {} strides for {} dims",
                t.strides.len(),
                t.view.len()
            ),
        ));
    }
    if t.view.iter().any(|&d| d < 0) || t.strides.iter().any(|&s| s < 0) || t.offset < 0 {
        return Err(invalid(
            op,
            format_args!(
                "{name}: shape {:?}, strides {:?} and offset {} must be non-negative",
                t.view, t.strides, t.offset
            ),
        ));
    }
    let overflow = || {
        invalid(
            op,
            format_args!(
                "{name}: the view (shape {:?}, strides {:?}, offset {}) overflows 64-bit sizes",
                t.view, t.strides, t.offset
            ),
        )
    };
    let n = numel_checked(t.view).ok_or_else(overflow)?;
    n.checked_mul(es as i64).ok_or_else(overflow)?;
    if n > 0 {
        let last = t
            .view
            .iter()
            .zip(t.strides)
            .try_fold(t.offset, |acc, (&d, &s)| {
                (d - 1).checked_mul(s).and_then(|v| v.checked_add(acc))
            })
            .ok_or_else(overflow)?;
        last.checked_add(1)
            .and_then(|e| e.checked_mul(es as i64))
            .ok_or_else(overflow)?;
        if t.data == 0 || !t.data.is_multiple_of(32) {
            return Err(invalid(
                op,
                format_args!(
                    "{name}: data address {:#x} must be non-null and 32-byte aligned",
                    t.data
                ),
            ));
        }
    }
    Ok(())
}

/// The workspace that stages every non-contiguous tensor of `tensors`
/// (each part aligned), checked to fit `i64`.
pub(crate) fn staging_workspace(op: Op, tensors: &[&Tensor]) -> R<u64> {
    tensors
        .iter()
        .filter(|t| !is_contiguous(&t.view, &t.strides))
        .try_fold(0u64, |w, t| {
            w.checked_add(align(bytes(t)))
                .filter(|w| *w <= i64::MAX as u64)
        })
        .ok_or_else(|| invalid(op, "the workspace the views need overflows 64 bits"))
}

/// A gather's output must not share memory with what it reads: its
/// kernels read `self` and the index while writing `out`, row by row and
/// on several threads (CANN leaves such a call undefined; the simulator
/// refuses it, `161002`; the safe layer passes an aliasing `out` through a
/// temporary). Empty views meet nothing.
pub(crate) fn out_apart(op: Op, o: &Tensor, inputs: &[(&Tensor, &str)]) -> R<()> {
    if let Some((_, name)) = inputs.iter().find(|(t, _)| executor::views_meet(o, t)) {
        return Err(invalid(
            op,
            format_args!(
                "out shares memory with {name}: the gather would read what it writes \
                 (give out its own memory)"
            ),
        ));
    }
    Ok(())
}

/// An output view must not address one element twice (its copy would
/// race with itself).
pub(crate) fn writes_once(op: Op, t: &Tensor, name: &str) -> R<()> {
    if self_overlapping(&t.view, &t.strides) {
        return Err(invalid(
            op,
            format_args!(
                "{name} (shape {:?}, strides {:?}) may write one element twice",
                t.view, t.strides
            ),
        ));
    }
    Ok(())
}

/// `out` must have `self`'s dtype.
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

pub(crate) fn norm_dim(op: Op, dim: i64, rank: usize) -> R<usize> {
    let r = rank as i64;
    if dim < -r || dim >= r {
        return Err(invalid(
            op,
            format_args!("dim {dim} is outside [{}, {}]", -r, r - 1),
        ));
    }
    Ok(if dim < 0 { dim + r } else { dim } as usize)
}

/// Bytes of a validated tensor's elements.
pub(crate) fn bytes(t: &Tensor) -> u64 {
    numel(&t.view) as u64 * elem(t) as u64
}

/// Registers a one-shot executor of `op` and writes the first phase's
/// outputs (the shared tail of every operator).
///
/// # Safety
/// `ws` and `ex` are valid for writes (non-null, checked by the preamble,
/// and valid by the first phase's own contract).
pub(crate) unsafe fn finish(
    op: Op,
    plan: Plan,
    inputs: objects::Tensors,
    outputs: objects::Tensors,
    workspace: u64,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // Built in its shared cell at once: an executor is about a kilobyte,
    // and each move of it was a copy of that on every first phase.
    let e = crate::executor::cell(|| Executor {
        op,
        plan,
        inputs,
        outputs,
        workspace,
        repeatable: false,
        reuse: None,
    });
    // SAFETY: the caller's contract.
    unsafe { publish(e, workspace, ws, ex) }
}

/// A first phase, guarded (a panic is a status, never an unwind) and
/// flattened to its status.
pub(crate) fn first_phase(op: Op, body: impl FnOnce() -> R<aclnnStatus>) -> aclnnStatus {
    crate::abi::guard(op.first_phase_name(), ACLNN_ERR_INNER, || {
        body().unwrap_or_else(|c| c)
    })
}

// ---------------------------------------------------------------- Slice

/// `aclnnSliceGetWorkspaceSize`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclnnSliceGetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Slice;
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
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        let rank = x.view.len();
        if rank == 0 {
            return Err(invalid(op, "self must have rank 1 to 8, got 0"));
        }
        let d = norm_dim(op, dim, rank)?;
        if step <= 0 {
            return Err(invalid(op, format_args!("step must be > 0, got {step}")));
        }
        // In i128 (no overflow), without a division but the last: for s
        // and e in [-n, n), `(v + n) % n` is `v` or `v + n`; an e below -n
        // gives a negative value, below s2 either way.
        let n = x.view[d] as i128;
        let (s, e) = (start as i128, end as i128);
        let wrap = |v: i128| if v < 0 { v + n } else { v };
        let (s2, len) = if n == 0 {
            (0, 0)
        } else {
            let s2 = if s < -n {
                0
            } else if s >= n {
                n
            } else {
                wrap(s)
            };
            let e2 = if e >= n { n } else { wrap(e).max(s2) };
            // e2 - s2 is in [0, n]: u64; step > 0.
            (s2, ((e2 - s2) as u64).div_ceil(step as u64) as i128)
        };
        let mut want = objects::Dims::from_slice(&x.view);
        want[d] = len as i64;
        if o.view[..] != want[..] {
            return Err(invalid(
                op,
                format_args!("out shape {:?} must be {:?}", o.view, want),
            ));
        }
        let empty = numel(&x.view) == 0 || numel(&want) == 0;
        let workspace = if empty || is_contiguous(&o.view, &o.strides) {
            0
        } else {
            align(bytes(&o))
        };
        let plan = if empty {
            Plan::Empty
        } else {
            // The source view: out's shape over self, checked (a step that
            // leaps past 64-bit offsets is invalid, never a wrap).
            let mut strides = objects::Dims::from_slice(&x.strides);
            let overflow = || invalid(op, "the sliced view of self overflows 64-bit offsets");
            strides[d] = if want[d] > 1 {
                x.strides[d].checked_mul(step).ok_or_else(overflow)?
            } else {
                0
            };
            let offset = (s2 as i64)
                .checked_mul(x.strides[d])
                .and_then(|o| o.checked_add(x.offset))
                .ok_or_else(overflow)?;
            structure_parts(op, &x, (&want, &strides, offset), "self (sliced)")?;
            Plan::Slice { strides, offset }
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

/// Writes `(shape, strides @ offset of t)` into `out` (or through the
/// workspace when `out` is not contiguous): the tail shared by the ops.
pub(crate) fn store(
    l: &mut Launch,
    rt: &Runtime,
    o: &Tensor,
    ws: u64,
    produce: impl FnOnce(&mut Launch, Ref),
) {
    let es = elem(o);
    if is_contiguous(&o.view, &o.strides) {
        let dst = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        produce(l, dst);
    } else {
        let tmp = l.region(rt, "workspace (out staging)", ws, bytes(o), true);
        produce(l, tmp);
        let dst = l
            .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
            .expect("non-empty out");
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &o.strides, &contiguous(&o.view), es),
            dst,
            tmp,
        ));
    }
}

fn build_slice(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Slice { strides, offset } = &e.plan else {
        unreachable!()
    };
    let (strides, offset) = (strides, *offset);
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let mut l = Launch::new(Op::Slice.name());
    let src = l
        .view(rt, "self", x, (&o.view, strides, offset), false)
        .expect("non-empty");
    let es = elem(x);
    store(&mut l, rt, o, ws, |l, dst| {
        l.steps.push(Step::Copy(
            CopyDesc::new(&o.view, &contiguous(&o.view), strides, es),
            dst,
            src,
        ));
    });
    l
}

/// `aclnnSlice`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnSlice(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnSlice", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::Slice,
            workspace,
            workspace_size,
            executor,
            stream,
            build_slice,
        )
    })
}

// ---------------------------------------------------------- IndexSelect

/// `aclnnIndexSelectGetWorkspaceSize`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndexSelectGetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    index: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::IndexSelect;
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
            [("self", self_), ("index", index), ("out", out)],
        )?;
        dtype_ok(op, fam, &x, "self")?;
        same_dtype(op, &o, &x)?;
        if i.dtype != aclDataType::ACL_INT64 && i.dtype != aclDataType::ACL_INT32 {
            return Err(invalid(
                op,
                format_args!("index data type {} must be INT64 or INT32", i.dtype.0),
            ));
        }
        structure(op, &[(&x, "self"), (&i, "index"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        out_apart(op, &o, &[(&x, "self"), (&i, "index")])?;
        if i.view.len() > 1 {
            return Err(invalid(
                op,
                format_args!("index must have rank 0 or 1, got {}", i.view.len()),
            ));
        }
        let scalar = x.view.is_empty();
        let xs = if scalar {
            objects::Dims::from_slice(&[1])
        } else {
            x.view.clone()
        };
        let d = norm_dim(op, dim, xs.len())?;
        let n_index = numel(&i.view);
        if scalar && n_index != 1 {
            return Err(invalid(
                op,
                format_args!("a 0-D self needs an index of one element, got {n_index}"),
            ));
        }
        let empty = numel(&xs) == 0 || n_index == 0;
        if !empty {
            let want = if scalar {
                objects::Dims::new()
            } else {
                let mut w = xs.clone();
                w[d] = n_index;
                w
            };
            if o.view != want {
                return Err(invalid(
                    op,
                    format_args!("out shape {:?} must be {:?}", o.view, want),
                ));
            }
        }
        // Staging for each non-contiguous tensor; the sum is checked (each
        // part fits i64, three of them need not).
        let workspace = if empty {
            0
        } else {
            staging_workspace(op, &[&x, &i, &o])?
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

/// A contiguous source for `t`: itself, or a staged copy in the workspace
/// at `*ws` (advanced past it).
pub(crate) fn staged(
    l: &mut Launch,
    rt: &Runtime,
    t: &Tensor,
    name: &'static str,
    ws: &mut u64,
) -> Ref {
    let src = l
        .view(rt, name, t, (&t.view, &t.strides, t.offset), false)
        .expect("non-empty");
    if is_contiguous(&t.view, &t.strides) {
        return src;
    }
    let tmp = l.region(
        rt,
        if name == "index" {
            "workspace (index staging)"
        } else {
            "workspace (self staging)"
        },
        *ws,
        bytes(t),
        true,
    );
    // Within the workspace the first phase sized (checked there).
    *ws = ws.saturating_add(align(bytes(t)));
    l.steps.push(Step::Copy(
        CopyDesc::new(&t.view, &contiguous(&t.view), &t.strides, elem(t)),
        tmp,
        src,
    ));
    tmp
}

/// IndexSelect's plan (also Embedding's: dim 0, and GatherV2's: an index of any rank, an
/// `out` of any shape holding the gathered rows in order).
pub(crate) fn build_index_select(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::IndexSelect { dim } = e.plan else {
        unreachable!()
    };
    let (x, i, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let xs: &[i64] = if x.view.is_empty() { &[1] } else { &x.view };
    let mut l = Launch::new(e.op.name());
    let mut cursor = ws;
    let src = staged(&mut l, rt, x, "self", &mut cursor);
    let idx = staged(&mut l, rt, i, "index", &mut cursor);
    let is64 = i.dtype == aclDataType::ACL_INT64;
    let n_index = numel(&i.view);
    let outer = numel(&xs[..dim]);
    let inner_bytes = numel(&xs[dim + 1..]) * elem(x) as i64;
    store(&mut l, rt, o, cursor, |l, dst| {
        l.steps.push(Step::Gather(
            dst,
            src,
            outer,
            xs[dim],
            inner_bytes,
            idx,
            is64,
            n_index,
        ));
    });
    l
}

/// `aclnnIndexSelect`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnIndexSelect(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnIndexSelect", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::IndexSelect,
            workspace,
            workspace_size,
            executor,
            stream,
            build_index_select,
        )
    })
}

// ---------------------------------------------------------- InplaceCopy

/// Whether two different logical indices of the view may share an element
/// (stride 0 over an extent > 1, or windows that interleave).
pub fn self_overlapping(shape: &[i64], strides: &[i64]) -> bool {
    // Row-major strides never overlap: the usual case, without the sort
    // (an empty view takes the general rule, as before).
    if !shape.contains(&0) && executor::is_contiguous(shape, strides) {
        return false;
    }
    // On the stack up to rank 8 (a first phase's host allocation, else).
    let mut dims: smallvec::SmallVec<[(i64, i64); 8]> = shape
        .iter()
        .zip(strides)
        .filter(|(n, _)| **n > 1)
        .map(|(n, s)| (*s, *n))
        .collect();
    dims.sort_unstable();
    let mut span: i128 = 0; // largest offset reachable with the smaller strides
    for (s, n) in dims {
        if (s as i128) <= span {
            return true;
        }
        span += (n as i128 - 1) * s as i128;
    }
    false
}

/// `src`'s strides broadcast to `shape` (right-aligned), or `None`.
pub(crate) fn broadcast(
    shape: &[i64],
    src_shape: &[i64],
    src_strides: &[i64],
) -> Option<executor::Strides> {
    if src_shape.len() > shape.len() || shape.len() > crate::kernels::MAX_RANK {
        return None;
    }
    let lead = shape.len() - src_shape.len();
    let mut out = executor::Strides::zeros(shape.len());
    for k in 0..src_shape.len() {
        let (n, m) = (shape[lead + k], src_shape[k]);
        if m == n {
            out[lead + k] = if n == 1 { 0 } else { src_strides[k] };
        } else if m == 1 {
            out[lead + k] = 0;
        } else {
            return None;
        }
    }
    Some(out)
}

pub(crate) fn kdtype(t: aclDataType) -> Option<KDtype> {
    use aclDataType as D;
    Some(match t {
        D::ACL_FLOAT => KDtype::F32,
        D::ACL_FLOAT16 => KDtype::F16,
        D::ACL_BF16 => KDtype::Bf16,
        D::ACL_DOUBLE => KDtype::F64,
        D::ACL_INT8 => KDtype::I8,
        D::ACL_UINT8 => KDtype::U8,
        D::ACL_INT16 => KDtype::I16,
        D::ACL_UINT16 => KDtype::U16,
        D::ACL_INT32 => KDtype::I32,
        D::ACL_UINT32 => KDtype::U32,
        D::ACL_INT64 => KDtype::I64,
        D::ACL_UINT64 => KDtype::U64,
        D::ACL_BOOL => KDtype::Bool,
        D::ACL_COMPLEX64 => KDtype::C64,
        D::ACL_COMPLEX128 => KDtype::C128,
        _ => return None,
    })
}

/// `aclnnInplaceCopyGetWorkspaceSize`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceCopyGetWorkspaceSize(
    self_ref: *mut aclTensor,
    src: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceCopy;
    first_phase(op, || {
        let (fam, [d, s]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("src", src.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("selfRef", self_ref), ("src", src)],
        )?;
        dtype_ok(op, fam, &d, "selfRef")?;
        dtype_ok(op, fam, &s, "src")?;
        structure(op, &[(&d, "selfRef"), (&s, "src")])?;
        if broadcast(&d.view, &s.view, &s.strides).is_none() {
            return Err(invalid(
                op,
                format_args!(
                    "src shape {:?} cannot be broadcast to selfRef shape {:?}",
                    s.view, d.view
                ),
            ));
        }
        if self_overlapping(&d.view, &d.strides) {
            return Err(invalid(
                op,
                format_args!(
                    "selfRef (shape {:?}, strides {:?}) overlaps itself",
                    d.view, d.strides
                ),
            ));
        }
        if self_overlapping(&s.view, &s.strides) {
            return Err(fail(
                ACLNN_ERR_INNER_NULLPTR,
                format!(
                    "npu-sim: {}: the contiguous step rejects src (shape {:?}, strides {:?}): its view overlaps itself",
                    op.name(),
                    s.view,
                    s.strides
                ),
            ));
        }
        let empty = numel(&d.view) == 0 || numel(&s.view) == 0;
        let ranges_meet = match (
            view_range(d.data, d.offset, &d.view, &d.strides, elem(&d)),
            view_range(s.data, s.offset, &s.view, &s.strides, elem(&s)),
        ) {
            (Some((a, al)), Some((b, bl))) => a < b.saturating_add(bl) && b < a.saturating_add(al),
            _ => false,
        };
        let stage = !empty && ranges_meet;
        let workspace = if stage { align(bytes(&s)) } else { 0 };
        let plan = if empty {
            Plan::Empty
        } else {
            Plan::InplaceCopy { stage }
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        Ok(unsafe {
            finish(
                op,
                plan,
                smallvec::smallvec![s],
                smallvec::smallvec![d],
                workspace,
                workspace_size,
                executor,
            )
        })
    })
}

fn build_inplace_copy(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::InplaceCopy { stage } = e.plan else {
        unreachable!()
    };
    let (s, d) = (&e.inputs[0], &e.outputs[0]);
    let mut l = Launch::new(Op::InplaceCopy.name());
    let mut src = l
        .view(rt, "src", s, (&s.view, &s.strides, s.offset), false)
        .expect("non-empty");
    let mut src_strides = executor::Strides::of(&s.strides);
    if stage {
        let tmp = l.region(rt, "workspace (src staging)", ws, bytes(s), true);
        l.steps.push(Step::Copy(
            CopyDesc::new(&s.view, &contiguous(&s.view), &s.strides, elem(s)),
            tmp,
            src,
        ));
        src = tmp;
        src_strides = contiguous(&s.view);
    }
    let bstrides = broadcast(&d.view, &s.view, &src_strides).expect("checked in the first phase");
    let dst = l
        .view(rt, "selfRef", d, (&d.view, &d.strides, d.offset), true)
        .expect("non-empty");
    if d.dtype == s.dtype {
        l.steps.push(Step::Copy(
            CopyDesc::new(&d.view, &d.strides, &bstrides, elem(d)),
            dst,
            src,
        ));
    } else {
        let (dt, st) = (kdtype(d.dtype).unwrap(), kdtype(s.dtype).unwrap());
        l.steps.push(Step::Cast(
            CopyDesc::new(&d.view, &d.strides, &bstrides, 0),
            dt,
            dst,
            st,
            src,
        ));
    }
    l
}

/// `aclnnInplaceCopy`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceCopy(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnInplaceCopy", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::InplaceCopy,
            workspace,
            workspace_size,
            executor,
            stream,
            build_inplace_copy,
        )
    })
}

// -------------------------------------------------------- ConstantPadNd

/// `aclnnConstantPadNdGetWorkspaceSize`: `pad` holds (before, after) pairs
/// starting from the last dim; negative entries crop.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnConstantPadNdGetWorkspaceSize(
    self_: *const aclTensor,
    pad: *const aclIntArray,
    value: *const aclScalar,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::ConstantPadNd;
    first_phase(op, || {
        let (fam, [x, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("pad", pad.is_null()),
                ("value", value.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("out", out)],
        )?;
        let pads =
            state::with_handles(|h| h.int_arrays.get(&(pad as usize)).map(|a| (**a).clone()))
                .ok_or_else(|| {
                    invalid(op, format_args!("pad ({pad:p}) is not a live int array"))
                })?;
        let v = state::with_handles(|h| h.scalars.get(&(value as usize)).map(|a| (**a).clone()))
            .ok_or_else(|| invalid(op, format_args!("value ({value:p}) is not a live scalar")))?;
        dtype_ok(op, fam, &x, "self")?;
        same_dtype(op, &o, &x)?;
        structure(op, &[(&x, "self"), (&o, "out")])?;
        writes_once(op, &o, "out")?;
        let rank = x.view.len();
        if pads.len() % 2 != 0 || pads.len() > 2 * rank {
            return Err(invalid(
                op,
                format_args!(
                    "pad has {} entries; it needs an even number, at most {}",
                    pads.len(),
                    2 * rank
                ),
            ));
        }
        let mut per_dim = vec![(0i64, 0i64); rank];
        for (k, pair) in pads.chunks(2).enumerate() {
            per_dim[rank - 1 - k] = (pair[0], pair[1]);
        }
        let mut want = Vec::with_capacity(rank);
        for (dim, (&n, &(lo, hi))) in x.view.iter().zip(&per_dim).enumerate() {
            match n
                .checked_add(lo)
                .and_then(|v| v.checked_add(hi))
                .filter(|v| *v >= 0)
            {
                Some(v) => want.push(v),
                None => {
                    return Err(invalid(
                        op,
                        format_args!("dim {dim}: {n} + {lo} + {hi} is not a valid extent"),
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
        let (Some(dt), Some(st)) = (kdtype(x.dtype), kdtype(v.dtype)) else {
            return Err(invalid(
                op,
                format_args!("value of data type {} cannot be converted", v.dtype.0),
            ));
        };
        let mut fill = vec![0u8; elem(&x)];
        let rt = runtime::rt()?;
        // SAFETY: one element of each type, in host buffers of that size.
        let ok = unsafe {
            kernels::cast(
                &rt.pool,
                CopyDesc::new(&[], &[], &[], 0),
                dt,
                fill.as_mut_ptr(),
                st,
                v.bytes.as_ptr(),
            )
        };
        if !ok {
            return Err(invalid(
                op,
                format_args!(
                    "value of data type {} cannot be converted to {}",
                    v.dtype.0, x.dtype.0
                ),
            ));
        }
        let empty = numel(&want) == 0;
        let workspace = if empty || is_contiguous(&o.view, &o.strides) {
            0
        } else {
            align(bytes(&o))
        };
        let plan = if empty {
            Plan::Empty
        } else {
            // The part of self that lands in out (negative pads crop). When
            // it is not empty every crop is below its extent and every pad
            // below out's, so the offsets fit (computed in i128 anyway).
            let ext: Vec<i64> = x
                .view
                .iter()
                .zip(&per_dim)
                .map(|(&n, &(lo, hi))| n as i128 + (lo as i128).min(0) + (hi as i128).min(0))
                .map(|e| e.clamp(0, i64::MAX as i128) as i64)
                .collect();
            let inner = ext.iter().all(|&n| n > 0);
            let ostr = contiguous(&o.view);
            let (mut src_off, mut dst_off) = (x.offset as i128, 0i128);
            for k in 0..rank {
                let (lo, _) = per_dim[k];
                src_off += (-(lo as i128)).max(0) * x.strides[k] as i128;
                dst_off += (lo as i128).max(0) * ostr[k] as i128;
            }
            let fits = |v: i128| i64::try_from(v).map_err(|_| invalid(op, "pad offsets overflow"));
            Plan::ConstantPadNd {
                src_offset: if inner { fits(src_off)? } else { 0 },
                dst_offset: if inner { fits(dst_off)? } else { 0 },
                inner: inner.then_some(ext),
                value: fill,
            }
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

fn build_constant_pad(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::ConstantPadNd {
        inner,
        src_offset,
        dst_offset,
        value,
    } = &e.plan
    else {
        unreachable!()
    };
    let (x, o) = (&e.inputs[0], &e.outputs[0]);
    let mut l = Launch::new(Op::ConstantPadNd.name());
    let src = inner
        .as_ref()
        .and_then(|ext| l.view(rt, "self", x, (ext, &x.strides, *src_offset), false));
    let es = elem(x);
    let ostr = contiguous(&o.view);
    store(&mut l, rt, o, ws, |l, dst| {
        let mut v = [0u8; 16];
        v[..value.len()].copy_from_slice(value);
        let (Some(src), Some(ext)) = (src, inner) else {
            l.steps
                .push(Step::Fill(dst, numel(&o.view), v, value.len() as u8));
            return;
        };
        // A small output is filled whole in one call, then the box copied
        // over it (row by row, the border took longer: a 4 KiB FILL window
        // 1.99 -> 2.17 us); from 64 KiB the border alone is written.
        if bytes(o) <= 64 << 10 {
            l.steps
                .push(Step::Fill(dst, numel(&o.view), v, value.len() as u8));
        } else {
            // `dst_offset` is the box's first element in `out`'s
            // contiguous order: its first index per dim.
            let rank = o.view.len();
            let mut b = kernels::Border {
                rank,
                shape: [0; kernels::MAX_RANK],
                lo: [0; kernels::MAX_RANK],
                ext: [0; kernels::MAX_RANK],
            };
            let mut rest = *dst_offset;
            for k in 0..rank {
                b.shape[k] = o.view[k];
                b.ext[k] = ext[k];
                b.lo[k] = rest / ostr[k].max(1);
                rest %= ostr[k].max(1);
            }
            l.steps.push(Step::Border(dst, b, v, value.len() as u8));
        }
        let d2 = Ref::offset(dst, *dst_offset as u64 * es as u64);
        l.steps.push(Step::Copy(
            CopyDesc::new(ext, &ostr, &x.strides, es),
            d2,
            src,
        ));
    });
    l
}

/// `aclnnConstantPadNd`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnConstantPadNd(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard("aclnnConstantPadNd", cann_sys::ACLNN_ERR_INNER, || {
        executor::run(
            Op::ConstantPadNd,
            workspace,
            workspace_size,
            executor,
            stream,
            build_constant_pad,
        )
    })
}
