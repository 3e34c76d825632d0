//! IndexCopy (`aclnnIndexCopy`, `aclnnInplaceIndexCopy`, spec section 27):
//! a copy of `self` with `source`'s slices written at `index` along `dim`.

use super::{acl, aliases, check_device, check_out, check_product, normalise_dim};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;
use std::borrow::Cow;

const OP: &str = "index_copy";

impl Stream {
    /// The rules before the output's, in the contract's order; returns the
    /// normalised dim and the extent the index values must stay under.
    fn index_copy_check(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
    ) -> Result<(usize, usize)> {
        check_product(self, OpKind::IndexCopy, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "index", index)?;
        check_device(self, OP, "source", source)?;
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
        if index.rank() > 1 {
            return Err(Error::invalid(
                OP,
                "index",
                format!("rank must be 0 or 1, got {}", index.rank()),
            ));
        }
        if source.dtype() != x.dtype() {
            return Err(Error::invalid(
                OP,
                "source",
                format!("dtype {} must be self's {}", source.dtype(), x.dtype()),
            ));
        }
        let xs: &[usize] = if x.rank() == 0 { &[1] } else { x.shape() };
        let ss: &[usize] = if source.rank() == 0 {
            &[1]
        } else {
            source.shape()
        };
        if xs.len() != ss.len() {
            return Err(Error::invalid(
                OP,
                "source",
                format!("rank {} must be self's rank {}", source.rank(), x.rank()),
            ));
        }
        let d = normalise_dim(OP, dim, xs.len())?;
        let n = index.numel();
        for k in 0..xs.len() {
            let want = if k == d { n } else { xs[k] };
            if ss[k] != want {
                return Err(Error::invalid(
                    OP,
                    "source",
                    format!(
                        "shape {:?} must be self's {:?} with {n} along dim {d}",
                        source.shape(),
                        x.shape()
                    ),
                ));
            }
        }
        Ok((d, xs[d]))
    }

    /// With nothing to scatter into (an empty `self`), the index values are
    /// still checked, on the host.
    fn index_copy_host_check(&self, x: &Tensor, bound: usize, index: &Tensor) -> Result<()> {
        if x.numel() == 0 && index.numel() > 0 {
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
        Ok(())
    }

    /// An input of the in-place form as aclnn gets it: `t` itself, or a
    /// copy when it meets `x` (the write) or overlaps itself.
    fn index_copy_fresh<'t>(&self, x: &Tensor, t: &'t Tensor) -> Result<Cow<'t, Tensor>> {
        if aliases(t, x) {
            let copy = Tensor::empty_for(self, OP, "source", t.dtype(), t.shape())?;
            self.copy_into(OP, &copy, t)?;
            return Ok(Cow::Owned(copy));
        }
        self.unoverlapped(OP, t)
    }

    /// The out-of-place aclnn call into `out` (of `x`'s shape).
    fn index_copy_launch(
        &self,
        x: &Tensor,
        dim: usize,
        index: &Tensor,
        source: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let (x, i, s) = (
            self.unoverlapped(OP, x)?,
            self.unoverlapped(OP, index)?,
            self.unoverlapped(OP, source)?,
        );
        let (ax, ai, asrc, ao) = (
            acl(self, &x)?,
            acl(self, &i)?,
            acl(self, &s)?,
            acl(self, out)?,
        );
        // SAFETY: the descriptors are of `x`, `i` and `s` (reads) and `out`
        // (the write).
        unsafe {
            self.launch(
                First::IndexCopy(&ax, dim as i64, &ai, &asrc, &ao),
                &[&x, &i, &s],
                out,
            )
        }
        .map(drop)
    }

    /// torch's `index_copy`: a new contiguous copy of `x` (any view of rank
    /// 0 to 8) with `source`'s slices written at `index` (int32 or int64,
    /// rank 0 or 1) along `dim`: `out[.., index[i], ..] = source[.., i, ..]`
    /// (`aclnnIndexCopy`, spec section 27). `source` has `x`'s dtype and
    /// shape but one element per index along `dim`; a repeated index ends
    /// with its last slice. An index outside `[0, x.shape[dim])` is
    /// `index_out_of_range` (reported by the device at the next
    /// synchronisation, as [`Stream::index_select`]'s).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 2], &[0f32, 1., 2., 3., 4., 5.])?;
    /// let i = Tensor::from_slice(&s, &[2], &[2i64, 0])?;
    /// let src = Tensor::from_slice(&s, &[2, 2], &[10f32, 11., 12., 13.])?;
    /// let y = s.index_copy(&x, 0, &i, &src)?;
    /// assert_eq!(y.to_vec::<f32>()?, [12., 13., 2., 3., 10., 11.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index_copy(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
    ) -> Result<Tensor> {
        let (d, bound) = self.index_copy_check(x, dim, index, source)?;
        self.index_copy_host_check(x, bound, index)?;
        let out = Tensor::empty_for(self, OP, "self", x.dtype(), x.shape())?;
        self.index_copy_launch(x, d, index, source, &out)?;
        Ok(out)
    }

    /// [`Stream::index_copy`] into a caller's tensor or view of `x`'s dtype
    /// and shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4])?;
    /// let i = Tensor::from_slice(&s, &[1], &[1i32])?;
    /// let src = Tensor::from_slice(&s, &[2, 1], &[8i32, 9])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[2, 2])?;
    /// s.index_copy_into(&x, 1, &i, &src, &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [1, 8, 3, 9]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index_copy_into(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        let (d, bound) = self.index_copy_check(x, dim, index, source)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), x.shape())?;
        self.index_copy_host_check(x, bound, index)?;
        if out.numel() > 0 && [x, index, source].iter().any(|t| aliases(t, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), x.shape())?;
            self.index_copy_launch(x, d, index, source, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.index_copy_launch(x, d, index, source, out)
    }

    /// [`Stream::index_copy`] in place (`aclnnInplaceIndexCopy`): `x` (any
    /// view that does not write one element twice) gets `source`'s slices
    /// at `index` along `dim`. An `index` or `source` sharing memory with
    /// `x` is copied first.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4], &[0u8, 1, 2, 3])?;
    /// let i = Tensor::from_slice(&s, &[2], &[3i64, 0])?;
    /// let src = Tensor::from_slice(&s, &[2], &[7u8, 9])?;
    /// s.index_copy_inplace(&x, 0, &i, &src)?;
    /// assert_eq!(x.to_vec::<u8>()?, [9, 1, 2, 7]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index_copy_inplace(
        &self,
        x: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
    ) -> Result<()> {
        let (d, bound) = self.index_copy_check(x, dim, index, source)?;
        // An empty view writes nothing, so it writes no element twice.
        if x.numel() > 0 && x.layout().may_overlap() {
            return Err(Error::invalid(
                OP,
                "self",
                format!(
                    "the view (shape {:?}, strides {:?}) writes one element twice",
                    x.shape(),
                    x.strides()
                ),
            ));
        }
        self.index_copy_host_check(x, bound, index)?;
        if x.numel() == 0 || index.numel() == 0 {
            return Ok(());
        }
        // Inputs that overlap themselves or meet `x` are copied first.
        let (i, s) = (
            self.index_copy_fresh(x, index)?,
            self.index_copy_fresh(x, source)?,
        );
        let (ax, ai, asrc) = (acl(self, x)?, acl(self, &i)?, acl(self, &s)?);
        // SAFETY: the descriptors are `x`'s (read and written) and those of
        // `i` and `s` (reads).
        unsafe {
            self.launch(
                First::InplaceIndexCopy(&ax, d as i64, &ai, &asrc),
                &[&i, &s],
                x,
            )
        }
        .map(drop)
    }
}
