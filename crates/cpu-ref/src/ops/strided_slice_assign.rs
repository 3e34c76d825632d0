//! StridedSliceAssignV2 — `aclnnStridedSliceAssignV2` (ops.md section 35):
//! `var[begin:end:strides along axes] = value`, returned as the new value
//! of `var` (a contiguous tensor).

use crate::error::RefError;
use crate::ops::check_rank;
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "strided_slice_assign_v2";

/// Per dim of a `var` of `shape`: `(begin', stride, len)` after the
/// spec's rules on the arrays, in order (lengths, axes, strides); dims not
/// listed are whole (`0, 1, N`).
pub fn strided_slice_assign_ranges(
    shape: &[usize],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    axes: Option<&[i64]>,
) -> Result<Vec<(usize, usize, usize)>, RefError> {
    let rank = shape.len();
    if begin.len() > rank {
        return Err(RefError::invalid(
            OP,
            "begin",
            format!("has {} entries for a rank-{rank} self", begin.len()),
        ));
    }
    for (param, len) in [("end", end.len()), ("strides", strides.len())] {
        if len != begin.len() {
            return Err(RefError::invalid(
                OP,
                param,
                format!("has {len} entries, begin {}", begin.len()),
            ));
        }
    }
    let k = begin.len();
    let dims: Vec<usize> = match axes {
        None => (0..k).collect(),
        Some(axes) => {
            if axes.len() != k {
                return Err(RefError::invalid(
                    OP,
                    "axes",
                    format!("has {} entries, begin {k}", axes.len()),
                ));
            }
            let r = rank as i128;
            let mut seen = [false; MAX_RANK];
            let mut dims = Vec::with_capacity(k);
            for &a in axes {
                let v = i128::from(a);
                if v < -r || v >= r {
                    return Err(RefError::invalid(
                        OP,
                        "axes",
                        format!("entry {a} is outside [-{rank}, {}]", r - 1),
                    ));
                }
                let d = if v < 0 { v + r } else { v } as usize;
                if std::mem::replace(&mut seen[d], true) {
                    return Err(RefError::invalid(
                        OP,
                        "axes",
                        format!("names axis {d} twice"),
                    ));
                }
                dims.push(d);
            }
            dims
        }
    };
    for (i, &s) in strides.iter().enumerate() {
        if s < 1 || (dims[i] == rank - 1 && s != 1) {
            return Err(RefError::invalid(
                OP,
                "strides",
                format!(
                    "entry {s} for axis {}: at least 1, and 1 on the last axis",
                    dims[i]
                ),
            ));
        }
    }
    let mut out: Vec<(usize, usize, usize)> = shape.iter().map(|&n| (0, 1, n)).collect();
    for (i, &d) in dims.iter().enumerate() {
        let n = shape[d] as i128;
        let norm = |v: i64| -> i128 {
            let v = i128::from(v);
            let v = if v < 0 { v + n } else { v };
            v.clamp(0, n)
        };
        let (b, e, s) = (norm(begin[i]), norm(end[i]), i128::from(strides[i]));
        let len = if e > b { (e - b + s - 1) / s } else { 0 };
        out[d] = (b as usize, s as usize, len as usize);
    }
    Ok(out)
}

/// Whether two logical indices of a view may share an element: its dims
/// of extent above 1, sorted by stride, each stride above the span of the
/// smaller ones (a stride of 0 overlaps).
fn overlaps(shape: &[usize], strides: &[usize]) -> bool {
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|&(&n, _)| n > 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut span: u128 = 0;
    for (s, n) in dims {
        if s as u128 <= span {
            return true;
        }
        span += (n as u128 - 1) * s as u128;
    }
    false
}

/// The new value of `var` after `var[slice] = value` (ops.md section 35),
/// as a contiguous tensor.
pub fn strided_slice_assign_v2(
    soc: &str,
    var: &Tensor,
    value: &Tensor,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    axes: Option<&[i64]>,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::StridedSliceAssignV2, soc, var.dtype())?;
    check_rank(OP, var.rank(), 1)?;
    if value.dtype() != var.dtype() {
        return Err(RefError::invalid(
            OP,
            "value",
            format!(
                "dtype {} differs from self's {}",
                value.dtype(),
                var.dtype()
            ),
        ));
    }
    let ranges = strided_slice_assign_ranges(var.shape(), begin, end, strides, axes)?;
    let want: Vec<usize> = ranges.iter().map(|r| r.2).collect();
    if value.shape() != &want[..] {
        return Err(RefError::invalid(
            OP,
            "value",
            format!(
                "shape {:?} must be the sliced shape {want:?}",
                value.shape()
            ),
        ));
    }
    if var.numel() > 0 && overlaps(var.shape(), var.strides()) {
        return Err(RefError::invalid(
            OP,
            "self",
            format!(
                "the view (shape {:?}, strides {:?}) addresses one element twice",
                var.shape(),
                var.strides()
            ),
        ));
    }
    let mut bytes = var.contiguous_bytes();
    let es = var.dtype().size();
    let shape = var.shape().to_vec();
    for idx in row_major(&want) {
        let mut flat = 0usize;
        for (d, &(b, s, _)) in ranges.iter().enumerate() {
            flat = flat * shape[d] + b + idx[d] * s;
        }
        bytes[flat * es..][..es].copy_from_slice(value.element_bytes(&idx));
    }
    Ok(Tensor::from_parts_contiguous(var.dtype(), shape, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    fn param(r: Result<Tensor, RefError>) -> &'static str {
        match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cann_sample_defaults_and_clamps() {
        // The page's sample: [4, 3] = 0..11, value [[-1, -2], [-3, -4]],
        // begin [1, 0], end [4, 2], strides [2, 1], axes [0, 1].
        let var = arange_i32(&[4, 3]);
        let value = Tensor::from_slice(&[2, 2], &[-1i32, -2, -3, -4]).unwrap();
        let y = strided_slice_assign_v2(
            A2_SOC,
            &var,
            &value,
            &[1, 0],
            &[4, 2],
            &[2, 1],
            Some(&[0, 1]),
        )
        .unwrap();
        assert_eq!(ints(&y), [0, 1, 2, -1, -2, 5, 6, 7, 8, -3, -4, 11]);
        // Default axes, a negative begin and an end past N.
        let y2 = strided_slice_assign_v2(
            A2_SOC,
            &var,
            &value,
            &[-3, 0],
            &[i64::MAX, 2],
            &[2, 1],
            None,
        )
        .unwrap();
        assert_eq!(ints(&y2), ints(&y));
        // Only the last axis listed; rows whole.
        let v = Tensor::from_slice(&[4, 1], &[9i32, 9, 9, 9]).unwrap();
        let y = strided_slice_assign_v2(A2_SOC, &var, &v, &[-1], &[3], &[1], Some(&[-1])).unwrap();
        assert_eq!(ints(&y), [0, 1, 9, 3, 4, 9, 6, 7, 9, 9, 10, 9]);
        // An empty slice writes nothing; a view of var reads as its values.
        let e = Tensor::from_slice(&[0, 3], &[] as &[i32]).unwrap();
        assert_eq!(
            ints(&strided_slice_assign_v2(A2_SOC, &var, &e, &[3], &[1], &[1], None).unwrap()),
            ints(&var)
        );
        let t = transposed_2x3(); // [3, 2]
        let v = Tensor::from_slice(&[1, 2], &[7i32, 8]).unwrap();
        let y = strided_slice_assign_v2(A2_SOC, &t, &v, &[1], &[2], &[1], None).unwrap();
        assert_eq!(ints(&y), [0, 3, 7, 8, 2, 5]);
    }

    #[test]
    fn rules_in_order() {
        let var = arange_i32(&[2, 3]);
        let v = arange_i32(&[1, 3]);
        let p = |b: &[i64], e: &[i64], s: &[i64], a: Option<&[i64]>, v: &Tensor| {
            param(strided_slice_assign_v2(A2_SOC, &var, v, b, e, s, a))
        };
        assert_eq!(
            param(strided_slice_assign_v2(
                A2_SOC,
                &Tensor::scalar(1i32),
                &v,
                &[],
                &[],
                &[],
                None
            )),
            "self"
        );
        assert_eq!(
            p(&[0], &[1], &[1], None, &zeros(DType::Float32, &[1, 3])),
            "value"
        );
        assert_eq!(p(&[0, 0, 0], &[1, 1, 1], &[1, 1, 1], None, &v), "begin");
        assert_eq!(p(&[0], &[], &[1], None, &v), "end");
        assert_eq!(p(&[0], &[1], &[1, 1], None, &v), "strides");
        assert_eq!(p(&[0], &[1], &[1], Some(&[]), &v), "axes");
        assert_eq!(p(&[0], &[1], &[1], Some(&[2]), &v), "axes");
        assert_eq!(p(&[0, 0], &[1, 1], &[1, 1], Some(&[1, -1]), &v), "axes");
        assert_eq!(p(&[0], &[1], &[0], None, &v), "strides");
        assert_eq!(p(&[0], &[3], &[2], Some(&[1]), &v), "strides");
        assert_eq!(p(&[0], &[2], &[1], None, &v), "value");
        let twice = arange_i32(&[3]).view(&[2, 3], &[0, 1], 0).unwrap();
        assert_eq!(
            param(strided_slice_assign_v2(
                A2_SOC,
                &twice,
                &v,
                &[0],
                &[1],
                &[1],
                None
            )),
            "self"
        );
        assert!(matches!(
            strided_slice_assign_v2(
                A2_SOC,
                &zeros(DType::Int16, &[1]),
                &zeros(DType::Int16, &[1]),
                &[],
                &[],
                &[],
                None
            ),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            strided_slice_assign_v2("Ascend910A", &var, &v, &[0], &[1], &[1], None),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
