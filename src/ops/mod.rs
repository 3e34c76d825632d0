//! The operators: validation by the spec before anything is enqueued,
//! output inference and allocation, then aclnn calls on a stream.

pub(crate) mod as_strided;
pub(crate) mod as_strided_aclnn;
pub(crate) mod cast;
pub(crate) mod cat;
pub(crate) mod elementwise;
pub(crate) mod embedding;
pub(crate) mod expand;
pub(crate) mod fill;
pub(crate) mod flip;
pub(crate) mod gather;
pub(crate) mod gather_nd;
pub(crate) mod gather_v2;
pub(crate) mod index;
pub(crate) mod index_cache;
pub(crate) mod index_copy;
pub(crate) mod index_select;
pub(crate) mod masked_select;
pub(crate) mod pad;
pub(crate) mod permute;
pub(crate) mod repeat;
pub(crate) mod roll;
pub(crate) mod sampled_slice;
pub(crate) mod slice;
pub(crate) mod slice_v2;
pub(crate) mod split;
pub(crate) mod stack;
pub(crate) mod strided_slice_assign;
pub(crate) mod take;
pub(crate) mod tri;
pub(crate) mod view_copy;
pub(crate) mod write;

use crate::error::{Error, Result};
use crate::ffi::AclTensor;
use crate::layout::{Layout, MAX_RANK};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::{acl_of, Declared, Tensor};
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

pub(crate) use crate::layout::norm_dim as normalise_dim;

/// The largest position a window reaches, `offset + sum_j((size_j - 1) *
/// stride_j)`, for a window without a zero extent; saturating, so any sum
/// past `i128` is past every tensor (the aclnn AsStrided and ViewCopy).
pub(crate) fn window_reach(size: &[i64], stride: &[i64], offset: i64) -> i128 {
    size.iter()
        .zip(stride)
        .map(|(&n, &s)| i128::from(n - 1) * i128::from(s))
        .fold(0i128, i128::saturating_add)
        .saturating_add(i128::from(offset))
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
    if out.layout().may_overlap() {
        return Err(Error::invalid(
            op,
            "out",
            format!(
                "the view (shape {:?}, strides {:?}) may write one element twice",
                out.shape(),
                out.strides()
            ),
        ));
    }
    Ok(())
}

/// Whether `a` and `b` may touch the same memory (then an operator
/// writing `b` from `a` must go through a temporary).
pub(crate) fn aliases(a: &Tensor, b: &Tensor) -> bool {
    a.shares_storage(b) && a.layout().spans_meet(b.layout())
}

/// The aclnn descriptor of a tensor (its view over its whole storage).
/// Every value fits `i64`: layouts are checked, and storage sizes are
/// device allocations.
pub(crate) fn acl<'a>(s: &'a Stream, t: &'a Tensor) -> Result<AclTensor<'a>> {
    acl_of(s.api(), t, Declared::Whole)
}

/// Cache key tags (`index_cache`): rows of an overlapping view, its
/// elements, elements of a view of a non-contiguous AsStrided input, a
/// sampled slice; ViewCopy's window metadata (a constant).
pub(crate) const KEY_ROWS: u64 = 1;
pub(crate) const KEY_ELEMS: u64 = 2;
pub(crate) const KEY_STRIDED: u64 = 3;
pub(crate) const KEY_SAMPLED: u64 = 4;
pub(crate) const KEY_WINDOWS: u64 = 5;

/// A cache key: `tag`, then each list's length and values.
pub(crate) fn index_key(tag: u64, lists: &[&[usize]]) -> Vec<u64> {
    let mut k = Vec::with_capacity(1 + lists.iter().map(|l| l.len() + 1).sum::<usize>());
    k.push(tag);
    for l in lists {
        k.push(l.len() as u64);
        k.extend(l.iter().map(|&v| v as u64));
    }
    k
}

/// Outputs of at most this many elements that no single InplaceCopy can
/// produce (a source that overlaps itself, a wrapped or reflected sampled
/// slice) are gathered in one launch, an IndexSelect through an index kept
/// per layout (`index_cache`; at most 4 bytes per element, so such an
/// index is always small enough to keep), where the product has
/// IndexSelect for the dtype. Larger ones take the multi-launch plans,
/// whose copies need no index memory (see docs/architecture.md,
/// "Composite plans", for the figures).
pub(crate) const ONE_LAUNCH_ELEMS: usize = 16 << 10;

/// Whether this stream's product has IndexSelect for `dtype` (an unknown
/// product is left to aclnn).
pub(crate) fn gather_ok(s: &Stream, dtype: crate::DType) -> bool {
    s.runtime()
        .family()
        .is_none_or(|f| OpKind::IndexSelect.available(f) && OpKind::IndexSelect.supports(f, dtype))
}

/// Rows of at least this many bytes are gathered whole (one launch, an
/// index per row) rather than copied piece by piece.
const ROW_GATHER_BYTES: usize = 256;

/// The longest row the view splits into: its trailing dims form a
/// row-major contiguous block of `l` elements, and every other dim (and
/// the offset) steps by a multiple of `l`, so each row starts at a row of
/// the storage viewed as rows of `l`. `None` for rows of one element.
fn row_len(t: &Tensor) -> Option<usize> {
    let (sh, st) = (t.shape(), t.strides());
    let mut best = None;
    let mut l = 1usize;
    for k in (0..sh.len()).rev() {
        if st[k] != l && sh[k] != 1 {
            break;
        }
        l = l.checked_mul(sh[k])?;
        let fits = l > 1
            && t.offset().is_multiple_of(l)
            && (0..k).all(|d| sh[d] == 1 || st[d].is_multiple_of(l));
        if fits {
            best = Some(l);
        }
    }
    best
}

/// How many trailing dims make a row of `l` elements (see [`row_len`]).
fn row_dims(t: &Tensor, l: usize) -> usize {
    let mut n = 1usize;
    let mut k = 0;
    for &e in t.shape().iter().rev() {
        if n == l {
            break;
        }
        n *= e;
        k += 1;
    }
    k
}

/// Pieces above this count are gathered instead (when IndexSelect exists):
/// each piece is a launch.
const MAX_PIECES: usize = 64;

/// The dims to iterate over one launch at a time so that the rest of the
/// view does not overlap itself, with the fewest launches: (mask, count).
fn pieces(shape: &[usize], strides: &[usize]) -> (u32, usize) {
    let r = shape.len();
    let mut best = (u32::MAX, usize::MAX);
    for mask in 0u32..(1 << r) {
        let count = (0..r)
            .filter(|&i| mask & (1 << i) != 0)
            .try_fold(1usize, |n, i| n.checked_mul(shape[i]));
        let Some(count) = count else { continue };
        if count >= best.1 {
            continue;
        }
        let (mut sh, mut st) = ([0usize; MAX_RANK], [0usize; MAX_RANK]);
        let mut k = 0;
        for i in (0..r).filter(|&i| mask & (1 << i) == 0) {
            sh[k] = shape[i];
            st[k] = strides[i];
            k += 1;
        }
        if !crate::layout::may_overlap(&sh[..k], &st[..k]) {
            best = (mask, count);
        }
    }
    best
}

impl Stream {
    /// `dst = src` on the device (`src` broadcast to `dst`'s shape by
    /// extent-1 dims), `dst` any view that does not overlap itself, `src`
    /// any view of the same dtype, even one that overlaps itself or
    /// interleaves (which `aclnnInplaceCopy` rejects as a source): stride-0
    /// dims become a broadcast, other overlaps are copied in non-overlapping
    /// pieces or gathered through storage-linear indices.
    pub(crate) fn copy_into(&self, op: &'static str, dst: &Tensor, src: &Tensor) -> Result<()> {
        if dst.numel() == 0 {
            return Ok(());
        }
        // A copy moves bits: bfloat16 on a product whose copy and gather
        // kernels lack it (all but A2 and A3) moves as int16, the same
        // size, so `contiguous`, `copy` and `fill` work for every dtype
        // everywhere (the operators refuse it earlier, by the product).
        if src.dtype() == crate::DType::BF16
            && self
                .runtime()
                .family()
                .is_some_and(|f| !OpKind::IndexSelect.supports(f, src.dtype()))
        {
            let bits = crate::DType::I16;
            return self.copy_into(op, &dst.reinterpreted(bits), &src.reinterpreted(bits));
        }
        if !src.layout().may_overlap() {
            return self.inplace_copy(dst, src);
        }
        // Stride-0 dims of extent > 1: read once, broadcast by the copy.
        let mut shape = [0usize; MAX_RANK];
        shape[..src.rank()].copy_from_slice(src.shape());
        for (i, &st) in src.strides().iter().enumerate() {
            if st == 0 {
                shape[i] = shape[i].min(1);
            }
        }
        let reduced = src.view_as(op, &shape[..src.rank()], src.strides(), src.offset())?;
        if !reduced.layout().may_overlap() {
            return self.inplace_copy(dst, &reduced);
        }
        // A small output: one gather of src broadcast to dst's shape.
        let small = dst.numel() <= ONE_LAUNCH_ELEMS;
        if small && src.rank() == dst.rank() && gather_ok(self, src.dtype()) {
            let mut st = [0usize; MAX_RANK];
            for (i, (&n, &m)) in src.shape().iter().zip(dst.shape()).enumerate() {
                st[i] = if n == m { src.strides()[i] } else { 0 };
            }
            let full = src.view_as(op, dst.shape(), &st[..src.rank()], src.offset())?;
            return self.gather_view(op, dst, &full);
        }
        // Still overlapping: materialise `reduced`, into dst itself when it
        // has dst's shape, else into a temporary broadcast into dst (src may
        // come with extent-1 dims already, as well as the reduced ones).
        let broadcast = reduced.shape() != dst.shape();
        let target = if broadcast {
            Tensor::empty_for(self, op, "self", src.dtype(), reduced.shape())?
        } else {
            dst.clone()
        };
        self.materialise_overlapping(op, &target, &reduced)?;
        if broadcast {
            self.inplace_copy(dst, &target)?;
        }
        Ok(())
    }

    /// `dst = src` for a `src` that overlaps itself without stride-0 dims.
    fn materialise_overlapping(&self, op: &'static str, dst: &Tensor, src: &Tensor) -> Result<()> {
        let (mask, count) = pieces(src.shape(), src.strides());
        let gather_ok = gather_ok(self, src.dtype());
        if gather_ok && count > 1 {
            if let Some(l) = row_len(src) {
                if l * src.dtype().size() >= ROW_GATHER_BYTES {
                    return self.gather_rows(op, dst, src, l);
                }
            }
        }
        let big_pieces = count.checked_mul(4096).is_some_and(|n| n <= src.numel());
        if !gather_ok || count <= MAX_PIECES || big_pieces {
            return self.copy_pieces(op, dst, src, mask);
        }
        // Gather: out = flat(storage)[storage offset of each element].
        self.gather_view(op, dst, src)
    }

    /// `dst` (row-major) = `src` whose trailing dims form contiguous rows
    /// of `l` elements starting at multiples of `l` (see [`row_len`]): one
    /// IndexSelect of those rows, with an index per row (not per element).
    fn gather_rows(&self, op: &'static str, dst: &Tensor, src: &Tensor, l: usize) -> Result<()> {
        let k = src.rank() - row_dims(src, l);
        let (sh, st) = (&src.shape()[..k], &src.strides()[..k]);
        let key = index_key(KEY_ROWS, &[&[l], sh, st]);
        let units = || crate::layout::offsets(sh, st, 0).map(move |o| o / l);
        let n = src.numel() / l;
        self.gather_units(op, dst, src, n, l, src.offset() / l, &key, units)
    }

    /// `dst` (row-major) = `src` (of `dst`'s shape, any view) in one
    /// IndexSelect launch: of whole rows when `src` splits into rows (see
    /// [`row_len`]), else of elements, through an index kept per layout.
    fn gather_view(&self, op: &'static str, dst: &Tensor, src: &Tensor) -> Result<()> {
        if let Some(l) = row_len(src) {
            return self.gather_rows(op, dst, src, l);
        }
        // Absolute offsets (the offset is in the key): runs may coarsen.
        let (sh, st, off) = (src.shape(), src.strides(), src.offset());
        let key = index_key(KEY_ELEMS, &[sh, st, &[off]]);
        let units = || crate::layout::offsets(sh, st, off);
        self.gather_units(op, dst, src, src.numel(), 1, 0, &key, units)
    }

    /// `dst` (row-major, `n * l` elements) = the `n` units of `l` elements
    /// of `base`'s storage viewed as units of `l`, at unit `at + u` for each
    /// `u` that `units` yields (offset-free: `at` is the view's offset, in
    /// units): one IndexSelect over the range of units they span, through
    /// the index kept for `key` (built from `units` on a miss).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gather_units<I: Iterator<Item = usize>>(
        &self,
        op: &'static str,
        dst: &Tensor,
        base: &Tensor,
        n: usize,
        l: usize,
        at: usize,
        key: &[u64],
        units: impl FnOnce() -> I,
    ) -> Result<()> {
        // Absolute unit numbers (`at` 0) may be coarsened into runs.
        let index = self.cached_index(op, key, n, at == 0, units)?;
        let (n, big) = (n / index.unit, l * index.unit);
        let span = base.view_as(op, &[index.span, big], &[big, 1], at * l + index.lo * big)?;
        let dense = dst.is_contiguous();
        let target = if dense {
            dst.view_as(op, &[n, big], &[big, 1], dst.offset())?
        } else {
            Tensor::empty_for(self, op, "size", base.dtype(), &[n, big])?
        };
        let ix = &index.tensor;
        let (ax, ai, ao) = (acl(self, &span)?, acl(self, ix)?, acl(self, &target)?);
        // SAFETY: the descriptors are of `span` and `ix` (reads) and
        // `target` (the write).
        unsafe {
            self.launch(
                crate::ffi::First::IndexSelect(&ax, 0, &ai, &ao),
                &[&span, ix],
                &target,
            )
        }?;
        if !dense {
            let t =
                target.with_layout(Layout::contiguous(op, dst.shape(), 0, base.dtype().size())?);
            self.inplace_copy(dst, &t)?;
        }
        Ok(())
    }

    /// One InplaceCopy per index of the dims in `mask`.
    fn copy_pieces(&self, op: &'static str, dst: &Tensor, src: &Tensor, mask: u32) -> Result<()> {
        let r = src.rank();
        let outer: Vec<usize> = (0..r).filter(|&i| mask & (1 << i) != 0).collect();
        let inner: Vec<usize> = (0..r).filter(|&i| mask & (1 << i) == 0).collect();
        let pick = |t: &Tensor, dims: &[usize]| -> (Vec<usize>, Vec<usize>) {
            (
                dims.iter().map(|&i| t.shape()[i]).collect(),
                dims.iter().map(|&i| t.strides()[i]).collect(),
            )
        };
        let (ish, sst) = pick(src, &inner);
        let (_, dst_st) = pick(dst, &inner);
        let mut pos = vec![0usize; outer.len()];
        // The pieces rewrite all of dst: one record for it.
        self.rewrite_whole(dst, &[src], || loop {
            let at = |t: &Tensor| -> usize {
                outer
                    .iter()
                    .zip(&pos)
                    .fold(t.offset(), |acc, (&d, &p)| acc + p * t.strides()[d])
            };
            let s = src.view_as(op, &ish, &sst, at(src))?;
            let d = dst.view_as(op, &ish, &dst_st, at(dst))?;
            self.inplace_copy(&d, &s)?;
            let mut k = outer.len();
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                pos[k] += 1;
                if pos[k] < src.shape()[outer[k]] {
                    break;
                }
                pos[k] = 0;
            }
        })
    }

    /// One `aclnnInplaceCopy` (its source must not overlap itself).
    fn inplace_copy(&self, dst: &Tensor, src: &Tensor) -> Result<()> {
        debug_assert!(!src.layout().may_overlap());
        if dst.numel() == 0 {
            return Ok(());
        }
        let (d, sr) = (acl(self, dst)?, acl(self, src)?);
        // SAFETY: the descriptors are of `dst` (the write) and `src` (a read).
        unsafe { self.launch(crate::ffi::First::InplaceCopy(&d, &sr), &[src], dst) }.map(drop)
    }

    /// A contiguous copy of `x` (or `x` itself if already contiguous); `x`
    /// may be any view, including one that overlaps itself.
    pub fn contiguous(&self, x: &Tensor) -> Result<Tensor> {
        check_device(self, "contiguous", "self", x)?;
        self.materialise("contiguous", x)
    }

    /// The members of a tensor list as aclnn takes them (a member that
    /// overlaps itself is materialised: CANN's Contiguous step may reject
    /// it) and an `aclTensorList` of their whole-view descriptors, which
    /// describes them while both live.
    pub(crate) fn acl_list(
        &self,
        op: &'static str,
        tensors: &[&Tensor],
    ) -> Result<(Vec<Tensor>, crate::ffi::AclTensorList<'_>)> {
        let members = tensors
            .iter()
            .map(|t| {
                if t.layout().may_overlap() {
                    self.materialise(op, t)
                } else {
                    Ok((*t).clone())
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let api = self.api();
        let descs = members
            .iter()
            .map(|t| crate::tensor::acl_new(api, t, crate::tensor::Declared::Whole))
            .collect::<Result<Vec<_>>>()?;
        let list = crate::ffi::AclTensorList::new(api, descs)?;
        Ok((members, list))
    }

    /// `x` itself, or a contiguous copy of it when it overlaps itself (an
    /// aclnn input must not). Borrowed, not cloned: a tensor keeps its
    /// descriptor for its launches, where a clone would make and destroy
    /// a new one per call.
    pub(crate) fn unoverlapped<'a>(
        &self,
        op: &'static str,
        x: &'a Tensor,
    ) -> Result<std::borrow::Cow<'a, Tensor>> {
        Ok(if x.layout().may_overlap() {
            std::borrow::Cow::Owned(self.materialise(op, x)?)
        } else {
            std::borrow::Cow::Borrowed(x)
        })
    }

    /// [`Stream::contiguous`] for operator `op` (its errors name `op`).
    pub(crate) fn materialise(&self, op: &'static str, x: &Tensor) -> Result<Tensor> {
        if x.is_contiguous() {
            return Ok(x.clone());
        }
        let out = Tensor::empty_for(self, op, "self", x.dtype(), x.shape())?;
        self.copy_into(op, &out, x)?;
        Ok(out)
    }
}
