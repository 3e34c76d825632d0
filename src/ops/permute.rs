//! Permute (`aclnnPermute`, spec section 18): the dims of a tensor
//! reordered into a new contiguous tensor (the device copy behind the
//! zero-copy [`Tensor::permute`] view).

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "permute";

/// The output shape of a permute of `x` by `dims`, after the spec's rules
/// in order: the rank, then `dims`' length, range and repeats.
fn permuted_shape(x: &Tensor, dims: &[i64]) -> Result<Vec<usize>> {
    check_rank(OP, "self", x, 0)?;
    let r = x.rank();
    if dims.len() != r {
        return Err(Error::invalid(
            OP,
            "dims",
            format!(
                "must have one entry per dim of self ({r}), got {}",
                dims.len()
            ),
        ));
    }
    let mut order = [0usize; MAX_RANK];
    for (k, &d) in dims.iter().enumerate() {
        let v = i128::from(d);
        let ri = r as i128;
        if v < -ri || v >= ri {
            return Err(Error::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{r}, {}]", ri - 1),
            ));
        }
        order[k] = if v < 0 { v + ri } else { v } as usize;
    }
    let mut seen = [false; MAX_RANK];
    for (&n, &d) in order[..r].iter().zip(dims) {
        if std::mem::replace(&mut seen[n], true) {
            return Err(Error::invalid(
                OP,
                "dims",
                format!("entry {d} names dim {n} a second time"),
            ));
        }
    }
    Ok(order[..r].iter().map(|&k| x.shape()[k]).collect())
}

impl Stream {
    /// `x` (any view) with its dims reordered, as a new contiguous tensor:
    /// dim `k` of the result is dim `dims[k]` of `x` (negative entries
    /// count from the end). The device copy of the zero-copy
    /// [`Tensor::permute`] view (spec section 18).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4, 2], &[1f32, 2., 3., 4., 5., 6., 7., 8.])?;
    /// let y = s.permute(&x, &[1, 0])?;
    /// assert_eq!(y.shape(), [2, 4]);
    /// assert_eq!(y.to_vec::<f32>()?, [1., 3., 5., 7., 2., 4., 6., 8.]);
    /// assert!(y.is_contiguous());
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn permute(&self, x: &Tensor, dims: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::Permute, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let shape = permuted_shape(x, dims)?;
        let out = Tensor::empty_for(self, OP, "self", x.dtype(), &shape)?;
        self.permute_launch(x, dims, &out)?;
        Ok(out)
    }

    /// [`Stream::permute`] into a caller's tensor or view of the permuted
    /// shape and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[0i32, 1, 2, 3, 4, 5])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[3, 2])?;
    /// s.permute_into(&x, &[-1, -2], &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn permute_into(&self, x: &Tensor, dims: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Permute, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let shape = permuted_shape(x, dims)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.permute_launch(x, dims, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.permute_launch(x, dims, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn permute_launch(&self, x: &Tensor, dims: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let arr = AclIntArray::new(self.api(), dims)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); `arr` lives for the call.
        unsafe { self.launch(First::Permute(&ax, &arr, &ao), &[&xs], out) }.map(drop)
    }
}
