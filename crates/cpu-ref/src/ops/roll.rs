//! Roll — `aclnnRoll` (ops.md section 20): elements moved along dims,
//! wrapping around, as a new contiguous tensor.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "roll";

/// What a valid roll does: per dim, its shift reduced to `[0, N)`
/// (`Some`), or the flat sequence's shift (`None` per dim; the second
/// value), after the spec's rules on `shifts` and `dims` for a tensor of
/// `shape`.
pub fn roll_shifts(
    shape: &[usize],
    shifts: &[i64],
    dims: &[i64],
) -> Result<(Vec<usize>, Option<usize>), RefError> {
    let rank = shape.len();
    if !dims.is_empty() && shifts.len() != dims.len() {
        return Err(RefError::invalid(
            OP,
            "shifts",
            format!(
                "must have one entry per entry of dims ({}), got {}",
                dims.len(),
                shifts.len()
            ),
        ));
    }
    if dims.is_empty() && shifts.len() != 1 {
        return Err(RefError::invalid(
            OP,
            "shifts",
            format!(
                "must have one entry when dims is empty, got {}",
                shifts.len()
            ),
        ));
    }
    if rank == 0 && !dims.is_empty() {
        return Err(RefError::invalid(OP, "dims", "a 0-D self takes no dims"));
    }
    let numel: usize = shape.iter().product();
    let mut per_dim = vec![0usize; rank];
    if dims.is_empty() {
        let k = if numel == 0 {
            0
        } else {
            i128::from(shifts[0]).rem_euclid(numel as i128) as usize
        };
        return Ok((per_dim, Some(k)));
    }
    let r = rank as i128;
    for (&d, &s) in dims.iter().zip(shifts) {
        let v = i128::from(d);
        if v < -r || v >= r {
            if numel == 0 {
                // CANN returns before the range check for empty tensors.
                continue;
            }
            return Err(RefError::invalid(
                OP,
                "dims",
                format!("entry {d} is outside [-{rank}, {}]", r - 1),
            ));
        }
        let n = if v < 0 { v + r } else { v } as usize;
        if shape[n] > 0 {
            let m = shape[n] as i128;
            per_dim[n] = ((per_dim[n] as i128 + i128::from(s).rem_euclid(m)) % m) as usize;
        }
    }
    Ok((per_dim, None))
}

/// `x` rolled: `out[.., i, ..] = x[.., (i - shift) mod N, ..]` along each
/// dim of `dims` (shifts summed for a repeated dim), or `flat(x)` rolled
/// by `shifts[0]` when `dims` is empty; a new contiguous tensor of `x`'s
/// dtype and shape.
pub fn roll(soc: &str, x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Roll, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let (per_dim, flat) = roll_shifts(x.shape(), shifts, dims)?;
    let shape = x.shape().to_vec();
    let bytes = output_byte_len(OP, "self", x.dtype(), &shape)?;
    let mut out = new_output(OP, "self", bytes)?;
    let numel: usize = shape.iter().product();
    if let Some(k) = flat {
        for i in 0..numel {
            out.extend_from_slice(x.flat_element_bytes((i + numel - k) % numel));
        }
    } else {
        let mut src = [0usize; MAX_RANK];
        for idx in row_major(&shape) {
            for (d, &i) in idx.iter().enumerate() {
                src[d] = (i + shape[d] - per_dim[d]) % shape[d];
            }
            out.extend_from_slice(x.element_bytes(&src[..idx.len()]));
        }
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
    fn rolls_as_cann_examples() {
        // The page's example: [[1,2],[3,4],[5,6],[7,8]] rolled by 1 along dim 0.
        let x = Tensor::from_slice(&[4, 2], &[1i32, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!(
            ints(&roll(A2_SOC, &x, &[1], &[0]).unwrap()),
            [7, 8, 1, 2, 3, 4, 5, 6]
        );
        // The sample: [1, 2, 3] with shifts (1, 2) along dims (0, 0): a copy
        // (dim 0 has extent 1).
        let x = Tensor::from_slice(&[1, 2, 3], &[0f32, 1., 2., 3., 4., 5.]).unwrap();
        let y = roll(A2_SOC, &x, &[1, 2], &[0, 0]).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [0., 1., 2., 3., 4., 5.]);
        // Repeated dims add up; negative and extreme shifts wrap.
        let x = arange_i32(&[5]);
        assert_eq!(
            ints(&roll(A2_SOC, &x, &[1, 2], &[0, -1]).unwrap()),
            [2, 3, 4, 0, 1]
        );
        assert_eq!(
            ints(&roll(A2_SOC, &x, &[-1], &[0]).unwrap()),
            [1, 2, 3, 4, 0]
        );
        let k = i64::MIN.rem_euclid(5) as usize;
        let want: Vec<i32> = (0..5).map(|i| ((i + 5 - k) % 5) as i32).collect();
        assert_eq!(ints(&roll(A2_SOC, &x, &[i64::MIN], &[0]).unwrap()), want);
    }

    #[test]
    fn flat_two_dims_views_zero_d_and_empty() {
        let x = arange_i32(&[2, 3]);
        assert_eq!(
            ints(&roll(A2_SOC, &x, &[1], &[]).unwrap()),
            [5, 0, 1, 2, 3, 4]
        );
        assert_eq!(
            ints(&roll(A2_SOC, &x, &[1, 1], &[0, 1]).unwrap()),
            [5, 3, 4, 2, 0, 1]
        );
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&roll(A2_SOC, &t, &[1], &[]).unwrap()),
            [5, 0, 3, 1, 4, 2]
        );
        assert_eq!(
            ints(&roll(A2_SOC, &t, &[1], &[0]).unwrap()),
            [2, 5, 0, 3, 1, 4]
        );
        let s = Tensor::scalar(7i32);
        assert_eq!(ints(&roll(A2_SOC, &s, &[3], &[]).unwrap()), [7]);
        assert_eq!(param(roll(A2_SOC, &s, &[3], &[0])), "dims");
        let e = arange_i32(&[0, 2]);
        assert_eq!(roll(A2_SOC, &e, &[1], &[5]).unwrap().shape(), &[0, 2]);
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 3]);
        assert_eq!(
            param(roll(A2_SOC, &zeros(DType::Int8, &[1; 9]), &[1], &[])),
            "self"
        );
        assert_eq!(param(roll(A2_SOC, &a, &[1, 2], &[0])), "shifts");
        assert_eq!(param(roll(A2_SOC, &a, &[1, 2], &[])), "shifts");
        assert_eq!(param(roll(A2_SOC, &a, &[], &[])), "shifts");
        assert_eq!(param(roll(A2_SOC, &a, &[1], &[2])), "dims");
        assert_eq!(param(roll(A2_SOC, &a, &[1], &[i64::MIN])), "dims");
        assert!(roll(A2_SOC, &a, &[1], &[-2]).is_ok());
        assert!(matches!(
            roll(A2_SOC, &zeros(DType::Int16, &[1]), &[1], &[0]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            roll("Ascend910A", &zeros(DType::BFloat16, &[1]), &[1], &[0]),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(roll("Ascend310P3", &zeros(DType::UInt32, &[1]), &[1], &[0]).is_ok());
        assert!(matches!(
            roll("Ascend310B1", &a, &[1], &[0]),
            Err(RefError::UnsupportedOp { .. })
        ));
    }
}
