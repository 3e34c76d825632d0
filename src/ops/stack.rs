//! Stack (`aclnnStack`, spec section 11): tensors of one shape joined
//! along a new dim.

use super::{check_device, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "stack";

/// Most dims a member may have (the output has one more).
const MAX_MEMBER_RANK: usize = 7;

/// The rules of ops.md §11 up to `out`'s, in order: the members' dtype and
/// the stacked shape.
fn plan(s: &Stream, tensors: &[&Tensor], dim: i64) -> Result<(DType, Vec<usize>)> {
    check_product(s, OpKind::Stack, DType::F32)?;
    let Some(first) = tensors.first() else {
        return Err(Error::invalid(
            OP,
            "tensors",
            "the list must hold at least one tensor",
        ));
    };
    for t in tensors {
        check_device(s, OP, "tensors", t)?;
    }
    for t in tensors {
        check_product(s, OpKind::Stack, t.dtype())?;
    }
    let dtype = super::cat::promoted(OP, tensors)?;
    let shape = first.shape();
    if shape.len() > MAX_MEMBER_RANK {
        return Err(Error::invalid(
            OP,
            "tensors",
            format!(
                "rank must be at most {MAX_MEMBER_RANK}, got {}",
                shape.len()
            ),
        ));
    }
    let d = super::normalise_dim(OP, dim, shape.len() + 1)?;
    if let Some((i, t)) = tensors.iter().enumerate().find(|(_, t)| t.shape() != shape) {
        return Err(Error::invalid(
            OP,
            "tensors",
            format!(
                "tensor {i} has shape {:?}; every tensor must have the first's {shape:?}",
                t.shape()
            ),
        ));
    }
    let mut out = shape.to_vec();
    out.insert(d, tensors.len());
    Ok((dtype, out))
}

impl Stream {
    /// `tensors` (one shape) joined along a new dim `dim` (spec
    /// section 11): `out[.., k, ..] = tensors[k]`. Members may be any views,
    /// of mixed dtypes (promoted as [`Stream::cat`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let a = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    /// let b = Tensor::from_slice(&s, &[2, 3], &[7f32, 8., 9., 10., 11., 12.])?;
    /// let y = s.stack(&[&a, &b], 0)?;
    /// assert_eq!(y.shape(), &[2, 2, 3]);
    /// let y = s.stack(&[&a, &b], -1)?;
    /// assert_eq!(y.to_vec::<f32>()?, [1., 7., 2., 8., 3., 9., 4., 10., 5., 11., 6., 12.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn stack(&self, tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let (dtype, shape) = plan(self, tensors, dim)?;
        let out = Tensor::empty_for(self, OP, "out", dtype, &shape)?;
        self.stack_into(tensors, dim, &out)?;
        Ok(out)
    }

    /// [`Stream::stack`] into a caller's tensor or view of the stacked
    /// shape; `out`'s dtype may differ if the members' casts to it (spec
    /// section 8's casts). `out` may share memory with the members.
    pub fn stack_into(&self, tensors: &[&Tensor], dim: i64, out: &Tensor) -> Result<()> {
        check_device(self, OP, "out", out)?;
        let (dtype, shape) = plan(self, tensors, dim)?;
        let listed = self
            .runtime()
            .family()
            .is_none_or(|f| OpKind::Stack.supports(f, out.dtype()));
        if !listed || !super::elementwise::can_cast(dtype, out.dtype()) {
            return Err(Error::invalid(
                OP,
                "out",
                format!(
                    "the tensors' dtype {dtype} cannot be cast to {}",
                    out.dtype()
                ),
            ));
        }
        super::check_out(OP, out, out.dtype(), &shape)?;
        if out.numel() == 0 {
            return Ok(());
        }
        if tensors.iter().any(|t| super::aliases(t, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &shape)?;
            self.stack_into(tensors, dim, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        let (members, list) = self.acl_list(OP, tensors)?;
        let members: Vec<&Tensor> = members.iter().collect();
        let ao = super::acl(self, out)?;
        // SAFETY: the list's descriptors are of `members` (reads), `ao` of
        // `out` (the write); all stay alive for the call.
        unsafe { self.launch(First::Stack(&list, dim, &ao), &members, out) }.map(drop)
    }
}
