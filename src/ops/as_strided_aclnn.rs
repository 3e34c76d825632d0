//! AsStrided, the aclnn operator (`aclnnAsStrided`, spec section 33): a
//! window over the elements of a tensor in logical order, into a new
//! contiguous tensor. The ATB operation of section 3 (`Stream::as_strided`)
//! stays a composition, for every family.

use super::{acl, aliases, check_device, check_out, check_product, check_rank, window_reach};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "as_strided_aclnn";

/// The output shape (`size`), after the spec's rules in order: the rank
/// of `x`, `size`'s length (1 to 8), `stride`'s, the signs, and for a
/// non-empty output the largest position read below `numel(x)`.
fn window_shape(x: &Tensor, size: &[i64], stride: &[i64], offset: i64) -> Result<Vec<usize>> {
    check_rank(OP, "self", x, 0)?;
    if size.is_empty() || size.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "size",
            format!("must have 1 to {MAX_RANK} entries, got {}", size.len()),
        ));
    }
    if stride.len() != size.len() {
        return Err(Error::invalid(
            OP,
            "stride",
            format!("has {} entries, size {}", stride.len(), size.len()),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(OP, "size", format!("entry {v} is negative")));
    }
    if let Some(v) = stride.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(
            OP,
            "stride",
            format!("entry {v} is negative"),
        ));
    }
    if offset < 0 {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("{offset} is negative"),
        ));
    }
    if !size.contains(&0) {
        let last = window_reach(size, stride, offset);
        if last >= x.numel() as i128 {
            return Err(Error::invalid(
                OP,
                "offset",
                format!(
                    "the largest position read, {last}, is not below self's {} elements",
                    x.numel()
                ),
            ));
        }
    }
    if size
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d.max(1)))
        .is_none()
    {
        return Err(Error::invalid(
            OP,
            "size",
            format!("the output shape {size:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(size.iter().map(|&v| v as usize).collect())
}

impl Stream {
    /// `out[i] = flat(x)[offset + sum_j(i_j * stride_j)]` (x any view,
    /// read in logical order; windows may overlap; a 0 in `size` gives an
    /// empty result), as a new contiguous tensor of shape `size` (spec
    /// section 33; CANN's `aclnnAsStrided`, on A2). [`Stream::as_strided`]
    /// is the ATB operation of section 3, available everywhere.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// // CANN's example: 10 elements, size [4], stride [2], offset 1.
    /// let x = Tensor::from_slice(&s, &[10], &(0..10).collect::<Vec<i32>>())?;
    /// assert_eq!(s.as_strided_aclnn(&x, &[4], &[2], 1)?.to_vec::<i32>()?, [1, 3, 5, 7]);
    /// // Overlapping windows.
    /// let y = s.as_strided_aclnn(&x, &[2, 3], &[1, 1], 0)?;
    /// assert_eq!(y.to_vec::<i32>()?, [0, 1, 2, 1, 2, 3]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn as_strided_aclnn(
        &self,
        x: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: i64,
    ) -> Result<Tensor> {
        check_product(self, OpKind::AsStridedAclnn, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let shape = window_shape(x, size, stride, offset)?;
        // `size [i64::MAX], stride [0]` reads one element: only this
        // refuses it (named `size`, whatever the overflow).
        Tensor::bytes_that_fit(self, OP, "size", x.dtype(), &shape)?;
        let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
        self.as_strided_aclnn_launch(x, size, stride, offset, &out)?;
        Ok(out)
    }

    /// [`Stream::as_strided_aclnn`] into a caller's tensor or view of shape
    /// `size` and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[2, 2])?;
    /// s.as_strided_aclnn_into(&x, &[2, 2], &[3, 2], 0, &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [1., 3., 4., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn as_strided_aclnn_into(
        &self,
        x: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: i64,
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::AsStridedAclnn, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let shape = window_shape(x, size, stride, offset)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.as_strided_aclnn_launch(x, size, stride, offset, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.as_strided_aclnn_launch(x, size, stride, offset, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself (also
    /// §3's plan for overlapping windows on A2, `Stream::as_strided`).
    pub(super) fn as_strided_aclnn_launch(
        &self,
        x: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: i64,
        out: &Tensor,
    ) -> Result<()> {
        if out.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let api = self.api();
        let (z, st, off) = (
            AclIntArray::new(api, size)?,
            AclIntArray::new(api, stride)?,
            AclIntArray::new(api, &[offset])?,
        );
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); the arrays live for the call.
        unsafe { self.launch(First::AsStrided(&ax, [&z, &st, &off], &ao), &[&xs], out) }.map(drop)
    }
}
