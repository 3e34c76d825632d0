//! GatherNd — `aclnnGatherNd` (ops.md section 28): the slices of `self` at
//! the coordinate tuples held by the last dim of `indices`.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "gather_nd";

/// The output shape of `gather_nd`: `indices_shape[..-1] +
/// self_shape[K..]`, `K = indices_shape[-1]` in `[1, rank(self)]`;
/// `indices` of rank 1 to 8 (param `indices`), the output's rank at most 8.
pub fn gather_nd_out_shape(
    self_shape: &[usize],
    indices_shape: &[usize],
) -> Result<Vec<usize>, RefError> {
    check_rank(OP, self_shape.len(), 1)?;
    if indices_shape.is_empty() || indices_shape.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "indices",
            format!("rank must be 1 to {MAX_RANK}, got {}", indices_shape.len()),
        ));
    }
    let k = indices_shape[indices_shape.len() - 1];
    if k < 1 || k > self_shape.len() {
        return Err(RefError::invalid(
            OP,
            "indices",
            format!(
                "its last extent {k} must lie in [1, {}] (self's rank)",
                self_shape.len()
            ),
        ));
    }
    let mut out = indices_shape[..indices_shape.len() - 1].to_vec();
    out.extend_from_slice(&self_shape[k..]);
    if out.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "indices",
            format!(
                "the output would have rank {} (at most {MAX_RANK})",
                out.len()
            ),
        ));
    }
    Ok(out)
}

/// `out[i..] = x[indices[i.., 0], .., indices[i.., K-1], ..]`, as a new
/// contiguous tensor of `x`'s dtype and [`gather_nd_out_shape`]. With
/// `negative`, a coordinate in `[-s, -1]` counts from the end of its dim.
///
/// Every coordinate must lie in `[0, s)` (`[-s, s)` with `negative`): the
/// first bad one (its position in `indices` read flat) gives
/// `IndexOutOfRange`, checked even when the output is empty.
pub fn gather_nd(
    soc: &str,
    x: &Tensor,
    indices: &Tensor,
    negative: bool,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::GatherNd, soc, x.dtype())?;
    check_rank(OP, x.rank(), 1)?;
    let values = read_index_tensor(OP, "indices", indices)?;
    let out_shape = gather_nd_out_shape(x.shape(), indices.shape())?;
    let k = indices.shape()[indices.rank() - 1];
    let bytes = output_byte_len(OP, "indices", x.dtype(), &out_shape)?;
    let mut coords = Vec::with_capacity(values.len());
    for (position, &value) in values.iter().enumerate() {
        let s = x.shape()[position % k];
        let c = if negative && value < 0 && value >= -(s as i64) {
            value + s as i64
        } else {
            value
        };
        if c < 0 || c as u64 >= s as u64 {
            return Err(RefError::IndexOutOfRange {
                op: OP,
                position,
                value,
                bound: s,
            });
        }
        coords.push(c as usize);
    }
    let mut out = new_output(OP, "indices", bytes)?;
    let tuples = values.len() / k;
    let inner = &x.shape()[k..];
    for t in 0..tuples {
        for rest in row_major(inner) {
            let mut src = coords[t * k..(t + 1) * k].to_vec();
            src.extend_from_slice(&rest);
            out.extend_from_slice(x.element_bytes(&src));
        }
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    #[test]
    fn the_pages_examples() {
        let x2 = arange_i32(&[2, 2]);
        let x3 = arange_i32(&[2, 2, 2]);
        let i = |shape: &[usize], v: &[i64]| Tensor::from_slice(shape, v).unwrap();
        let y = gather_nd(A2_SOC, &x2, &i(&[2, 2], &[0, 0, 1, 1]), false).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2][..], vec![0, 3]));
        let y = gather_nd(A2_SOC, &x2, &i(&[2, 1], &[1, 0]), false).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2, 2][..], vec![2, 3, 0, 1]));
        let y = gather_nd(A2_SOC, &x3, &i(&[2, 2], &[0, 1, 1, 0]), false).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2, 2][..], vec![2, 3, 4, 5]));
        let y = gather_nd(A2_SOC, &x3, &i(&[2, 1, 2], &[0, 1, 1, 0]), false).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2, 1, 2][..], vec![2, 3, 4, 5]));
        // Negative coordinates, a transposed self.
        let y = gather_nd(A2_SOC, &x2, &i(&[1, 2], &[-1, -2]), true).unwrap();
        assert_eq!(ints(&y), [2]);
        let e = gather_nd(A2_SOC, &x2, &i(&[1, 2], &[-1, 0]), false).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: -1,
                bound: 2
            }
        );
        let e = gather_nd(A2_SOC, &x2, &i(&[1, 2], &[0, -3]), true).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&gather_nd(A2_SOC, &xt, &i(&[1, 1], &[2]), false).unwrap()),
            [2, 5]
        );
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[2, 3]);
        let e = gather_nd(A2_SOC, &Tensor::scalar(1i32), &idx64(&[0]), false).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let e = gather_nd(A2_SOC, &x, &zeros(DType::Float32, &[1]), false).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        let e = gather_nd(A2_SOC, &x, &Tensor::scalar(0i64), false).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        let e = gather_nd(A2_SOC, &x, &idx64(&[0, 0, 0]), false).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        let e = gather_nd(
            A2_SOC,
            &x,
            &Tensor::from_slice::<i64>(&[0], &[]).unwrap(),
            false,
        )
        .unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        let i7 = Tensor::from_slice(&[1, 1, 1, 1, 1, 1, 1, 1], &[0i64]).unwrap();
        assert_eq!(gather_nd(A2_SOC, &x, &i7, false).unwrap().rank(), 8);
        let e = gather_nd(A2_SOC, &arange_i32(&[1, 1, 2]), &i7, false).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        assert_eq!(
            gather_nd(A2_SOC, &zeros(DType::Int16, &[2]), &idx64(&[0]), false)
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            gather_nd("Ascend310B1", &x, &idx64(&[0]), false)
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
        // Empty: no tuples; tuples into slices of 0 elements (still checked).
        let e0 = Tensor::from_slice::<i64>(&[0, 1], &[]).unwrap();
        assert_eq!(gather_nd(A2_SOC, &x, &e0, false).unwrap().shape(), &[0, 3]);
        let x0 = arange_i32(&[2, 0]);
        assert_eq!(
            gather_nd(A2_SOC, &x0, &idx64(&[1]), false).unwrap().shape(),
            &[0]
        );
        assert_eq!(
            gather_nd(A2_SOC, &x0, &idx64(&[2]), false)
                .unwrap_err()
                .kind(),
            "index_out_of_range"
        );
    }
}
