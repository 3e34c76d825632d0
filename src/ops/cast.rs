//! Cast (`aclnnCast`, spec section 14): every element converted to another
//! dtype.

use super::{acl, aliases, check_device, check_product, check_rank};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

impl Stream {
    /// The product rule of the target dtype (after `self`'s).
    fn check_cast_target(&self, dtype: DType) -> Result<()> {
        let rt = self.runtime();
        match rt.family() {
            Some(fam) if !OpKind::Cast.supports(fam, dtype) => Err(Error::UnsupportedDtype {
                op: OpKind::Cast.name(),
                dtype,
                soc: rt.soc().to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// `x` (any view) converted to `dtype`, as a new contiguous tensor of
    /// its shape (spec section 14: floats to integers truncate, saturate,
    /// NaN gives 0; integers wrap; one rounding to nearest even into a
    /// float type).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4], &[2.9f32, -2.9, 1e10, f32::NAN])?;
    /// assert_eq!(s.cast(&x, DType::I32)?.to_vec::<i32>()?, [2, -2, i32::MAX, 0]);
    /// let y = Tensor::from_slice(&s, &[2], &[300i64, -1])?;
    /// assert_eq!(s.cast(&y, DType::U8)?.to_vec::<u8>()?, [44, 255]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn cast(&self, x: &Tensor, dtype: DType) -> Result<Tensor> {
        check_product(self, OpKind::Cast, x.dtype())?;
        self.check_cast_target(dtype)?;
        check_device(self, "cast", "self", x)?;
        check_rank("cast", "self", x, 0)?;
        let out = Tensor::empty_for(self, "cast", "self", dtype, x.shape())?;
        self.cast_launch(x, &out)?;
        Ok(out)
    }

    /// [`Stream::cast`] into a caller's tensor or view of `x`'s shape; the
    /// target dtype is `out`'s. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4])?;
    /// let out = Tensor::zeros(&s, DType::F16, &[2, 2])?;
    /// s.cast_into(&x.transpose(0, 1)?, &out)?;
    /// assert_eq!(out.to_vec::<half::f16>()?, [1., 3., 2., 4.].map(half::f16::from_f32));
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn cast_into(&self, x: &Tensor, out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Cast, x.dtype())?;
        self.check_cast_target(out.dtype())?;
        check_device(self, "cast", "self", x)?;
        check_device(self, "cast", "out", out)?;
        check_rank("cast", "self", x, 0)?;
        if out.shape() != x.shape() {
            return Err(Error::invalid(
                "cast",
                "out",
                format!("shape {:?} must be self's {:?}", out.shape(), x.shape()),
            ));
        }
        if out.layout().may_overlap() {
            return Err(Error::invalid(
                "cast",
                "out",
                format!(
                    "the view (shape {:?}, strides {:?}) may write one element twice",
                    out.shape(),
                    out.strides()
                ),
            ));
        }
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, "cast", "out", out.dtype(), out.shape())?;
            self.cast_launch(x, &tmp)?;
            return self.copy_into("cast", out, &tmp);
        }
        self.cast_launch(x, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn cast_launch(&self, x: &Tensor, out: &Tensor) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped("cast", x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write).
        unsafe { self.launch(First::Cast(&ax, out.dtype().acl(), &ao), &[&xs], out) }.map(drop)
    }
}
