//! Gather — `aclnnGather` (ops.md section 25): torch's `gather`, one
//! element of `self` per element of `index`, picked along `dim`.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "gather";

/// Checks `gather`'s shape rules for `self` of `shape` and an index of
/// `index_shape` (a 0-D tensor counts as rank 1 of length 1): the same
/// rank, `dim` in range, and, for a non-empty index, every extent but the
/// one along `dim` at most `self`'s and `self`'s extent along `dim` not 0.
/// Returns the normalised dim; the output shape is `index_shape`.
pub fn gather_check(shape: &[usize], dim: i64, index_shape: &[usize]) -> Result<usize, RefError> {
    check_rank(OP, shape.len(), 0)?;
    let xs: &[usize] = if shape.is_empty() { &[1] } else { shape };
    let is: &[usize] = if index_shape.is_empty() {
        &[1]
    } else {
        index_shape
    };
    if xs.len() != is.len() {
        return Err(RefError::invalid(
            OP,
            "index",
            format!(
                "rank {} must be self's rank {}",
                index_shape.len(),
                shape.len()
            ),
        ));
    }
    let d = normalize_dim(OP, dim, xs.len())?;
    if is.contains(&0) {
        return Ok(d);
    }
    for (k, (&n, &m)) in xs.iter().zip(is).enumerate() {
        if k != d && m > n {
            return Err(RefError::invalid(
                OP,
                "index",
                format!("extent {m} along dim {k} is larger than self's {n}"),
            ));
        }
    }
    if xs[d] == 0 {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("a non-empty index along dim {d}, where self has no element"),
        ));
    }
    Ok(d)
}

/// `out[p] = x[p with p[dim] = index[p]]` for every index `p` of `index`,
/// as a new contiguous tensor of `x`'s dtype and `index`'s shape.
/// `index` is INT32 or INT64 of `x`'s rank (any view); repeats allowed.
///
/// Every index value must lie in `[0, N)`, `N = x.shape[dim]` (1 for a
/// 0-D `x`): the first bad one (in `index`'s row-major order) gives
/// `IndexOutOfRange`.
pub fn gather(soc: &str, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Gather, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let values = read_index_tensor(OP, "index", index)?;
    let d = gather_check(x.shape(), dim, index.shape())?;
    let out_shape = index.shape().to_vec();
    let bytes = output_byte_len(OP, "index", x.dtype(), &out_shape)?;
    let n = if x.rank() == 0 { 1 } else { x.shape()[d] };
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
    for (k, p) in row_major(&out_shape).enumerate() {
        if x.rank() == 0 {
            out.extend_from_slice(x.element_bytes(&[]));
            continue;
        }
        // A 0-D index holds one element: the coordinate is its value.
        let mut src = if p.is_empty() { vec![0] } else { p };
        src[d] = values[k] as usize;
        out.extend_from_slice(x.element_bytes(&src));
    }
    Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    #[test]
    fn the_pages_examples_and_sample() {
        let x = Tensor::from_slice(&[3, 3], &(1..=9).collect::<Vec<i32>>()).unwrap();
        let i = Tensor::from_slice(&[2, 2], &[0i64, 2, 1, 0]).unwrap();
        assert_eq!(ints(&gather(A2_SOC, &x, 0, &i).unwrap()), [1, 8, 4, 2]);
        assert_eq!(ints(&gather(A2_SOC, &x, 1, &i).unwrap()), [1, 3, 5, 4]);
        // CANN's sample: self [4, 2] of 0..8, index {0, 1, 2, 3, 3, 2, 1, 0}, dim 0.
        let x = Tensor::from_slice(&[4, 2], &(0..8).collect::<Vec<i32>>()).unwrap();
        let i = Tensor::from_slice(&[4, 2], &[0i32, 1, 2, 3, 3, 2, 1, 0]).unwrap();
        let y = gather(A2_SOC, &x, 0, &i).unwrap();
        assert_eq!(
            (y.shape(), ints(&y)),
            (&[4, 2][..], vec![0, 3, 4, 7, 6, 5, 2, 1])
        );
        // An index smaller than self along the other dims, a transposed self.
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let i = Tensor::from_slice(&[1, 2], &[1i64, 0]).unwrap();
        assert_eq!(ints(&gather(A2_SOC, &xt, -1, &i).unwrap()), [3, 0]);
        let i = Tensor::from_slice(&[3, 1], &[2i64, 0, 1]).unwrap();
        assert_eq!(ints(&gather(A2_SOC, &xt, 0, &i).unwrap()), [2, 0, 1]);
    }

    #[test]
    fn zero_d_tensors() {
        let x = Tensor::scalar(7i32);
        let y = gather(A2_SOC, &x, 0, &idx64(&[0, 0, 0])).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[3][..], vec![7, 7, 7]));
        let y = gather(A2_SOC, &x, -1, &Tensor::scalar(0i32)).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![7]));
        let x = arange_i32(&[4]);
        let y = gather(A2_SOC, &x, 0, &Tensor::scalar(3i64)).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![3]));
        assert_eq!(
            gather(A2_SOC, &Tensor::scalar(7i32), 0, &idx64(&[1]))
                .unwrap_err()
                .kind(),
            "index_out_of_range"
        );
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[3, 2]);
        let e = gather(A2_SOC, &arange_i32(&[1; 9]), 0, &idx64(&[0])).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let f = Tensor::from_slice(&[1, 1], &[0f32]).unwrap();
        assert_eq!(
            gather(A2_SOC, &x, 9, &f).unwrap_err().param(),
            Some("index")
        );
        let e = gather(A2_SOC, &x, 9, &idx64(&[0])).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let i11 = Tensor::from_slice(&[1, 1], &[0i64]).unwrap();
        for dim in [2, -3, i64::MIN, i64::MAX] {
            assert_eq!(
                gather(A2_SOC, &x, dim, &i11).unwrap_err().param(),
                Some("dim")
            );
        }
        // Other extents at most self's; dim's may be larger.
        let wide = Tensor::from_slice(&[1, 3], &[0i64; 3]).unwrap();
        assert_eq!(
            gather(A2_SOC, &x, 0, &wide).unwrap_err().param(),
            Some("index")
        );
        let tall = Tensor::from_slice(&[5, 1], &[0i64; 5]).unwrap();
        assert_eq!(gather(A2_SOC, &x, 0, &tall).unwrap().shape(), &[5, 1]);
        // self with no element along dim, index not empty.
        let x0 = arange_i32(&[0, 2]);
        assert_eq!(
            gather(A2_SOC, &x0, 0, &i11).unwrap_err().param(),
            Some("index")
        );
        let e0 = Tensor::from_slice::<i64>(&[0, 5], &[]).unwrap();
        assert_eq!(gather(A2_SOC, &x0, 0, &e0).unwrap().shape(), &[0, 5]);
        let e = gather(
            A2_SOC,
            &x,
            1,
            &Tensor::from_slice(&[1, 1], &[2i64]).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: 2,
                bound: 2
            }
        );
        let e = gather(
            A2_SOC,
            &x,
            1,
            &Tensor::from_slice(&[1, 2], &[0i32, -1]).unwrap(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
        assert_eq!(
            gather(A2_SOC, &zeros(DType::Complex64, &[2]), 0, &idx64(&[0]))
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert!(gather(A2_SOC, &zeros(DType::UInt64, &[2]), 0, &idx64(&[0])).is_ok());
        assert_eq!(
            gather(
                "Ascend310P1",
                &zeros(DType::BFloat16, &[2]),
                0,
                &idx64(&[0])
            )
            .unwrap_err()
            .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            gather("Ascend310B1", &x, 0, &i11).unwrap_err().kind(),
            "unsupported_op"
        );
    }
}
