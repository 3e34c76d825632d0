//! Roll (`aclnnRoll`, spec section 20): elements moved along dims,
//! wrapping around, into a new contiguous tensor.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "roll";

/// The spec's rules on `self`, `shifts` and `dims`, in order: the rank,
/// the lengths, a 0-D `x` with dims, then the range of `dims` (skipped
/// for an empty `x`, as CANN).
fn check_roll(x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<()> {
    check_rank(OP, "self", x, 0)?;
    if !dims.is_empty() && shifts.len() != dims.len() {
        return Err(Error::invalid(
            OP,
            "shifts",
            format!(
                "must have one entry per entry of dims ({}), got {}",
                dims.len(),
                shifts.len()
            ),
        ));
    }
    if dims.is_empty() && shifts.len() != 1 {
        return Err(Error::invalid(
            OP,
            "shifts",
            format!(
                "must have one entry when dims is empty, got {}",
                shifts.len()
            ),
        ));
    }
    if x.rank() == 0 && !dims.is_empty() {
        return Err(Error::invalid(OP, "dims", "a 0-D self takes no dims"));
    }
    if x.numel() > 0 {
        let r = x.rank() as i128;
        if let Some(d) = dims
            .iter()
            .find(|&&d| i128::from(d) < -r || i128::from(d) >= r)
        {
            return Err(Error::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{r}, {}]", r - 1),
            ));
        }
    }
    Ok(())
}

impl Stream {
    /// `x` (any view) rolled, as a new contiguous tensor of its shape:
    /// along each `dims[k]` the elements move `shifts[k]` places, wrapping
    /// (a dim named twice moves by the sum); with `dims` empty, `x` is read
    /// flat and moved by `shifts[0]` (spec section 20).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4, 2], &[1i32, 2, 3, 4, 5, 6, 7, 8])?;
    /// assert_eq!(s.roll(&x, &[1], &[0])?.to_vec::<i32>()?, [7, 8, 1, 2, 3, 4, 5, 6]);
    /// assert_eq!(s.roll(&x, &[-1], &[])?.to_vec::<i32>()?, [2, 3, 4, 5, 6, 7, 8, 1]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn roll(&self, x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::Roll, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_roll(x, shifts, dims)?;
        let out = Tensor::empty_for(self, OP, "self", x.dtype(), x.shape())?;
        self.roll_launch(x, shifts, dims, &out)?;
        Ok(out)
    }

    /// [`Stream::roll`] into a caller's tensor or view of `x`'s dtype and
    /// shape. `out` may share memory with `x` (rolling in place).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[0i32, 1, 2, 3, 4, 5])?;
    /// s.roll_into(&x, &[1, 1], &[0, 1], &x)?;
    /// assert_eq!(x.to_vec::<i32>()?, [5, 3, 4, 2, 0, 1]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn roll_into(&self, x: &Tensor, shifts: &[i64], dims: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, OpKind::Roll, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        check_roll(x, shifts, dims)?;
        check_out(OP, out, x.dtype(), x.shape())?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.roll_launch(x, shifts, dims, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.roll_launch(x, shifts, dims, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn roll_launch(&self, x: &Tensor, shifts: &[i64], dims: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let sa = AclIntArray::new(self.api(), shifts)?;
        let da = AclIntArray::new(self.api(), dims)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); the arrays live for the call.
        unsafe { self.launch(First::Roll(&ax, &sa, &da, &ao), &[&xs], out) }.map(drop)
    }
}
