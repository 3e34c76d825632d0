//! SplitTensor and SplitWithSize — `aclnnSplitTensor`,
//! `aclnnSplitWithSize` (ops.md section 12): one tensor cut along a dim
//! into a list of tensors.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

/// The extents along `dim` of the pieces of `split_tensor`: `n` cut into
/// pieces of `sections` (the last one shorter), or, for `n == 0` and
/// `sections == 0`, one empty piece.
pub fn split_tensor_sizes(n: usize, sections: u64) -> Result<Vec<usize>, RefError> {
    const OP: &str = "split_tensor";
    match (n, sections) {
        (0, 0) => Ok(vec![0]),
        (0, _) => Err(RefError::invalid(
            OP,
            "split_sections",
            format!("the extent along dim is 0, so split_sections must be 0, got {sections}"),
        )),
        (_, 0) => Err(RefError::invalid(
            OP,
            "split_sections",
            format!("must be positive for an extent of {n}"),
        )),
        (n, s) => {
            let s = usize::try_from(s).unwrap_or(usize::MAX).min(n);
            Ok((0..n).step_by(s).map(|a| s.min(n - a)).collect())
        }
    }
}

/// `x` cut along `dim` into pieces of `sections` (the last one shorter),
/// each a new contiguous tensor of `x`'s dtype.
pub fn split_tensor(
    soc: &str,
    x: &Tensor,
    sections: u64,
    dim: i64,
) -> Result<Vec<Tensor>, RefError> {
    const OP: &str = "split_tensor";
    check_op_dtype(Op::SplitTensor, soc, x.dtype())?;
    check_rank(OP, x.rank(), 1)?;
    let d = normalize_dim(OP, dim, x.rank())?;
    let sizes = split_tensor_sizes(x.shape()[d], sections)?;
    pieces(OP, x, d, &sizes)
}

/// `x` cut along `dim` into pieces of the extents `sizes` (each at least
/// 0, summing to `x`'s extent), each a new contiguous tensor. At most 32
/// pieces of DOUBLE, COMPLEX64 or COMPLEX128 (CANN's documented limit).
pub fn split_with_size(
    soc: &str,
    x: &Tensor,
    sizes: &[i64],
    dim: i64,
) -> Result<Vec<Tensor>, RefError> {
    const OP: &str = "split_with_size";
    check_op_dtype(Op::SplitWithSize, soc, x.dtype())?;
    check_rank(OP, x.rank(), 1)?;
    let d = normalize_dim(OP, dim, x.rank())?;
    if sizes.is_empty() {
        return Err(RefError::invalid(
            OP,
            "split_size",
            "must hold at least one size",
        ));
    }
    if let Some(v) = sizes.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            "split_size",
            format!("sizes must be non-negative, got {v}"),
        ));
    }
    let n = x.shape()[d];
    let sum = sizes.iter().try_fold(0u64, |a, &v| a.checked_add(v as u64));
    if sum != Some(n as u64) {
        return Err(RefError::invalid(
            OP,
            "split_size",
            format!("the sizes {sizes:?} must sum to the extent {n} along dim {d}"),
        ));
    }
    let wide = matches!(
        x.dtype(),
        crate::DType::Float64 | crate::DType::Complex64 | crate::DType::Complex128
    );
    if wide && sizes.len() > 32 {
        return Err(RefError::invalid(
            OP,
            "split_size",
            format!("at most 32 pieces of {}, got {}", x.dtype(), sizes.len()),
        ));
    }
    let sizes: Vec<usize> = sizes.iter().map(|&v| v as usize).collect();
    pieces(OP, x, d, &sizes)
}

/// The pieces of `x` along `d` of the extents `sizes` (summing to the
/// extent).
fn pieces(
    op: &'static str,
    x: &Tensor,
    d: usize,
    sizes: &[usize],
) -> Result<Vec<Tensor>, RefError> {
    let mut out = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &len in sizes {
        let mut shape = x.shape().to_vec();
        shape[d] = len;
        let bytes = output_byte_len(op, "self", x.dtype(), &shape)?;
        let mut buf = new_output(op, "self", bytes)?;
        for idx in row_major(&shape) {
            let mut src = idx.clone();
            src[d] += start;
            buf.extend_from_slice(x.element_bytes(&src));
        }
        out.push(Tensor::from_parts_contiguous(x.dtype(), shape, buf));
        start += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use crate::DType;

    #[test]
    fn split_tensor_as_cann_example() {
        let x = Tensor::from_slice(&[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.]).unwrap();
        let y = split_tensor(A2_SOC, &x, 2, 0).unwrap();
        assert_eq!(y.len(), 2);
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [0., 1., 2., 3.]);
        assert_eq!(y[1].to_vec::<f32>().unwrap(), [4., 5., 6., 7.]);
        // The last piece shorter; sections past the extent: one piece.
        let y = split_tensor(A2_SOC, &arange_i32(&[2, 5]), 2, -1).unwrap();
        assert_eq!(
            y.iter().map(|t| t.shape()[1]).collect::<Vec<_>>(),
            [2, 2, 1]
        );
        assert_eq!(ints(&y[2]), [4, 9]);
        assert_eq!(
            split_tensor(A2_SOC, &arange_i32(&[3]), u64::MAX, 0)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn split_with_size_as_cann_example() {
        let x = arange_i32(&[5, 2]);
        let y = split_with_size(A2_SOC, &x, &[1, 4], 0).unwrap();
        assert_eq!(ints(&y[0]), [0, 1]);
        assert_eq!(ints(&y[1]), [2, 3, 4, 5, 6, 7, 8, 9]);
        // Views, and empty pieces.
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = split_with_size(A2_SOC, &t, &[0, 3, 0], 0).unwrap();
        assert_eq!(
            (y[0].shape(), ints(&y[1])),
            (&[0usize, 2][..], vec![0, 3, 1, 4, 2, 5])
        );
    }

    #[test]
    fn rules() {
        let x = arange_i32(&[4]);
        let param = |r: Result<Vec<Tensor>, RefError>| match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        };
        assert_eq!(param(split_tensor(A2_SOC, &x, 0, 0)), "split_sections");
        assert_eq!(
            param(split_tensor(A2_SOC, &arange_i32(&[0]), 1, 0)),
            "split_sections"
        );
        assert_eq!(
            split_tensor(A2_SOC, &arange_i32(&[0]), 0, 0).unwrap().len(),
            1
        );
        assert_eq!(param(split_tensor(A2_SOC, &x, 1, 1)), "dim");
        assert_eq!(
            param(split_tensor(A2_SOC, &Tensor::scalar(1i32), 1, 0)),
            "self"
        );
        assert_eq!(param(split_with_size(A2_SOC, &x, &[1, 2], 0)), "split_size");
        assert_eq!(
            param(split_with_size(A2_SOC, &x, &[5, -1], 0)),
            "split_size"
        );
        assert_eq!(param(split_with_size(A2_SOC, &x, &[], 0)), "split_size");
        let f = zeros(DType::Float64, &[33]);
        assert_eq!(
            param(split_with_size(A2_SOC, &f, &[1; 33], 0)),
            "split_size"
        );
        assert!(split_with_size(A2_SOC, &zeros(DType::Float32, &[33]), &[1; 33], 0).is_ok());
        assert!(matches!(
            split_with_size("Ascend310P3", &x, &[4], 0),
            Err(RefError::UnsupportedOp { .. })
        ));
        assert!(split_tensor("Ascend310P3", &x, 4, 0).is_ok());
        assert!(matches!(
            split_tensor(A2_SOC, &zeros(DType::UInt32, &[2]), 1, 0),
            Err(RefError::UnsupportedDtype { .. })
        ));
    }
}
