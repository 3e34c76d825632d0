//! AsStrided, the aclnn operator — `aclnnAsStrided` (ops.md section 33):
//! `out[i] = flat(x)[offset + sum_j(i_j * stride_j)]`, empty results
//! allowed (unlike the ATB operation of section 3).

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len, window_reach};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "as_strided_aclnn";

/// The output shape (`size`) for a `self` of `numel` elements, after the
/// spec's rules in order: `size`'s length (1 to 8), `stride`'s, the signs
/// of `size`, `stride` and `offset`, and, for a non-empty output, the
/// largest position read below `numel`.
pub fn as_strided_aclnn_out_shape(
    numel: usize,
    size: &[i64],
    stride: &[i64],
    offset: i64,
) -> Result<Vec<usize>, RefError> {
    if size.is_empty() || size.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("must have 1 to {MAX_RANK} entries, got {}", size.len()),
        ));
    }
    if stride.len() != size.len() {
        return Err(RefError::invalid(
            OP,
            "stride",
            format!("has {} entries, size {}", stride.len(), size.len()),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("entry {v} is negative"),
        ));
    }
    if let Some(v) = stride.iter().find(|&&v| v < 0) {
        return Err(RefError::invalid(
            OP,
            "stride",
            format!("entry {v} is negative"),
        ));
    }
    if offset < 0 {
        return Err(RefError::invalid(
            OP,
            "offset",
            format!("{offset} is negative"),
        ));
    }
    if !size.contains(&0) {
        let last = window_reach(size, stride, offset);
        if last >= numel as i128 {
            return Err(RefError::invalid(
                OP,
                "offset",
                format!("the largest position read, {last}, is not below self's {numel} elements"),
            ));
        }
    }
    // A tensor of that shape must be able to exist (extents, zeros taken
    // as 1, multiplying within i64), even an empty one.
    if size
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d.max(1)))
        .is_none()
    {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("the output shape {size:?} is too large (its extents, zeros taken as 1, multiply beyond 64 bits)"),
        ));
    }
    Ok(size.iter().map(|&v| v as usize).collect())
}

/// `out[i] = flat(x)[offset + sum_j(i_j * stride_j)]`, as a new contiguous
/// tensor of `x`'s dtype.
pub fn as_strided_aclnn(
    soc: &str,
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    offset: i64,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::AsStridedAclnn, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let shape = as_strided_aclnn_out_shape(x.numel(), size, stride, offset)?;
    let bytes = output_byte_len(OP, "size", x.dtype(), &shape)?;
    let mut out = new_output(OP, "size", bytes)?;
    for idx in row_major(&shape) {
        // Below numel (checked above), so no overflow.
        let k = offset as usize
            + idx
                .iter()
                .zip(stride)
                .map(|(&i, &s)| i * s as usize)
                .sum::<usize>();
        out.extend_from_slice(x.flat_element_bytes(k));
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
    fn cann_example_windows_views_and_empty() {
        // The page's example: 10 elements, size [4], stride [2], offset 1.
        let x = arange_i32(&[10]);
        let y = as_strided_aclnn(A2_SOC, &x, &[4], &[2], 1).unwrap();
        assert_eq!(ints(&y), [1, 3, 5, 7]);
        // Overlapping windows.
        let y = as_strided_aclnn(A2_SOC, &x, &[3, 3], &[1, 1], 2).unwrap();
        assert_eq!(ints(&y), [2, 3, 4, 3, 4, 5, 4, 5, 6]);
        // A view is read in its logical order.
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]: flat 0,3,1,4,2,5
        assert_eq!(
            ints(&as_strided_aclnn(A2_SOC, &t, &[3], &[2], 0).unwrap()),
            [0, 1, 2]
        );
        assert_eq!(
            as_strided_aclnn(A2_SOC, &x, &[0, 5], &[100, 100], 99)
                .unwrap()
                .shape(),
            &[0, 5]
        );
        let e = arange_i32(&[0]);
        assert_eq!(
            as_strided_aclnn(A2_SOC, &e, &[0], &[1], 0).unwrap().shape(),
            &[0]
        );
        assert_eq!(param(as_strided_aclnn(A2_SOC, &e, &[1], &[1], 0)), "offset");
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[2, 3]);
        assert_eq!(param(as_strided_aclnn(A2_SOC, &x, &[], &[], 0)), "size");
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[1; 9], &[1; 9], 0)),
            "size"
        );
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[1], &[1, 1], 0)),
            "stride"
        );
        assert_eq!(param(as_strided_aclnn(A2_SOC, &x, &[-1], &[-1], 0)), "size");
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[1], &[-1], -1)),
            "stride"
        );
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[1], &[1], -1)),
            "offset"
        );
        assert_eq!(param(as_strided_aclnn(A2_SOC, &x, &[2], &[5], 1)), "offset");
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[i64::MAX], &[i64::MAX], 0)),
            "offset"
        );
        assert_eq!(
            param(as_strided_aclnn(A2_SOC, &x, &[1], &[0], i64::MAX)),
            "offset"
        );
        assert!(as_strided_aclnn(A2_SOC, &x, &[2], &[5], 0).is_ok());
        assert!(matches!(
            as_strided_aclnn(A2_SOC, &zeros(DType::Float64, &[1]), &[1], &[1], 0),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            as_strided_aclnn("Ascend910_9391", &x, &[1], &[1], 0),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
