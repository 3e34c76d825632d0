//! SplitTensor and SplitWithSize (`aclnnSplitTensor`,
//! `aclnnSplitWithSize`, spec section 12): one tensor cut along a dim into
//! a list of tensors.

use super::{acl, aliases, check_device, check_product, check_rank, normalise_dim};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, AclTensorList, First};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::{acl_new, Declared, Tensor};
use crate::DType;

/// How the pieces are given.
#[derive(Clone, Copy)]
enum Sizes<'a> {
    /// SplitTensor's `split_sections`.
    Sections(u64),
    /// SplitWithSize's sizes.
    List(&'a [i64]),
}

impl Sizes<'_> {
    fn kind(self) -> OpKind {
        match self {
            Sizes::Sections(_) => OpKind::SplitTensor,
            Sizes::List(_) => OpKind::SplitWithSize,
        }
    }
}

/// The extents along the split dim of the pieces of an extent `n`; with
/// `expect` (the `_into` forms' output count), a different count is an
/// error before any list is made (a stride-0 extent of 2^40 split by 1
/// must not build 2^40 entries first).
fn piece_extents(
    op: &'static str,
    n: usize,
    sizes: Sizes<'_>,
    dtype: DType,
    expect: Option<usize>,
) -> Result<Vec<usize>> {
    let count_rule = |count: usize| match expect {
        Some(k) if k != count => Err(Error::invalid(
            op,
            "out",
            format!("{k} tensors for {count} pieces"),
        )),
        _ => Ok(()),
    };
    match sizes {
        Sizes::Sections(s) => match (n, s) {
            (0, 0) => Ok(vec![0]),
            (0, _) => Err(Error::invalid(
                op,
                "split_sections",
                format!("the extent along dim is 0, so split_sections must be 0, got {s}"),
            )),
            (_, 0) => Err(Error::invalid(
                op,
                "split_sections",
                format!("must be positive for an extent of {n}"),
            )),
            (n, s) => {
                let s = usize::try_from(s).unwrap_or(usize::MAX).min(n);
                let count = (n - 1) / s + 1;
                count_rule(count)?;
                let mut v = Vec::new();
                v.try_reserve_exact(count)
                    .map_err(|_| Error::HostOutOfMemory {
                        bytes: count.saturating_mul(std::mem::size_of::<usize>()),
                    })?;
                v.extend((0..n).step_by(s).map(|a| s.min(n - a)));
                Ok(v)
            }
        },
        Sizes::List(v) => {
            if v.is_empty() {
                return Err(Error::invalid(
                    op,
                    "split_size",
                    "must hold at least one size",
                ));
            }
            if let Some(bad) = v.iter().find(|&&s| s < 0) {
                return Err(Error::invalid(
                    op,
                    "split_size",
                    format!("sizes must be non-negative, got {bad}"),
                ));
            }
            let sum = v.iter().try_fold(0u64, |a, &s| a.checked_add(s as u64));
            if sum != Some(n as u64) {
                return Err(Error::invalid(
                    op,
                    "split_size",
                    format!("the sizes {v:?} must sum to the extent {n} along dim"),
                ));
            }
            if v.len() > 32 && matches!(dtype, DType::F64 | DType::C64 | DType::C128) {
                return Err(Error::invalid(
                    op,
                    "split_size",
                    format!("{} pieces of {dtype}: at most 32", v.len()),
                ));
            }
            count_rule(v.len())?;
            Ok(v.iter().map(|&s| s as usize).collect())
        }
    }
}

impl Stream {
    /// The rules before the outputs: the product, the device, the rank,
    /// `dim` and the sizes. Returns the dim and each piece's shape.
    fn split_check(
        &self,
        x: &Tensor,
        sizes: Sizes<'_>,
        dim: i64,
        outs: Option<&[Tensor]>,
    ) -> Result<(usize, Vec<Vec<usize>>)> {
        let kind = sizes.kind();
        let op = kind.name();
        check_product(self, kind, x.dtype())?;
        check_device(self, op, "self", x)?;
        for o in outs.unwrap_or_default() {
            check_device(self, op, "out", o)?;
        }
        check_rank(op, "self", x, 1)?;
        let d = normalise_dim(op, dim, x.rank())?;
        let extents = piece_extents(
            op,
            x.shape()[d],
            sizes,
            x.dtype(),
            outs.map(<[Tensor]>::len),
        )?;
        let mut shapes = Vec::new();
        shapes
            .try_reserve_exact(extents.len())
            .map_err(|_| Error::HostOutOfMemory {
                bytes: extents
                    .len()
                    .saturating_mul(std::mem::size_of::<Vec<usize>>()),
            })?;
        shapes.extend(extents.iter().map(|&e| {
            let mut s = x.shape().to_vec();
            s[d] = e;
            s
        }));
        Ok((d, shapes))
    }

    fn split_new(&self, x: &Tensor, sizes: Sizes<'_>, dim: i64) -> Result<Vec<Tensor>> {
        let (_, shapes) = self.split_check(x, sizes, dim, None)?;
        let op = sizes.kind().name();
        // Every piece a contiguous tensor over one storage, back to back:
        // one launch writes them all.
        let base = Tensor::empty_for(self, op, "self", x.dtype(), &[x.numel()])?;
        let mut at = 0;
        let mut outs = Vec::with_capacity(shapes.len());
        for s in &shapes {
            let t = base.view(s, &contiguous_strides(s), at)?;
            at += t.numel();
            outs.push(t);
        }
        self.split_launch(x, sizes, dim, &outs)?;
        Ok(outs)
    }

    fn split_into_outs(
        &self,
        x: &Tensor,
        sizes: Sizes<'_>,
        dim: i64,
        outs: &[Tensor],
    ) -> Result<()> {
        let (_, shapes) = self.split_check(x, sizes, dim, Some(outs))?;
        let op = sizes.kind().name();
        if outs.len() != shapes.len() {
            return Err(Error::invalid(
                op,
                "out",
                format!("{} tensors for {} pieces", outs.len(), shapes.len()),
            ));
        }
        for (o, s) in outs.iter().zip(&shapes) {
            super::check_out(op, o, x.dtype(), s)?;
        }
        for (i, a) in outs.iter().enumerate() {
            for b in &outs[i + 1..] {
                if a.numel() > 0 && b.numel() > 0 && aliases(a, b) {
                    return Err(Error::invalid(op, "out", "two outputs share memory"));
                }
            }
        }
        if x.numel() == 0 {
            return Ok(());
        }
        let shared = outs.iter().all(|o| o.shares_storage(&outs[0]));
        let reads_x = outs.iter().any(|o| o.numel() > 0 && aliases(x, o));
        if shared && !reads_x {
            return self.split_launch(x, sizes, dim, outs);
        }
        // Outputs in several storages (one launch records one written
        // storage), or meeting `self`: through new pieces, then copies.
        let tmp = self.split_new(x, sizes, dim)?;
        for (o, t) in outs.iter().zip(&tmp) {
            if o.numel() > 0 {
                self.copy_into(op, o, t)?;
            }
        }
        Ok(())
    }

    /// The aclnn call into `outs` (views of one storage), `x` materialised
    /// first if it overlaps itself.
    fn split_launch(&self, x: &Tensor, sizes: Sizes<'_>, dim: i64, outs: &[Tensor]) -> Result<()> {
        if x.numel() == 0 {
            return Ok(());
        }
        let op = sizes.kind().name();
        let xs = self.unoverlapped(op, x)?;
        let api = self.api();
        let ax = acl(self, &xs)?;
        let members = outs
            .iter()
            .map(|t| acl_new(api, t, Declared::Whole))
            .collect::<Result<Vec<_>>>()?;
        let list = AclTensorList::new(api, members)?;
        match sizes {
            Sizes::Sections(s) => {
                // SAFETY: the descriptors are `xs`'s (the read) and the
                // outputs' (views of `outs[0]`'s storage, the write).
                unsafe { self.launch(First::SplitTensor(&ax, s, dim, &list), &[&xs], &outs[0]) }
                    .map(drop)
            }
            Sizes::List(v) => {
                let arr = AclIntArray::new(api, v)?;
                // SAFETY: as above; the array holds no address.
                unsafe {
                    self.launch(
                        First::SplitWithSize(&ax, &arr, dim, &list),
                        &[&xs],
                        &outs[0],
                    )
                }
                .map(drop)
            }
        }
    }

    /// `x` (any view of rank 1 to 8) cut along `dim` into pieces of
    /// `split_sections` elements, the last one shorter when the extent is
    /// not a multiple (`aclnnSplitTensor`, spec section 12): each a new
    /// contiguous tensor of `x`'s dtype. An extent of 0 needs
    /// `split_sections` 0 and gives one empty piece.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 5], &[0i32, 1, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// let parts = s.split_tensor(&x, 2, 1)?;
    /// assert_eq!(parts.len(), 3);
    /// assert_eq!(parts[0].to_vec::<i32>()?, [0, 1, 5, 6]);
    /// assert_eq!(parts[2].shape(), &[2, 1]);
    /// assert_eq!(parts[2].to_vec::<i32>()?, [4, 9]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn split_tensor(&self, x: &Tensor, split_sections: u64, dim: i64) -> Result<Vec<Tensor>> {
        self.split_new(x, Sizes::Sections(split_sections), dim)
    }

    /// [`Stream::split_tensor`] into caller's tensors or views, one per
    /// piece, each of its piece's shape and of `x`'s dtype; none may
    /// overlap itself or another.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3], &[1u8, 2, 3])?;
    /// let outs = [Tensor::zeros(&s, DType::U8, &[2])?, Tensor::zeros(&s, DType::U8, &[1])?];
    /// s.split_tensor_into(&x, 2, 0, &outs)?;
    /// assert_eq!(outs[1].to_vec::<u8>()?, [3]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn split_tensor_into(
        &self,
        x: &Tensor,
        split_sections: u64,
        dim: i64,
        outs: &[Tensor],
    ) -> Result<()> {
        self.split_into_outs(x, Sizes::Sections(split_sections), dim, outs)
    }

    /// `x` (any view of rank 1 to 8) cut along `dim` into pieces of the
    /// extents `sizes` (each at least 0, summing to the extent; at most 32
    /// pieces of float64 or complex), each a new contiguous tensor
    /// (`aclnnSplitWithSize`, spec section 12).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.])?;
    /// let parts = s.split_with_size(&x, &[1, 0, 3], 0)?;
    /// assert_eq!(parts[1].shape(), &[0, 2]);
    /// assert_eq!(parts[2].to_vec::<f32>()?, [2., 3., 4., 5., 6., 7.]);
    /// let e = s.split_with_size(&x, &[1, 2], 0).unwrap_err(); // sums to 3, not 4
    /// assert_eq!(e.kind(), "invalid_argument");
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn split_with_size(&self, x: &Tensor, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
        self.split_new(x, Sizes::List(sizes), dim)
    }

    /// [`Stream::split_with_size`] into caller's tensors or views
    /// ([`Stream::split_tensor_into`]'s rules).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1i64, 2, 3, 4, 5, 6])?;
    /// let store = Tensor::zeros(&s, DType::I64, &[6])?;
    /// let outs = [store.view(&[2, 1], &[1, 1], 0)?, store.view(&[2, 2], &[2, 1], 2)?];
    /// s.split_with_size_into(&x, &[1, 2], 1, &outs)?;
    /// assert_eq!(store.to_vec::<i64>()?, [1, 4, 2, 3, 5, 6]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn split_with_size_into(
        &self,
        x: &Tensor,
        sizes: &[i64],
        dim: i64,
        outs: &[Tensor],
    ) -> Result<()> {
        self.split_into_outs(x, Sizes::List(sizes), dim, outs)
    }
}

/// Row-major strides of `shape`.
fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut st = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        st[i] = st[i + 1] * shape[i + 1].max(1);
    }
    st
}
