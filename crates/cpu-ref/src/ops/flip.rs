//! Flip — `aclnnFlip` (ops.md section 19): the dims named in `dims`
//! reversed, as a new contiguous tensor.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "flip";

/// `dims` checked against a tensor of `rank` dims (`[-1, 0]` for rank 0)
/// and normalised: each entry in range, no dim named twice. Returns which
/// dims are flipped (`rank.max(1)` flags).
pub fn flip_dims(dims: &[i64], rank: usize) -> Result<Vec<bool>, RefError> {
    let r = rank.max(1) as i128;
    let mut flipped = vec![false; rank.max(1)];
    for &d in dims {
        let v = i128::from(d);
        if v < -r || v >= r {
            return Err(RefError::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{r}, {}]", r - 1),
            ));
        }
        let n = if v < 0 { v + r } else { v } as usize;
        if std::mem::replace(&mut flipped[n], true) {
            return Err(RefError::invalid(
                OP,
                "dims",
                format!("entry {d} names dim {n} a second time"),
            ));
        }
    }
    Ok(flipped)
}

/// `x` with the dims of `dims` reversed, as a new contiguous tensor of its
/// dtype and shape.
pub fn flip(soc: &str, x: &Tensor, dims: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Flip, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let flipped = flip_dims(dims, x.rank())?;
    let shape = x.shape().to_vec();
    let bytes = output_byte_len(OP, "self", x.dtype(), &shape)?;
    let mut out = new_output(OP, "self", bytes)?;
    let mut src = [0usize; MAX_RANK];
    for idx in row_major(&shape) {
        for (k, &i) in idx.iter().enumerate() {
            src[k] = if flipped[k] { shape[k] - 1 - i } else { i };
        }
        out.extend_from_slice(x.element_bytes(&src[..idx.len()]));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), shape, out))
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
    fn flips_as_cann_example() {
        // CANN's sample: a [4, 2] float tensor flipped along dim 0.
        let x = Tensor::from_slice(&[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.]).unwrap();
        let y = flip(A2_SOC, &x, &[0]).unwrap();
        assert_eq!(y.shape(), &[4, 2]);
        assert_eq!(y.to_vec::<f32>().unwrap(), [6., 7., 4., 5., 2., 3., 0., 1.]);
        let y = flip(A2_SOC, &x, &[-1, 0]).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [7., 6., 5., 4., 3., 2., 1., 0.]);
        assert_eq!(
            flip(A2_SOC, &x, &[]).unwrap().to_vec::<f32>().unwrap(),
            x.to_vec::<f32>().unwrap()
        );
    }

    #[test]
    fn views_zero_d_and_empty() {
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(ints(&flip(A2_SOC, &t, &[0]).unwrap()), [2, 5, 1, 4, 0, 3]);
        assert_eq!(ints(&flip(A2_SOC, &t, &[1]).unwrap()), [3, 0, 4, 1, 5, 2]);
        let s = Tensor::scalar(7i32);
        for dims in [&[][..], &[0], &[-1]] {
            assert_eq!(ints(&flip(A2_SOC, &s, dims).unwrap()), [7]);
        }
        assert_eq!(param(flip(A2_SOC, &s, &[1])), "dims");
        let e = arange_i32(&[0, 2]);
        assert_eq!(flip(A2_SOC, &e, &[1]).unwrap().shape(), &[0, 2]);
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 3]);
        assert_eq!(
            param(flip(A2_SOC, &zeros(DType::Int8, &[1; 9]), &[0])),
            "self"
        );
        assert_eq!(param(flip(A2_SOC, &a, &[2])), "dims");
        assert_eq!(param(flip(A2_SOC, &a, &[-3])), "dims");
        assert_eq!(param(flip(A2_SOC, &a, &[i64::MIN])), "dims");
        assert_eq!(param(flip(A2_SOC, &a, &[1, -1])), "dims");
        assert!(matches!(
            flip(A2_SOC, &zeros(DType::UInt16, &[1]), &[0]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(flip(A2_SOC, &zeros(DType::BFloat16, &[1]), &[0]).is_ok());
        for soc in ["Ascend910A", "Ascend310P3", "Ascend310B1"] {
            assert!(matches!(
                flip(soc, &a, &[0]),
                Err(RefError::UnsupportedOp { .. })
            ));
        }
    }
}
