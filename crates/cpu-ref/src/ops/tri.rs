//! Tril and Triu — `aclnnTril` / `aclnnTriu` and their in-place twins
//! (ops.md section 15): the lower or upper triangle of each matrix of the
//! last two dims, the rest zero.

use crate::error::RefError;
use crate::ops::check_rank;
use crate::product::{check_op_dtype, Op};
use crate::tensor::{checked_byte_len, Tensor};

fn tri(op: Op, soc: &str, x: &Tensor, diagonal: i64, lower: bool) -> Result<Tensor, RefError> {
    check_op_dtype(op, soc, x.dtype())?;
    check_rank(op.name(), x.rank(), 2)?;
    let len = checked_byte_len(x.dtype(), x.shape())
        .ok_or_else(|| RefError::invalid(op.name(), "self", "the byte size overflows"))?;
    let (rows, cols) = (x.shape()[x.rank() - 2], x.shape()[x.rank() - 1]);
    let es = x.dtype().size();
    let mut bytes = Vec::with_capacity(len);
    for k in 0..x.numel() {
        let (i, j) = ((k / cols) % rows.max(1), k % cols);
        // j - i against diagonal, in i128: no overflow for any i64.
        let d = j as i128 - i as i128;
        let keep = if lower {
            d <= i128::from(diagonal)
        } else {
            d >= i128::from(diagonal)
        };
        if keep {
            bytes.extend_from_slice(x.flat_element_bytes(k));
        } else {
            bytes.extend(std::iter::repeat_n(0u8, es));
        }
    }
    Tensor::from_bytes(x.dtype(), x.shape(), bytes)
}

/// `aclnnTril`: the lower triangle (`j - i <= diagonal`) of each matrix,
/// the rest zero, as a new contiguous tensor (ops.md §15). The in-place
/// form's new value of `x` is the same.
pub fn tril(soc: &str, x: &Tensor, diagonal: i64) -> Result<Tensor, RefError> {
    tri(Op::Tril, soc, x, diagonal, true)
}

/// `aclnnTriu`: the upper triangle (`j - i >= diagonal`), the rest zero.
pub fn triu(soc: &str, x: &Tensor, diagonal: i64) -> Result<Tensor, RefError> {
    tri(Op::Triu, soc, x, diagonal, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::{arange_i32, ints, transposed_2x3, A2_SOC};

    #[test]
    fn triangles_and_diagonals() {
        let x = arange_i32(&[3, 3]);
        assert_eq!(
            ints(&tril(A2_SOC, &x, 0).unwrap()),
            [0, 0, 0, 3, 4, 0, 6, 7, 8]
        );
        assert_eq!(
            ints(&triu(A2_SOC, &x, 0).unwrap()),
            [0, 1, 2, 0, 4, 5, 0, 0, 8]
        );
        assert_eq!(
            ints(&tril(A2_SOC, &x, -1).unwrap()),
            [0, 0, 0, 3, 0, 0, 6, 7, 0]
        );
        assert_eq!(
            ints(&triu(A2_SOC, &x, 1).unwrap()),
            [0, 1, 2, 0, 0, 5, 0, 0, 0]
        );
        assert_eq!(ints(&tril(A2_SOC, &x, i64::MAX).unwrap()), ints(&x));
        assert_eq!(ints(&triu(A2_SOC, &x, i64::MIN).unwrap()), ints(&x));
        assert_eq!(ints(&tril(A2_SOC, &x, i64::MIN).unwrap()), [0; 9]);
    }

    #[test]
    fn batches_views_and_rules() {
        let x = arange_i32(&[2, 2, 3]);
        assert_eq!(
            ints(&triu(A2_SOC, &x, 0).unwrap()),
            [0, 1, 2, 0, 4, 5, 6, 7, 8, 0, 10, 11]
        );
        let v = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(ints(&tril(A2_SOC, &v, 0).unwrap()), [0, 0, 1, 4, 2, 5]);
        let e = tril(A2_SOC, &arange_i32(&[3]), 0).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("self")));
        let c = Tensor::from_bytes(DType::Complex64, &[1, 1], vec![0; 8]).unwrap();
        assert_eq!(tril(A2_SOC, &c, 0).unwrap_err().kind(), "unsupported_dtype");
        let b = Tensor::from_bytes(DType::BFloat16, &[1, 1], vec![0; 2]).unwrap();
        assert_eq!(
            triu("Ascend910A", &b, 0).unwrap_err().kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            tril("Ascend310B1", &x, 0).unwrap_err().kind(),
            "unsupported_op"
        );
        assert_eq!(
            tril(A2_SOC, &arange_i32(&[0, 3]), 0).unwrap().shape(),
            &[0, 3]
        );
    }
}
