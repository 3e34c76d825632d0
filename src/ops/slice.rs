//! Slice (`aclnnSlice`, spec section 1).

use super::{acl, check_device, check_out, check_product, check_rank};
use crate::error::Result;
use crate::ffi::First;
use crate::layout::SliceArgs;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "slice";

/// The output's shape (inline: no allocation per launch) and the
/// normalised dim.
pub(crate) fn out_shape(
    x: &Tensor,
    args: SliceArgs,
) -> Result<(usize, smallvec::SmallVec<[usize; crate::layout::MAX_RANK]>)> {
    check_rank(OP, "self", x, 1)?;
    let (d, _, len) = args.resolve(OP, x.shape())?;
    let mut shape = smallvec::SmallVec::from_slice(x.shape());
    shape[d] = len;
    Ok((d, shape))
}

/// Launches `aclnnSlice` of `x` into `out` (every check done by the caller).
pub(crate) fn launch(s: &Stream, x: &Tensor, args: SliceArgs, out: &Tensor) -> Result<()> {
    let (ax, ao) = (acl(s, x)?, acl(s, out)?);
    // SAFETY: the descriptors are of `x` (a read) and `out` (the write).
    unsafe { s.launch(First::Slice(&ax, args, &ao), &[x], out) }.map(drop)
}

impl Stream {
    /// `out[.., i, ..] = x[.., start' + i*step, ..]` along `dim` (spec
    /// section 1: `start`/`end` are normalised, never rejected; `step > 0`).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// let y = s.slice(&x, 0, 0, 2, 1)?;
    /// assert_eq!(y.to_vec::<i32>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn slice(&self, x: &Tensor, dim: i64, start: i64, end: i64, step: i64) -> Result<Tensor> {
        check_product(self, OpKind::Slice, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let (_, shape) = out_shape(x, SliceArgs::new(dim, start, end, step))?;
        let out = Tensor::empty_for(self, OP, "out", x.dtype(), &shape)?;
        self.slice_into(x, dim, start, end, step, &out)?;
        Ok(out)
    }

    /// [`Stream::slice`] into a caller's tensor or view of the exact shape.
    pub fn slice_into(
        &self,
        x: &Tensor,
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::Slice, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let (_, shape) = out_shape(x, SliceArgs::new(dim, start, end, step))?;
        check_out(OP, out, x.dtype(), &shape)?;
        if out.numel() == 0 {
            return Ok(());
        }
        if super::aliases(x, out) {
            let tmp = Tensor::empty(self, x.dtype(), &shape)?;
            self.slice_into(x, dim, start, end, step, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        launch(self, x, SliceArgs::new(dim, start, end, step), out)
    }
}
