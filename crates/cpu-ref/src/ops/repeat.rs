//! Repeat — `aclnnRepeat` (ops.md section 22): `self` tiled `repeats`
//! times along each dim, as a new contiguous tensor.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "repeat";

/// The output shape of `repeat` of a tensor of `shape` by `repeats`
/// (aligned from the right), after the spec's rules on `repeats`.
pub fn repeat_out_shape(shape: &[usize], repeats: &[i64]) -> Result<Vec<usize>, RefError> {
    let rank = shape.len();
    if repeats.len() < rank || repeats.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "repeats",
            format!(
                "must have {rank} to {MAX_RANK} entries for a rank-{rank} self, got {}",
                repeats.len()
            ),
        ));
    }
    if let Some(v) = repeats.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            "repeats",
            format!("entries must be at least 0, got {v}"),
        ));
    }
    let off = repeats.len() - rank;
    let mut out = Vec::with_capacity(repeats.len());
    for (d, &r) in repeats.iter().enumerate() {
        let n = if d < off { 1 } else { shape[d - off] as i64 };
        let e = r.checked_mul(n).ok_or_else(|| {
            RefError::invalid(OP, "repeats", format!("{r} x {n} overflows 64 bits"))
        })?;
        out.push(e as usize);
    }
    if out
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul((d as i64).max(1)))
        .is_none()
    {
        return Err(RefError::invalid(
            OP,
            "repeats",
            format!("the output shape {out:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(out)
}

/// `x` tiled: `out[i] = x[i_d mod shape[d]]`, with `x` seen with leading
/// extent-1 dims when `repeats` is longer than its rank.
pub fn repeat(soc: &str, x: &Tensor, repeats: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Repeat, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let out_shape = repeat_out_shape(x.shape(), repeats)?;
    let bytes = output_byte_len(OP, "repeats", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "repeats", bytes)?;
    let off = out_shape.len() - x.rank();
    let mut src = [0usize; MAX_RANK];
    for idx in row_major(&out_shape) {
        for (d, &n) in x.shape().iter().enumerate() {
            src[d] = idx[off + d] % n;
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
    fn repeats_as_cann_page() {
        // [[a,b],[c,d],[e,f]] by (2, 4): [6, 8]; by (2, 4, 2): [2, 12, 4].
        let x = arange_i32(&[3, 2]);
        let y = repeat(A2_SOC, &x, &[2, 4]).unwrap();
        assert_eq!(y.shape(), &[6, 8]);
        let v = ints(&y);
        assert_eq!(&v[..8], &[0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!(&v[8..16], &[2, 3, 2, 3, 2, 3, 2, 3]);
        assert_eq!(&v[24..32], &[0, 1, 0, 1, 0, 1, 0, 1]);
        let y = repeat(A2_SOC, &x, &[2, 4, 2]).unwrap();
        assert_eq!(y.shape(), &[2, 12, 4]);
        let v = ints(&y);
        assert_eq!(&v[..8], &[0, 1, 0, 1, 2, 3, 2, 3]);
        assert_eq!(&v[48..52], &[0, 1, 0, 1]);
    }

    #[test]
    fn views_zero_d_and_empty() {
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&repeat(A2_SOC, &t, &[1, 2]).unwrap()),
            [0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5]
        );
        let s = Tensor::scalar(7i32);
        assert_eq!(ints(&repeat(A2_SOC, &s, &[]).unwrap()), [7]);
        assert_eq!(ints(&repeat(A2_SOC, &s, &[3]).unwrap()), [7, 7, 7]);
        assert_eq!(repeat(A2_SOC, &t, &[0, 2]).unwrap().shape(), &[0, 4]);
        assert_eq!(
            repeat(A2_SOC, &arange_i32(&[0, 2]), &[3, 1])
                .unwrap()
                .shape(),
            &[0, 2]
        );
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 3]);
        assert_eq!(
            param(repeat(A2_SOC, &zeros(DType::Int8, &[1; 9]), &[1; 9])),
            "self"
        );
        assert_eq!(param(repeat(A2_SOC, &a, &[2])), "repeats");
        assert_eq!(param(repeat(A2_SOC, &a, &[1; 9])), "repeats");
        assert_eq!(param(repeat(A2_SOC, &a, &[1, -1])), "repeats");
        assert_eq!(param(repeat(A2_SOC, &a, &[i64::MAX, 2])), "repeats");
        assert_eq!(param(repeat(A2_SOC, &a, &[1 << 40, 1 << 40])), "repeats");
        assert!(matches!(
            repeat("Ascend910A", &zeros(DType::BFloat16, &[1]), &[1]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(repeat("Ascend310P3", &zeros(DType::UInt64, &[1]), &[2]).is_ok());
        assert!(matches!(
            repeat("Ascend310B1", &a, &[1, 1]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
