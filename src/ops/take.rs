//! Take (`aclnnTake`, spec section 26): `self` read flat, its elements
//! picked by an index tensor of any shape.

use super::{acl, aliases, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "take";

impl Stream {
    /// The rules before `out`'s, in the contract's order (the output shape
    /// is `index`'s).
    fn take_check(&self, x: &Tensor, index: &Tensor) -> Result<()> {
        check_product(self, OpKind::Take, x.dtype())?;
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
        if x.numel() == 0 && index.numel() > 0 {
            return Err(Error::invalid(
                OP,
                "index",
                "a non-empty index into an empty self",
            ));
        }
        Ok(())
    }

    /// The aclnn call into `out` (of `index`'s shape); an empty index
    /// moves nothing.
    fn take_launch(&self, x: &Tensor, index: &Tensor, out: &Tensor) -> Result<()> {
        if index.numel() == 0 {
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let i = self.unoverlapped(OP, index)?;
        let (ax, ai, ao) = (acl(self, &x)?, acl(self, &i)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `i` (reads) and `out` (the
        // write).
        unsafe { self.launch(First::Take(&ax, &ai, &ao), &[&x, &i], out) }.map(drop)
    }

    /// torch's `take`: `out[p] = flat(x)[index[p]]`, `x` (any view) read in
    /// row-major order, `index` int32 or int64 of rank 0 to 8; a new
    /// contiguous tensor of `x`'s dtype and `index`'s shape (`aclnnTake`,
    /// spec section 26). An index value outside `[0, x.numel())` is
    /// `index_out_of_range` (reported by the device at the next
    /// synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[10i32, 11, 12, 13, 14, 15])?;
    /// let i = Tensor::from_slice(&s, &[2, 2], &[5i64, 0, 3, 3])?;
    /// let y = s.take(&x, &i)?;
    /// assert_eq!(y.shape(), &[2, 2]);
    /// assert_eq!(y.to_vec::<i32>()?, [15, 10, 13, 13]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn take(&self, x: &Tensor, index: &Tensor) -> Result<Tensor> {
        self.take_check(x, index)?;
        let out = Tensor::empty_for(self, OP, "index", x.dtype(), index.shape())?;
        self.take_launch(x, index, &out)?;
        Ok(out)
    }

    /// [`Stream::take`] into a caller's tensor or view of `x`'s dtype and
    /// `index`'s shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.])?;
    /// let i = Tensor::from_slice(&s, &[], &[3i32])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[])?;
    /// s.take_into(&x, &i, &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [4.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn take_into(&self, x: &Tensor, index: &Tensor, out: &Tensor) -> Result<()> {
        self.take_check(x, index)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), index.shape())?;
        if out.numel() > 0 && (aliases(x, out) || aliases(index, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), index.shape())?;
            self.take_launch(x, index, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.take_launch(x, index, out)
    }
}
