//! The fills (spec section 13): `aclnnInplaceFillScalar` and
//! `aclnnInplaceZero`, every element of a tensor or view set to one value.

use super::elementwise::{alpha_scalar, can_cast, is_int};
use super::{acl, check_device, check_product, check_rank};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::{AclScalar, First};
use crate::layout::Layout;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;
use crate::Scalar;
use std::borrow::Cow;

/// The value's aclScalar (dtype and bytes), checked against `self`'s
/// dtype (spec section 13, "The value").
fn value_scalar(value: Scalar, dtype: DType) -> Result<(cann_sys::aclDataType, Vec<u8>)> {
    const OP: &str = "fill_scalar";
    if let Scalar::UInt(v) = value {
        if i64::try_from(v).is_err() {
            return Err(Error::invalid(
                OP,
                "value",
                format!("{v} does not fit INT64, the value's dtype"),
            ));
        }
    }
    let (acl_dtype, vd, bytes) = alpha_scalar(value)?;
    let ok = if dtype == DType::Bool {
        vd == DType::Bool || is_int(vd)
    } else {
        can_cast(vd, dtype)
    };
    if !ok {
        return Err(Error::invalid(
            OP,
            "value",
            format!("{value:?} ({vd:?}) cannot be cast to self's dtype {dtype:?}"),
        ));
    }
    Ok((acl_dtype, bytes))
}

/// `self`'s rules after the product, the device and the value: the rank,
/// and no element written twice once its stride-0 dims are taken at
/// extent 1. Returns the view to hand to aclnn (`None`: nothing to do).
fn target(op: OpKind, x: &Tensor) -> Result<Option<Cow<'_, Tensor>>> {
    let name = op.name();
    check_rank(name, "self", x, 0)?;
    let shape: Vec<usize> = x
        .shape()
        .iter()
        .zip(x.strides())
        .map(|(&n, &st)| if st == 0 { n.min(1) } else { n })
        .collect();
    let layout = Layout::new(name, &shape, x.strides(), x.offset(), x.dtype().size())?;
    if layout.may_overlap() {
        return Err(Error::invalid(
            name,
            "self",
            format!(
                "the view (shape {:?}, strides {:?}) writes one element twice",
                x.shape(),
                x.strides()
            ),
        ));
    }
    if x.numel() == 0 {
        return Ok(None);
    }
    // Borrowed when unchanged: `x` keeps its descriptor.
    Ok(Some(if shape.as_slice() == x.shape() {
        Cow::Borrowed(x)
    } else {
        Cow::Owned(x.with_layout(layout))
    }))
}

impl Stream {
    /// Sets every element of `x` (any view) to `value`, converted to `x`'s
    /// dtype (`aclnnInplaceFillScalar`, spec section 13): integers wrap,
    /// floats round once to nearest even; a value that does not cast (a
    /// float into an integer tensor, a complex into a real one) is an
    /// invalid argument (`fill_scalar`, `value`). A view with gaps keeps
    /// the bytes between its elements; a stride-0 view is filled through
    /// one element per broadcast run.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Scalar, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1i8, 2, 3, 4, 5, 6])?;
    /// s.fill_scalar_inplace(&x.narrow(1, 1, 2)?, Scalar::Int(300))?; // wraps to 44
    /// assert_eq!(x.to_vec::<i8>()?, [1, 44, 44, 4, 44, 44]);
    /// let e = s.fill_scalar_inplace(&x, Scalar::Float(0.5)).unwrap_err();
    /// assert_eq!(e.kind(), "invalid_argument");
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn fill_scalar_inplace(&self, x: &Tensor, value: Scalar) -> Result<()> {
        check_product(self, OpKind::FillScalar, x.dtype())?;
        check_device(self, "fill_scalar", "self", x)?;
        let (dtype, bytes) = value_scalar(value, x.dtype())?;
        let Some(t) = target(OpKind::FillScalar, x)? else {
            return Ok(());
        };
        let sc = AclScalar::new(self.api(), dtype, &bytes)?;
        let at = acl(self, &t)?;
        // SAFETY: the descriptor is `t`'s, the launch's write; the scalar
        // holds no address.
        unsafe { self.launch(First::InplaceFillScalar(&at, &sc), &[], &t) }.map(drop)
    }

    /// A new contiguous tensor of `dtype` and `shape`, every element
    /// `value` ([`Stream::fill_scalar_inplace`]'s rules).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Scalar, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let y = s.full(DType::F32, &[2, 2], Scalar::Float(0.25))?;
    /// assert_eq!(y.to_vec::<f32>()?, [0.25; 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn full(&self, dtype: DType, shape: &[usize], value: Scalar) -> Result<Tensor> {
        check_product(self, OpKind::FillScalar, dtype)?;
        value_scalar(value, dtype)?;
        let y = Tensor::empty_for(self, "fill_scalar", "shape", dtype, shape)?;
        self.fill_scalar_inplace(&y, value)?;
        Ok(y)
    }

    /// Sets every element of `x` (any view) to zero: all bytes zero, so
    /// +0.0, `false`, (0, 0) (`aclnnInplaceZero`, spec section 13). Takes
    /// uint16 too, unlike [`Stream::fill_scalar_inplace`].
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1u16, 2, 3, 4])?;
    /// s.zero_inplace(&x.transpose(0, 1)?.narrow(0, 0, 1)?)?; // column 0
    /// assert_eq!(x.to_vec::<u16>()?, [0, 2, 0, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn zero_inplace(&self, x: &Tensor) -> Result<()> {
        check_product(self, OpKind::Zero, x.dtype())?;
        check_device(self, "zero", "self", x)?;
        let Some(t) = target(OpKind::Zero, x)? else {
            return Ok(());
        };
        let at = acl(self, &t)?;
        // SAFETY: the descriptor is `t`'s, the launch's write.
        unsafe { self.launch(First::InplaceZero(&at), &[], &t) }.map(drop)
    }
}
