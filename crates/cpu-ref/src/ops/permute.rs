//! Permute — `aclnnPermute` (ops.md section 18): the dims of `self`
//! reordered, as a new contiguous tensor.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "permute";

/// `dims` checked against a tensor of `rank` dims and normalised: exactly
/// `rank` entries, each in `[-rank, rank-1]`, no dim named twice
/// (ops.md §18's rules, param `dims`).
pub fn permute_dims(dims: &[i64], rank: usize) -> Result<Vec<usize>, RefError> {
    if dims.len() != rank {
        return Err(RefError::invalid(
            OP,
            "dims",
            format!(
                "must have one entry per dim of self ({rank}), got {}",
                dims.len()
            ),
        ));
    }
    let r = rank as i128;
    let mut seen = [false; crate::tensor::MAX_RANK];
    let mut out = Vec::with_capacity(rank);
    for &d in dims {
        let v = i128::from(d);
        if v < -r || v >= r {
            return Err(RefError::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{rank}, {}]", r - 1),
            ));
        }
        out.push(if v < 0 { v + r } else { v } as usize);
    }
    for (&n, &d) in out.iter().zip(dims) {
        if std::mem::replace(&mut seen[n], true) {
            return Err(RefError::invalid(
                OP,
                "dims",
                format!("entry {d} names dim {n} a second time"),
            ));
        }
    }
    Ok(out)
}

/// The output shape of `permute` of a tensor of `shape`:
/// `out[k] = shape[dims[k]]`, after [`permute_dims`]'s checks and the
/// rank rule (param `self`).
pub fn permute_out_shape(shape: &[usize], dims: &[i64]) -> Result<Vec<usize>, RefError> {
    check_rank(OP, shape.len(), 0)?;
    let d = permute_dims(dims, shape.len())?;
    Ok(d.iter().map(|&k| shape[k]).collect())
}

/// `self` with dim `k` of the result taken from dim `dims[k]` of `x`, as a
/// new contiguous tensor of `x`'s dtype.
pub fn permute(soc: &str, x: &Tensor, dims: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Permute, soc, x.dtype())?;
    let out_shape = permute_out_shape(x.shape(), dims)?;
    let order = permute_dims(dims, x.rank())?;
    let bytes = output_byte_len(OP, "self", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "self", bytes)?;
    let mut src = vec![0usize; x.rank()];
    for idx in row_major(&out_shape) {
        for (k, &i) in idx.iter().enumerate() {
            src[order[k]] = i;
        }
        out.extend_from_slice(x.element_bytes(&src));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
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
    fn permutes_as_cann_example() {
        // CANN's sample: a [4, 2] float tensor with dims (1, 0).
        let x = Tensor::from_slice(&[4, 2], &[1f32, 2., 3., 4., 5., 6., 7., 8.]).unwrap();
        let y = permute(A2_SOC, &x, &[1, 0]).unwrap();
        assert_eq!(y.shape(), &[2, 4]);
        assert_eq!(y.to_vec::<f32>().unwrap(), [1., 3., 5., 7., 2., 4., 6., 8.]);
        // The page's [2, 3, 5] with dims (2, 0, 1) gives [5, 2, 3].
        let x = arange_i32(&[2, 3, 5]);
        let y = permute(A2_SOC, &x, &[2, 0, 1]).unwrap();
        assert_eq!(y.shape(), &[5, 2, 3]);
        let v = ints(&y);
        for c in 0..5 {
            for a in 0..2 {
                for b in 0..3 {
                    assert_eq!(v[c * 6 + a * 3 + b], (a * 15 + b * 5 + c) as i32);
                }
            }
        }
        assert_eq!(ints(&permute(A2_SOC, &x, &[-1, 0, -2]).unwrap()), v);
    }

    #[test]
    fn views_zero_d_and_empty() {
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = permute(A2_SOC, &t, &[1, 0]).unwrap();
        assert_eq!(
            (y.shape(), ints(&y)),
            (&[2usize, 3][..], vec![0, 1, 2, 3, 4, 5])
        );
        let s = Tensor::scalar(7i32);
        let y = permute(A2_SOC, &s, &[]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![7]));
        let e = arange_i32(&[0, 2, 3]);
        assert_eq!(permute(A2_SOC, &e, &[2, 0, 1]).unwrap().shape(), &[3, 0, 2]);
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 3]);
        assert_eq!(
            param(permute(A2_SOC, &zeros(DType::Int8, &[1; 9]), &[0; 9])),
            "self"
        );
        assert_eq!(param(permute(A2_SOC, &a, &[0])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[0, 1, 2])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[0, 2])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[-3, 0])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[1, 1])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[-1, 1])), "dims");
        assert_eq!(param(permute(A2_SOC, &a, &[i64::MIN, 0])), "dims");
        assert!(permute(A2_SOC, &a, &[-1, -2]).is_ok());
        assert!(matches!(
            permute("Ascend910A", &zeros(DType::Complex128, &[1]), &[0]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(permute("Ascend910A", &zeros(DType::Complex64, &[1]), &[0]).is_ok());
        assert!(permute(A2_SOC, &zeros(DType::Complex128, &[1]), &[0]).is_ok());
        assert!(matches!(
            permute("Ascend310P3", &a, &[0, 1]),
            Err(RefError::UnsupportedOp { .. })
        ));
        // The product comes before the rank.
        assert!(matches!(
            permute("Ascend310B1", &zeros(DType::Int8, &[1; 9]), &[]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
