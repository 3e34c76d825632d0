//! Add (`aclnnAdd`, `aclnnInplaceAdd`, spec section 8) and Mul
//! (`aclnnMul`, `aclnnInplaceMul`, section 9): elementwise, with
//! broadcasting, dtype promotion and (Add) `alpha`.

use super::{acl, aliases, check_device, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::{AclScalar, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;
use crate::Scalar;
use cann_sys::aclDataType;
use std::borrow::Cow;

/// The promoted dtype of two dtypes (CANN's "deduction relationship"
/// table, ops.md §8), or `None` for a pair that does not promote.
pub(crate) fn promote(a: DType, b: DType) -> Option<DType> {
    use DType::*;
    if a == b {
        return Some(a);
    }
    if [a, b].iter().any(|d| matches!(d, U16 | U32 | U64)) {
        return None;
    }
    if a == Bool {
        return Some(b);
    }
    if b == Bool {
        return Some(a);
    }
    let complex = |d: DType| matches!(d, C64 | C128);
    let float = |d: DType| matches!(d, F16 | BF16 | F32 | F64);
    if complex(a) || complex(b) {
        return Some(if [a, b].iter().any(|d| matches!(d, C128 | F64)) {
            C128
        } else {
            C64
        });
    }
    Some(match (float(a), float(b)) {
        (true, false) => a,
        (false, true) => b,
        (true, true) if a == F64 || b == F64 => F64,
        (true, true) => F32, // f16 with bf16, or either with f32
        (false, false) => match (a, b) {
            (I8, U8) | (U8, I8) => I16,
            _ if a.size() >= b.size() => a,
            _ => b,
        },
    })
}

pub(crate) fn is_int(d: DType) -> bool {
    use DType::*;
    matches!(d, I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64)
}

/// Whether `from` casts to `to` (CANN's "conversion relationship").
pub(crate) fn can_cast(from: DType, to: DType) -> bool {
    use DType::*;
    match from {
        _ if from == to => true,
        Bool => true,
        _ if is_int(from) => to != Bool,
        F16 | BF16 | F32 | F64 => matches!(to, F16 | BF16 | F32 | F64 | C64 | C128),
        _ => matches!(to, C64 | C128),
    }
}

/// The broadcast shape of two shapes (NumPy's rule), or `None`.
fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let at = |s: &[usize], k: usize| {
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

/// Dim groups after merging (ops.md §8, the limit for complex, double and
/// int16): output dims of extent 1 dropped, the others labelled by which
/// inputs broadcast along them, adjacent equal labels merged.
fn merged_groups(a: &[usize], b: &[usize], out: &[usize]) -> usize {
    let r = out.len();
    let ext = |s: &[usize], k: usize| {
        if k < r - s.len() {
            1
        } else {
            s[k - (r - s.len())]
        }
    };
    let mut last = None;
    let mut groups = 0;
    for k in (0..r).filter(|&k| out[k] != 1) {
        let label = (ext(a, k) == 1, ext(b, k) == 1);
        if last != Some(label) {
            groups += 1;
            last = Some(label);
        }
    }
    groups
}

/// Add's alpha as aclnn takes it: its aclScalar dtype, the safe layer's
/// dtype of that, and its bytes (ops.md §8: `Bool` is BOOL, `Int` and
/// `UInt` INT64, `Float` DOUBLE, `Complex` COMPLEX128).
pub(crate) fn alpha_scalar(alpha: Scalar) -> Result<(aclDataType, DType, Vec<u8>)> {
    Ok(match alpha {
        Scalar::Bool(b) => (aclDataType::ACL_BOOL, DType::Bool, vec![u8::from(b)]),
        Scalar::Int(v) => (aclDataType::ACL_INT64, DType::I64, v.to_le_bytes().to_vec()),
        Scalar::UInt(v) => {
            let v = i64::try_from(v).map_err(|_| {
                Error::invalid(
                    "add",
                    "alpha",
                    format!("{v} does not fit INT64, alpha's dtype"),
                )
            })?;
            (aclDataType::ACL_INT64, DType::I64, v.to_le_bytes().to_vec())
        }
        Scalar::Float(v) => (
            aclDataType::ACL_DOUBLE,
            DType::F64,
            v.to_le_bytes().to_vec(),
        ),
        Scalar::Complex(re, im) => (
            aclDataType::ACL_COMPLEX128,
            DType::C128,
            [re.to_le_bytes(), im.to_le_bytes()].concat(),
        ),
    })
}

/// Add (with its alpha) or Mul.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Add(Scalar),
    Mul,
}

impl Kind {
    fn op(self) -> OpKind {
        match self {
            Kind::Add(_) => OpKind::Add,
            Kind::Mul => OpKind::Mul,
        }
    }

    /// The operator's name in errors (`"add"`, `"mul"`).
    pub(crate) fn name(self) -> &'static str {
        self.op().name()
    }

    /// Add's alpha as the first phase takes it (`None` for Mul); checked
    /// by [`check`] first.
    pub(crate) fn alpha(self, api: &cann_sys::Api) -> Result<Option<AclScalar<'_>>> {
        match self {
            Kind::Mul => Ok(None),
            Kind::Add(a) => {
                let (dtype, _, bytes) = alpha_scalar(a)?;
                AclScalar::new(api, dtype, &bytes).map(Some)
            }
        }
    }
}

/// What the checks found: the promoted dtype and the broadcast shape.
pub(crate) struct Checked {
    promoted: DType,
    shape: Vec<usize>,
}

/// The rules of ops.md §8 before `out`'s: the product (operator, `self`'s
/// dtype, `other`'s), the devices, alpha, ranks, broadcast, merging.
fn check(
    s: &Stream,
    kind: Kind,
    x: &Tensor,
    y: &Tensor,
    out: Option<(&'static str, &Tensor)>,
) -> Result<Checked> {
    let opk = kind.op();
    let op = opk.name();
    check_product(s, opk, x.dtype())?;
    check_product(s, opk, y.dtype())?;
    check_device(s, op, "self", x)?;
    check_device(s, op, "other", y)?;
    if let Some((param, o)) = out {
        check_device(s, op, param, o)?;
    }
    let promoted = promote(x.dtype(), y.dtype()).ok_or_else(|| {
        Error::invalid(
            op,
            "other",
            format!("{} and {} do not promote", x.dtype(), y.dtype()),
        )
    })?;
    if let Kind::Add(a) = kind {
        let (_, ad, _) = alpha_scalar(a)?;
        let ok = if promoted == DType::Bool {
            ad == DType::Bool || is_int(ad)
        } else {
            can_cast(ad, promoted)
        };
        if !ok {
            return Err(Error::invalid(
                op,
                "alpha",
                format!("{a:?} ({ad}) cannot be cast to the promoted dtype {promoted}"),
            ));
        }
    }
    for (t, param) in [(x, "self"), (y, "other")] {
        if t.rank() > MAX_RANK {
            return Err(Error::invalid(
                op,
                param,
                format!("rank must be at most {MAX_RANK}, got {}", t.rank()),
            ));
        }
    }
    let shape = broadcast_shape(x.shape(), y.shape()).ok_or_else(|| {
        Error::invalid(
            op,
            "other",
            format!(
                "shape {:?} does not broadcast with self's {:?}",
                y.shape(),
                x.shape()
            ),
        )
    })?;
    let limited = |d: DType| matches!(d, DType::C64 | DType::C128 | DType::F64 | DType::I16);
    if [x.dtype(), y.dtype(), promoted].into_iter().any(limited) {
        let g = merged_groups(x.shape(), y.shape(), &shape);
        if g > 5 {
            return Err(Error::invalid(
                op,
                "other",
                format!(
                    "the broadcast to {shape:?} needs {g} merged dim groups; \
                     {promoted} takes at most 5 on the device"
                ),
            ));
        }
    }
    Ok(Checked { promoted, shape })
}

/// An output's dtype rule: in the elementwise list, reachable from the
/// promoted dtype.
fn check_out_dtype(s: &Stream, opk: OpKind, param: &'static str, p: DType, d: DType) -> Result<()> {
    let listed = s.runtime().family().is_none_or(|f| opk.supports(f, d))
        && !matches!(d, DType::U16 | DType::U32 | DType::U64);
    if !listed || !can_cast(p, d) {
        return Err(Error::invalid(
            opk.name(),
            param,
            format!("the result ({p}) cannot be cast to {d}"),
        ));
    }
    Ok(())
}

/// The view must not write one element twice.
fn writes_once(op: &'static str, param: &'static str, t: &Tensor) -> Result<()> {
    if t.layout().may_overlap() {
        return Err(Error::invalid(
            op,
            param,
            format!(
                "the view (shape {:?}, strides {:?}) may write one element twice",
                t.shape(),
                t.strides()
            ),
        ));
    }
    Ok(())
}

impl Stream {
    /// An input as the device takes it: `t` itself (borrowed: it keeps
    /// its descriptor), or, for a view that overlaps itself, its stride-0
    /// dims as extent-1 dims (the operator broadcasts them back),
    /// materialised when it still overlaps.
    pub(crate) fn elementwise_operand<'a>(
        &self,
        op: &'static str,
        t: &'a Tensor,
    ) -> Result<Cow<'a, Tensor>> {
        if !t.layout().may_overlap() {
            return Ok(Cow::Borrowed(t));
        }
        let shape: Vec<usize> = t
            .shape()
            .iter()
            .zip(t.strides())
            .map(|(&n, &st)| if st == 0 { n.min(1) } else { n })
            .collect();
        let reduced = t.view_as(op, &shape, t.strides(), t.offset())?;
        if reduced.layout().may_overlap() {
            return Ok(Cow::Owned(self.materialise(op, &reduced)?));
        }
        Ok(Cow::Owned(reduced))
    }

    /// The inputs as the device takes them, broadcasting to `shape`.
    fn elementwise_operands<'a>(
        &self,
        op: &'static str,
        x: &'a Tensor,
        y: &'a Tensor,
        shape: &[usize],
    ) -> Result<(Cow<'a, Tensor>, Cow<'a, Tensor>)> {
        let (a, b) = (
            self.elementwise_operand(op, x)?,
            self.elementwise_operand(op, y)?,
        );
        if broadcast_shape(a.shape(), b.shape()).as_deref() == Some(shape) {
            return Ok((a, b));
        }
        // Both broadcast one dim by stride 0: materialise them whole.
        Ok((
            Cow::Owned(self.materialise(op, x)?),
            Cow::Owned(self.materialise(op, y)?),
        ))
    }

    /// The launch of a checked Add or Mul into `out` (which shares no
    /// memory with the inputs), or of the in-place form when `inplace`
    /// (then `out` is `x`).
    fn elementwise_launch(
        &self,
        kind: Kind,
        c: &Checked,
        x: &Tensor,
        y: &Tensor,
        out: &Tensor,
        inplace: bool,
    ) -> Result<()> {
        let op = kind.op().name();
        let (xa, ya) = if inplace {
            (Cow::Borrowed(x), self.elementwise_operand(op, y)?)
        } else {
            self.elementwise_operands(op, x, y, &c.shape)?
        };
        let (ax, ay) = (acl(self, &xa)?, acl(self, &ya)?);
        let alpha = kind.alpha(self.api())?;
        let ao = if inplace { None } else { Some(acl(self, out)?) };
        let first = match (alpha.as_ref(), ao.as_ref()) {
            (Some(al), Some(ao)) => First::Add(&ax, &ay, al, ao),
            (Some(al), None) => First::InplaceAdd(&ax, &ay, al),
            (None, Some(ao)) => First::Mul(&ax, &ay, ao),
            (None, None) => First::InplaceMul(&ax, &ay),
        };
        // SAFETY: the descriptors are of `xa` and `ya` (reads) and `out`
        // (the write; `xa` itself in place, which is `out`).
        unsafe { self.launch(first, &[&xa, &ya], out) }.map(drop)
    }

    /// Every rule of the `_into` form of Add and Mul, `out`'s included
    /// (also [`Stream::prepare_add`]'s and [`Stream::prepare_mul`]'s).
    pub(crate) fn check_elementwise_into(
        &self,
        kind: Kind,
        x: &Tensor,
        y: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        let opk = kind.op();
        let op = opk.name();
        let c = check(self, kind, x, y, Some(("out", out)))?;
        check_out_dtype(self, opk, "out", c.promoted, out.dtype())?;
        if out.shape() != c.shape.as_slice() {
            return Err(Error::invalid(
                op,
                "out",
                format!(
                    "shape {:?} must be the broadcast shape {:?}",
                    out.shape(),
                    c.shape
                ),
            ));
        }
        writes_once(op, "out", out)?;
        Ok(c)
    }

    /// The `_into` form of Add and Mul.
    pub(crate) fn elementwise_into(
        &self,
        kind: Kind,
        x: &Tensor,
        y: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        let op = kind.name();
        let c = self.check_elementwise_into(kind, x, y, out)?;
        if out.numel() == 0 {
            return Ok(());
        }
        if aliases(x, out) || aliases(y, out) {
            let tmp = Tensor::empty_for(self, op, "out", out.dtype(), &c.shape)?;
            self.elementwise_launch(kind, &c, x, y, &tmp, false)?;
            return self.copy_into(op, out, &tmp);
        }
        self.elementwise_launch(kind, &c, x, y, out, false)
    }

    /// The new-tensor form of Add and Mul.
    fn elementwise_new(&self, kind: Kind, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        let c = check(self, kind, x, y, None)?;
        let op = kind.op().name();
        let out = Tensor::empty_for(self, op, "other", c.promoted, &c.shape)?;
        if out.numel() > 0 {
            self.elementwise_launch(kind, &c, x, y, &out, false)?;
        }
        Ok(out)
    }

    /// The in-place form of Add and Mul: `x` is the output.
    fn elementwise_inplace(&self, kind: Kind, x: &Tensor, y: &Tensor) -> Result<()> {
        let opk = kind.op();
        let op = opk.name();
        let c = check(self, kind, x, y, None)?;
        if c.shape.as_slice() != x.shape() {
            return Err(Error::invalid(
                op,
                "other",
                format!(
                    "the broadcast shape {:?} must be self's {:?} in place",
                    c.shape,
                    x.shape()
                ),
            ));
        }
        check_out_dtype(self, opk, "self", c.promoted, x.dtype())?;
        writes_once(op, "self", x)?;
        if x.numel() == 0 {
            return Ok(());
        }
        if aliases(y, x) {
            // `other` reads what the operator writes: through a temporary.
            let tmp = Tensor::empty_for(self, op, "self", x.dtype(), x.shape())?;
            self.elementwise_launch(kind, &c, x, y, &tmp, false)?;
            return self.copy_into(op, x, &tmp);
        }
        self.elementwise_launch(kind, &c, x, y, x, true)
    }

    /// `x + alpha * y`, elementwise, as a new tensor of the promoted dtype
    /// and the broadcast shape (spec section 8: NumPy broadcasting, CANN's
    /// promotion table, `alpha` converted to the promoted dtype, the
    /// project's exact rounding). Any views are accepted.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Scalar, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.])?;
    /// let y = Tensor::from_slice(&s, &[2], &[10i32, 20])?;   // broadcast along rows
    /// let z = s.add(&x, &y, Scalar::Float(0.5))?;            // promoted to float32
    /// assert_eq!(z.dtype(), DType::F32);
    /// assert_eq!(z.to_vec::<f32>()?, [6., 12., 8., 14.]);
    /// // A float alpha cannot be cast to an integer computation.
    /// let e = s.add(&y, &y, Scalar::Float(0.5)).unwrap_err();
    /// assert_eq!(e.kind(), "invalid_argument");
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn add(&self, x: &Tensor, y: &Tensor, alpha: Scalar) -> Result<Tensor> {
        self.elementwise_new(Kind::Add(alpha), x, y)
    }

    /// [`Stream::add`] into a caller's tensor or view of the broadcast
    /// shape, whose dtype may be any the promoted dtype casts to (spec
    /// section 8, "Output dtype"); `out` may share memory with `x` or `y`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Scalar, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3], &[100i32, 200, 300])?;
    /// let out = Tensor::zeros(&s, DType::I8, &[3])?;
    /// s.add_into(&x, &x, Scalar::Int(1), &out)?;              // int32 wraps into int8
    /// assert_eq!(out.to_vec::<i8>()?, [-56, -112, 88]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn add_into(&self, x: &Tensor, y: &Tensor, alpha: Scalar, out: &Tensor) -> Result<()> {
        self.elementwise_into(Kind::Add(alpha), x, y, out)
    }

    /// `x = x + alpha * y` in place (`aclnnInplaceAdd`): `y` must broadcast
    /// to `x`'s shape, and the promoted dtype must cast to `x`'s.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Scalar, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.])?;
    /// let bias = Tensor::from_slice(&s, &[2], &[10f32, 20.])?;
    /// s.add_inplace(&x, &bias, Scalar::Int(2))?;
    /// assert_eq!(x.to_vec::<f32>()?, [21., 42., 23., 44.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn add_inplace(&self, x: &Tensor, y: &Tensor, alpha: Scalar) -> Result<()> {
        self.elementwise_inplace(Kind::Add(alpha), x, y)
    }

    /// `x * y`, elementwise, as a new tensor of the promoted dtype and the
    /// broadcast shape (spec section 9).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 1], &[2i64, 3])?;
    /// let y = Tensor::from_slice(&s, &[3], &[1i64, 10, 100])?;
    /// assert_eq!(s.mul(&x, &y)?.to_vec::<i64>()?, [2, 20, 200, 3, 30, 300]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn mul(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        self.elementwise_new(Kind::Mul, x, y)
    }

    /// [`Stream::mul`] into a caller's tensor or view (rules of
    /// [`Stream::add_into`]).
    pub fn mul_into(&self, x: &Tensor, y: &Tensor, out: &Tensor) -> Result<()> {
        self.elementwise_into(Kind::Mul, x, y, out)
    }

    /// `x = x * y` in place (`aclnnInplaceMul`; rules of
    /// [`Stream::add_inplace`]).
    pub fn mul_inplace(&self, x: &Tensor, y: &Tensor) -> Result<()> {
        self.elementwise_inplace(Kind::Mul, x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        use DType::*;
        assert_eq!(promote(I8, U8), Some(I16));
        assert_eq!(promote(BF16, F16), Some(F32));
        assert_eq!(promote(I64, F16), Some(F16));
        assert_eq!(promote(C64, F64), Some(C128));
        assert_eq!(promote(U32, I8), None);
        assert!(can_cast(Bool, I8) && !can_cast(I8, Bool) && !can_cast(F32, I64));
        assert_eq!(broadcast_shape(&[2, 1], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast_shape(&[2], &[3]), None);
        let full = [5, 5, 5, 5, 5, 5];
        assert_eq!(merged_groups(&[5, 1, 5, 1, 5, 1], &full, &full), 6);
        assert_eq!(merged_groups(&[5, 1, 5, 5, 1, 1], &full, &full), 4);
    }
}
