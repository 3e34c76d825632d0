//! MaskedSelect (`aclnnMaskedSelect`, spec section 29): the elements of
//! `self` where a broadcast `mask` is true, as a 1-D tensor. The count is
//! known only after the run; as CANN documents, the caller counts the true
//! elements of `mask` (here on the host, from the mask read back).

use super::{acl, aliases, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "masked_select";

/// The element count of the broadcast shape: 0 when an extent is 0 (even
/// beside extents whose product overflows), else an invalid `mask` when it
/// passes `i64::MAX` (`self` and `mask` may be stride-0 views of huge
/// extents).
fn broadcast_count(shape: &[usize]) -> Result<usize> {
    if shape.contains(&0) {
        return Ok(0);
    }
    crate::layout::numel(OP, "mask", shape)
}

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// broadcast shape.
    fn masked_select_check(&self, x: &Tensor, mask: &Tensor) -> Result<Vec<usize>> {
        check_product(self, OpKind::MaskedSelect, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "mask", mask)?;
        if x.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "self",
                format!("rank must be at most {MAX_RANK}, got {}", x.rank()),
            ));
        }
        if !matches!(mask.dtype(), DType::Bool | DType::U8) || mask.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "mask",
                format!(
                    "must be bool or uint8 of rank at most {MAX_RANK}, got {} of rank {}",
                    mask.dtype(),
                    mask.rank()
                ),
            ));
        }
        let r = x.rank().max(mask.rank());
        let at = |s: &[usize], k: usize| {
            let lead = r - s.len();
            if k < lead {
                1
            } else {
                s[k - lead]
            }
        };
        (0..r)
            .map(|k| {
                let (a, b) = (at(x.shape(), k), at(mask.shape(), k));
                match (a, b) {
                    _ if a == b => Ok(a),
                    (1, _) => Ok(b),
                    (_, 1) => Ok(a),
                    _ => Err(Error::invalid(
                        OP,
                        "mask",
                        format!(
                            "shape {:?} does not broadcast with self's {:?}",
                            mask.shape(),
                            x.shape()
                        ),
                    )),
                }
            })
            .collect()
    }

    /// The number of true elements of `mask` broadcast to `shape`, counted
    /// on the host (the mask read back).
    fn masked_select_count(&self, mask: &Tensor, shape: &[usize]) -> Result<usize> {
        // Broadcasting repeats every element of the mask the same number
        // of times (the broadcast count over the mask's own count), so the
        // true elements are counted once over the mask's own bytes (one
        // byte each: BOOL or UINT8), not over the broadcast shape.
        let total = broadcast_count(shape)?;
        let own = mask.numel();
        if total == 0 || own == 0 {
            return Ok(0);
        }
        let bytes = mask.to_bytes()?;
        // A sum of 0/1 bytes in u32 lanes vectorises (a `filter().count()`
        // did not: 12% of a 1 MiB masked select's time).
        let true_own: usize = bytes
            .chunks(1 << 16)
            .map(|c| c.iter().map(|&b| u32::from(b != 0)).sum::<u32>() as usize)
            .sum();
        Ok(true_own * (total / own))
    }

    /// The aclnn call into `out` (1-D of the broadcast element count).
    fn masked_select_launch(&self, x: &Tensor, mask: &Tensor, out: &Tensor) -> Result<()> {
        if out.numel() == 0 {
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let m = self.unoverlapped(OP, mask)?;
        let (ax, am, ao) = (acl(self, &x)?, acl(self, &m)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `m` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::MaskedSelect(&ax, &am, &ao), &[&x, &m], out) }.map(drop)
    }

    /// torch's `masked_select`: the elements of `x` (any view of rank 0 to
    /// 8) where `mask` (bool or uint8, any non-zero byte true) is true,
    /// both broadcast to one shape, in its row-major order; a 1-D tensor of
    /// `x`'s dtype (`aclnnMaskedSelect`, spec section 29). The count is
    /// taken from `mask`, read back to the host; the result is a view of
    /// the first elements of a new tensor of the broadcast element count
    /// (CANN's output).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let m = Tensor::from_slice(&s, &[3], &[true, false, true])?;
    /// let y = s.masked_select(&x, &m)?;
    /// assert_eq!(y.shape(), &[4]);
    /// assert_eq!(y.to_vec::<i32>()?, [1, 3, 4, 6]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn masked_select(&self, x: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let shape = self.masked_select_check(x, mask)?;
        let total = broadcast_count(&shape)?;
        let n = if total == 0 {
            0
        } else {
            self.masked_select_count(mask, &shape)?
        };
        let out = Tensor::empty_for(self, OP, "mask", x.dtype(), &[total])?;
        self.masked_select_launch(x, mask, &out)?;
        out.narrow(0, 0, n)
    }

    /// [`Stream::masked_select`] into a caller's 1-D tensor or view of
    /// `x`'s dtype and the broadcast element count (CANN's `out`): the
    /// selected elements are written at its front, the rest left as it
    /// was; returns their count. `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4], &[1f32, 2., 3., 4.])?;
    /// let m = Tensor::from_slice(&s, &[4], &[0u8, 1, 1, 0])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[4])?;
    /// assert_eq!(s.masked_select_into(&x, &m, &out)?, 2);
    /// assert_eq!(out.to_vec::<f32>()?, [2., 3., 0., 0.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn masked_select_into(&self, x: &Tensor, mask: &Tensor, out: &Tensor) -> Result<usize> {
        let shape = self.masked_select_check(x, mask)?;
        let total = broadcast_count(&shape)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), &[total])?;
        if total == 0 {
            return Ok(0);
        }
        let n = self.masked_select_count(mask, &shape)?;
        if aliases(x, out) || aliases(mask, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &[total])?;
            self.masked_select_launch(x, mask, &tmp)?;
            if n > 0 {
                self.copy_into(OP, &out.narrow(0, 0, n)?, &tmp.narrow(0, 0, n)?)?;
            }
            return Ok(n);
        }
        self.masked_select_launch(x, mask, out)?;
        Ok(n)
    }
}
