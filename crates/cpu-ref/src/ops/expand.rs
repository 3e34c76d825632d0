//! Expand — `aclnnExpand` (ops.md section 21): `self` broadcast to `size`,
//! as a new contiguous tensor.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "expand";

/// The output shape of `expand` of a tensor of `shape` to `size`, after
/// the spec's rules on `size`: at least `rank` and at most 8 entries, none
/// negative, each aligned dim of `shape` equal to its entry or 1.
pub fn expand_out_shape(shape: &[usize], size: &[i64]) -> Result<Vec<usize>, RefError> {
    let rank = shape.len();
    if size.len() < rank || size.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "size",
            format!(
                "must have {rank} to {MAX_RANK} entries for a rank-{rank} self, got {}",
                size.len()
            ),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("entries must be at least 0, got {v}"),
        ));
    }
    let off = size.len() - rank;
    for (d, &n) in shape.iter().enumerate() {
        let want = size[off + d];
        if n != 1 && n as i128 != i128::from(want) {
            return Err(RefError::invalid(
                OP,
                "size",
                format!("dim {d} of self has extent {n}: size entry {want} must equal it, or self's be 1"),
            ));
        }
    }
    let out: Vec<usize> = size.iter().map(|&v| v as usize).collect();
    if out
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul((d as i64).max(1)))
        .is_none()
    {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("the output shape {out:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(out)
}

/// `x` broadcast to `size` (aligned from the right, new leading dims), as
/// a new contiguous tensor of `x`'s dtype.
pub fn expand(soc: &str, x: &Tensor, size: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Expand, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let out_shape = expand_out_shape(x.shape(), size)?;
    let bytes = output_byte_len(OP, "size", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "size", bytes)?;
    let off = out_shape.len() - x.rank();
    let mut src = [0usize; MAX_RANK];
    for idx in row_major(&out_shape) {
        for (d, &n) in x.shape().iter().enumerate() {
            src[d] = if n == 1 { 0 } else { idx[off + d] };
        }
        out.extend_from_slice(x.element_bytes(&src[..x.rank()]));
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
    fn expands_as_cann_examples() {
        // The page: [[a, b, c]] to [2, 3]; [[5]] to [3, 4]; the sample: [4, 2] to [4, 2].
        let x = Tensor::from_slice(&[1, 3], &[1i32, 2, 3]).unwrap();
        assert_eq!(
            ints(&expand(A2_SOC, &x, &[2, 3]).unwrap()),
            [1, 2, 3, 1, 2, 3]
        );
        let x = Tensor::from_slice(&[1, 1], &[5i32]).unwrap();
        let y = expand(A2_SOC, &x, &[3, 4]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[3usize, 4][..], vec![5; 12]));
        let x = arange_i32(&[4, 2]);
        assert_eq!(ints(&expand(A2_SOC, &x, &[4, 2]).unwrap()), ints(&x));
    }

    #[test]
    fn new_dims_views_zero_d_and_empty() {
        let x = arange_i32(&[3, 1]);
        let y = expand(A2_SOC, &x, &[2, 3, 2]).unwrap();
        assert_eq!(ints(&y), [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&expand(A2_SOC, &t, &[2, 3, 2]).unwrap()),
            [0, 3, 1, 4, 2, 5, 0, 3, 1, 4, 2, 5]
        );
        let s = Tensor::scalar(7i32);
        assert_eq!(ints(&expand(A2_SOC, &s, &[]).unwrap()), [7]);
        assert_eq!(ints(&expand(A2_SOC, &s, &[2]).unwrap()), [7, 7]);
        assert_eq!(expand(A2_SOC, &x, &[3, 0]).unwrap().shape(), &[3, 0]);
        assert_eq!(
            expand(A2_SOC, &arange_i32(&[0, 1]), &[0, 4])
                .unwrap()
                .shape(),
            &[0, 4]
        );
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 1]);
        assert_eq!(
            param(expand(A2_SOC, &zeros(DType::Int8, &[1; 9]), &[1; 9])),
            "self"
        );
        assert_eq!(param(expand(A2_SOC, &a, &[2])), "size");
        assert_eq!(param(expand(A2_SOC, &a, &[1; 9])), "size");
        assert_eq!(param(expand(A2_SOC, &a, &[2, -1])), "size");
        assert_eq!(param(expand(A2_SOC, &a, &[3, 2])), "size");
        assert_eq!(param(expand(A2_SOC, &a, &[i64::MIN, 2, 1])), "size");
        assert!(expand(A2_SOC, &a, &[5, 2, 4]).is_ok());
        assert!(matches!(
            expand(A2_SOC, &zeros(DType::Int16, &[1]), &[1]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            expand("Ascend910A", &zeros(DType::BFloat16, &[1]), &[1]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            expand("Ascend310B1", &a, &[2, 1]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
