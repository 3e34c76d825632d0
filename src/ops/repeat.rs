//! Repeat (`aclnnRepeat`, spec section 22): a tensor tiled along each dim,
//! into a new contiguous tensor.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "repeat";

/// The output shape, after the spec's rules in order: the rank of `x`,
/// then `repeats`' length and sign, and the element count.
fn repeated_shape(x: &Tensor, repeats: &[i64]) -> Result<Vec<usize>> {
    check_rank(OP, "self", x, 0)?;
    let rank = x.rank();
    if repeats.len() < rank || repeats.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "repeats",
            format!(
                "must have {rank} to {MAX_RANK} entries for a rank-{rank} self, got {}",
                repeats.len()
            ),
        ));
    }
    if let Some(v) = repeats.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(
            OP,
            "repeats",
            format!("entries must be at least 0, got {v}"),
        ));
    }
    let off = repeats.len() - rank;
    let mut out = Vec::with_capacity(repeats.len());
    for (d, &r) in repeats.iter().enumerate() {
        let n = if d < off {
            1
        } else {
            x.shape()[d - off] as i64
        };
        let e = r
            .checked_mul(n)
            .ok_or_else(|| Error::invalid(OP, "repeats", format!("{r} x {n} overflows 64 bits")))?;
        out.push(e as usize);
    }
    if out
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul((d as i64).max(1)))
        .is_none()
    {
        return Err(Error::invalid(
            OP,
            "repeats",
            format!("the output shape {out:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(out)
}

impl Stream {
    /// `x` (any view) tiled `repeats[d]` times along each dim, as a new
    /// contiguous tensor (torch's `Tensor.repeat`: `repeats` aligned with
    /// `x`'s dims from the right, leading entries adding dims; spec
    /// section 22).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2], &[1i32, 2])?;
    /// let y = s.repeat(&x, &[2, 3])?;
    /// assert_eq!(y.shape(), [2, 6]);
    /// assert_eq!(y.to_vec::<i32>()?, [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn repeat(&self, x: &Tensor, repeats: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::Repeat, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let shape = repeated_shape(x, repeats)?;
        let out = Tensor::empty_for(self, OP, "repeats", x.dtype(), &shape)?;
        self.repeat_launch(x, repeats, &out)?;
        Ok(out)
    }

    /// [`Stream::repeat`] into a caller's tensor or view of the tiled shape
    /// and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 1], &[5f32, 6.])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[2, 3])?;
    /// s.repeat_into(&x, &[1, 3], &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [5., 5., 5., 6., 6., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn repeat_into(&self, x: &Tensor, repeats: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Repeat, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let shape = repeated_shape(x, repeats)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.repeat_launch(x, repeats, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.repeat_launch(x, repeats, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn repeat_launch(&self, x: &Tensor, repeats: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 || out.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let arr = AclIntArray::new(self.api(), repeats)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); `arr` lives for the call.
        unsafe { self.launch(First::Repeat(&ax, &arr, &ao), &[&xs], out) }.map(drop)
    }
}
