//! The elementwise aclnn operators: Add, InplaceAdd, Mul, InplaceMul
//! (`docs/ops.md` §8 and §9).
//!
//! First phase, in the order of CANN's `aclnn_add.cpp` / `aclnn_mul.cpp`:
//! null pointers (`161001`), the product's kernel (`561003`), then
//! `161002` for the dtypes, alpha's cast, out's dtype, the views, the
//! broadcast and out's shape. The plan casts both inputs (broadcast) into
//! the workspace in the promoted dtype, runs the arithmetic kernel
//! (`kernels/arith.c`) there, and casts the result into `out` through its
//! view, so `out` may share memory with either input.

use crate::executor::{align, contiguous, numel};
use crate::kernels::{self, BinaryOp, CopyDesc, KDtype};
use crate::objects::{BinaryPlan, Executor, Plan, Tensor};
use crate::ops::{
    broadcast, dtype_ok, finish, first_phase, invalid, kdtype, preamble, structure, writes_once,
};
use crate::runtime;
use crate::soc::{self, Op};
use crate::state::{self, Runtime};
use crate::work::{Launch, Step};
use cann_sys::*;
use std::ffi::c_void;

type R<T> = Result<T, aclnnStatus>;

/// The promoted dtype of two dtypes (CANN's "deduction relationship"
/// table, restricted to the dtypes the kernels hold), or `None`.
pub(crate) fn promote(a: KDtype, b: KDtype) -> Option<KDtype> {
    use KDtype::*;
    if a == b {
        return Some(a);
    }
    let wide_unsigned = |t: KDtype| matches!(t, U16 | U32 | U64);
    if wide_unsigned(a) || wide_unsigned(b) {
        return None;
    }
    if a == Bool {
        return Some(b);
    }
    if b == Bool {
        return Some(a);
    }
    let complex = |t: KDtype| matches!(t, C64 | C128);
    let float = |t: KDtype| matches!(t, F16 | Bf16 | F32 | F64);
    if complex(a) || complex(b) {
        let wide = [a, b].iter().any(|t| matches!(t, C128 | F64));
        return Some(if wide { C128 } else { C64 });
    }
    Some(match (float(a), float(b)) {
        (true, false) => a,
        (false, true) => b,
        (true, true) => {
            if a == F64 || b == F64 {
                F64
            } else {
                // F16 with BF16, or either with F32.
                F32
            }
        }
        (false, false) => match (a, b) {
            (I8, U8) | (U8, I8) => I16,
            _ => {
                if kernels::kdtype_size(a) >= kernels::kdtype_size(b) {
                    a
                } else {
                    b
                }
            }
        },
    })
}

/// Whether `from` casts to `to` (CANN's "conversion relationship").
pub(crate) fn can_cast(from: KDtype, to: KDtype) -> bool {
    use KDtype::*;
    match from {
        _ if from == to => true,
        Bool => true,
        I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64 => to != Bool,
        F16 | Bf16 | F32 | F64 => matches!(to, F16 | Bf16 | F32 | F64 | C64 | C128),
        C64 | C128 => matches!(to, C64 | C128),
    }
}

fn is_int(t: KDtype) -> bool {
    use KDtype::*;
    matches!(t, I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64)
}

/// The broadcast shape (NumPy's rule), or `None`.
fn broadcast_shape(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let r = a.len().max(b.len());
    let at = |s: &[i64], k: usize| {
        if k < r - s.len() {
            1
        } else {
            s[k - (r - s.len())]
        }
    };
    (0..r)
        .map(|k| match (at(a, k), at(b, k)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

fn kd(op: Op, t: &Tensor, name: &str) -> R<KDtype> {
    kdtype(t.dtype).ok_or_else(|| {
        invalid(
            op,
            format_args!("{name} has data type {}, which is not supported", t.dtype.0),
        )
    })
}

/// Which names the first phase uses for its tensors.
struct Names {
    x: &'static str,
    out: &'static str,
}

/// The shared first phase after the null pointers and handles: every
/// `161002` rule in CANN's order, then the plan.
///
/// # Safety
/// `ws` and `ex` are valid for writes (checked non-null by the caller's
/// preamble, and valid by the first phase's contract).
#[allow(clippy::too_many_arguments)]
unsafe fn plan(
    op: Op,
    fam: soc::Family,
    x: std::sync::Arc<Tensor>,
    y: std::sync::Arc<Tensor>,
    o: std::sync::Arc<Tensor>,
    alpha: Option<*const aclScalar>,
    names: Names,
    ws: *mut u64,
    ex: *mut *mut aclOpExecutor,
) -> R<aclnnStatus> {
    let add = matches!(op, Op::Add | Op::InplaceAdd);
    dtype_ok(op, fam, &x, names.x)?;
    dtype_ok(op, fam, &y, "other")?;
    if !add {
        // aclnn_mul.cpp checks out's dtype with the inputs'.
        dtype_ok(op, fam, &o, names.out)?;
    }
    let (xt, yt) = (kd(op, &x, names.x)?, kd(op, &y, "other")?);
    let p = promote(xt, yt).ok_or_else(|| {
        invalid(
            op,
            format_args!(
                "{} data type {} and other's {} do not promote",
                names.x, x.dtype.0, y.dtype.0
            ),
        )
    })?;
    let alpha = match alpha {
        None => None,
        Some(a) => {
            let v = state::with_handles(|h| h.scalars.get(&(a as usize)).map(|s| (**s).clone()))
                .ok_or_else(|| invalid(op, format_args!("alpha ({a:p}) is not a live scalar")))?;
            let at = kdtype(v.dtype);
            let ok = match at {
                Some(at) if p == KDtype::Bool => at == KDtype::Bool || is_int(at),
                Some(at) => can_cast(at, p),
                None => false,
            };
            if !ok {
                return Err(invalid(
                    op,
                    format_args!(
                        "alpha of data type {} cannot be cast to the promoted type {p:?}",
                        v.dtype.0
                    ),
                ));
            }
            let mut conv = [0u8; 16];
            let rt = runtime::rt()?;
            // SAFETY: one element of each type, in host buffers of 16 bytes.
            let done = unsafe {
                kernels::cast(
                    &rt.pool,
                    CopyDesc::new(&[], &[], &[], 0),
                    p,
                    conv.as_mut_ptr(),
                    at.expect("checked above"),
                    v.bytes.as_ptr(),
                )
            };
            if !done {
                return Err(invalid(op, "alpha cannot be converted"));
            }
            Some(conv)
        }
    };
    let ot = kd(op, &o, names.out)?;
    if (add && !soc::dtype_supported(op, fam, o.dtype)) || !can_cast(p, ot) {
        return Err(invalid(
            op,
            format_args!(
                "the promoted type {p:?} cannot be cast to {}'s data type {}",
                names.out, o.dtype.0
            ),
        ));
    }
    structure(op, &[(&x, names.x), (&y, "other"), (&o, names.out)])?;
    let shape = broadcast_shape(&x.view, &y.view).ok_or_else(|| {
        invalid(
            op,
            format_args!(
                "{} shape {:?} and other shape {:?} do not broadcast",
                names.x, x.view, y.view
            ),
        )
    })?;
    if o.view[..] != shape[..] {
        return Err(invalid(
            op,
            format_args!(
                "{} shape {:?} must be the broadcast shape {shape:?}",
                names.out, o.view
            ),
        ));
    }
    writes_once(op, &o, names.out)?;
    let n = numel(&shape);
    let (plan, workspace) = if n == 0 {
        (Plan::Empty, 0)
    } else {
        // Two buffers of the promoted type: self's and other's (the result
        // overwrites self's). Each fits i64 (out's bytes in a wider type
        // can pass it: checked).
        let buf = (n as u64)
            .checked_mul(kernels::kdtype_size(p) as u64)
            .map(align)
            .filter(|b| *b <= (i64::MAX as u64) / 2)
            .ok_or_else(|| invalid(op, "the workspace overflows 64 bits"))?;
        let plan = BinaryPlan {
            op: if add { BinaryOp::Add } else { BinaryOp::Mul },
            promoted: p,
            alpha,
        };
        (Plan::Binary(plan), 2 * buf)
    };
    // SAFETY: the caller's contract.
    Ok(unsafe {
        finish(
            op,
            plan,
            smallvec::smallvec![x, y],
            smallvec::smallvec![o],
            workspace,
            ws,
            ex,
        )
    })
}

/// In place: `selfRef` and `other` must broadcast to `selfRef`'s shape
/// (CANN's `CheckInplace` for Add; Mul checks it last, in [`plan`]).
fn inplace_shape(op: Op, x: &Tensor, y: &Tensor) -> R<()> {
    match broadcast_shape(&x.view, &y.view) {
        Some(s) if s[..] == x.view[..] => Ok(()),
        _ => Err(invalid(
            op,
            format_args!(
                "other shape {:?} must broadcast to selfRef shape {:?}",
                y.view, x.view
            ),
        )),
    }
}

fn build(rt: &Runtime, e: &Executor, ws: u64) -> Launch {
    let Plan::Binary(b) = &e.plan else {
        unreachable!()
    };
    let (x, y, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let shape = &o.view;
    let n = numel(shape);
    let ps = kernels::kdtype_size(b.promoted) as u64;
    let len = n as u64 * ps;
    let dense = contiguous(shape);
    let mut l = Launch::new(e.op.name());
    if let Some(l) = direct(rt, e, b, &dense, n) {
        return l;
    }
    let abuf = l.region(rt, "workspace (self, promoted)", ws, len, true);
    let bbuf = l.region(
        rt,
        "workspace (other, promoted)",
        ws + align(len),
        len,
        true,
    );
    for (t, name, dst) in [(x, "self", abuf), (y, "other", bbuf)] {
        let src = l
            .view(rt, name, t, (&t.view, &t.strides, t.offset), false)
            .expect("non-empty");
        let strides = broadcast(shape, &t.view, &t.strides).expect("checked in the first phase");
        l.steps.push(Step::Cast(
            CopyDesc::new(shape, &dense, &strides, 0),
            b.promoted,
            dst,
            kdtype(t.dtype).expect("checked in the first phase"),
            src,
        ));
    }
    l.steps
        .push(Step::Binary(b.op, b.promoted, abuf, abuf, bbuf, b.alpha, n));
    let dst = l
        .view(rt, "out", o, (&o.view, &o.strides, o.offset), true)
        .expect("non-empty");
    l.steps.push(Step::Cast(
        CopyDesc::new(shape, &o.strides, &dense, 0),
        kdtype(o.dtype).expect("checked in the first phase"),
        dst,
        b.promoted,
        abuf,
    ));
    l
}

/// The launch without staging, when it computes the same bytes: `self`,
/// `other` and `out` all of the promoted dtype, of `out`'s shape (no
/// broadcast) and dense, and `out` either apart from each input or exactly
/// on it (element `i` is read before it is written, by the same index).
/// One pass over the data instead of four; the workspace goes unused.
fn direct(rt: &Runtime, e: &Executor, b: &BinaryPlan, dense: &[i64], n: i64) -> Option<Launch> {
    let (x, y, o) = (&e.inputs[0], &e.inputs[1], &e.outputs[0]);
    let es = kernels::kdtype_size(b.promoted) as u64;
    let len = n as u64 * es;
    let start = |t: &Tensor| t.data.wrapping_add((t.offset as u64).wrapping_mul(es));
    let fits = |t: &Tensor| {
        kdtype(t.dtype) == Some(b.promoted)
            && t.view[..] == o.view[..]
            && t.view
                .iter()
                .zip(&t.strides)
                .zip(dense)
                .all(|((&d, &s), &c)| d <= 1 || s == c)
    };
    let apart_or_on = |t: &Tensor| {
        let (a, d) = (start(t), start(o));
        a == d || a.saturating_add(len) <= d || d.saturating_add(len) <= a
    };
    if !(fits(x) && fits(y) && fits(o) && apart_or_on(x) && apart_or_on(y)) {
        return None;
    }
    let mut l = Launch::new(e.op.name());
    let mut view =
        |t: &Tensor, name, write| l.view(rt, name, t, (&t.view, &t.strides, t.offset), write);
    let (a, bb, d) = (
        view(x, "self", false)?,
        view(y, "other", false)?,
        view(o, "out", true)?,
    );
    l.steps
        .push(Step::Binary(b.op, b.promoted, d, a, bb, b.alpha, n));
    Some(l)
}

fn second(
    op: Op,
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    crate::abi::guard(op.name(), ACLNN_ERR_INNER, || {
        crate::executor::run(op, workspace, workspace_size, executor, stream, build)
    })
}

// ------------------------------------------------------------------ Add

/// `aclnnAddGetWorkspaceSize`: `out = self + alpha * other`.
///
/// # Safety
/// `workspace_size` and `executor` are null or valid for writes (the
/// handles are looked up, never dereferenced).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnAddGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Add;
    first_phase(op, || {
        let (fam, [x, y, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("other", other.is_null()),
                ("alpha", alpha.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("other", other), ("out", out)],
        )?;
        let names = Names {
            x: "self",
            out: "out",
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe {
            plan(
                op,
                fam,
                x,
                y,
                o,
                Some(alpha),
                names,
                workspace_size,
                executor,
            )
        }
    })
}

/// `aclnnAdd`.
///
/// # Safety
/// Part of the C ABI, with CANN's contract: `workspace` is null or device memory of `workspace_size` bytes, `executor` a first phase's handle, `stream` a stream or null (handles are looked up; device memory is checked against live allocations before any access).
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnAdd(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::Add, workspace, workspace_size, executor, stream)
}

/// `aclnnInplaceAddGetWorkspaceSize`: `selfRef = selfRef + alpha * other`.
///
/// # Safety
/// As [`aclnnAddGetWorkspaceSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceAddGetWorkspaceSize(
    self_ref: *const aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceAdd;
    first_phase(op, || {
        // CANN's CheckInplace first (null, broadcast against selfRef),
        // then the Add checks with out = selfRef.
        let (_, [x, y]) = preamble(
            op,
            &[("selfRef", self_ref.is_null()), ("other", other.is_null())],
            [("selfRef", self_ref), ("other", other)],
        )?;
        structure(op, &[(&x, "selfRef"), (&y, "other")])?;
        inplace_shape(op, &x, &y)?;
        let (fam, []) = preamble(
            op,
            &[
                ("alpha", alpha.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [],
        )?;
        let o = x.clone();
        let names = Names {
            x: "selfRef",
            out: "selfRef",
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe {
            plan(
                op,
                fam,
                x,
                y,
                o,
                Some(alpha),
                names,
                workspace_size,
                executor,
            )
        }
    })
}

/// `aclnnInplaceAdd`.
///
/// # Safety
/// As [`aclnnAdd`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceAdd(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::InplaceAdd, workspace, workspace_size, executor, stream)
}

// ------------------------------------------------------------------ Mul

/// `aclnnMulGetWorkspaceSize`: `out = self * other`.
///
/// # Safety
/// As [`aclnnAddGetWorkspaceSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnMulGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::Mul;
    first_phase(op, || {
        let (fam, [x, y, o]) = preamble(
            op,
            &[
                ("self", self_.is_null()),
                ("other", other.is_null()),
                ("out", out.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("self", self_), ("other", other), ("out", out)],
        )?;
        let names = Names {
            x: "self",
            out: "out",
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { plan(op, fam, x, y, o, None, names, workspace_size, executor) }
    })
}

/// `aclnnMul`.
///
/// # Safety
/// As [`aclnnAdd`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnMul(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::Mul, workspace, workspace_size, executor, stream)
}

/// `aclnnInplaceMulGetWorkspaceSize`: `selfRef = selfRef * other`.
///
/// # Safety
/// As [`aclnnAddGetWorkspaceSize`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceMulGetWorkspaceSize(
    self_ref: *mut aclTensor,
    other: *const aclTensor,
    workspace_size: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    let op = Op::InplaceMul;
    first_phase(op, || {
        let (fam, [x, y]) = preamble(
            op,
            &[
                ("selfRef", self_ref.is_null()),
                ("other", other.is_null()),
                ("workspaceSize", workspace_size.is_null()),
                ("executor", executor.is_null()),
            ],
            [("selfRef", self_ref), ("other", other)],
        )?;
        let o = x.clone();
        let names = Names {
            x: "selfRef",
            out: "selfRef",
        };
        // SAFETY: the preamble checked both non-null; valid by this
        // function's contract.
        unsafe { plan(op, fam, x, y, o, None, names, workspace_size, executor) }
    })
}

/// `aclnnInplaceMul`.
///
/// # Safety
/// As [`aclnnAdd`].
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclnnInplaceMul(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    second(Op::InplaceMul, workspace, workspace_size, executor, stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use KDtype::*;

    #[test]
    fn promotion_and_casts() {
        assert_eq!(promote(I8, U8), Some(I16));
        assert_eq!(promote(U8, I32), Some(I32));
        assert_eq!(promote(F16, Bf16), Some(F32));
        assert_eq!(promote(I64, Bf16), Some(Bf16));
        assert_eq!(promote(C64, F64), Some(C128));
        assert_eq!(promote(Bool, C64), Some(C64));
        assert_eq!(promote(U16, I8), None);
        assert!(can_cast(Bool, C128) && can_cast(I64, F16));
        assert!(!can_cast(F32, I32) && !can_cast(I8, Bool) && !can_cast(C64, F64));
        assert_eq!(broadcast_shape(&[2, 1], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast_shape(&[0], &[2]), None);
    }
}
