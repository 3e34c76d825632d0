//! GatherNd (`aclnnGatherNd`, spec section 28): the slices of `self` at the
//! coordinate tuples held by the last dim of `indices`.

use super::{acl, aliases, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "gather_nd";

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// output shape.
    fn gather_nd_check(&self, x: &Tensor, indices: &Tensor) -> Result<Vec<usize>> {
        check_product(self, OpKind::GatherNd, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "indices", indices)?;
        if x.rank() < 1 || x.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "self",
                format!("rank must be 1 to {MAX_RANK}, got {}", x.rank()),
            ));
        }
        if !matches!(indices.dtype(), DType::I32 | DType::I64) {
            return Err(Error::invalid(
                OP,
                "indices",
                format!("dtype must be int32 or int64, got {}", indices.dtype()),
            ));
        }
        if indices.rank() < 1 || indices.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "indices",
                format!("rank must be 1 to {MAX_RANK}, got {}", indices.rank()),
            ));
        }
        let k = indices.shape()[indices.rank() - 1];
        if k < 1 || k > x.rank() {
            return Err(Error::invalid(
                OP,
                "indices",
                format!(
                    "its last extent {k} must lie in [1, {}] (self's rank)",
                    x.rank()
                ),
            ));
        }
        let mut shape = indices.shape()[..indices.rank() - 1].to_vec();
        shape.extend_from_slice(&x.shape()[k..]);
        if shape.len() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "indices",
                format!(
                    "the output would have rank {} (at most {MAX_RANK})",
                    shape.len()
                ),
            ));
        }
        Ok(shape)
    }

    /// The aclnn call into `out` (of the checked shape): with nothing to
    /// move, the coordinates are still checked on the host.
    fn gather_nd_launch(
        &self,
        x: &Tensor,
        indices: &Tensor,
        negative: bool,
        out: &Tensor,
    ) -> Result<()> {
        if out.numel() == 0 || x.numel() == 0 {
            if indices.numel() > 0 {
                let v = indices.int_values().expect("int32 or int64, checked")?;
                let k = indices.shape()[indices.rank() - 1];
                for (p, &c) in v.iter().enumerate() {
                    let s = x.shape()[p % k];
                    let w = if negative && c < 0 && c >= -(s as i64) {
                        c + s as i64
                    } else {
                        c
                    };
                    if w < 0 || w as u64 >= s as u64 {
                        return Err(Error::IndexOutOfRange {
                            op: OP,
                            position: p,
                            value: c,
                            bound: s,
                            device_code: None,
                        });
                    }
                }
            }
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let i = self.unoverlapped(OP, indices)?;
        let (ax, ai, ao) = (acl(self, &x)?, acl(self, &i)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `i` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::GatherNd(&ax, &ai, negative, &ao), &[&x, &i], out) }.map(drop)
    }

    /// ONNX's GatherND: with `K = indices.shape[-1]`, `out[i..] =
    /// x[indices[i.., 0], .., indices[i.., K-1], ..]`, a new contiguous
    /// tensor of `x`'s dtype and shape `indices.shape[..-1] + x.shape[K..]`
    /// (`aclnnGatherNd`, spec section 28). `x` is any view of rank 1 to 8,
    /// `indices` int32 or int64 of rank 1 to 8; with `negative` a
    /// coordinate in `[-s, -1]` counts from the end of its dim. A
    /// coordinate outside its range is `index_out_of_range` (reported by the
    /// device at the next synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[0f32, 1., 2., 3.])?;
    /// let i = Tensor::from_slice(&s, &[2, 2], &[0i64, 0, 1, 1])?;
    /// assert_eq!(s.gather_nd(&x, &i, false)?.to_vec::<f32>()?, [0., 3.]);
    /// let rows = Tensor::from_slice(&s, &[2, 1], &[-1i64, 0])?;
    /// assert_eq!(s.gather_nd(&x, &rows, true)?.to_vec::<f32>()?, [2., 3., 0., 1.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather_nd(&self, x: &Tensor, indices: &Tensor, negative: bool) -> Result<Tensor> {
        let shape = self.gather_nd_check(x, indices)?;
        let out = Tensor::empty_for(self, OP, "indices", x.dtype(), &shape)?;
        self.gather_nd_launch(x, indices, negative, &out)?;
        Ok(out)
    }

    /// [`Stream::gather_nd`] into a caller's tensor or view of `x`'s dtype
    /// and the output shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[5i32, 6, 7, 8])?;
    /// let i = Tensor::from_slice(&s, &[1, 1], &[1i32])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[1, 2])?;
    /// s.gather_nd_into(&x, &i, false, &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [7, 8]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn gather_nd_into(
        &self,
        x: &Tensor,
        indices: &Tensor,
        negative: bool,
        out: &Tensor,
    ) -> Result<()> {
        let shape = self.gather_nd_check(x, indices)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if out.numel() > 0 && (aliases(x, out) || aliases(indices, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &shape)?;
            self.gather_nd_launch(x, indices, negative, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.gather_nd_launch(x, indices, negative, out)
    }
}
