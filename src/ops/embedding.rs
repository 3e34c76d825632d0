//! Embedding (`aclnnEmbedding`, spec section 23): the rows of a 2-D
//! `weight` picked by an index tensor of any rank.

use super::{acl, aliases, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "embedding";

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// output shape.
    fn embedding_check(&self, weight: &Tensor, indices: &Tensor) -> Result<Vec<usize>> {
        check_product(self, OpKind::Embedding, weight.dtype())?;
        check_device(self, OP, "weight", weight)?;
        check_device(self, OP, "indices", indices)?;
        if !matches!(indices.dtype(), DType::I32 | DType::I64) {
            return Err(Error::invalid(
                OP,
                "indices",
                format!("dtype must be int32 or int64, got {}", indices.dtype()),
            ));
        }
        if weight.rank() != 2 {
            return Err(Error::invalid(
                OP,
                "weight",
                format!("must be 2-D, got rank {}", weight.rank()),
            ));
        }
        if indices.rank() > 7 {
            return Err(Error::invalid(
                OP,
                "indices",
                format!(
                    "rank must be 0 to 7 (out has one more), got {}",
                    indices.rank()
                ),
            ));
        }
        let mut shape = indices.shape().to_vec();
        shape.push(weight.shape()[1]);
        Ok(shape)
    }

    /// Every rule of [`Stream::embedding_into`], in its order, without
    /// launching (for the prepared form).
    pub(crate) fn check_embedding_into(
        &self,
        weight: &Tensor,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        let shape = self.embedding_check(weight, indices)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, weight.dtype(), &shape)
    }

    /// The aclnn call into `out` (of the checked shape): with nothing to
    /// move, the index values are still checked on the host.
    fn embedding_launch(&self, weight: &Tensor, indices: &Tensor, out: &Tensor) -> Result<()> {
        let rows = weight.shape()[0];
        if out.numel() == 0 || weight.numel() == 0 {
            if indices.numel() > 0 {
                let v = indices.int_values().expect("int32 or int64, checked")?;
                if let Some(p) = v.iter().position(|&i| i < 0 || i as u64 >= rows as u64) {
                    return Err(Error::IndexOutOfRange {
                        op: OP,
                        position: p,
                        value: v[p],
                        bound: rows,
                        device_code: None,
                    });
                }
            }
            return Ok(());
        }
        let w = self.unoverlapped(OP, weight)?;
        let i = self.unoverlapped(OP, indices)?;
        let (aw, ai, ao) = (acl(self, &w)?, acl(self, &i)?, acl(self, out)?);
        // SAFETY: the descriptors are of `w` and `i` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::Embedding(&aw, &ai, &ao), &[&w, &i], out) }.map(drop)
    }

    /// The rows of `weight` (any 2-D view `[V, D]`) picked by `indices`
    /// (int32 or int64, any view of rank 0 to 7): a new contiguous tensor
    /// of `weight`'s dtype and shape `indices.shape + [D]`
    /// (`aclnnEmbedding`, spec section 23). An index outside `[0, V)` is
    /// `index_out_of_range` (reported by the device at the next
    /// synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let w = Tensor::from_slice(&s, &[3, 2], &[0f32, 1., 10., 11., 20., 21.])?;
    /// let i = Tensor::from_slice(&s, &[2, 2], &[2i64, 0, 1, 1])?;
    /// let y = s.embedding(&w, &i)?;
    /// assert_eq!(y.shape(), &[2, 2, 2]);
    /// assert_eq!(y.to_vec::<f32>()?, [20., 21., 0., 1., 10., 11., 10., 11.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn embedding(&self, weight: &Tensor, indices: &Tensor) -> Result<Tensor> {
        let shape = self.embedding_check(weight, indices)?;
        let out = Tensor::empty_for(self, OP, "indices", weight.dtype(), &shape)?;
        self.embedding_launch(weight, indices, &out)?;
        Ok(out)
    }

    /// [`Stream::embedding`] into a caller's tensor or view of `weight`'s
    /// dtype and shape `indices.shape + [D]`; `out` may share memory with
    /// the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let w = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4])?;
    /// let i = Tensor::from_slice(&s, &[1], &[1i32])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[1, 2])?;
    /// s.embedding_into(&w, &i, &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [3, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn embedding_into(&self, weight: &Tensor, indices: &Tensor, out: &Tensor) -> Result<()> {
        self.check_embedding_into(weight, indices, out)?;
        let mut shape = indices.shape().to_vec();
        shape.push(weight.shape()[1]);
        if out.numel() > 0 && (aliases(weight, out) || aliases(indices, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &shape)?;
            self.embedding_launch(weight, indices, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.embedding_launch(weight, indices, out)
    }
}
