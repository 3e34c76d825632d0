//! ViewCopy (`aclnnViewCopy`, spec section 34): a strided window of one
//! tensor written over a strided window of another, positions counted over
//! each tensor's elements in logical order.

use super::{acl, aliases, check_device, check_out, check_product, window_reach, KEY_WINDOWS};
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;
use std::borrow::Cow;

const OP: &str = "view_copy";

/// A strided window over the elements of a tensor in logical order: the
/// positions `offset + sum_j(i_j * stride_j)` for every index `i` of
/// `size` (as [`Stream::as_strided_aclnn`] reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window<'a> {
    /// The window's extents (1 to 8 of them).
    pub size: &'a [i64],
    /// The step, in elements, along each extent.
    pub stride: &'a [i64],
    /// The first position.
    pub offset: i64,
}

impl<'a> Window<'a> {
    /// The window of `size` extents stepping by `stride` from `offset`.
    pub fn new(size: &'a [i64], stride: &'a [i64], offset: i64) -> Window<'a> {
        Window {
            size,
            stride,
            offset,
        }
    }
}

/// The most positions a "written once" check enumerates (an interleaved
/// window with more is refused).
pub(crate) const ENUMERATED: u64 = 1 << 22;

/// Whether two indices of the window `(size, stride)` reach one position,
/// exactly: a window with more positions than its span (`span`: its
/// largest relative position + 1) does; otherwise strides each beyond the
/// span below them do not; otherwise the positions are enumerated, at most
/// [`ENUMERATED`] of them (a larger interleaved window is refused: the
/// project's bound on the work of a check, docs/ops.md §34).
fn writes_twice(size: &[i64], stride: &[i64], span: u64) -> bool {
    let Some(count) = size
        .iter()
        .try_fold(1u64, |c, &n| c.checked_mul(n as u64))
        .filter(|&c| c <= span)
    else {
        return true;
    };
    let mut dims: Vec<(i64, i64)> = size
        .iter()
        .zip(stride)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut reach = 0i128;
    if dims.iter().all(|&(s, n)| {
        let apart = i128::from(s) > reach;
        reach += i128::from(n - 1) * i128::from(s);
        apart
    }) {
        return false;
    }
    if count > ENUMERATED {
        return true;
    }
    // Every relative position is below `span` (a u64).
    let mut pos: Vec<u64> = Vec::with_capacity(count as usize);
    let mut idx = vec![0i64; size.len()];
    for _ in 0..count {
        pos.push(idx.iter().zip(stride).map(|(&i, &s)| (i * s) as u64).sum());
        for d in (0..size.len()).rev() {
            idx[d] += 1;
            if idx[d] < size[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    pos.sort_unstable();
    pos.windows(2).any(|p| p[0] == p[1])
}

/// The spec's rules in order, after the product and `dst`'s dtype;
/// whether the window holds any position.
fn check(dst: &Tensor, dw: Window<'_>, src: &Tensor, sw: Window<'_>) -> Result<bool> {
    if src.dtype() != dst.dtype() {
        return Err(Error::invalid(
            OP,
            "src",
            format!("dtype {} differs from dst's {}", src.dtype(), dst.dtype()),
        ));
    }
    for (t, name) in [(dst, "dst"), (src, "src")] {
        if t.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                name,
                format!("rank must be at most {MAX_RANK}, got {}", t.rank()),
            ));
        }
    }
    let rank = dw.size.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "dst_size",
            format!("must have 1 to {MAX_RANK} entries, got {rank}"),
        ));
    }
    for (len, name) in [
        (dw.stride.len(), "dst_stride"),
        (sw.size.len(), "src_size"),
        (sw.stride.len(), "src_stride"),
    ] {
        if len != rank {
            return Err(Error::invalid(
                OP,
                name,
                format!("has {len} entries, dst_size {rank}"),
            ));
        }
    }
    if dst.numel() == 0 || src.numel() == 0 {
        return Ok(false);
    }
    for (w, names) in [
        (dw, ["dst_size", "dst_stride", "dst_offset"]),
        (sw, ["src_size", "src_stride", "src_offset"]),
    ] {
        for (vals, name) in [(w.size, names[0]), (w.stride, names[1])] {
            if let Some(v) = vals.iter().find(|&&v| v < 0) {
                return Err(Error::invalid(OP, name, format!("entry {v} is negative")));
            }
        }
        if w.offset < 0 {
            return Err(Error::invalid(
                OP,
                names[2],
                format!("{} is negative", w.offset),
            ));
        }
    }
    if sw.size != dw.size {
        return Err(Error::invalid(
            OP,
            "src_size",
            format!(
                "{:?} differs from dst_size {:?} (no broadcasting)",
                sw.size, dw.size
            ),
        ));
    }
    if dw.size.contains(&0) {
        return Ok(false);
    }
    for (w, t, name, which) in [
        (dw, dst, "dst_offset", "dst"),
        (sw, src, "src_offset", "src"),
    ] {
        let last = window_reach(w.size, w.stride, w.offset);
        if last >= t.numel() as i128 {
            return Err(Error::invalid(
                OP,
                name,
                format!(
                    "the window's largest position, {last}, is not below {which}'s {} elements",
                    t.numel()
                ),
            ));
        }
    }
    // Below numel(dst) (checked above): the span fits u64.
    let span = (window_reach(dw.size, dw.stride, 0) + 1) as u64;
    if writes_twice(dw.size, dw.stride, span) {
        return Err(Error::invalid(
            OP,
            "dst_stride",
            format!(
                "the window (size {:?}, stride {:?}) writes a position twice, or interleaves \
                 more than {ENUMERATED} positions",
                dw.size, dw.stride
            ),
        ));
    }
    Ok(true)
}

/// Whether `a` and `b` are the same view of the same storage.
fn same_view(a: &Tensor, b: &Tensor) -> bool {
    a.shares_storage(b)
        && a.offset() == b.offset()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
}

impl Stream {
    /// `dst` with the window `sw` of `src` written over its window `dw`,
    /// as a new contiguous tensor of `dst`'s shape (spec section 34;
    /// CANN's `aclnnViewCopy`, on A2). Positions count each tensor's
    /// elements in logical order; `dst` and `src` may be any views.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, Window};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let dst = Tensor::from_slice(&s, &[3, 4], &[0i32; 12])?;
    /// let src = Tensor::from_slice(&s, &[6], &[1i32, 2, 3, 4, 5, 6])?;
    /// // src's [[1, 2], [3, 4]] into rows 0..2, columns 1..3 of dst.
    /// let y = s.view_copy(&dst, Window::new(&[2, 2], &[4, 1], 1), &src, Window::new(&[2, 2], &[2, 1], 0))?;
    /// assert_eq!(y.to_vec::<i32>()?, [0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn view_copy(
        &self,
        dst: &Tensor,
        dw: Window<'_>,
        src: &Tensor,
        sw: Window<'_>,
    ) -> Result<Tensor> {
        let out = Tensor::empty_for(self, OP, "out", dst.dtype(), dst.shape())?;
        self.view_copy_into(dst, dw, src, sw, &out)?;
        Ok(out)
    }

    /// [`Stream::view_copy`] into a caller's tensor or view of `dst`'s shape
    /// and dtype. `out` may be `dst` itself (the window is then written in
    /// place) or share memory with either input.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, Window};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let dst = Tensor::from_slice(&s, &[6], &[0f32; 6])?;
    /// let src = Tensor::from_slice(&s, &[3], &[7f32, 8., 9.])?;
    /// // Every second element of dst, in place.
    /// s.view_copy_into(&dst, Window::new(&[3], &[2], 0), &src, Window::new(&[3], &[1], 0), &dst)?;
    /// assert_eq!(dst.to_vec::<f32>()?, [7., 0., 8., 0., 9., 0.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn view_copy_into(
        &self,
        dst: &Tensor,
        dw: Window<'_>,
        src: &Tensor,
        sw: Window<'_>,
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::ViewCopy, dst.dtype())?;
        check_device(self, OP, "dst", dst)?;
        check_device(self, OP, "src", src)?;
        check_device(self, OP, "out", out)?;
        let window = check(dst, dw, src, sw)?;
        check_out(OP, out, dst.dtype(), dst.shape())?;
        if dst.numel() == 0 || (!window && same_view(dst, out)) {
            return Ok(());
        }
        if !window || src.numel() == 0 {
            // out is dst: through a copy when they share memory (the copy
            // reads what it writes otherwise).
            if aliases(dst, out) {
                let tmp = self.fresh_copy(dst)?;
                return self.copy_into(OP, out, &tmp);
            }
            return self.copy_into(OP, out, dst);
        }
        let in_place = same_view(dst, out);
        if !in_place && (aliases(dst, out) || aliases(src, out)) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.view_copy_launch(dst, dw, src, sw, &tmp, false)?;
            return self.copy_into(OP, out, &tmp);
        }
        if in_place && aliases(src, out) {
            // The window of src is read before dst changes: a copy of it.
            let sc = self.fresh_copy(src)?;
            return self.view_copy_launch(dst, dw, &sc, sw, out, true);
        }
        self.view_copy_launch(dst, dw, src, sw, out, in_place)
    }

    /// A new contiguous copy of `x` (never `x` itself).
    fn fresh_copy(&self, x: &Tensor) -> Result<Tensor> {
        let t = Tensor::empty_for(self, OP, "out", x.dtype(), x.shape())?;
        self.copy_into(OP, &t, x)?;
        Ok(t)
    }

    /// The aclnn call: the six metadata arrays in one device tensor (the
    /// first phase reads them with `aclrtMemcpy`), uploaded synchronously
    /// once and kept per stream for these windows (`index_cache`); inputs
    /// that overlap themselves materialised first.
    fn view_copy_launch(
        &self,
        dst: &Tensor,
        dw: Window<'_>,
        src: &Tensor,
        sw: Window<'_>,
        out: &Tensor,
        in_place: bool,
    ) -> Result<()> {
        // Borrowed, not cloned: a tensor keeps its descriptor, a clone
        // would make a new one.
        let dst = if !in_place && dst.layout().may_overlap() {
            Cow::Owned(self.materialise(OP, dst)?)
        } else {
            Cow::Borrowed(dst)
        };
        let src = self.unoverlapped(OP, src)?;
        let r = dw.size.len();
        let mut meta = Vec::with_capacity(4 * r + 2);
        meta.extend_from_slice(dw.size);
        meta.extend_from_slice(dw.stride);
        meta.push(dw.offset);
        meta.extend_from_slice(sw.size);
        meta.extend_from_slice(sw.stride);
        meta.push(sw.offset);
        let spans = [
            (0, r),
            (r, r),
            (2 * r, 1),
            (2 * r + 1, r),
            (3 * r + 1, r),
            (4 * r + 1, 1),
        ];
        let parts = self.cached_i64(OP, "dst_size", KEY_WINDOWS, &meta, &spans)?;
        let a: Vec<_> = parts.iter().map(|t| acl(self, t)).collect::<Result<_>>()?;
        let (ad, asrc, ao) = (acl(self, &dst)?, acl(self, &src)?, acl(self, out)?);
        let ad_out = if in_place { &ad } else { &ao };
        // SAFETY: the descriptors are dst's and src's (read), out's (written;
        // dst's own when in place) and the metadata's (read by the first
        // phase; uploaded synchronously when first kept by `cached_i64`,
        // never written since); all live for the call.
        unsafe {
            self.launch(
                First::ViewCopy(
                    &ad,
                    [&a[0], &a[1], &a[2], &a[3], &a[4], &a[5]],
                    &asrc,
                    ad_out,
                ),
                &[&dst, &src],
                out,
            )
        }
        .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::writes_twice;

    #[test]
    fn windows_that_write_twice() {
        let twice = |size: &[i64], stride: &[i64]| {
            let span =
                super::window_reach(size, stride, 0).clamp(0, u64::MAX as i128 - 1) as u64 + 1;
            writes_twice(size, stride, span)
        };
        assert!(!twice(&[2, 3], &[4, 3]));
        assert!(twice(&[2, 3], &[2, 2]));
        assert!(twice(&[2], &[0]));
        assert!(!twice(&[1, 5], &[0, 1]));
        assert!(twice(&[i64::MAX, 2], &[0, 0]));
        assert!(!twice(&[4, 4], &[1, 4]));
        assert!(twice(&[4, 4], &[1, 3]));
        assert!(!twice(&[2, 1000], &[4, 3]));
        assert!(twice(&[2, 1 << 22], &[4, 3]));
    }
}
