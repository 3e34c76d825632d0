//! IndexSelect — `aclnnIndexSelect` (ops.md section 2, seed 003_5b9bd85c692e67a1).

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "index_select";

/// The output shape of `index_select` on an input of `shape` with an index
/// of `index_len` elements: `shape` with `shape[dim]` replaced by
/// `index_len`. A 0-D input counts as rank 1 of length 1 (`dim` 0 or -1);
/// its index must hold exactly one element and the output is 0-D.
pub fn index_select_out_shape(
    shape: &[usize],
    dim: i64,
    index_len: usize,
) -> Result<Vec<usize>, RefError> {
    check_rank(OP, shape.len(), 0)?;
    if shape.is_empty() {
        normalize_dim(OP, dim, 1)?;
        if index_len != 1 {
            return Err(RefError::invalid(
                OP,
                "index",
                format!("a 0-D input needs an index of exactly one element, got {index_len}"),
            ));
        }
        return Ok(Vec::new());
    }
    let d = normalize_dim(OP, dim, shape.len())?;
    let mut out = shape.to_vec();
    out[d] = index_len;
    Ok(out)
}

/// `out[.., i, ..] = x[.., index[i], ..]` along `dim`, as a new contiguous
/// tensor. `index` is INT32 or INT64 of rank 0 or 1 (rank 0 = one element);
/// repeats are allowed.
///
/// Every index value must lie in `[0, N)`, `N = x.shape[dim]` (1 for a 0-D
/// `x`): the first bad one gives `IndexOutOfRange`. This is checked for every
/// value even when the output is empty because another axis has extent 0
/// (the oracle never lets an out-of-range index through).
pub fn index_select(soc: &str, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::IndexSelect, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    // INT32 / INT64 only (checked while reading the values).
    let values = read_index_tensor(OP, "index", index)?;
    if index.rank() > 1 {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("rank must be 0 or 1, got {}", index.rank()),
        ));
    }
    let out_shape = index_select_out_shape(x.shape(), dim, index.numel())?;
    let bytes = output_byte_len(OP, "index", x.dtype(), &out_shape)?;

    // 0-D input: one axis of length 1.
    let (d, n) = if x.rank() == 0 {
        (0, 1)
    } else {
        let d = normalize_dim(OP, dim, x.rank())?;
        (d, x.shape()[d])
    };
    for (position, &value) in values.iter().enumerate() {
        if value < 0 || value as u64 >= n as u64 {
            return Err(RefError::IndexOutOfRange {
                op: OP,
                position,
                value,
                bound: n,
            });
        }
    }

    let mut out = new_output(OP, "index", bytes)?;
    if x.rank() == 0 {
        out.extend_from_slice(x.element_bytes(&[]));
    } else {
        for out_index in row_major(&out_shape) {
            let mut src = out_index.clone();
            src[d] = values[out_index[d]] as usize;
            out.extend_from_slice(x.element_bytes(&src));
        }
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
    fn gathers_rows_and_repeats() {
        let x = arange_i32(&[3, 2]);
        let y = index_select(A2_SOC, &x, 0, &idx64(&[2, 0, 2])).unwrap();
        assert_eq!(y.shape(), &[3, 2]);
        assert_eq!(ints(&y), [4, 5, 0, 1, 4, 5]);
        let y = index_select(A2_SOC, &x, -1, &idx64(&[1, 1, 1, 0])).unwrap();
        assert_eq!(y.shape(), &[3, 4]);
        assert_eq!(ints(&y), [1, 1, 1, 0, 3, 3, 3, 2, 5, 5, 5, 4]);
    }

    #[test]
    fn int32_and_int64_indices_agree() {
        let x = arange_i32(&[4]);
        let a = index_select(A2_SOC, &x, 0, &idx64(&[3, 1])).unwrap();
        let i32_index = Tensor::from_slice(&[2], &[3i32, 1]).unwrap();
        let b = index_select(A2_SOC, &x, 0, &i32_index).unwrap();
        assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
        assert_eq!(ints(&a), [3, 1]);
    }

    #[test]
    fn index_dtype_must_be_int32_or_int64() {
        let x = arange_i32(&[4]);
        for dtype in DType::ALL {
            let index = zeros(dtype, &[1]);
            let got = index_select(A2_SOC, &x, 0, &index);
            if matches!(dtype, DType::Int32 | DType::Int64) {
                assert_eq!(ints(&got.unwrap()), [0]);
            } else {
                let e = got.unwrap_err();
                assert_eq!(
                    (e.kind(), e.param()),
                    ("invalid_argument", Some("index")),
                    "{dtype}"
                );
            }
        }
    }

    #[test]
    fn index_rank_0_or_1() {
        let x = arange_i32(&[3, 2]);
        // 0-D index = one element; output keeps the rank.
        let y = index_select(A2_SOC, &x, 0, &Tensor::scalar(2i64)).unwrap();
        assert_eq!(y.shape(), &[1, 2]);
        assert_eq!(ints(&y), [4, 5]);
        let two_d = Tensor::from_slice(&[1, 1], &[0i64]).unwrap();
        let e = index_select(A2_SOC, &x, 0, &two_d).unwrap_err();
        assert_eq!(e.param(), Some("index"));
    }

    #[test]
    fn zero_d_input() {
        let x = Tensor::scalar(42i32);
        for dim in [0, -1] {
            let y = index_select(A2_SOC, &x, dim, &idx64(&[0])).unwrap();
            assert_eq!(y.shape(), &[] as &[usize]);
            assert_eq!(ints(&y), [42]);
            let y = index_select(A2_SOC, &x, dim, &Tensor::scalar(0i32)).unwrap();
            assert_eq!(ints(&y), [42]);
        }
        for dim in [1, -2, i64::MIN, i64::MAX] {
            assert_eq!(
                index_select(A2_SOC, &x, dim, &idx64(&[0]))
                    .unwrap_err()
                    .param(),
                Some("dim")
            );
        }
        // The index must hold exactly one element.
        for bad in [&[][..], &[0, 0][..]] {
            let e = index_select(A2_SOC, &x, 0, &idx64(bad)).unwrap_err();
            assert_eq!(e.param(), Some("index"));
        }
        // And that element must be 0 (N = 1).
        let e = index_select(A2_SOC, &x, 0, &idx64(&[1])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: 1,
                bound: 1
            }
        );
    }

    #[test]
    fn dim_range_boundaries() {
        let x = arange_i32(&[2, 3]);
        for dim in [-2, -1, 0, 1] {
            assert!(index_select(A2_SOC, &x, dim, &idx64(&[0])).is_ok());
        }
        for dim in [2, -3, i64::MIN, i64::MAX] {
            assert_eq!(
                index_select(A2_SOC, &x, dim, &idx64(&[0]))
                    .unwrap_err()
                    .param(),
                Some("dim")
            );
        }
    }

    #[test]
    fn rank_limit_is_8() {
        let x8 = arange_i32(&[1; 8]);
        assert!(index_select(A2_SOC, &x8, 7, &idx64(&[0])).is_ok());
        let x9 = arange_i32(&[1; 9]);
        assert_eq!(
            index_select(A2_SOC, &x9, 0, &idx64(&[0]))
                .unwrap_err()
                .param(),
            Some("self")
        );
    }

    #[test]
    fn index_values_bounds_both_sides() {
        let x = arange_i32(&[3]);
        assert_eq!(
            ints(&index_select(A2_SOC, &x, 0, &idx64(&[0, 2])).unwrap()),
            [0, 2]
        );
        let e = index_select(A2_SOC, &x, 0, &idx64(&[0, 3])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 1,
                value: 3,
                bound: 3
            }
        );
        let e = index_select(A2_SOC, &x, 0, &idx64(&[2, -1, 5])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 1,
                value: -1,
                bound: 3
            }
        );
    }

    #[test]
    fn extreme_index_values() {
        let x = arange_i32(&[3]);
        for v in [i64::MIN, i64::MIN + 1, -1, 3, i64::MAX - 1, i64::MAX] {
            let e = index_select(A2_SOC, &x, 0, &idx64(&[1, v])).unwrap_err();
            assert_eq!(
                e,
                RefError::IndexOutOfRange {
                    op: OP,
                    position: 1,
                    value: v,
                    bound: 3
                }
            );
        }
        let i32_index = Tensor::from_slice(&[1], &[i32::MIN]).unwrap();
        let e = index_select(A2_SOC, &x, 0, &i32_index).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: i32::MIN as i64,
                bound: 3
            }
        );
    }

    #[test]
    fn zero_extents() {
        // Empty index: empty output along dim.
        let x = arange_i32(&[2, 3]);
        let y = index_select(A2_SOC, &x, 1, &idx64(&[])).unwrap();
        assert_eq!(y.shape(), &[2, 0]);
        // N == 0: every index is out of range, the empty index is fine.
        let x = arange_i32(&[0, 3]);
        assert_eq!(
            index_select(A2_SOC, &x, 0, &idx64(&[])).unwrap().shape(),
            &[0, 3]
        );
        let e = index_select(A2_SOC, &x, 0, &idx64(&[0])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: 0,
                bound: 0
            }
        );
        // Empty output because another axis is 0: indices are still checked.
        let y = index_select(A2_SOC, &x, 1, &idx64(&[2, 0])).unwrap();
        assert_eq!(y.shape(), &[0, 2]);
        let e = index_select(A2_SOC, &x, 1, &idx64(&[2, 3])).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
    }

    #[test]
    fn non_contiguous_input_and_index() {
        let x = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = index_select(A2_SOC, &x, 0, &idx64(&[2, 0])).unwrap();
        assert_eq!(ints(&y), [2, 5, 0, 3]);
        let y = index_select(A2_SOC, &x, 1, &idx64(&[1])).unwrap();
        assert_eq!(ints(&y), [3, 4, 5]);
        // A strided index view: every other element of [1, 9, 0, 9].
        let base = idx64(&[1, 9, 0, 9]);
        let index = base.view(&[2], &[2], 0).unwrap();
        let y = index_select(A2_SOC, &x, 0, &index).unwrap();
        assert_eq!(ints(&y), [1, 4, 0, 3]);
    }

    #[test]
    fn out_shape_function() {
        assert_eq!(index_select_out_shape(&[2, 3], 1, 5), Ok(vec![2, 5]));
        assert_eq!(index_select_out_shape(&[], 0, 1), Ok(vec![]));
        assert_eq!(
            index_select_out_shape(&[], 0, 2).unwrap_err().param(),
            Some("index")
        );
        assert_eq!(
            index_select_out_shape(&[2], 1, 1).unwrap_err().param(),
            Some("dim")
        );
    }

    #[test]
    fn availability_per_family() {
        let x = arange_i32(&[2]);
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                let got = index_select(soc, &x, 0, &idx64(&[1]));
                if fam == Family::A200I500A2 {
                    assert_eq!(
                        got.unwrap_err(),
                        RefError::UnsupportedOp {
                            op: OP,
                            soc: soc.to_string()
                        }
                    );
                } else {
                    assert_eq!(ints(&got.unwrap()), [1], "{soc}");
                }
            }
        }
    }

    #[test]
    fn dtypes_per_family() {
        for fam in [Family::Training, Family::A2, Family::A3, Family::Inference] {
            let soc = fam.soc_names()[0];
            for dtype in DType::ALL {
                let got = index_select(soc, &zeros(dtype, &[2]), 0, &idx64(&[1, 0, 1]));
                let want = dtype != DType::BFloat16 || matches!(fam, Family::A2 | Family::A3);
                assert_eq!(
                    supported_dtypes(Op::IndexSelect, fam).contains(&dtype),
                    want
                );
                if want {
                    let y = got.unwrap();
                    assert_eq!((y.dtype(), y.shape()), (dtype, &[3][..]));
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
    fn every_dtype_is_copied_bit_exactly() {
        for dtype in DType::ALL {
            let size = dtype.size();
            // Element k is bytes k*size.. of a recognisable pattern (bool: 0/1).
            let bytes: Vec<u8> = (0..3 * size)
                .map(|b| {
                    if dtype == DType::Bool {
                        (b % 2) as u8
                    } else {
                        (b * 37 + 1) as u8
                    }
                })
                .collect();
            let x = Tensor::from_bytes(dtype, &[3], bytes.clone()).unwrap();
            let y = index_select(A2_SOC, &x, 0, &idx64(&[2, 0])).unwrap();
            let mut want = bytes[2 * size..3 * size].to_vec();
            want.extend_from_slice(&bytes[..size]);
            assert_eq!(y.contiguous_bytes(), want, "{dtype}");
        }
    }

    #[test]
    fn validation_order() {
        let bad_index = zeros(DType::Float32, &[1, 1]);
        let x = zeros(DType::BFloat16, &[2]);
        assert_eq!(
            index_select("Ascend310B2", &x, 5, &bad_index)
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
        assert_eq!(
            index_select("Ascend310P1", &x, 5, &bad_index)
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        let x = zeros(DType::Float32, &[2]);
        assert_eq!(
            index_select("Ascend310P1", &x, 5, &bad_index)
                .unwrap_err()
                .kind(),
            "invalid_argument"
        );
        // Parameter errors come before index values.
        assert_eq!(
            index_select(A2_SOC, &x, 5, &idx64(&[7]))
                .unwrap_err()
                .param(),
            Some("dim")
        );
        assert_eq!(
            index_select("bogus", &x, 0, &idx64(&[0]))
                .unwrap_err()
                .param(),
            Some("soc")
        );
    }
}
