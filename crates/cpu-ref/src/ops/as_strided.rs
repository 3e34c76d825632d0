//! AsStrided — ATB `AsStridedOperation` (ops.md section 3, seed 000_08ef8aaaeb151dac).

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len, to_usize};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "as_strided";

/// `out[i_0, .., i_k] = flat(x)[offset + sum_j(i_j * stride_j)]`, as a new
/// contiguous tensor of shape `size`; `flat(x)` is `x` in logical row-major
/// order (not storage order).
///
/// Rules: `size` has 1..=8 entries, each `> 0`; `stride` has as many, each
/// `>= 0`; `offset` has exactly one entry, `>= 0`; the largest index read,
/// `offset + sum_j((size_j - 1) * stride_j)`, must be `< numel(x)` (so an
/// empty `x` is always rejected). Overlapping windows are valid.
pub fn as_strided(
    soc: &str,
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    offset: &[i64],
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::AsStrided, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    if size.is_empty() || size.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("must have 1..={MAX_RANK} entries, got {}", size.len()),
        ));
    }
    if let Some((j, v)) = size.iter().enumerate().find(|(_, &v)| v <= 0) {
        return Err(RefError::invalid(
            OP,
            "size",
            format!("entry {j} must be > 0, got {v}"),
        ));
    }
    if stride.len() != size.len() {
        return Err(RefError::invalid(
            OP,
            "stride",
            format!(
                "must have as many entries as size ({}), got {}",
                size.len(),
                stride.len()
            ),
        ));
    }
    if let Some((j, v)) = stride.iter().enumerate().find(|(_, &v)| v < 0) {
        return Err(RefError::invalid(
            OP,
            "stride",
            format!("entry {j} must be >= 0, got {v}"),
        ));
    }
    if offset.len() != 1 {
        return Err(RefError::invalid(
            OP,
            "offset",
            format!("must have exactly 1 entry, got {}", offset.len()),
        ));
    }
    if offset[0] < 0 {
        return Err(RefError::invalid(
            OP,
            "offset",
            format!("must be >= 0, got {}", offset[0]),
        ));
    }
    // Largest index read, with checked i128 arithmetic (8 products of two
    // i64 values can exceed i128).
    let mut last = Some(i128::from(offset[0]));
    for (&n, &s) in size.iter().zip(stride) {
        last = last.and_then(|acc| {
            (i128::from(n) - 1)
                .checked_mul(i128::from(s))
                .and_then(|t| acc.checked_add(t))
        });
    }
    let numel = x.numel();
    if !matches!(last, Some(l) if l < numel as i128) {
        let shown = last.map_or("overflows".to_string(), |l| l.to_string());
        return Err(RefError::invalid(
            OP,
            "offset",
            format!(
                "largest index read, offset + sum((size_j - 1) * stride_j) = {shown}, must be < numel(x) = {numel}"
            ),
        ));
    }
    let out_shape = size
        .iter()
        .map(|&v| to_usize(OP, "size", v))
        .collect::<Result<Vec<usize>, _>>()?;
    let strides = stride
        .iter()
        .map(|&v| to_usize(OP, "stride", v))
        .collect::<Result<Vec<usize>, _>>()?;
    let base = to_usize(OP, "offset", offset[0])?;
    let bytes = output_byte_len(OP, "size", x.dtype(), &out_shape)?;
    let mut out = new_output(OP, "size", bytes)?;
    for index in row_major(&out_shape) {
        // Bounded by the largest index read, checked above.
        let mut k = base;
        for (&i, &s) in index.iter().zip(&strides) {
            k += i * s;
        }
        out.extend_from_slice(x.flat_element_bytes(k));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::product::{supported_dtypes, Family};
    use crate::test_util::*;

    #[test]
    fn windows_and_overlap() {
        let x = arange_i32(&[6]);
        // Sliding windows of 3 with step 1 overlap.
        let y = as_strided(A2_SOC, &x, &[4, 3], &[1, 1], &[0]).unwrap();
        assert_eq!(y.shape(), &[4, 3]);
        assert_eq!(ints(&y), [0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5]);
        // Stride 0 repeats one element.
        let y = as_strided(A2_SOC, &x, &[3], &[0], &[5]).unwrap();
        assert_eq!(ints(&y), [5, 5, 5]);
    }

    #[test]
    fn largest_index_boundary() {
        let x = arange_i32(&[3, 3]);
        // offset + (2-1)*2 + (2-1)*3 = offset + 5; numel 9.
        assert_eq!(
            ints(&as_strided(A2_SOC, &x, &[2, 2], &[2, 3], &[3]).unwrap()),
            [3, 6, 5, 8]
        );
        let e = as_strided(A2_SOC, &x, &[2, 2], &[2, 3], &[4]).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("offset")));
        assert!(as_strided(A2_SOC, &x, &[1], &[0], &[8]).is_ok());
        assert!(as_strided(A2_SOC, &x, &[1], &[0], &[9]).is_err());
    }

    #[test]
    fn size_rules() {
        let x = arange_i32(&[4]);
        assert_eq!(
            as_strided(A2_SOC, &x, &[], &[], &[0]).unwrap_err().param(),
            Some("size")
        );
        assert!(as_strided(A2_SOC, &x, &[1; 8], &[0; 8], &[0]).is_ok());
        assert_eq!(
            as_strided(A2_SOC, &x, &[1; 9], &[0; 9], &[0])
                .unwrap_err()
                .param(),
            Some("size")
        );
        assert!(as_strided(A2_SOC, &x, &[1], &[0], &[0]).is_ok());
        for bad in [0, -1, i64::MIN] {
            assert_eq!(
                as_strided(A2_SOC, &x, &[bad], &[0], &[0])
                    .unwrap_err()
                    .param(),
                Some("size")
            );
        }
    }

    #[test]
    fn stride_rules() {
        let x = arange_i32(&[4]);
        assert_eq!(
            as_strided(A2_SOC, &x, &[2], &[1, 1], &[0])
                .unwrap_err()
                .param(),
            Some("stride")
        );
        assert_eq!(
            as_strided(A2_SOC, &x, &[2, 2], &[1], &[0])
                .unwrap_err()
                .param(),
            Some("stride")
        );
        assert!(as_strided(A2_SOC, &x, &[2], &[0], &[0]).is_ok());
        for bad in [-1, i64::MIN] {
            assert_eq!(
                as_strided(A2_SOC, &x, &[2], &[bad], &[0])
                    .unwrap_err()
                    .param(),
                Some("stride")
            );
        }
    }

    #[test]
    fn offset_rules() {
        let x = arange_i32(&[4]);
        assert_eq!(
            as_strided(A2_SOC, &x, &[2], &[1], &[]).unwrap_err().param(),
            Some("offset")
        );
        assert_eq!(
            as_strided(A2_SOC, &x, &[2], &[1], &[0, 0])
                .unwrap_err()
                .param(),
            Some("offset")
        );
        assert_eq!(
            ints(&as_strided(A2_SOC, &x, &[2], &[1], &[0]).unwrap()),
            [0, 1]
        );
        for bad in [-1, i64::MIN] {
            assert_eq!(
                as_strided(A2_SOC, &x, &[2], &[1], &[bad])
                    .unwrap_err()
                    .param(),
                Some("offset")
            );
        }
    }

    #[test]
    fn extreme_i64_parameters_never_panic() {
        let x = arange_i32(&[4]);
        let vals = [i64::MIN, -1, 0, 1, 3, 4, i64::MAX];
        for &n in &vals {
            for &s in &vals {
                for &o in &vals {
                    let got = as_strided(A2_SOC, &x, &[n, n], &[s, s], &[o]);
                    let want_param = if n <= 0 {
                        Some("size")
                    } else if s < 0 {
                        Some("stride")
                    } else if o < 0 || o as i128 + 2 * (n as i128 - 1) * s as i128 >= 4 {
                        Some("offset")
                    } else if n > 4 {
                        // Fits, but n*n elements cannot be allocated.
                        Some("size")
                    } else {
                        None
                    };
                    match want_param {
                        Some(p) => assert_eq!(got.unwrap_err().param(), Some(p), "{n} {s} {o}"),
                        None => assert_eq!(got.unwrap().numel(), (n * n) as usize),
                    }
                }
            }
        }
        // Eight maximal terms overflow even i128: still a clean error.
        let e = as_strided(A2_SOC, &x, &[i64::MAX; 8], &[i64::MAX; 8], &[i64::MAX]).unwrap_err();
        assert_eq!(e.param(), Some("offset"));
    }

    #[test]
    fn huge_output_is_an_error_not_an_abort() {
        let x = arange_i32(&[1]);
        let e = as_strided(A2_SOC, &x, &[i64::MAX, i64::MAX], &[0, 0], &[0]).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("size")));
        let e = as_strided(A2_SOC, &x, &[i64::MAX], &[0], &[0]).unwrap_err();
        assert_eq!(e.param(), Some("size"));
    }

    #[test]
    fn reads_logical_order_of_non_contiguous_input() {
        // flat(x^T) = [0, 3, 1, 4, 2, 5], not the storage order.
        let x = transposed_2x3();
        let y = as_strided(A2_SOC, &x, &[2, 2], &[1, 2], &[1]).unwrap();
        assert_eq!(ints(&y), [3, 4, 1, 2]);
        let y = as_strided(A2_SOC, &x, &[6], &[1], &[0]).unwrap();
        assert_eq!(ints(&y), [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn zero_d_and_empty_inputs() {
        let y = as_strided(A2_SOC, &Tensor::scalar(9i32), &[3], &[0], &[0]).unwrap();
        assert_eq!(ints(&y), [9, 9, 9]);
        // Empty x: no element can be read; an empty result is impossible (size > 0).
        let e = as_strided(A2_SOC, &arange_i32(&[2, 0]), &[1], &[0], &[0]).unwrap_err();
        assert_eq!(e.param(), Some("offset"));
    }

    #[test]
    fn rank_limit_is_8() {
        assert!(as_strided(A2_SOC, &arange_i32(&[1; 8]), &[1], &[1], &[0]).is_ok());
        let e = as_strided(A2_SOC, &arange_i32(&[1; 9]), &[1], &[1], &[0]).unwrap_err();
        assert_eq!(e.param(), Some("self"));
    }

    #[test]
    fn available_everywhere_with_family_dtypes() {
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                assert!(
                    as_strided(soc, &arange_i32(&[2]), &[1], &[1], &[1]).is_ok(),
                    "{soc}"
                );
            }
            let soc = fam.soc_names()[0];
            for dtype in DType::ALL {
                let got = as_strided(soc, &zeros(dtype, &[2]), &[2], &[1], &[0]);
                let want = dtype != DType::BFloat16 || matches!(fam, Family::A2 | Family::A3);
                assert_eq!(supported_dtypes(Op::AsStrided, fam).contains(&dtype), want);
                if want {
                    assert_eq!(got.unwrap().dtype(), dtype);
                } else {
                    assert_eq!(
                        got.unwrap_err(),
                        RefError::UnsupportedDtype {
                            op: OP,
                            dtype,
                            soc: soc.to_string()
                        }
                    );
                }
            }
        }
    }

    #[test]
    fn validation_order() {
        let x = zeros(DType::BFloat16, &[0]);
        assert_eq!(
            as_strided("x", &x, &[], &[], &[]).unwrap_err().param(),
            Some("soc")
        );
        assert_eq!(
            as_strided("Ascend310B1", &x, &[], &[], &[])
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            as_strided("Ascend910B1", &x, &[], &[], &[])
                .unwrap_err()
                .param(),
            Some("size")
        );
    }
}
