//! IndexSelect (`aclnnIndexSelect`, spec section 2).

use super::{acl, check_device, check_out, check_product, normalise_dim};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "index_select";

/// What the parameter rules need of an index: its dtype, rank and length
/// (a host index is a rank-1 int64 list).
#[derive(Clone, Copy)]
struct IndexDesc {
    dtype: DType,
    rank: usize,
    len: usize,
}

impl IndexDesc {
    fn of(index: &Tensor) -> IndexDesc {
        IndexDesc {
            dtype: index.dtype(),
            rank: index.rank(),
            len: index.numel(),
        }
    }

    fn host(len: usize) -> IndexDesc {
        IndexDesc {
            dtype: DType::I64,
            rank: 1,
            len,
        }
    }
}

/// The checks before the parameters, in the contract's order (docs/ops.md,
/// Conventions): the product (operator, then dtype), then whether each
/// tensor (`self`, the device `index` if any, `out` if any) belongs to the
/// stream's runtime and device.
fn check_first(s: &Stream, x: &Tensor, index: Option<&Tensor>, out: Option<&Tensor>) -> Result<()> {
    check_product(s, OpKind::IndexSelect, x.dtype())?;
    check_device(s, OP, "self", x)?;
    if let Some(index) = index {
        check_device(s, OP, "index", index)?;
    }
    if let Some(out) = out {
        check_device(s, OP, "out", out)?;
    }
    Ok(())
}

/// Checks everything but index values; returns (dim, n_index, out shape).
fn plan(s: &Stream, x: &Tensor, dim: i64, index: &Tensor) -> Result<(usize, usize, Vec<usize>)> {
    check_first(s, x, Some(index), None)?;
    plan_params(x, dim, IndexDesc::of(index))
}

/// The parameter rules (after [`check_first`]); returns (dim, n_index, out
/// shape).
fn plan_params(x: &Tensor, dim: i64, index: IndexDesc) -> Result<(usize, usize, Vec<usize>)> {
    if x.rank() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "self",
            format!("rank must be at most {MAX_RANK}, got {}", x.rank()),
        ));
    }
    if !matches!(index.dtype, DType::I32 | DType::I64 | DType::U32) {
        return Err(Error::invalid(
            OP,
            "index",
            format!("dtype must be int32, int64 or uint32, got {}", index.dtype),
        ));
    }
    if index.rank > 1 {
        return Err(Error::invalid(
            OP,
            "index",
            format!("rank must be 0 or 1, got {}", index.rank),
        ));
    }
    let n_index = index.len;
    if x.rank() == 0 {
        normalise_dim(OP, dim, 1)?;
        if n_index != 1 {
            return Err(Error::invalid(
                OP,
                "index",
                format!("a 0-D self takes one index, got {n_index}"),
            ));
        }
        return Ok((0, 1, vec![]));
    }
    let d = normalise_dim(OP, dim, x.rank())?;
    let mut shape = x.shape().to_vec();
    shape[d] = n_index;
    Ok((d, n_index, shape))
}

/// The first index outside `[0, bound)`.
pub(crate) fn check_indices(indices: &[i64], bound: usize) -> Result<()> {
    match indices
        .iter()
        .position(|&v| v < 0 || v as u64 >= bound as u64)
    {
        Some(p) => Err(Error::IndexOutOfRange {
            op: OP,
            position: p,
            value: indices[p],
            bound,
            device_code: None,
        }),
        None => Ok(()),
    }
}

fn extent(x: &Tensor, d: usize) -> usize {
    if x.rank() == 0 {
        1
    } else {
        x.shape()[d]
    }
}

/// A host index type [`Stream::index_select_host`] takes: any primitive
/// integer. `i32`, `i64` and `u32` go to the device as they are; others are
/// converted once, on the host.
pub trait IndexValue: Copy + Send + Sync + 'static {
    /// The value, if it fits `i64`.
    fn to_i64(self) -> Option<i64>;
    #[doc(hidden)]
    fn upload(s: &Stream, v: &[Self]) -> Result<Tensor> {
        let wide: Vec<i64> = v.iter().map(|&x| x.to_i64().unwrap_or(i64::MAX)).collect();
        Tensor::from_slice(s, &[wide.len()], &wide)
    }
}

macro_rules! index_value {
    (native: $($t:ty),*) => {$(
        impl IndexValue for $t {
            fn to_i64(self) -> Option<i64> {
                i64::try_from(self).ok()
            }
            fn upload(s: &Stream, v: &[Self]) -> Result<Tensor> {
                Tensor::from_slice(s, &[v.len()], v)
            }
        }
    )*};
    (converted: $($t:ty),*) => {$(
        impl IndexValue for $t {
            fn to_i64(self) -> Option<i64> {
                i64::try_from(self).ok()
            }
        }
    )*};
}

index_value!(native: i32, i64, u32);
index_value!(converted: i8, i16, u8, u16, u64, isize, usize);

impl Stream {
    /// A `uint32` index as `int32` for the device: the same storage read as
    /// int32 (no copy) when every valid index fits int32, which it does for
    /// any `bound` up to 2^31 (a value past that reads as negative and is
    /// rejected as out of range, reported with its int32 bit pattern); else
    /// converted to int64 once.
    fn signed_index(&self, index: &Tensor, bound: usize) -> Result<Tensor> {
        if bound <= i32::MAX as usize + 1 {
            return Ok(index.reinterpreted(DType::I32));
        }
        let v = index.int_values().expect("uint32 is an integer dtype")?;
        Tensor::from_slice(self, &[v.len()], &v)
    }

    /// The output shape of an index_select (validating everything but the
    /// index values, in the contract's order), and the extent of `x` the
    /// indices select from (for the conformance runner, which counts the
    /// index read-back against its memory bound in between).
    ///
    /// Fails as [`Stream::index_select`] would before it reads an index.
    pub fn index_select_shape(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
    ) -> Result<(Vec<usize>, usize)> {
        plan(self, x, dim, index).map(|(d, _, s)| (s, extent(x, d)))
    }

    /// [`Stream::index_select_shape`] for a call into `out`: `out`'s device
    /// is checked with the others, before the parameters (its own rules,
    /// [`super::check_out`], are the caller's, after).
    pub(crate) fn index_select_shape_into(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        out: &Tensor,
    ) -> Result<(Vec<usize>, usize)> {
        check_first(self, x, Some(index), Some(out))?;
        plan_params(x, dim, IndexDesc::of(index)).map(|(d, _, s)| (s, extent(x, d)))
    }

    /// `out[.., i, ..] = x[.., index[i], ..]` along `dim`, with a
    /// device-resident int32/int64 `index` (rank 0 or 1). An out-of-range
    /// value is found by the device and reported by [`Stream::synchronize`]
    /// as [`Error::IndexOutOfRange`].
    pub fn index_select(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let (_, _, shape) = plan(self, x, dim, index)?;
        let out = Tensor::empty_for(self, OP, "index", x.dtype(), &shape)?;
        self.index_select_into(x, dim, index, &out)?;
        Ok(out)
    }

    /// [`Stream::index_select`] with indices known on the host: they are
    /// checked before anything is enqueued, then uploaded once.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1f32, 2., 3., 4., 5., 6., 7., 8., 9.])?;
    /// let y = s.index_select_host(&x, 1, &[1, 0])?;
    /// assert_eq!(y.to_vec::<f32>()?, [2., 1., 5., 4., 8., 7.]);
    /// assert_eq!(s.index_select_host(&x, 0, &[3]).unwrap_err().kind(), "index_out_of_range");
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index_select_host<I: IndexValue>(
        &self,
        x: &Tensor,
        dim: i64,
        indices: &[I],
    ) -> Result<Tensor> {
        // Checked before anything reaches the device, in the contract's
        // order: the product, the device, the parameters, then the values
        // (an unrepresentable value is out of range).
        check_first(self, x, None, None)?;
        let (d, _, _) = plan_params(x, dim, IndexDesc::host(indices.len()))?;
        let bound = extent(x, d);
        if let Some(p) = indices
            .iter()
            .position(|v| v.to_i64().is_none_or(|v| v < 0 || v as u64 >= bound as u64))
        {
            return Err(Error::IndexOutOfRange {
                op: OP,
                position: p,
                value: indices[p].to_i64().unwrap_or(i64::MAX),
                bound,
                device_code: None,
            });
        }
        let index = I::upload(self, indices)?;
        self.index_select_known(x, dim, &index)
    }

    /// [`Stream::index_select`] with the (small) index read back and checked
    /// on the host after the other parameters, so an out-of-range value is
    /// reported before anything is enqueued and never reaches the device.
    pub fn index_select_checked(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let (d, _, _) = plan(self, x, dim, index)?;
        let values = index.int_values().expect("plan checked the index dtype")?;
        check_indices(&values, extent(x, d))?;
        self.index_select_known(x, dim, index)
    }

    /// [`Stream::index_select`] with indices already checked on the host:
    /// along a broadcast `dim` (stride 0) every index selects the same
    /// data, so it is a broadcast copy, with no gather at all.
    fn index_select_known(&self, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let (d, _, shape) = plan(self, x, dim, index)?;
        if x.rank() == 0 || x.strides()[d] != 0 || x.shape()[d] < 2 {
            return self.index_select(x, dim, index);
        }
        let out = Tensor::empty_for(self, OP, "index", x.dtype(), &shape)?;
        self.copy_into(OP, &out, &x.narrow(d as i64, 0, 1)?)?;
        Ok(out)
    }

    /// [`Stream::index_select`] into a caller's tensor or view.
    pub fn index_select_into(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        check_first(self, x, Some(index), Some(out))?;
        let (d, n_index, shape) = plan_params(x, dim, IndexDesc::of(index))?;
        check_out(OP, out, x.dtype(), &shape)?;
        if index.dtype() == DType::U32 {
            let signed = self.signed_index(index, extent(x, d))?;
            return self.index_select_into(x, dim, &signed, out);
        }
        // With nothing to move the device checks no index; the spec still
        // wants every index in range, so read them (the call is degenerate
        // and the index list is all there is to transfer).
        if x.numel() == 0 || out.numel() == 0 {
            if n_index > 0 {
                let v = index.int_values().expect("plan checked the index dtype")?;
                check_indices(&v, extent(x, d))?;
            }
            return Ok(());
        }
        if super::aliases(x, out) || super::aliases(index, out) {
            let tmp = Tensor::empty(self, x.dtype(), &shape)?;
            self.index_select_into(x, dim, index, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        // Broadcast dims other than `dim` (stride 0) are gathered once and
        // broadcast into out, never staged whole.
        let spread: Vec<usize> = (0..x.rank())
            .filter(|&i| i != d && x.strides()[i] == 0 && x.shape()[i] > 1)
            .collect();
        if !spread.is_empty() {
            let (mut xs, mut os) = (x.shape().to_vec(), shape.clone());
            for &i in &spread {
                xs[i] = 1;
                os[i] = 1;
            }
            let xr = x.view_as(OP, &xs, x.strides(), x.offset())?;
            let tmp = Tensor::empty_for(self, OP, "self", x.dtype(), &os)?;
            self.index_select_into(&xr, dim, index, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        let (ax, ai, ao) = (acl(self, x)?, acl(self, index)?, acl(self, out)?);
        // SAFETY: the descriptors are of `x` and `index` (reads) and `out`
        // (the write).
        unsafe { self.launch(First::IndexSelect(&ax, dim, &ai, &ao), &[x, index], out) }.map(drop)
    }
}
