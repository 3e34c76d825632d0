//! The operators: validation by the spec before anything is enqueued,
//! output inference and allocation, then aclnn calls on a stream.

pub(crate) mod as_strided;
pub(crate) mod index_select;
pub(crate) mod sampled_slice;
pub(crate) mod slice;
pub(crate) mod subtensor;

use crate::error::{Error, Result};
use crate::ffi::AclTensor;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::{Tensor, MAX_RANK};
use std::sync::Arc;

/// Product rules: the operator must exist on the SoC and move the dtype.
/// An unknown SoC (a product newer than this table) is left to aclnn.
pub(crate) fn check_product(s: &Stream, op: OpKind, dtype: crate::DType) -> Result<()> {
    let rt = s.runtime();
    let Some(fam) = rt.family() else {
        return Ok(());
    };
    if !op.available(fam) {
        return Err(Error::UnsupportedOp {
            op: op.name(),
            soc: rt.soc().to_string(),
        });
    }
    if !op.supports(fam, dtype) {
        return Err(Error::UnsupportedDtype {
            op: op.name(),
            dtype,
            soc: rt.soc().to_string(),
        });
    }
    Ok(())
}

/// The tensor must live on the stream's runtime and device.
pub(crate) fn check_device(
    s: &Stream,
    op: &'static str,
    param: &'static str,
    t: &Tensor,
) -> Result<()> {
    if !Arc::ptr_eq(&t.runtime().0, &s.runtime().0) || t.storage_device() != s.device() as i32 {
        return Err(Error::invalid(
            op,
            param,
            "the tensor lives on another runtime or device than the stream",
        ));
    }
    Ok(())
}

pub(crate) fn check_rank(
    op: &'static str,
    param: &'static str,
    t: &Tensor,
    min: usize,
) -> Result<()> {
    if t.rank() < min || t.rank() > MAX_RANK {
        return Err(Error::invalid(
            op,
            param,
            format!("rank must be {min} to {MAX_RANK}, got {}", t.rank()),
        ));
    }
    Ok(())
}

pub(crate) fn normalise_dim(op: &'static str, dim: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if dim < -r || dim >= r {
        return Err(Error::invalid(
            op,
            "dim",
            format!("{dim} is outside [{}, {}]", -r, r - 1),
        ));
    }
    Ok(if dim < 0 { dim + r } else { dim } as usize)
}

/// The out tensor given to an `_into` call must match exactly and must
/// not overlap itself (two outputs in one element).
pub(crate) fn check_out(
    op: &'static str,
    out: &Tensor,
    dtype: crate::DType,
    shape: &[usize],
) -> Result<()> {
    if out.dtype() != dtype {
        return Err(Error::invalid(
            op,
            "out",
            format!("dtype {} must be {dtype}", out.dtype()),
        ));
    }
    if out.shape() != shape {
        return Err(Error::invalid(
            op,
            "out",
            format!("shape {:?} must be {shape:?}", out.shape()),
        ));
    }
    if as_strided::overlaps(out.shape(), out.strides()) {
        return Err(Error::invalid(
            op,
            "out",
            format!(
                "the view (shape {:?}, strides {:?}) overlaps itself",
                out.shape(),
                out.strides()
            ),
        ));
    }
    Ok(())
}

/// The element range `[first, last]` a tensor's view touches.
fn span(t: &Tensor) -> Option<(usize, usize)> {
    if t.numel() == 0 {
        return None;
    }
    let last = t.offset()
        + t.shape()
            .iter()
            .zip(t.strides())
            .map(|(&n, &s)| (n - 1) * s)
            .sum::<usize>();
    Some((t.offset(), last))
}

/// Whether `a` and `b` may touch the same memory (then an operator
/// writing `b` from `a` must go through a temporary).
pub(crate) fn aliases(a: &Tensor, b: &Tensor) -> bool {
    if !a.shares_storage(b) {
        return false;
    }
    match (span(a), span(b)) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => false,
    }
}

/// The aclnn descriptor of a tensor (its view over its whole storage).
pub(crate) fn acl<'a>(s: &'a Stream, t: &Tensor) -> Result<AclTensor<'a>> {
    let shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let strides: Vec<i64> = t.strides().iter().map(|&d| d as i64).collect();
    AclTensor::new(
        s.api(),
        t.dtype().acl(),
        &shape,
        &strides,
        t.offset() as i64,
        t.storage_elems() as i64,
        t.storage.ptr,
    )
}

impl Stream {
    /// `dst = src` on the device (`src` broadcast to `dst`'s shape), both any
    /// strided views of one dtype; no validation beyond the shapes.
    pub(crate) fn copy_into(&self, dst: &Tensor, src: &Tensor) -> Result<()> {
        if dst.numel() == 0 {
            return Ok(());
        }
        let (d, sr) = (acl(self, dst)?, acl(self, src)?);
        self.launch(
            crate::ffi::First::InplaceCopy(&d, &sr),
            vec![dst.storage.clone(), src.storage.clone()],
        )
    }

    /// A contiguous copy of `x` (or `x` itself if already contiguous).
    pub fn contiguous(&self, x: &Tensor) -> Result<Tensor> {
        check_device(self, "contiguous", "self", x)?;
        if x.is_contiguous() {
            return Ok(x.clone());
        }
        let out = Tensor::empty(self, x.dtype(), x.shape())?;
        self.copy_into(&out, x)?;
        Ok(out)
    }
}
