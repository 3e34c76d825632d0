//! Gather (`aclnnGather`, spec section 25): torch's `gather`, one element
//! of `self` per element of `index`, picked along `dim`.

use super::{acl, aliases, check_device, check_out, check_product, normalise_dim};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "gather";

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// normalised dim (the output shape is `index`'s).
    fn gather_check(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<usize> {
        check_product(self, OpKind::Gather, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "index", index)?;
        if x.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "self",
                format!("rank must be at most {MAX_RANK}, got {}", x.rank()),
            ));
        }
        if !matches!(index.dtype(), DType::I32 | DType::I64) {
            return Err(Error::invalid(
                OP,
                "index",
                format!("dtype must be int32 or int64, got {}", index.dtype()),
            ));
        }
        let xs: &[usize] = if x.rank() == 0 { &[1] } else { x.shape() };
        let is: &[usize] = if index.rank() == 0 {
            &[1]
        } else {
            index.shape()
        };
        if xs.len() != is.len() {
            return Err(Error::invalid(
                OP,
                "index",
                format!("rank {} must be self's rank {}", index.rank(), x.rank()),
            ));
        }
        let d = normalise_dim(OP, dim, xs.len())?;
        if index.numel() > 0 {
            for (k, (&n, &m)) in xs.iter().zip(is).enumerate() {
                if k != d && m > n {
                    return Err(Error::invalid(
                        OP,
                        "index",
                        format!("extent {m} along dim {k} is larger than self's {n}"),
                    ));
                }
            }
            if xs[d] == 0 {
                return Err(Error::invalid(
                    OP,
                    "index",
                    format!("a non-empty index along dim {d}, where self has no element"),
                ));
            }
        }
        Ok(d)
    }

    /// The aclnn call into `out` (of `index`'s shape); an empty index
    /// moves nothing.
    fn gather_launch(&self, x: &Tensor, dim: usize, index: &Tensor, out: &Tensor) -> Result<()> {
        if index.numel() == 0 {
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let i = self.unoverlapped(OP, index)?;
        let (ax, ai, ao) = (acl(self, &x)?, acl(self, &i)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `i` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::Gather(&ax, dim as i64, &ai, &ao), &[&x, &i], out) }.map(drop)
    }

    /// torch's `gather`: `out[p] = x[p with p[dim] = index[p]]` for every
    /// index `p` of `index` (`aclnnGather`, spec section 25). `index` is
    /// int32 or int64 of `x`'s rank (0-D counts as rank 1), each extent but
    /// the one along `dim` at most `x`'s; the result is a new contiguous
    /// tensor of `x`'s dtype and `index`'s shape. An index value outside
    /// `[0, x.shape[dim])` is `index_out_of_range` (reported by the device
    /// at the next synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// let i = Tensor::from_slice(&s, &[2, 2], &[0i64, 2, 1, 0])?;
    /// assert_eq!(s.gather(&x, 0, &i)?.to_vec::<i32>()?, [1, 8, 4, 2]);
    /// assert_eq!(s.gather(&x, 1, &i)?.to_vec::<i32>()?, [1, 3, 5, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let d = self.gather_check(x, dim, index)?;
        let out = Tensor::empty_for(self, OP, "index", x.dtype(), index.shape())?;
        self.gather_launch(x, d, index, &out)?;
        Ok(out)
    }

    /// [`Stream::gather`] into a caller's tensor or view of `x`'s dtype and
    /// `index`'s shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.])?;
    /// let i = Tensor::from_slice(&s, &[2, 1], &[1i32, 0])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[2, 1])?;
    /// s.gather_into(&x, 1, &i, &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [2., 3.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather_into(&self, x: &Tensor, dim: i64, index: &Tensor, out: &Tensor) -> Result<()> {
        let d = self.gather_check(x, dim, index)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), index.shape())?;
        if out.numel() > 0 && (aliases(x, out) || aliases(index, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), index.shape())?;
            self.gather_launch(x, d, index, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.gather_launch(x, d, index, out)
    }
}
