//! ViewCopy — `aclnnViewCopy` (ops.md section 34): `dst` with the window of
//! `src` written over the window of `dst`, positions counted over each
//! tensor's elements in logical order.

use crate::error::RefError;
use crate::ops::window_reach;
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "view_copy";

/// A strided window over the elements of a tensor in logical order:
/// position `offset + sum_j(i_j * stride_j)` for every index `i` of `size`.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    /// The window's extents.
    pub size: &'a [i64],
    /// The step, in elements, of each extent.
    pub stride: &'a [i64],
    /// The first position.
    pub offset: i64,
}

/// The most positions a "written once" check enumerates (an interleaved
/// window with more is refused).
pub const ENUMERATED: u64 = 1 << 22;

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

/// The spec's rules for one window (`which` is `"dst"` or `"src"`) after
/// its lengths: the signs of its entries and its offset.
fn check_window(which: &str, w: Window<'_>) -> Result<(), RefError> {
    let (size, stride, offset) = match which {
        "dst" => ("dst_size", "dst_stride", "dst_offset"),
        _ => ("src_size", "src_stride", "src_offset"),
    };
    if let Some(v) = w.size.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            size,
            format!("entry {v} is negative"),
        ));
    }
    if let Some(v) = w.stride.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            stride,
            format!("entry {v} is negative"),
        ));
    }
    if w.offset < 0 {
        return Err(RefError::invalid(
            OP,
            offset,
            format!("{} is negative", w.offset),
        ));
    }
    Ok(())
}

/// The spec's rules in order (section 34), after the product and `dst`'s
/// dtype; on success the number of positions the window holds.
pub fn view_copy_check(
    dst: &Tensor,
    dst_w: Window<'_>,
    src: &Tensor,
    src_w: Window<'_>,
) -> Result<usize, RefError> {
    if src.dtype() != dst.dtype() {
        return Err(RefError::invalid(
            OP,
            "src",
            format!("dtype {} differs from dst's {}", src.dtype(), dst.dtype()),
        ));
    }
    for (t, name) in [(dst, "dst"), (src, "src")] {
        if t.rank() > MAX_RANK {
            return Err(RefError::invalid(
                OP,
                name,
                format!("rank must be at most {MAX_RANK}, got {}", t.rank()),
            ));
        }
    }
    let rank = dst_w.size.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "dst_size",
            format!("must have 1 to {MAX_RANK} entries, got {rank}"),
        ));
    }
    for (len, name) in [
        (dst_w.stride.len(), "dst_stride"),
        (src_w.size.len(), "src_size"),
        (src_w.stride.len(), "src_stride"),
    ] {
        if len != rank {
            return Err(RefError::invalid(
                OP,
                name,
                format!("has {len} entries, dst_size {rank}"),
            ));
        }
    }
    // Empty tensors: CANN returns before it reads the metadata, so only
    // the lengths above are checked.
    if dst.numel() == 0 || src.numel() == 0 {
        return Ok(0);
    }
    check_window("dst", dst_w)?;
    check_window("src", src_w)?;
    if src_w.size != dst_w.size {
        return Err(RefError::invalid(
            OP,
            "src_size",
            format!(
                "{:?} differs from dst_size {:?} (no broadcasting)",
                src_w.size, dst_w.size
            ),
        ));
    }
    if dst_w.size.contains(&0) {
        return Ok(0);
    }
    for (w, numel, name, which) in [
        (dst_w, dst.numel(), "dst_offset", "dst"),
        (src_w, src.numel(), "src_offset", "src"),
    ] {
        let last = window_reach(w.size, w.stride, w.offset);
        if last >= numel as i128 {
            return Err(RefError::invalid(
                OP,
                name,
                format!("the window's largest position, {last}, is not below {which}'s {numel} elements"),
            ));
        }
    }
    // Every relative position lies below span (checked against numel above).
    let span = (window_reach(dst_w.size, dst_w.stride, 0) + 1) as u64;
    if writes_twice(dst_w.size, dst_w.stride, span) {
        return Err(RefError::invalid(
            OP,
            "dst_stride",
            format!(
                "the window (size {:?}, stride {:?}) writes a position twice, or interleaves more \
                 than {ENUMERATED} positions",
                dst_w.size, dst_w.stride
            ),
        ));
    }
    let count = dst_w.size.iter().map(|&n| n as usize).product::<usize>();
    Ok(count)
}

/// `dst` (as a new contiguous tensor) with the window `src_w` of `src`
/// written over its window `dst_w`.
pub fn view_copy(
    soc: &str,
    dst: &Tensor,
    dst_w: Window<'_>,
    src: &Tensor,
    src_w: Window<'_>,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::ViewCopy, soc, dst.dtype())?;
    let count = view_copy_check(dst, dst_w, src, src_w)?;
    let mut bytes = dst.contiguous_bytes();
    let shape: Vec<usize> = dst_w.size.iter().map(|&n| n as usize).collect();
    if count == 0 {
        return Ok(Tensor::from_parts_contiguous(
            dst.dtype(),
            dst.shape().to_vec(),
            bytes,
        ));
    }
    let es = dst.dtype().size();
    for idx in row_major(&shape) {
        let at = |w: Window<'_>| {
            w.offset as usize
                + idx
                    .iter()
                    .zip(w.stride)
                    .map(|(&i, &s)| i * s as usize)
                    .sum::<usize>()
        };
        let (d, s) = (at(dst_w), at(src_w));
        bytes[d * es..(d + 1) * es].copy_from_slice(src.flat_element_bytes(s));
    }
    Ok(Tensor::from_parts_contiguous(
        dst.dtype(),
        dst.shape().to_vec(),
        bytes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    fn w<'a>(size: &'a [i64], stride: &'a [i64], offset: i64) -> Window<'a> {
        Window {
            size,
            stride,
            offset,
        }
    }

    fn param(r: Result<Tensor, RefError>) -> &'static str {
        match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn windows_views_and_empty() {
        let dst = arange_i32(&[3, 4]);
        let src = arange_i32(&[6]);
        // src[0..4] as 2x2 into dst's rows 0..2, columns 1..3.
        let y = view_copy(
            A2_SOC,
            &dst,
            w(&[2, 2], &[4, 1], 1),
            &src,
            w(&[2, 2], &[2, 1], 0),
        )
        .unwrap();
        assert_eq!(ints(&y), [0, 0, 1, 3, 4, 2, 3, 7, 8, 9, 10, 11]);
        assert_eq!(y.shape(), &[3, 4]);
        // A stride-0 read broadcasts one element of src over a column.
        let y = view_copy(A2_SOC, &dst, w(&[3], &[4], 0), &src, w(&[3], &[0], 5)).unwrap();
        assert_eq!(ints(&y), [5, 1, 2, 3, 5, 5, 6, 7, 5, 9, 10, 11]);
        // A view is read and written in its logical order.
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]: flat 0,3,1,4,2,5
        let y = view_copy(A2_SOC, &t, w(&[2], &[1], 0), &t, w(&[2], &[1], 4)).unwrap();
        assert_eq!(ints(&y), [2, 5, 1, 4, 2, 5]);
        // Zero extents copy dst only; empty tensors likewise.
        let y = view_copy(
            A2_SOC,
            &dst,
            w(&[0, 9], &[99, 99], 99),
            &src,
            w(&[0, 9], &[1, 1], 99),
        )
        .unwrap();
        assert_eq!(ints(&y), ints(&dst));
        let e = arange_i32(&[0]);
        assert_eq!(
            view_copy(A2_SOC, &e, w(&[0], &[1], 0), &src, w(&[0], &[1], 0))
                .unwrap()
                .shape(),
            &[0]
        );
        // An empty tensor: the metadata is not read, so not checked.
        assert!(view_copy(A2_SOC, &e, w(&[1], &[-1], 7), &src, w(&[3], &[1], -2)).is_ok());
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &e,
                w(&[1], &[1, 1], 0),
                &src,
                w(&[1], &[1], 0)
            )),
            "dst_stride"
        );
    }

    #[test]
    fn windows_that_write_twice() {
        let dst = arange_i32(&[12]);
        let src = arange_i32(&[12]);
        // Interleaved but apart: positions 0,3,6,4,7,10.
        assert!(view_copy(
            A2_SOC,
            &dst,
            w(&[2, 3], &[4, 3], 0),
            &src,
            w(&[2, 3], &[3, 1], 0)
        )
        .is_ok());
        // 0,2,4 and 2,4,6 meet.
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &dst,
                w(&[2, 3], &[2, 2], 0),
                &src,
                w(&[2, 3], &[3, 1], 0)
            )),
            "dst_stride"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &dst,
                w(&[2], &[0], 0),
                &src,
                w(&[2], &[1], 0)
            )),
            "dst_stride"
        );
        // More positions than dst has (a count past usize too): never enumerated.
        for size in [[i64::MAX, 1], [1 << 40, 1 << 40]] {
            assert_eq!(
                param(view_copy(
                    A2_SOC,
                    &dst,
                    w(&size, &[0, 0], 0),
                    &src,
                    w(&size, &[0, 0], 0)
                )),
                "dst_stride"
            );
        }
        // Reading twice is fine.
        assert!(view_copy(A2_SOC, &dst, w(&[2], &[1], 0), &src, w(&[2], &[0], 0)).is_ok());
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[2, 3]);
        let f = zeros(DType::Float32, &[2, 3]);
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &f,
                w(&[1], &[1], 0)
            )),
            "src"
        );
        let big = zeros(DType::Int32, &[1; 9]);
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &big,
                w(&[1], &[1], 0),
                &x,
                w(&[1], &[1], 0)
            )),
            "dst"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &big,
                w(&[1], &[1], 0)
            )),
            "src"
        );
        assert_eq!(
            param(view_copy(A2_SOC, &x, w(&[], &[], 0), &x, w(&[], &[], 0))),
            "dst_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1; 9], &[1; 9], 0),
                &x,
                w(&[1; 9], &[1; 9], 0)
            )),
            "dst_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1, 1], 0),
                &x,
                w(&[1], &[1], 0)
            )),
            "dst_stride"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &x,
                w(&[1, 1], &[1], 0)
            )),
            "src_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &x,
                w(&[1], &[1, 1], 0)
            )),
            "src_stride"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[-1], &[-1], -1),
                &x,
                w(&[1], &[1], 0)
            )),
            "dst_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[-1], -1),
                &x,
                w(&[1], &[1], 0)
            )),
            "dst_stride"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], -1),
                &x,
                w(&[-1], &[1], 0)
            )),
            "dst_offset"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &x,
                w(&[-1], &[-1], -1)
            )),
            "src_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &x,
                w(&[1], &[-1], -1)
            )),
            "src_stride"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[1], &[1], 0),
                &x,
                w(&[1], &[1], -1)
            )),
            "src_offset"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[2], &[1], 0),
                &x,
                w(&[3], &[1], 0)
            )),
            "src_size"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[2], &[6], 0),
                &x,
                w(&[2], &[9], 0)
            )),
            "dst_offset"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[2], &[1], 0),
                &x,
                w(&[2], &[5], 1)
            )),
            "src_offset"
        );
        assert_eq!(
            param(view_copy(
                A2_SOC,
                &x,
                w(&[i64::MAX; 8], &[i64::MAX; 8], i64::MAX),
                &x,
                w(&[i64::MAX; 8], &[1; 8], 0)
            )),
            "dst_offset"
        );
        assert!(matches!(
            view_copy(
                A2_SOC,
                &zeros(DType::Float64, &[1]),
                w(&[1], &[1], 0),
                &zeros(DType::Float64, &[1]),
                w(&[1], &[1], 0)
            ),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            view_copy("Ascend910_9391", &x, w(&[1], &[1], 0), &x, w(&[1], &[1], 0)),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
