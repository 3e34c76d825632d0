//! Expand (`aclnnExpand`, spec section 21): a tensor broadcast to a
//! size, into a new contiguous tensor.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "expand";

/// The output shape, after the spec's rules in order: the rank of `x`,
/// then `size`'s length, its entries' sign, and the broadcast relation.
fn expanded_shape(x: &Tensor, size: &[i64]) -> Result<Vec<usize>> {
    check_rank(OP, "self", x, 0)?;
    let rank = x.rank();
    if size.len() < rank || size.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "size",
            format!(
                "must have {rank} to {MAX_RANK} entries for a rank-{rank} self, got {}",
                size.len()
            ),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(
            OP,
            "size",
            format!("entries must be at least 0, got {v}"),
        ));
    }
    let off = size.len() - rank;
    for (d, &n) in x.shape().iter().enumerate() {
        let want = size[off + d];
        if n != 1 && n as i128 != i128::from(want) {
            return Err(Error::invalid(
                OP,
                "size",
                format!("dim {d} of self has extent {n}: size entry {want} must equal it, or self's be 1"),
            ));
        }
    }
    let out: Vec<usize> = size.iter().map(|&v| v as usize).collect();
    if out
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul((d as i64).max(1)))
        .is_none()
    {
        return Err(Error::invalid(
            OP,
            "size",
            format!("the output shape {out:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(out)
}

impl Stream {
    /// `x` (any view) broadcast to `size`, as a new contiguous tensor:
    /// `size` is aligned with `x`'s dims from the right, an extent-1 dim
    /// repeats, leading entries add dims (spec section 21; no `-1`).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[1, 3], &[1i32, 2, 3])?;
    /// let y = s.expand(&x, &[2, 3])?;
    /// assert_eq!(y.to_vec::<i32>()?, [1, 2, 3, 1, 2, 3]);
    /// assert_eq!(s.expand(&x, &[2, 1, 3])?.shape(), [2, 1, 3]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn expand(&self, x: &Tensor, size: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::Expand, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let shape = expanded_shape(x, size)?;
        let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
        self.expand_launch(x, size, &out)?;
        Ok(out)
    }

    /// [`Stream::expand`] into a caller's tensor or view of shape `size`
    /// and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 1], &[5f32, 6.])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[2, 2])?;
    /// s.expand_into(&x, &[2, 2], &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [5., 5., 6., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn expand_into(&self, x: &Tensor, size: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Expand, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let shape = expanded_shape(x, size)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.expand_launch(x, size, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.expand_launch(x, size, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn expand_launch(&self, x: &Tensor, size: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 || out.numel() == 0 {
            return Ok(());
        }
        // Stride-0 dims handed over as extent 1 (Expand broadcasts them
        // back), the rest materialised if it still overlaps (ops.md §21).
        let xs = self.elementwise_operand(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let arr = AclIntArray::new(self.api(), size)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); `arr` lives for the call.
        unsafe { self.launch(First::Expand(&ax, &arr, &ao), &[&xs], out) }.map(drop)
    }
}
