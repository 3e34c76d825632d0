//! SliceV2 and SliceV3 — `aclnnSliceV2`, `aclnnSliceV3` (ops.md section
//! 31): Slice (section 1) along several axes at once, and a box given by
//! `begin` and `size`, as new contiguous tensors.

use crate::error::RefError;
use crate::ops::slice::{slice_range, SliceRange};
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "slice_v2";

/// Per axis of a tensor of `shape`, its range after the spec's rules on
/// `starts`, `ends`, `axes` and `steps` (in that checking order: `axes`'
/// range and repeats, the lengths of `starts`, `ends`, `steps`, then the
/// sign of the steps); an axis that is not sliced keeps its whole extent
/// with step 1. Returns `(range, step)` per axis.
pub fn slice_v2_ranges(
    shape: &[usize],
    starts: &[i64],
    ends: &[i64],
    axes: &[i64],
    steps: &[i64],
) -> Result<Vec<(SliceRange, i64)>, RefError> {
    check_rank(OP, shape.len(), 0)?;
    let rank = shape.len() as i128;
    let mut seen = [false; MAX_RANK];
    let mut dims = Vec::with_capacity(axes.len());
    for &a in axes {
        let v = i128::from(a);
        if v < -rank || v >= rank {
            return Err(RefError::invalid(
                OP,
                "axes",
                format!("entry {a} is outside [-{rank}, {}]", rank - 1),
            ));
        }
        let d = if v < 0 { v + rank } else { v } as usize;
        if std::mem::replace(&mut seen[d], true) {
            return Err(RefError::invalid(
                OP,
                "axes",
                format!("names axis {d} twice"),
            ));
        }
        dims.push(d);
    }
    for (param, len) in [
        ("starts", starts.len()),
        ("ends", ends.len()),
        ("steps", steps.len()),
    ] {
        if len != axes.len() {
            return Err(RefError::invalid(
                OP,
                param,
                format!("has {len} entries, axes {}", axes.len()),
            ));
        }
    }
    if let Some(s) = steps.iter().find(|&&s| s <= 0) {
        return Err(RefError::invalid(
            OP,
            "steps",
            format!("entries must be at least 1, got {s}"),
        ));
    }
    let mut out: Vec<(SliceRange, i64)> = shape
        .iter()
        .map(|&n| {
            (
                SliceRange {
                    start: 0,
                    end: n,
                    len: n,
                },
                1,
            )
        })
        .collect();
    for (i, &d) in dims.iter().enumerate() {
        // The step is positive (checked above), so this cannot fail.
        let r = slice_range(shape[d], starts[i], ends[i], steps[i])?;
        out[d] = (r, steps[i]);
    }
    Ok(out)
}

/// The output shape of `slice_v2` on an input of `shape` (the rules of
/// [`slice_v2_ranges`]).
pub fn slice_v2_out_shape(
    shape: &[usize],
    starts: &[i64],
    ends: &[i64],
    axes: &[i64],
    steps: &[i64],
) -> Result<Vec<usize>, RefError> {
    Ok(slice_v2_ranges(shape, starts, ends, axes, steps)?
        .iter()
        .map(|(r, _)| r.len)
        .collect())
}

/// `out[i] = x[j]`, `j_d = start'_d + i_d * step_d` on the sliced axes and
/// `i_d` elsewhere, as a new contiguous tensor of `x`'s dtype.
pub fn slice_v2(
    soc: &str,
    x: &Tensor,
    starts: &[i64],
    ends: &[i64],
    axes: &[i64],
    steps: &[i64],
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::SliceV2, soc, x.dtype())?;
    let ranges = slice_v2_ranges(x.shape(), starts, ends, axes, steps)?;
    let out_shape: Vec<usize> = ranges.iter().map(|(r, _)| r.len).collect();
    let bytes = output_byte_len(OP, "out", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "out", bytes)?;
    let mut src = [0usize; MAX_RANK];
    for idx in row_major(&out_shape) {
        for (d, &(r, step)) in ranges.iter().enumerate() {
            // Below end' <= N: start' + i * step for i < len.
            let pos = r.start as u128 + idx[d] as u128 * step as u128;
            src[d] = usize::try_from(pos).expect("slice positions stay below N");
        }
        out.extend_from_slice(x.element_bytes(&src[..x.rank()]));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

const OP_V3: &str = "slice_v3";

/// The output shape of `slice_v3` (`size`) on an input of `shape`, after
/// the spec's rules in order: rank 1..=8, `begin`'s then `size`'s length,
/// then dim by dim `begin[d]` in `[0, N]` and `size[d]` in `[0, N -
/// begin[d]]`.
pub fn slice_v3_out_shape(
    shape: &[usize],
    begin: &[i64],
    size: &[i64],
) -> Result<Vec<usize>, RefError> {
    check_rank(OP_V3, shape.len(), 1).map_err(|e| match e {
        RefError::InvalidArgument { reason, .. } => RefError::invalid(OP_V3, "self", reason),
        other => other,
    })?;
    let rank = shape.len();
    for (param, len) in [("begin", begin.len()), ("size", size.len())] {
        if len != rank {
            return Err(RefError::invalid(
                OP_V3,
                param,
                format!("has {len} entries for a rank-{rank} self"),
            ));
        }
    }
    for (d, &n) in shape.iter().enumerate() {
        let (b, z, n) = (i128::from(begin[d]), i128::from(size[d]), n as i128);
        if b < 0 || b > n {
            return Err(RefError::invalid(
                OP_V3,
                "begin",
                format!("entry {b} of dim {d} lies outside [0, {n}]"),
            ));
        }
        if z < 0 || b + z > n {
            return Err(RefError::invalid(
                OP_V3,
                "size",
                format!("entry {z} of dim {d} is negative or passes its extent {n} from {b}"),
            ));
        }
    }
    Ok(size.iter().map(|&z| z as usize).collect())
}

/// `out[i] = x[begin + i]` for every `i` below `size`, as a new contiguous
/// tensor of `x`'s dtype.
pub fn slice_v3(soc: &str, x: &Tensor, begin: &[i64], size: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::SliceV3, soc, x.dtype())?;
    let out_shape = slice_v3_out_shape(x.shape(), begin, size)?;
    let bytes = output_byte_len(OP_V3, "size", x.dtype(), &out_shape)?;
    let mut out = new_output(OP_V3, "size", bytes)?;
    let mut src = [0usize; MAX_RANK];
    for idx in row_major(&out_shape) {
        for d in 0..x.rank() {
            src[d] = begin[d] as usize + idx[d];
        }
        out.extend_from_slice(x.element_bytes(&src[..x.rank()]));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ops::slice::slice;
    use crate::test_util::*;

    fn param(r: Result<Tensor, RefError>) -> &'static str {
        match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cann_sample_and_several_axes() {
        // CANN's sample: [4, 2] = 0..8, axes [0, 1], starts [1, 1], ends [3, 2].
        let x = arange_i32(&[4, 2]);
        let y = slice_v2(A2_SOC, &x, &[1, 1], &[3, 2], &[0, 1], &[1, 1]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2usize, 1][..], vec![3, 5]));
        let x = arange_i32(&[3, 4]);
        let y = slice_v2(A2_SOC, &x, &[-1, 0], &[i64::MAX, 4], &[1, 0], &[2, 2]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2usize, 1][..], vec![3, 11]));
        // No axes: a copy; a 0-D self too.
        assert_eq!(
            ints(&slice_v2(A2_SOC, &x, &[], &[], &[], &[]).unwrap()),
            ints(&x)
        );
        let s = Tensor::scalar(7i32);
        assert_eq!(
            ints(&slice_v2(A2_SOC, &s, &[], &[], &[], &[]).unwrap()),
            [7]
        );
    }

    #[test]
    fn one_axis_equals_slice_and_views_equal_copies() {
        let x = arange_i32(&[3, 5]);
        for (st, en, step) in [(0, 5, 1), (-3, -1, 1), (i64::MIN, i64::MAX, 3), (4, 1, 1)] {
            assert_eq!(
                ints(&slice_v2(A2_SOC, &x, &[st], &[en], &[-1], &[step]).unwrap()),
                ints(&slice(A2_SOC, &x, 1, st, en, step).unwrap())
            );
        }
        let t = transposed_2x3();
        assert_eq!(
            ints(&slice_v2(A2_SOC, &t, &[1], &[3], &[0], &[1]).unwrap()),
            ints(&slice_v2(A2_SOC, &t.to_contiguous(), &[1], &[3], &[0], &[1]).unwrap())
        );
        let e = slice_v2(A2_SOC, &arange_i32(&[0, 3]), &[1], &[2], &[1], &[1]).unwrap();
        assert_eq!(e.shape(), &[0, 1]);
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 3]);
        assert_eq!(
            param(slice_v2(
                A2_SOC,
                &zeros(DType::Int8, &[1; 9]),
                &[],
                &[],
                &[],
                &[]
            )),
            "self"
        );
        assert_eq!(param(slice_v2(A2_SOC, &a, &[0], &[1], &[2], &[0])), "axes");
        assert_eq!(
            param(slice_v2(A2_SOC, &a, &[0], &[1], &[i64::MIN], &[1])),
            "axes"
        );
        assert_eq!(
            param(slice_v2(A2_SOC, &a, &[0, 0], &[1, 1], &[1, -1], &[1, 1])),
            "axes"
        );
        assert_eq!(param(slice_v2(A2_SOC, &a, &[], &[1], &[1], &[0])), "starts");
        assert_eq!(param(slice_v2(A2_SOC, &a, &[0], &[], &[1], &[0])), "ends");
        assert_eq!(param(slice_v2(A2_SOC, &a, &[0], &[1], &[1], &[])), "steps");
        assert_eq!(param(slice_v2(A2_SOC, &a, &[0], &[1], &[1], &[0])), "steps");
        assert_eq!(
            param(slice_v2(A2_SOC, &a, &[0], &[1], &[1], &[i64::MIN])),
            "steps"
        );
        assert!(slice_v2(A2_SOC, &a, &[0], &[1], &[1], &[i64::MAX]).is_ok());
        assert!(matches!(
            slice_v2(A2_SOC, &zeros(DType::Int16, &[1]), &[], &[], &[], &[]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            slice_v2(
                "Ascend910A",
                &zeros(DType::BFloat16, &[1]),
                &[],
                &[],
                &[],
                &[]
            ),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            slice_v2("Ascend310P3", &a, &[], &[], &[], &[]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }

    #[test]
    fn slice_v3_sample_equals_slice_v2_and_rules() {
        // CANN's sample: a [4, 3] int8 tensor, begin [1, 0], size [2, 2].
        let x = arange_i32(&[4, 3]);
        let y = slice_v3(A2_SOC, &x, &[1, 0], &[2, 2]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2usize, 2][..], vec![3, 4, 6, 7]));
        let t = transposed_2x3();
        assert_eq!(
            ints(&slice_v3(A2_SOC, &t, &[1, 0], &[2, 2]).unwrap()),
            ints(&slice_v2(A2_SOC, &t, &[1, 0], &[3, 2], &[0, 1], &[1, 1]).unwrap())
        );
        assert_eq!(
            slice_v3(A2_SOC, &x, &[4, 1], &[0, 2]).unwrap().shape(),
            &[0, 2]
        );
        let p = |r: Result<Tensor, RefError>| param(r);
        assert_eq!(p(slice_v3(A2_SOC, &Tensor::scalar(1i32), &[], &[])), "self");
        assert_eq!(
            p(slice_v3(
                A2_SOC,
                &zeros(DType::Int8, &[1; 9]),
                &[0; 9],
                &[1; 9]
            )),
            "self"
        );
        assert_eq!(p(slice_v3(A2_SOC, &x, &[0], &[1, 1])), "begin");
        assert_eq!(p(slice_v3(A2_SOC, &x, &[0, 0], &[1])), "size");
        assert_eq!(p(slice_v3(A2_SOC, &x, &[-1, 0], &[1, 1])), "begin");
        assert_eq!(p(slice_v3(A2_SOC, &x, &[5, 0], &[0, 1])), "begin");
        assert_eq!(p(slice_v3(A2_SOC, &x, &[0, 0], &[-1, 1])), "size");
        assert_eq!(p(slice_v3(A2_SOC, &x, &[3, 0], &[2, 1])), "size");
        assert_eq!(
            p(slice_v3(A2_SOC, &x, &[i64::MAX, 0], &[i64::MAX, 1])),
            "begin"
        );
        assert_eq!(p(slice_v3(A2_SOC, &x, &[1, 0], &[i64::MAX, 1])), "size");
        assert!(matches!(
            slice_v3(A2_SOC, &zeros(DType::Int64, &[1]), &[0], &[1]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(slice_v3(A2_SOC, &zeros(DType::Int16, &[1]), &[0], &[1]).is_ok());
        assert!(matches!(
            slice_v3("Ascend910_9391", &x, &[0, 0], &[1, 1]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
