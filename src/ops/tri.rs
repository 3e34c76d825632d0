//! Tril and Triu (`aclnnTril`, `aclnnTriu` and their in-place twins, spec
//! section 15): the lower or upper triangle of each matrix of the last two
//! dims, the rest zero.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

/// Tril (`lower`) or Triu.
fn kind(lower: bool) -> OpKind {
    if lower {
        OpKind::Tril
    } else {
        OpKind::Triu
    }
}

impl Stream {
    /// The rules shared by every form, after the product: the device and
    /// the rank of `self`.
    /// The product, the devices (`self`, then `out` if given), the rank.
    fn tri_check(&self, lower: bool, x: &Tensor, out: Option<&Tensor>) -> Result<()> {
        let op = kind(lower);
        check_product(self, op, x.dtype())?;
        check_device(self, op.name(), "self", x)?;
        if let Some(o) = out {
            check_device(self, op.name(), "out", o)?;
        }
        check_rank(op.name(), "self", x, 2)
    }

    fn tri_new(&self, lower: bool, x: &Tensor, diagonal: i64) -> Result<Tensor> {
        self.tri_check(lower, x, None)?;
        let name = kind(lower).name();
        let out = Tensor::empty_for(self, name, "self", x.dtype(), x.shape())?;
        self.tri_launch(lower, x, diagonal, &out)?;
        Ok(out)
    }

    fn tri_into(&self, lower: bool, x: &Tensor, diagonal: i64, out: &Tensor) -> Result<()> {
        self.tri_check(lower, x, Some(out))?;
        let name = kind(lower).name();
        check_out(name, out, x.dtype(), x.shape())?;
        if x.numel() > 0 && aliases(x, out) {
            let tmp = Tensor::empty_for(self, name, "out", out.dtype(), out.shape())?;
            self.tri_launch(lower, x, diagonal, &tmp)?;
            return self.copy_into(name, out, &tmp);
        }
        self.tri_launch(lower, x, diagonal, out)
    }

    fn tri_inplace(&self, lower: bool, x: &Tensor, diagonal: i64) -> Result<()> {
        self.tri_check(lower, x, None)?;
        let name = kind(lower).name();
        // An empty view writes nothing, so it writes no element twice.
        if x.numel() > 0 && x.layout().may_overlap() {
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
            return Ok(());
        }
        let ax = acl(self, x)?;
        let first = if lower {
            First::InplaceTril(&ax, diagonal)
        } else {
            First::InplaceTriu(&ax, diagonal)
        };
        // SAFETY: the descriptor is `x`'s, the launch's read and write.
        unsafe { self.launch(first, &[], x) }.map(drop)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn tri_launch(&self, lower: bool, x: &Tensor, diagonal: i64, out: &Tensor) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(kind(lower).name(), x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let first = if lower {
            First::Tril(&ax, diagonal, &ao)
        } else {
            First::Triu(&ax, diagonal, &ao)
        };
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write).
        unsafe { self.launch(first, &[&xs], out) }.map(drop)
    }

    /// The lower triangle of each matrix of the last two dims of `x` (any
    /// view of rank 2 to 8): element (i, j) kept where
    /// `j - i <= diagonal`, the others zero (`aclnnTril`, spec section
    /// 15). `diagonal` is any `i64`: 0 the main diagonal, positive above
    /// it, negative below.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// assert_eq!(s.tril(&x, 0)?.to_vec::<i32>()?, [1, 0, 0, 4, 5, 0, 7, 8, 9]);
    /// assert_eq!(s.tril(&x, -1)?.to_vec::<i32>()?, [0, 0, 0, 4, 0, 0, 7, 8, 0]);
    /// let v = Tensor::from_slice(&s, &[3], &[1i32, 2, 3])?;
    /// let e = s.tril(&v, 0).unwrap_err(); // rank 1
    /// assert_eq!(e.kind(), "invalid_argument");
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn tril(&self, x: &Tensor, diagonal: i64) -> Result<Tensor> {
        self.tri_new(true, x, diagonal)
    }

    /// [`Stream::tril`] into a caller's tensor or view of `x`'s dtype and
    /// shape; `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1.0f32, 2., 3., 4.])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[2, 2])?;
    /// s.tril_into(&x.transpose(0, 1)?, 0, &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [1., 0., 2., 4.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn tril_into(&self, x: &Tensor, diagonal: i64, out: &Tensor) -> Result<()> {
        self.tri_into(true, x, diagonal, out)
    }

    /// [`Stream::tril`] in place (`aclnnInplaceTril`): `x` (any view that
    /// does not write one element twice) becomes its lower triangle.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1u8, 2, 3, 4, 5, 6])?;
    /// s.tril_inplace(&x, 1)?;
    /// assert_eq!(x.to_vec::<u8>()?, [1, 2, 0, 4, 5, 6]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn tril_inplace(&self, x: &Tensor, diagonal: i64) -> Result<()> {
        self.tri_inplace(true, x, diagonal)
    }

    /// The upper triangle of each matrix of the last two dims of `x` (any
    /// view of rank 2 to 8): element (i, j) kept where
    /// `j - i >= diagonal`, the others zero (`aclnnTriu`, spec section 15).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// assert_eq!(s.triu(&x, 0)?.to_vec::<i32>()?, [1, 2, 3, 0, 5, 6, 0, 0, 9]);
    /// assert_eq!(s.triu(&x, 1)?.to_vec::<i32>()?, [0, 2, 3, 0, 0, 6, 0, 0, 0]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn triu(&self, x: &Tensor, diagonal: i64) -> Result<Tensor> {
        self.tri_new(false, x, diagonal)
    }

    /// [`Stream::triu`] into a caller's tensor or view of `x`'s dtype and
    /// shape; `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1i64, 2, 3, 4])?;
    /// let out = Tensor::zeros(&s, DType::I64, &[2, 2])?;
    /// s.triu_into(&x, 0, &out.transpose(0, 1)?)?;
    /// assert_eq!(out.to_vec::<i64>()?, [1, 0, 2, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn triu_into(&self, x: &Tensor, diagonal: i64, out: &Tensor) -> Result<()> {
        self.tri_into(false, x, diagonal, out)
    }

    /// [`Stream::triu`] in place (`aclnnInplaceTriu`).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1.0f64, 2., 3., 4.])?;
    /// s.triu_inplace(&x.transpose(0, 1)?, 0)?; // the upper triangle of x^T
    /// assert_eq!(x.to_vec::<f64>()?, [1., 0., 3., 4.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn triu_inplace(&self, x: &Tensor, diagonal: i64) -> Result<()> {
        self.tri_inplace(false, x, diagonal)
    }
}
