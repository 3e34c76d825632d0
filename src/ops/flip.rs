//! Flip (`aclnnFlip`, spec section 19): the dims named in `dims`
//! reversed, into a new contiguous tensor.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "flip";

/// The spec's rules on `self` and `dims`, in order: the rank, then each
/// entry's range (`[-1, 0]` for a 0-D `x`) and repeats.
fn check_flip(x: &Tensor, dims: &[i64]) -> Result<()> {
    check_rank(OP, "self", x, 0)?;
    let r = x.rank().max(1) as i128;
    let mut seen = [false; MAX_RANK];
    for &d in dims {
        let v = i128::from(d);
        if v < -r || v >= r {
            return Err(Error::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{r}, {}]", r - 1),
            ));
        }
        let n = if v < 0 { v + r } else { v } as usize;
        if std::mem::replace(&mut seen[n], true) {
            return Err(Error::invalid(
                OP,
                "dims",
                format!("entry {d} names dim {n} a second time"),
            ));
        }
    }
    Ok(())
}

impl Stream {
    /// `x` (any view) with the dims of `dims` reversed, as a new contiguous
    /// tensor of its shape (negative entries count from the end; spec
    /// section 19). A2 and A3 only.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.])?;
    /// assert_eq!(s.flip(&x, &[0])?.to_vec::<f32>()?, [6., 7., 4., 5., 2., 3., 0., 1.]);
    /// assert_eq!(s.flip(&x, &[-1])?.to_vec::<f32>()?, [1., 0., 3., 2., 5., 4., 7., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn flip(&self, x: &Tensor, dims: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::Flip, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_flip(x, dims)?;
        let out = Tensor::empty_for(self, OP, "self", x.dtype(), x.shape())?;
        self.flip_launch(x, dims, &out)?;
        Ok(out)
    }

    /// [`Stream::flip`] into a caller's tensor or view of `x`'s dtype and
    /// shape. `out` may share memory with `x` (flipping in place).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4])?;
    /// s.flip_into(&x, &[0, 1], &x)?;
    /// assert_eq!(x.to_vec::<i32>()?, [4, 3, 2, 1]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn flip_into(&self, x: &Tensor, dims: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Flip, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        check_flip(x, dims)?;
        check_out(OP, out, x.dtype(), x.shape())?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.flip_launch(x, dims, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.flip_launch(x, dims, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn flip_launch(&self, x: &Tensor, dims: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let arr = AclIntArray::new(self.api(), dims)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); `arr` lives for the call.
        unsafe { self.launch(First::Flip(&ax, &arr, &ao), &[&xs], out) }.map(drop)
    }
}
