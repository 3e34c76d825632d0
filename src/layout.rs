//! Layouts: the shape, element strides and element offset of a view, with
//! every size, offset and byte count checked in one place. Tensor views,
//! operators and the conformance case reader all build layouts here, so a
//! rule (a bound, an overflow check, a normalisation) exists once.
//!
//! Invariants of every [`Layout`] (checked by [`Layout::new`]):
//! - rank at most [`MAX_RANK`];
//! - extents, strides and the offset are at most `i64::MAX` (aclnn's type);
//! - the element count and its bytes in the layout's dtype are at most
//!   `i64::MAX` (so any materialised copy has a size a host and the C ABI
//!   can express);
//! - for a non-empty layout, the last element it addresses,
//!   `offset + sum((n_i - 1) * s_i)`, is at most `i64::MAX`.

use crate::error::{Error, Result};

/// The largest rank a tensor may have (aclnn's limit).
pub const MAX_RANK: usize = 8;

const LIMIT: usize = i64::MAX as usize;

/// A view: extents, element strides and element offset, inline (no heap).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Layout {
    rank: u8,
    shape: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    offset: usize,
    /// Element count (cached; checked at construction).
    numel: usize,
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "shape {:?}, strides {:?}, offset {}",
            self.shape(),
            self.strides(),
            self.offset
        )
    }
}

/// The element count of `shape`, or an invalid `param` of `op` if it
/// overflows (or exceeds `i64::MAX`).
pub(crate) fn numel(op: &'static str, param: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= LIMIT)
        .ok_or_else(|| Error::invalid(op, param, format!("shape {shape:?} has too many elements")))
}

/// The bytes of `n` elements of `elem` bytes, or an invalid `param` of
/// `op` beyond `i64::MAX`.
pub(crate) fn bytes(op: &'static str, param: &'static str, n: usize, elem: usize) -> Result<usize> {
    n.checked_mul(elem).filter(|&b| b <= LIMIT).ok_or_else(|| {
        Error::invalid(
            op,
            param,
            format!("{n} elements of {elem} bytes exceed the largest size (2^63 - 1 bytes)"),
        )
    })
}

/// Normalises `dim` of a rank-`rank` tensor (`dim < 0` counts from the
/// end), or an invalid `dim` of `op`.
pub(crate) fn norm_dim(op: &'static str, dim: i64, rank: usize) -> Result<usize> {
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

/// The `(dim, start, end, step)` of one slice as `aclnnSlice` takes them,
/// before normalisation (spec section 1): the group's one spelling in the
/// safe layer (operator, view, prepared launch and composite all hold it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SliceArgs {
    pub(crate) dim: i64,
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) step: i64,
}

impl SliceArgs {
    pub(crate) const fn new(dim: i64, start: i64, end: i64, step: i64) -> SliceArgs {
        SliceArgs {
            dim,
            start,
            end,
            step,
        }
    }

    /// `(dim', start', len)` on a tensor of `shape`, checked in the
    /// contract's order (`dim` against the rank, then `step`); errors are
    /// `op`'s.
    pub(crate) fn resolve(
        self,
        op: &'static str,
        shape: &[usize],
    ) -> Result<(usize, usize, usize)> {
        let d = norm_dim(op, self.dim, shape.len())?;
        let (s, len) = slice_range(op, shape[d], self.start, self.end, self.step)?;
        Ok((d, s, len))
    }
}

/// `(start', len)` of a slice of an extent-`n` dim, by the spec's
/// normalisation (section 1: C `%`, computed in i128 so that no `i64`
/// input overflows); `step <= 0` is an invalid `step` of `op`.
pub(crate) fn slice_range(
    op: &'static str,
    n: usize,
    start: i64,
    end: i64,
    step: i64,
) -> Result<(usize, usize)> {
    if step <= 0 {
        return Err(Error::invalid(
            op,
            "step",
            format!("must be > 0, got {step}"),
        ));
    }
    if n == 0 {
        return Ok((0, 0));
    }
    // The same arithmetic in i64 when nothing overflows (one division per
    // `%` rather than i128's library calls); else in i128.
    if let Some(r) = slice_range_i64(n, start, end, step) {
        return Ok(r);
    }
    let (n, s, e, st) = (n as i128, start as i128, end as i128, step as i128);
    let s2 = if s < -n {
        0
    } else if s >= n {
        n
    } else {
        (s + n) % n
    };
    let e2 = if e >= n {
        n
    } else if (e + n) % n < s2 {
        s2
    } else {
        (e + n) % n
    };
    Ok((s2 as usize, ((e2 - s2 + st - 1) / st) as usize))
}

/// [`slice_range`]'s normalisation in i64 (`n > 0`, `st > 0`); `None`
/// where a step would overflow.
fn slice_range_i64(n: usize, s: i64, e: i64, st: i64) -> Option<(usize, usize)> {
    let n = i64::try_from(n).ok()?;
    let s2 = if s < -n {
        0
    } else if s >= n {
        n
    } else {
        s.checked_add(n)? % n
    };
    let e2 = if e >= n {
        n
    } else {
        let r = e.checked_add(n)? % n;
        if r < s2 {
            s2
        } else {
            r
        }
    };
    let len = e2.checked_sub(s2)?.checked_add(st)?.checked_sub(1)? / st;
    Some((s2 as usize, len as usize))
}

impl Layout {
    /// A checked layout for elements of `elem` bytes; violations are
    /// invalid arguments of `op` (parameter `shape`, `strides` or `offset`).
    pub(crate) fn new(
        op: &'static str,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        elem: usize,
    ) -> Result<Layout> {
        if shape.len() > MAX_RANK {
            return Err(Error::invalid(
                op,
                "shape",
                format!("rank {} exceeds {MAX_RANK}", shape.len()),
            ));
        }
        if strides.len() != shape.len() {
            return Err(Error::invalid(
                op,
                "strides",
                format!("{} strides for {} dims", strides.len(), shape.len()),
            ));
        }
        if shape.iter().chain(strides).any(|&v| v > LIMIT) || offset > LIMIT {
            return Err(Error::invalid(
                op,
                "shape",
                format!(
                    "extents, strides and offset must be at most 2^63 - 1 \
                     (shape {shape:?}, strides {strides:?}, offset {offset})"
                ),
            ));
        }
        let n = numel(op, "shape", shape)?;
        bytes(op, "shape", n, elem)?;
        let mut l = Layout {
            rank: shape.len() as u8,
            shape: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            offset,
            numel: n,
        };
        l.shape[..shape.len()].copy_from_slice(shape);
        l.strides[..shape.len()].copy_from_slice(strides);
        if n > 0 && l.last_checked().is_none_or(|last| last > LIMIT) {
            return Err(Error::invalid(
                op,
                "strides",
                format!(
                    "the view (shape {shape:?}, strides {strides:?}, offset {offset}) reaches \
                     past element 2^63 - 1"
                ),
            ));
        }
        Ok(l)
    }

    /// The row-major layout of `shape` at `offset`.
    pub(crate) fn contiguous(
        op: &'static str,
        shape: &[usize],
        offset: usize,
        elem: usize,
    ) -> Result<Layout> {
        let mut strides = [0usize; MAX_RANK];
        let mut acc = 1usize;
        for i in (0..shape.len().min(MAX_RANK)).rev() {
            strides[i] = acc;
            acc = acc.saturating_mul(shape[i].max(1));
        }
        Layout::new(
            op,
            shape,
            &strides[..shape.len().min(MAX_RANK)],
            offset,
            elem,
        )
    }

    fn last_checked(&self) -> Option<usize> {
        self.shape()
            .iter()
            .zip(self.strides())
            .try_fold(self.offset, |acc, (&n, &s)| {
                (n - 1).checked_mul(s).and_then(|t| acc.checked_add(t))
            })
    }

    /// Extents.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape[..self.rank as usize]
    }

    /// Element strides.
    pub(crate) fn strides(&self) -> &[usize] {
        &self.strides[..self.rank as usize]
    }

    /// Element offset into the storage.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// Number of dims.
    pub(crate) fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Element count.
    pub(crate) fn numel(&self) -> usize {
        self.numel
    }

    /// The first and last storage elements the view addresses (`None` when
    /// it has no elements).
    pub(crate) fn span(&self) -> Option<(usize, usize)> {
        // Checked at construction: cannot overflow.
        (self.numel > 0).then(|| (self.offset, self.last_checked().unwrap_or(usize::MAX)))
    }

    /// Storage elements a buffer needs to hold the view (0 when empty).
    pub(crate) fn storage_needed(&self) -> usize {
        self.span().map_or(0, |(_, last)| last + 1)
    }

    /// Whether the view fits a storage of `storage_elems` elements.
    pub(crate) fn fits(&self, storage_elems: usize) -> bool {
        self.storage_needed() <= storage_elems
    }

    /// Whether the elements are row-major and dense (extent-1 dims ignored).
    pub(crate) fn is_contiguous(&self) -> bool {
        let mut expect = 1usize;
        for (&n, &s) in self.shape().iter().zip(self.strides()).rev() {
            if n != 1 && s != expect {
                return false;
            }
            expect = expect.saturating_mul(n);
        }
        true
    }

    /// Whether two logical indices may address the same element, or the
    /// view interleaves in a way a permuted slice cannot (the test aclnn's
    /// InplaceCopy applies to its source): sorted by stride, each stride
    /// must exceed the span of the smaller ones.
    pub(crate) fn may_overlap(&self) -> bool {
        // A row-major dense view never does (the common case: no sort).
        !self.is_contiguous() && may_overlap(self.shape(), self.strides())
    }

    /// Whether two views of the same storage may touch a common element
    /// (their element spans meet).
    pub(crate) fn spans_meet(&self, other: &Layout) -> bool {
        match (self.span(), other.span()) {
            (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
            _ => false,
        }
    }

    /// `len` elements of `dim` from `start`.
    pub(crate) fn narrow(
        &self,
        op: &'static str,
        dim: usize,
        start: usize,
        len: usize,
        elem: usize,
    ) -> Result<Layout> {
        let n = self.shape()[dim];
        if start.checked_add(len).is_none_or(|e| e > n) {
            return Err(Error::invalid(
                op,
                "start",
                format!("[{start}, {start}+{len}) is not inside dim {dim} of extent {n}"),
            ));
        }
        self.slice(op, dim, start, len, 1, elem)
    }

    /// `len` elements of `dim` from `start` every `step` (a normalised
    /// slice: `start < n`, `start + (len - 1) * step < n` when `len > 0`).
    pub(crate) fn slice(
        &self,
        op: &'static str,
        dim: usize,
        start: usize,
        len: usize,
        step: usize,
        elem: usize,
    ) -> Result<Layout> {
        let mut shape = self.shape;
        let mut strides = self.strides;
        shape[dim] = len;
        // Checked: an empty view may have any strides.
        let offset = if len == 0 {
            self.offset
        } else {
            start
                .checked_mul(self.strides[dim])
                .and_then(|o| o.checked_add(self.offset))
                .ok_or_else(|| Error::invalid(op, "start", "the view's offset overflows"))?
        };
        if len > 1 {
            strides[dim] = self.strides[dim]
                .checked_mul(step)
                .ok_or_else(|| Error::invalid(op, "step", "the view's stride overflows"))?;
        }
        Layout::new(
            op,
            &shape[..self.rank()],
            &strides[..self.rank()],
            offset,
            elem,
        )
    }

    /// Dim `i` of the result is dim `order[i]`.
    pub(crate) fn permute(&self, op: &'static str, order: &[usize]) -> Result<Layout> {
        let r = self.rank();
        let mut seen = [false; MAX_RANK];
        if order.len() != r
            || order
                .iter()
                .any(|&o| o >= r || std::mem::replace(&mut seen[o], true))
        {
            return Err(Error::invalid(
                op,
                "order",
                format!("{order:?} is not a permutation of 0..{r}"),
            ));
        }
        let mut l = *self;
        for (i, &o) in order.iter().enumerate() {
            l.shape[i] = self.shape[o];
            l.strides[i] = self.strides[o];
        }
        Ok(l)
    }
}

/// The element offsets `start + sum(i_j * strides_j)` of every index of
/// `shape`, in row-major order (an odometer: no division per element).
/// Callers pass extents and strides whose offsets fit `usize`.
pub(crate) fn offsets<'a>(
    shape: &'a [usize],
    strides: &'a [usize],
    start: usize,
) -> impl Iterator<Item = usize> + 'a {
    let n = shape.iter().product::<usize>();
    let mut pos = [0usize; MAX_RANK];
    let mut at = start;
    (0..n).map(move |_| {
        let here = at;
        for d in (0..shape.len()).rev() {
            pos[d] += 1;
            at = at.wrapping_add(strides[d]);
            if pos[d] < shape[d] {
                break;
            }
            at = at.wrapping_sub(pos[d] * strides[d]);
            pos[d] = 0;
        }
        here
    })
}

/// [`Layout::may_overlap`] on raw extents and strides.
pub(crate) fn may_overlap(shape: &[usize], strides: &[usize]) -> bool {
    let mut dims = [(0usize, 0usize); MAX_RANK];
    let mut k = 0;
    for (&n, &s) in shape.iter().zip(strides) {
        if n > 1 && k < MAX_RANK {
            dims[k] = (s, n);
            k += 1;
        }
    }
    let dims = &mut dims[..k];
    dims.sort_unstable();
    let mut span: u128 = 0;
    for &(s, n) in dims.iter() {
        if (s as u128) <= span {
            return true;
        }
        span += (n as u128 - 1) * s as u128;
    }
    false
}

/// The ATB AsStrided rules (spec section 3) for an input of `numel`
/// elements: returns (size, stride, offset) as `usize`. Errors name
/// `as_strided` and the parameter.
pub(crate) fn as_strided_params(
    numel: usize,
    size: &[i64],
    stride: &[i64],
    offset: &[i64],
) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    const OP: &str = "as_strided";
    if size.is_empty() || size.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "size",
            format!("needs 1 to {MAX_RANK} entries, got {}", size.len()),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v <= 0) {
        return Err(Error::invalid(
            OP,
            "size",
            format!("entries must be > 0, got {v}"),
        ));
    }
    if stride.len() != size.len() {
        return Err(Error::invalid(
            OP,
            "stride",
            format!(
                "needs {} entries (one per size), got {}",
                size.len(),
                stride.len()
            ),
        ));
    }
    if let Some(v) = stride.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(
            OP,
            "stride",
            format!("entries must be >= 0, got {v}"),
        ));
    }
    let &[offset] = offset else {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("needs exactly one entry, got {}", offset.len()),
        ));
    };
    if offset < 0 {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("must be >= 0, got {offset}"),
        ));
    }
    // Each term is below 2^126, but two of them reach i128's bound:
    // saturating (a saturated sum is far past any numel, so refused).
    let last: i128 = size
        .iter()
        .zip(stride)
        .map(|(&n, &s)| (n as i128 - 1) * s as i128)
        .fold(offset as i128, i128::saturating_add);
    if last >= numel as i128 {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("the largest index read, {last}, is not below numel(self) = {numel}"),
        ));
    }
    Ok((
        size.iter().map(|&v| v as usize).collect(),
        stride.iter().map(|&v| v as usize).collect(),
        offset as usize,
    ))
}

/// `(start, end)` of a range of dim positions, for Slice's normalisation
/// (an unbounded end is `i64::MAX`, clamped by it; `..=e` is `..e + 1`,
/// and `..=-1` reaches the end).
pub(crate) fn range_bounds(r: &impl std::ops::RangeBounds<i64>) -> (i64, i64) {
    use std::ops::Bound::*;
    let start = match r.start_bound() {
        Included(&s) => s,
        Excluded(&s) => s.saturating_add(1),
        Unbounded => 0,
    };
    let end = match r.end_bound() {
        Excluded(&e) => e,
        Included(&-1) => i64::MAX,
        Included(&e) => e.saturating_add(1),
        Unbounded => i64::MAX,
    };
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The i64 fast path of `slice_range` agrees with the i128 formula
    /// wherever it answers, on extreme and ordinary values.
    #[test]
    fn slice_range_i64_agrees_with_i128() {
        let vals = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 62),
            -1000,
            -7,
            -5,
            -4,
            -3,
            -1,
            0,
            1,
            2,
            3,
            4,
            5,
            7,
            1000,
            1 << 62,
            i64::MAX - 1,
            i64::MAX,
        ];
        let ns = [
            1usize,
            2,
            4,
            5,
            7,
            1000,
            1 << 40,
            i64::MAX as usize,
            usize::MAX,
        ];
        for &n in &ns {
            for &s in &vals {
                for &e in &vals {
                    for &st in vals.iter().filter(|v| **v > 0) {
                        let Some(fast) = slice_range_i64(n, s, e, st) else {
                            continue;
                        };
                        let (n, s, e, st) = (n as i128, s as i128, e as i128, st as i128);
                        let s2 = if s < -n {
                            0
                        } else if s >= n {
                            n
                        } else {
                            (s + n) % n
                        };
                        let e2 = if e >= n {
                            n
                        } else if (e + n) % n < s2 {
                            s2
                        } else {
                            (e + n) % n
                        };
                        let slow = (s2 as usize, ((e2 - s2 + st - 1) / st) as usize);
                        assert_eq!(fast, slow, "n {n} start {s} end {e} step {st}");
                    }
                }
            }
        }
    }

    #[test]
    fn slice_normalisation() {
        let r = |n, s, e, st| slice_range("slice", n, s, e, st).unwrap();
        assert_eq!(r(5, 1, 4, 2), (1, 2));
        assert_eq!(r(5, -2, i64::MAX, 1), (3, 2));
        assert_eq!(r(5, i64::MIN, i64::MIN, 1), (0, 0));
        assert_eq!(r(5, 7, 2, 1), (5, 0));
        assert_eq!(r(0, 0, 10, 1), (0, 0));
        assert_eq!(r(5, 0, 5, i64::MAX), (0, 1));
        assert!(slice_range("slice", 5, 0, 5, 0).is_err());
    }

    #[test]
    fn layouts_are_checked() {
        let ok = |s: &[usize], st: &[usize], o| Layout::new("t", s, st, o, 4).is_ok();
        assert!(ok(&[2, 3], &[3, 1], 0));
        assert!(ok(&[0, usize::MAX >> 2], &[1, 1], 0), "empty, in bounds");
        assert!(!ok(&[1 << 62, 2], &[0, 1], 0), "bytes exceed i64::MAX");
        assert!(!ok(&[1 << 61, 8], &[0, 0], 0), "element count overflows");
        assert!(!ok(&[2], &[1 << 62], 1 << 62), "last element overflows i64");
        assert!(!ok(&[1; 9], &[1; 9], 0), "rank 9");
        assert!(!ok(&[2], &[1, 1], 0), "stride count");
        assert!(!ok(&[usize::MAX], &[0], 0), "extent above i64::MAX");
        let l = Layout::new("t", &[2, 3], &[1, 2], 5, 4).unwrap();
        assert_eq!(l.span(), Some((5, 10)));
        assert!(l.fits(11) && !l.fits(10));
        assert!(!l.is_contiguous());
        assert!(Layout::contiguous("t", &[2, 3], 0, 4)
            .unwrap()
            .is_contiguous());
    }

    #[test]
    fn offsets_walk_row_major() {
        let v: Vec<usize> = offsets(&[2, 3], &[1, 2], 5).collect();
        assert_eq!(v, [5, 7, 9, 6, 8, 10]);
        assert_eq!(offsets(&[], &[], 4).collect::<Vec<_>>(), [4]);
        assert_eq!(offsets(&[2, 0], &[1, 1], 0).count(), 0);
    }

    #[test]
    fn overlap_test_matches_the_inplace_copy_rule() {
        assert!(may_overlap(&[3, 4], &[0, 1]), "broadcast");
        assert!(may_overlap(&[5, 4], &[2, 1]), "windows");
        assert!(may_overlap(&[2, 3], &[4, 3]), "interleaved");
        assert!(!may_overlap(&[3, 4], &[1, 3]), "transpose");
        assert!(!may_overlap(&[3, 4], &[8, 2]), "strided slice");
        assert!(!may_overlap(&[1, 4], &[0, 1]), "extent-1 dims do not count");
    }

    #[test]
    fn as_strided_rules() {
        assert!(as_strided_params(9, &[2, 2], &[2, 3], &[2]).is_ok());
        assert!(as_strided_params(9, &[2, 2], &[2, 3], &[5]).is_err());
        assert!(as_strided_params(9, &[i64::MAX], &[i64::MAX], &[0]).is_err());
        assert!(as_strided_params(9, &[], &[], &[0]).is_err());
        assert!(as_strided_params(9, &[1], &[1], &[]).is_err());
    }
}
