//! GatherV2 (`aclnnGatherV2`, spec section 24): the slices of `self`
//! along `dim` picked by an index tensor of any shape.

use super::{acl, aliases, check_device, check_out, check_product, normalise_dim};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "gather_v2";

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// normalised dim, the extent `N` the index values must stay under and
    /// the output shape.
    fn gather_v2_check(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
    ) -> Result<(usize, usize, Vec<usize>)> {
        check_product(self, OpKind::GatherV2, x.dtype())?;
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
        if index.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "index",
                format!("rank must be at most {MAX_RANK}, got {}", index.rank()),
            ));
        }
        let d = normalise_dim(OP, dim, x.rank().max(1))?;
        let idx_shape: &[usize] = if index.rank() == 0 {
            &[1]
        } else {
            index.shape()
        };
        if x.rank() == 0 {
            if index.numel() != 1 {
                return Err(Error::invalid(
                    OP,
                    "index",
                    format!(
                        "a 0-D self needs an index of exactly one element, got {}",
                        index.numel()
                    ),
                ));
            }
            return Ok((0, 1, Vec::new()));
        }
        let rank = x.rank() + idx_shape.len() - 1;
        if rank > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "index",
                format!("the output would have rank {rank} (at most {MAX_RANK})"),
            ));
        }
        let mut shape = x.shape()[..d].to_vec();
        shape.extend_from_slice(idx_shape);
        shape.extend_from_slice(&x.shape()[d + 1..]);
        Ok((d, x.shape()[d], shape))
    }

    /// The aclnn call into `out` (of the checked shape): with nothing to
    /// move, the index values are still checked on the host.
    fn gather_v2_launch(
        &self,
        x: &Tensor,
        dim: usize,
        bound: usize,
        index: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        if out.numel() == 0 || x.numel() == 0 {
            if index.numel() > 0 {
                let v = index.int_values().expect("int32 or int64, checked")?;
                if let Some(p) = v.iter().position(|&i| i < 0 || i as u64 >= bound as u64) {
                    return Err(Error::IndexOutOfRange {
                        op: OP,
                        position: p,
                        value: v[p],
                        bound,
                        device_code: None,
                    });
                }
            }
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let i = self.unoverlapped(OP, index)?;
        let (ax, ai, ao) = (acl(self, &x)?, acl(self, &i)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `i` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::GatherV2(&ax, dim as i64, &ai, &ao), &[&x, &i], out) }.map(drop)
    }

    /// The slices of `x` (any view of rank 0 to 8) along `dim` picked by
    /// `index` (int32 or int64, any view of rank 0 to 8): a new contiguous
    /// tensor of `x`'s dtype and shape
    /// `x.shape[..dim] + index.shape + x.shape[dim+1..]`, a 0-D index
    /// counting as `[1]` (`aclnnGatherV2`, spec section 24). An index
    /// outside `[0, x.shape[dim])` is `index_out_of_range` (reported by the
    /// device at the next synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[0f32, 1., 2., 10., 11., 12.])?;
    /// let i = Tensor::from_slice(&s, &[2, 2], &[2i64, 0, 1, 1])?;
    /// let y = s.gather_v2(&x, 1, &i)?;
    /// assert_eq!(y.shape(), &[2, 2, 2]);
    /// assert_eq!(y.to_vec::<f32>()?, [2., 0., 1., 1., 12., 10., 11., 11.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather_v2(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let (d, bound, shape) = self.gather_v2_check(x, dim, index)?;
        let out = Tensor::empty_for(self, OP, "index", x.dtype(), &shape)?;
        self.gather_v2_launch(x, d, bound, index, &out)?;
        Ok(out)
    }

    /// [`Stream::gather_v2`] into a caller's tensor or view of `x`'s dtype
    /// and the output shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3], &[5i32, 6, 7])?;
    /// let i = Tensor::from_slice(&s, &[], &[2i32])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[1])?;
    /// s.gather_v2_into(&x, 0, &i, &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [7]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather_v2_into(&self, x: &Tensor, dim: i64, index: &Tensor, out: &Tensor) -> Result<()> {
        let (d, bound, shape) = self.gather_v2_check(x, dim, index)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if out.numel() > 0 && (aliases(x, out) || aliases(index, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &shape)?;
            self.gather_v2_launch(x, d, bound, index, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.gather_v2_launch(x, d, bound, index, out)
    }
}
