//! MaskedSelect — `aclnnMaskedSelect` (ops.md section 29): the elements of
//! `self` where a broadcast `mask` is true, as a 1-D tensor.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::elementwise::broadcast_shape;
use crate::ops::{check_rank, new_output};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "masked_select";

/// The broadcast shape of `self` and `mask` (`mask` of rank at most 8; an
/// extent pair that does not broadcast, or a broadcast element count past
/// `i64::MAX`, is invalid, param `mask`).
pub fn masked_select_shape(
    self_shape: &[usize],
    mask_shape: &[usize],
) -> Result<Vec<usize>, RefError> {
    check_rank(OP, self_shape.len(), 0)?;
    if mask_shape.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "mask",
            format!("rank must be at most {MAX_RANK}, got {}", mask_shape.len()),
        ));
    }
    let shape = broadcast_shape(self_shape, mask_shape).ok_or_else(|| {
        RefError::invalid(
            OP,
            "mask",
            format!("shape {mask_shape:?} does not broadcast with self's {self_shape:?}"),
        )
    })?;
    // 0 when an extent is 0, whatever the others multiply to.
    let fits = shape.contains(&0)
        || shape
            .iter()
            .try_fold(1u64, |n, &e| n.checked_mul(e as u64))
            .is_some_and(|n| n <= i64::MAX as u64);
    if !fits {
        return Err(RefError::invalid(
            OP,
            "mask",
            format!("the broadcast shape {shape:?} has more than i64::MAX elements"),
        ));
    }
    Ok(shape)
}

/// The elements of `x` where `mask` (BOOL or UINT8; any non-zero byte is
/// true) is true, both broadcast to one shape, in its row-major order: a
/// new contiguous 1-D tensor of `x`'s dtype.
pub fn masked_select(soc: &str, x: &Tensor, mask: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::MaskedSelect, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    if !matches!(mask.dtype(), DType::Bool | DType::UInt8) {
        return Err(RefError::invalid(
            OP,
            "mask",
            format!("dtype must be bool or uint8, got {}", mask.dtype()),
        ));
    }
    let shape = masked_select_shape(x.shape(), mask.shape())?;
    let r = shape.len();
    let pick = |t: &Tensor, p: &[usize]| -> Vec<usize> {
        let lead = r - t.rank();
        (0..t.rank())
            .map(|k| if t.shape()[k] == 1 { 0 } else { p[lead + k] })
            .collect()
    };
    let mut out = new_output(OP, "mask", 0)?;
    let mut n = 0usize;
    for p in row_major(&shape) {
        if mask.element_bytes(&pick(mask, &p))[0] != 0 {
            out.extend_from_slice(x.element_bytes(&pick(x, &p)));
            n += 1;
        }
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), vec![n], out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;

    fn bools(shape: &[usize], v: &[u8]) -> Tensor {
        Tensor::from_bytes(DType::Bool, shape, v.to_vec()).unwrap()
    }

    #[test]
    fn selects_with_broadcast() {
        // CANN's sample: [4, 2] of 0..8, the last four true.
        let x = arange_i32(&[4, 2]);
        let y = masked_select(A2_SOC, &x, &bools(&[4, 2], &[0, 0, 0, 0, 1, 1, 1, 1])).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[4][..], vec![4, 5, 6, 7]));
        // A [2] mask over [3, 2]; a [3, 1] self against a [2] mask.
        let y = masked_select(A2_SOC, &arange_i32(&[3, 2]), &bools(&[2], &[0, 1])).unwrap();
        assert_eq!(ints(&y), [1, 3, 5]);
        let m = Tensor::from_bytes(DType::UInt8, &[2], vec![1, 7]).unwrap();
        let y = masked_select(A2_SOC, &arange_i32(&[3, 1]), &m).unwrap();
        assert_eq!(ints(&y), [0, 0, 1, 1, 2, 2]);
        // A transposed self, a 0-D mask, nothing selected.
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = masked_select(A2_SOC, &xt, &bools(&[3, 2], &[1, 0, 0, 1, 1, 0])).unwrap();
        assert_eq!(ints(&y), [0, 4, 2]);
        assert_eq!(
            masked_select(A2_SOC, &xt, &bools(&[], &[1]))
                .unwrap()
                .numel(),
            6
        );
        assert_eq!(
            masked_select(A2_SOC, &xt, &bools(&[], &[0]))
                .unwrap()
                .shape(),
            &[0]
        );
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[3, 2]);
        let e = masked_select(A2_SOC, &x, &zeros(DType::Int8, &[2])).unwrap_err();
        assert_eq!(e.param(), Some("mask"));
        let e = masked_select(A2_SOC, &x, &bools(&[3], &[1, 1, 1])).unwrap_err();
        assert_eq!(e.param(), Some("mask"));
        assert_eq!(
            masked_select(A2_SOC, &zeros(DType::UInt16, &[2]), &bools(&[2], &[1, 1]))
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            masked_select("Ascend310B1", &x, &bools(&[2], &[1, 1]))
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
    }
}
