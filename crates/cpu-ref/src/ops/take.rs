//! Take — `aclnnTake` (ops.md section 26): `self` read flat, its elements
//! picked by an index tensor of any shape.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{Tensor, MAX_RANK};

const OP: &str = "take";

/// `out[p] = flat(x)[index[p]]`, as a new contiguous tensor of `x`'s dtype
/// and `index`'s shape. `index` is INT32 or INT64 of rank 0 to 8 (any
/// view); a non-empty index needs a non-empty `x`.
///
/// Every index value must lie in `[0, numel(x))`: the first bad one (in
/// `index`'s row-major order) gives `IndexOutOfRange`.
pub fn take(soc: &str, x: &Tensor, index: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Take, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let values = read_index_tensor(OP, "index", index)?;
    if index.rank() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("rank must be at most {MAX_RANK}, got {}", index.rank()),
        ));
    }
    let n = x.numel();
    if n == 0 && index.numel() > 0 {
        return Err(RefError::invalid(
            OP,
            "index",
            "a non-empty index into an empty self",
        ));
    }
    let out_shape = index.shape().to_vec();
    let bytes = output_byte_len(OP, "index", x.dtype(), &out_shape)?;
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
    for &v in &values {
        out.extend_from_slice(x.flat_element_bytes(v as usize));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    #[test]
    fn cann_sample_views_and_rules() {
        // CANN's sample: self [4, 2], index [[4, 1], [0, 5]].
        let x = Tensor::from_slice(
            &[4, 2],
            &[
                0f32, 1.123, -2.001, 303.45, 40009., -50.1234, 60.666, -7.6543,
            ],
        )
        .unwrap();
        let i = Tensor::from_slice(&[2, 2], &[4i64, 1, 0, 5]).unwrap();
        let y = take(A2_SOC, &x, &i).unwrap();
        assert_eq!(y.shape(), &[2, 2]);
        assert_eq!(y.to_vec::<f32>().unwrap(), [40009., 1.123, 0., -50.1234]);
        // A transposed self is read in its logical order.
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&take(A2_SOC, &xt, &idx64(&[1, 2, 5])).unwrap()),
            [3, 1, 5]
        );
        // 0-D self and index.
        let y = take(A2_SOC, &Tensor::scalar(4i32), &Tensor::scalar(0i32)).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![4]));
        // Rules.
        let e = take(A2_SOC, &xt, &zeros(DType::Float32, &[1])).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let e = take(A2_SOC, &arange_i32(&[0, 2]), &idx64(&[0])).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("index")));
        assert_eq!(
            take(A2_SOC, &arange_i32(&[0, 2]), &idx64(&[]))
                .unwrap()
                .shape(),
            &[0]
        );
        let e = take(A2_SOC, &xt, &idx64(&[0, 6])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 1,
                value: 6,
                bound: 6
            }
        );
        assert_eq!(
            take(A2_SOC, &xt, &idx64(&[-1])).unwrap_err().kind(),
            "index_out_of_range"
        );
        assert_eq!(
            take("Ascend310P3", &xt, &idx64(&[0])).unwrap_err().kind(),
            "unsupported_op"
        );
        assert!(take("Ascend910A", &zeros(DType::Complex128, &[1]), &idx64(&[0])).is_ok());
        assert_eq!(
            take("Ascend910A", &zeros(DType::BFloat16, &[1]), &idx64(&[0]))
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
    }
}
