//! Sub-tensor view — MLI `mli_hlp_point_to_subtensor` (ops.md section 5, seed 004_ad22a77e815000eb).

use crate::error::RefError;
use crate::ops::check_rank;
use crate::product::{check_op_dtype, Op};
use crate::tensor::Tensor;

const OP: &str = "subtensor";

/// `x[c_0][c_1]..[c_{k-1} : c_{k-1} + first_out_dim_size][..]` as a view that
/// shares `x`'s storage (nothing is copied): shape
/// `[first_out_dim_size] ++ shape[k..]`, strides `[stride_{k-1}] ++ strides[k..]`,
/// offset `x.offset + sum_j(c_j * stride_j)`, with `k = start_coord.len()`.
///
/// Rules: `1 <= k < rank`; `0 <= start_coord[j] < shape[j]`;
/// `first_out_dim_size >= 1` and `start_coord[k-1] + first_out_dim_size <=
/// shape[k-1]`. The input rank is at most 8, like every view. Available on
/// every product for every dtype; the SoC name is still checked.
pub fn subtensor(
    soc: &str,
    x: &Tensor,
    start_coord: &[i64],
    first_out_dim_size: i64,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Subtensor, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let rank = x.rank();
    let k = start_coord.len();
    if k < 1 || k >= rank {
        return Err(RefError::invalid(
            OP,
            "start_coord",
            format!("needs 1 <= coord_num < rank ({rank}), got coord_num {k}"),
        ));
    }
    for (j, &c) in start_coord.iter().enumerate() {
        if c < 0 || c as u64 >= x.shape()[j] as u64 {
            return Err(RefError::invalid(
                OP,
                "start_coord",
                format!("entry {j} must be in [0, {}), got {c}", x.shape()[j]),
            ));
        }
    }
    if first_out_dim_size < 1 {
        return Err(RefError::invalid(
            OP,
            "first_out_dim_size",
            format!("must be >= 1, got {first_out_dim_size}"),
        ));
    }
    let last = i128::from(start_coord[k - 1]) + i128::from(first_out_dim_size);
    if last > x.shape()[k - 1] as i128 {
        return Err(RefError::invalid(
            OP,
            "first_out_dim_size",
            format!(
                "start_coord[{}] + first_out_dim_size = {last} must be <= shape[{}] = {}",
                k - 1,
                k - 1,
                x.shape()[k - 1]
            ),
        ));
    }
    // Coordinates are now valid indices, so these fit in usize.
    let mut offset = Some(x.offset());
    for (j, &c) in start_coord.iter().enumerate() {
        offset = offset.and_then(|o| {
            (c as usize)
                .checked_mul(x.strides()[j])
                .and_then(|t| o.checked_add(t))
        });
    }
    // Only an empty view with absurd strides can overflow here.
    let offset = offset.ok_or_else(|| {
        RefError::invalid(
            OP,
            "start_coord",
            "the view's offset overflows the address range",
        )
    })?;
    let mut shape = vec![first_out_dim_size as usize];
    shape.extend_from_slice(&x.shape()[k..]);
    let mut strides = vec![x.strides()[k - 1]];
    strides.extend_from_slice(&x.strides()[k..]);
    x.view(&shape, &strides, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::product::Family;
    use crate::test_util::*;

    #[test]
    fn coord_num_range() {
        let x = arange_i32(&[2, 3, 4]);
        assert_eq!(
            subtensor(A2_SOC, &x, &[], 1).unwrap_err().param(),
            Some("start_coord")
        );
        assert_eq!(subtensor(A2_SOC, &x, &[1], 1).unwrap().shape(), &[1, 3, 4]);
        assert_eq!(subtensor(A2_SOC, &x, &[1, 2], 1).unwrap().shape(), &[1, 4]);
        assert_eq!(
            subtensor(A2_SOC, &x, &[1, 2, 3], 1).unwrap_err().param(),
            Some("start_coord")
        );
        // Rank 1 and 0 have no valid coord_num.
        assert!(subtensor(A2_SOC, &arange_i32(&[4]), &[0], 1).is_err());
        assert!(subtensor(A2_SOC, &Tensor::scalar(1i32), &[], 1).is_err());
    }

    #[test]
    fn coordinates_in_range_both_sides() {
        let x = arange_i32(&[2, 3, 4]);
        assert!(subtensor(A2_SOC, &x, &[0, 2], 1).is_ok());
        assert_eq!(
            subtensor(A2_SOC, &x, &[2, 0], 1).unwrap_err().param(),
            Some("start_coord")
        );
        assert_eq!(
            subtensor(A2_SOC, &x, &[0, 3], 1).unwrap_err().param(),
            Some("start_coord")
        );
        assert_eq!(
            subtensor(A2_SOC, &x, &[-1, 0], 1).unwrap_err().param(),
            Some("start_coord")
        );
    }

    #[test]
    fn first_out_dim_size_bounds() {
        let x = arange_i32(&[2, 3, 4]);
        assert_eq!(
            subtensor(A2_SOC, &x, &[1], 0).unwrap_err().param(),
            Some("first_out_dim_size")
        );
        assert_eq!(
            subtensor(A2_SOC, &x, &[1], -1).unwrap_err().param(),
            Some("first_out_dim_size")
        );
        // c + size == shape is allowed, one more is not.
        let y = subtensor(A2_SOC, &x, &[0, 1], 2).unwrap();
        assert_eq!(y.shape(), &[2, 4]);
        assert_eq!(ints(&y), [4, 5, 6, 7, 8, 9, 10, 11]);
        let e = subtensor(A2_SOC, &x, &[0, 1], 3).unwrap_err();
        assert_eq!(e.param(), Some("first_out_dim_size"));
    }

    #[test]
    fn extreme_i64_parameters_never_panic() {
        let x = arange_i32(&[2, 3]);
        for c in [i64::MIN, -1, i64::MAX] {
            assert_eq!(
                subtensor(A2_SOC, &x, &[c], 1).unwrap_err().param(),
                Some("start_coord")
            );
        }
        for f in [i64::MIN, 0, 3, i64::MAX] {
            assert_eq!(
                subtensor(A2_SOC, &x, &[1], f).unwrap_err().param(),
                Some("first_out_dim_size")
            );
        }
        assert_eq!(subtensor(A2_SOC, &x, &[1], 1).unwrap().shape(), &[1, 3]);
    }

    #[test]
    fn shares_storage_and_sets_view_fields() {
        let x = arange_i32(&[3, 4, 5]);
        let y = subtensor(A2_SOC, &x, &[1, 2], 2).unwrap();
        assert!(y.shares_storage(&x));
        assert_eq!(y.shape(), &[2, 5]);
        assert_eq!(y.strides(), &[5, 1]);
        assert_eq!(y.offset(), 20 + 10);
        assert_eq!(ints(&y), (30..40).collect::<Vec<_>>());
    }

    #[test]
    fn non_contiguous_input() {
        // x^T of a 2x3: [[0,3],[1,4],[2,5]], strides [1, 3].
        let x = transposed_2x3();
        let y = subtensor(A2_SOC, &x, &[1], 2).unwrap();
        assert!(y.shares_storage(&x));
        assert_eq!(y.shape(), &[2, 2]);
        assert_eq!(y.strides(), &[1, 3]);
        assert_eq!(y.offset(), 1);
        assert_eq!(ints(&y), [1, 4, 2, 5]);
        // A view of a view with its own offset.
        let base = arange_i32(&[20]);
        let v = base.view(&[2, 3, 2], &[8, 2, 1], 3).unwrap();
        let y = subtensor(A2_SOC, &v, &[1, 1], 2).unwrap();
        assert_eq!(y.offset(), 3 + 8 + 2);
        assert_eq!(ints(&y), [13, 14, 15, 16]);
    }

    #[test]
    fn zero_extents() {
        let x = arange_i32(&[2, 3, 0]);
        let y = subtensor(A2_SOC, &x, &[1], 1).unwrap();
        assert_eq!(y.shape(), &[1, 3, 0]);
        assert_eq!(y.numel(), 0);
        // A zero extent among the coordinate axes has no valid coordinate.
        let x = arange_i32(&[0, 3]);
        assert_eq!(
            subtensor(A2_SOC, &x, &[0], 1).unwrap_err().param(),
            Some("start_coord")
        );
        // An empty view with absurd strides: a clean error, not an overflow.
        let one = arange_i32(&[1]);
        let v = one.view(&[2, 0], &[usize::MAX, 1], usize::MAX).unwrap();
        assert_eq!(
            subtensor(A2_SOC, &v, &[1], 1).unwrap_err().param(),
            Some("start_coord")
        );
    }

    #[test]
    fn rank_limit_is_8() {
        assert_eq!(
            subtensor(A2_SOC, &arange_i32(&[1; 8]), &[0], 1)
                .unwrap()
                .shape(),
            &[1; 8]
        );
        assert_eq!(
            subtensor(A2_SOC, &arange_i32(&[1; 8]), &[0; 7], 1)
                .unwrap()
                .shape(),
            &[1; 2]
        );
        let e = subtensor(A2_SOC, &arange_i32(&[1; 9]), &[0], 1).unwrap_err();
        assert_eq!(e.param(), Some("self"));
    }

    #[test]
    fn every_family_every_dtype() {
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                for dtype in DType::ALL {
                    let y = subtensor(soc, &zeros(dtype, &[2, 2]), &[1], 1).unwrap();
                    assert_eq!((y.dtype(), y.shape()), (dtype, &[1, 2][..]));
                }
            }
        }
        assert_eq!(
            subtensor("nope", &arange_i32(&[2, 2]), &[1], 1)
                .unwrap_err()
                .param(),
            Some("soc")
        );
    }
}
