//! Slice (`aclnnSlice`, spec section 1).

use super::{acl, check_device, check_out, check_product, check_rank, normalise_dim};
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "slice";

/// `(start', len)` of a slice of an extent-`n` dim, by the spec's
/// normalisation (C `%`, in i128 so no i64 input overflows).
pub(crate) fn normalise(n: usize, start: i64, end: i64, step: i64) -> Result<(usize, usize)> {
    if step <= 0 {
        return Err(Error::invalid(
            OP,
            "step",
            format!("must be > 0, got {step}"),
        ));
    }
    if n == 0 {
        return Ok((0, 0));
    }
    let (n, s, e, st) = (n as i128, start as i128, end as i128, step as i128);
    let s2 = if s < -n {
        0
    } else if s >= n {
        n
    } else {
        (s + n) % n
    };
    let e2 = if e >= n {
        n
    } else if (e + n) % n < s2 {
        s2
    } else {
        (e + n) % n
    };
    Ok((s2 as usize, ((e2 - s2 + st - 1) / st) as usize))
}

pub(crate) fn out_shape(
    x: &Tensor,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
) -> Result<(usize, Vec<usize>)> {
    check_rank(OP, "self", x, 1)?;
    let d = normalise_dim(OP, dim, x.rank())?;
    let (_, len) = normalise(x.shape()[d], start, end, step)?;
    let mut shape = x.shape().to_vec();
    shape[d] = len;
    Ok((d, shape))
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
        let (_, shape) = out_shape(x, dim, start, end, step)?;
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
        let (_, shape) = out_shape(x, dim, start, end, step)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if out.numel() == 0 {
            return Ok(());
        }
        if super::aliases(x, out) {
            let tmp = Tensor::empty(self, x.dtype(), &shape)?;
            self.slice_into(x, dim, start, end, step, &tmp)?;
            return self.copy_into(out, &tmp);
        }
        let (ax, ao) = (acl(self, x)?, acl(self, out)?);
        self.launch(
            First::Slice(&ax, dim, start, end, step, &ao),
            vec![x.storage.clone(), out.storage.clone()],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        assert_eq!(normalise(5, 1, 4, 2).unwrap(), (1, 2));
        assert_eq!(normalise(5, -2, i64::MAX, 1).unwrap(), (3, 2));
        assert_eq!(normalise(5, i64::MIN, i64::MIN, 1).unwrap(), (0, 0));
        assert_eq!(normalise(5, 7, 2, 1).unwrap(), (5, 0));
        assert_eq!(normalise(0, 0, 10, 1).unwrap(), (0, 0));
        assert_eq!(normalise(5, 0, 5, i64::MAX).unwrap(), (0, 1));
        assert!(normalise(5, 0, 5, 0).is_err());
    }
}
