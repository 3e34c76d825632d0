//! GatherV2 — `aclnnGatherV2` (ops.md section 24): the slices of `self`
//! along `dim` picked by an index tensor of any shape.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "gather_v2";

/// The output shape of `gather_v2` on `self` of `shape` with an index of
/// `index_shape`: `shape[..dim] + index_shape + shape[dim+1..]`, a 0-D
/// index counting as `[1]`. A 0-D `self` counts as rank 1 of length 1
/// (`dim` 0 or -1); its index must hold exactly one element and the output
/// is 0-D. The output's rank must be at most 8 (param `index`).
pub fn gather_v2_out_shape(
    shape: &[usize],
    dim: i64,
    index_shape: &[usize],
) -> Result<Vec<usize>, RefError> {
    check_rank(OP, shape.len(), 0)?;
    if index_shape.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("rank must be at most {MAX_RANK}, got {}", index_shape.len()),
        ));
    }
    let d = normalize_dim(OP, dim, shape.len().max(1))?;
    let index: &[usize] = if index_shape.is_empty() {
        &[1]
    } else {
        index_shape
    };
    if shape.is_empty() {
        let n: usize = index.iter().product();
        if n != 1 {
            return Err(RefError::invalid(
                OP,
                "index",
                format!("a 0-D self needs an index of exactly one element, got {n}"),
            ));
        }
        return Ok(Vec::new());
    }
    let rank = shape.len() + index.len() - 1;
    if rank > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("the output would have rank {rank} (at most {MAX_RANK})"),
        ));
    }
    let mut out = shape[..d].to_vec();
    out.extend_from_slice(index);
    out.extend_from_slice(&shape[d + 1..]);
    Ok(out)
}

/// `out[a.., i.., b..] = x[a.., index[i..], b..]` along `dim`, as a new
/// contiguous tensor of `x`'s dtype and shape [`gather_v2_out_shape`].
/// `index` is INT32 or INT64 of rank 0 to 8 (any view); repeats are
/// allowed.
///
/// Every index value must lie in `[0, N)`, `N = x.shape[dim]` (1 for a
/// 0-D `x`): the first bad one (in the index's row-major order) gives
/// `IndexOutOfRange`, checked even when the output is empty.
pub fn gather_v2(soc: &str, x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::GatherV2, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let values = read_index_tensor(OP, "index", index)?;
    let out_shape = gather_v2_out_shape(x.shape(), dim, index.shape())?;
    let bytes = output_byte_len(OP, "index", x.dtype(), &out_shape)?;
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
        return Ok(Tensor::from_parts_contiguous(x.dtype(), out_shape, out));
    }
    // The index's dims in the output: d .. d + k (k = 1 for a 0-D index).
    let k = index.rank().max(1);
    let index_shape: Vec<usize> = out_shape[d..d + k].to_vec();
    for out_index in row_major(&out_shape) {
        // Row-major position of the index element within the index.
        let mut pos = 0usize;
        for (j, &n_j) in index_shape.iter().enumerate() {
            pos = pos * n_j + out_index[d + j];
        }
        let mut src = out_index[..d].to_vec();
        src.push(values[pos] as usize);
        src.extend_from_slice(&out_index[d + k..]);
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
    fn cann_sample_and_dims() {
        // CANN's sample: self [2, 2] of 0..4, index [2, 2] = [0, 1, 0, 1], dim 0.
        let x = Tensor::from_slice(&[2, 2], &[0f32, 1., 2., 3.]).unwrap();
        let i = Tensor::from_slice(&[2, 2], &[0i64, 1, 0, 1]).unwrap();
        let y = gather_v2(A2_SOC, &x, 0, &i).unwrap();
        assert_eq!(y.shape(), &[2, 2, 2]);
        assert_eq!(y.to_vec::<f32>().unwrap(), [0., 1., 2., 3., 0., 1., 2., 3.]);
        // The page's 3x3 example, idx [1, 0], dims 0 and 1.
        let x = Tensor::from_slice(&[3, 3], &(1..=9).collect::<Vec<i32>>()).unwrap();
        let y = gather_v2(A2_SOC, &x, 0, &idx64(&[1, 0])).unwrap();
        assert_eq!(ints(&y), [4, 5, 6, 1, 2, 3]);
        let y = gather_v2(A2_SOC, &x, 1, &idx64(&[1, 0])).unwrap();
        assert_eq!(y.shape(), &[3, 2]);
        assert_eq!(ints(&y), [2, 1, 5, 4, 8, 7]);
        // A 2-D index in the middle of a 3-D self.
        let x = arange_i32(&[2, 3, 2]);
        let i = Tensor::from_slice(&[2, 2], &[2i32, 0, 1, 1]).unwrap();
        let y = gather_v2(A2_SOC, &x, -2, &i).unwrap();
        assert_eq!(y.shape(), &[2, 2, 2, 2]);
        assert_eq!(ints(&y), [4, 5, 0, 1, 2, 3, 2, 3, 10, 11, 6, 7, 8, 9, 8, 9]);
        // A 0-D index keeps the rank, extent 1 at dim.
        let y = gather_v2(A2_SOC, &x, 1, &Tensor::scalar(2i64)).unwrap();
        assert_eq!(y.shape(), &[2, 1, 2]);
        assert_eq!(ints(&y), [4, 5, 10, 11]);
        // A transposed self and a strided index.
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let base = idx64(&[2, 9, 0, 9]);
        let iv = base.view(&[2], &[2], 0).unwrap();
        assert_eq!(ints(&gather_v2(A2_SOC, &xt, 0, &iv).unwrap()), [2, 5, 0, 3]);
    }

    #[test]
    fn zero_d_self() {
        let x = Tensor::scalar(7i32);
        for dim in [0, -1] {
            let y = gather_v2(A2_SOC, &x, dim, &idx64(&[0])).unwrap();
            assert_eq!((y.shape(), ints(&y)), (&[][..], vec![7]));
            let y = gather_v2(A2_SOC, &x, dim, &Tensor::scalar(0i32)).unwrap();
            assert_eq!(ints(&y), [7]);
        }
        let e = gather_v2(A2_SOC, &x, 1, &idx64(&[0])).unwrap_err();
        assert_eq!(e.param(), Some("dim"));
        let e = gather_v2(A2_SOC, &x, 0, &idx64(&[0, 0])).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let e = gather_v2(A2_SOC, &x, 0, &idx64(&[1])).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[3, 2]);
        let e = gather_v2(A2_SOC, &arange_i32(&[1; 9]), 0, &idx64(&[0])).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let f = Tensor::from_slice(&[1], &[0f32]).unwrap();
        let e = gather_v2(A2_SOC, &x, 5, &f).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let i9 = Tensor::from_slice(&[1; 9], &[0i64]).unwrap();
        let e = gather_v2(A2_SOC, &x, 5, &i9).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        for dim in [2, -3, i64::MIN, i64::MAX] {
            let e = gather_v2(A2_SOC, &x, dim, &idx64(&[7])).unwrap_err();
            assert_eq!(e.param(), Some("dim"));
        }
        // Output rank 9: self rank 2, index rank 8.
        let i8 = Tensor::from_slice(&[1; 8], &[0i64]).unwrap();
        let e = gather_v2(A2_SOC, &x, 0, &i8).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let i7 = Tensor::from_slice(&[1; 7], &[0i64]).unwrap();
        assert_eq!(gather_v2(A2_SOC, &x, 0, &i7).unwrap().rank(), 8);
        let e = gather_v2(A2_SOC, &x, 0, &idx64(&[0, 3])).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 1,
                value: 3,
                bound: 3
            }
        );
        assert_eq!(
            gather_v2(A2_SOC, &x, 0, &idx64(&[-1])).unwrap_err().kind(),
            "index_out_of_range"
        );
        let u = zeros(DType::UInt16, &[2]);
        assert_eq!(
            gather_v2(A2_SOC, &u, 0, &idx64(&[0])).unwrap_err().kind(),
            "unsupported_dtype"
        );
        let b = zeros(DType::BFloat16, &[2]);
        assert!(gather_v2(A2_SOC, &b, 0, &idx64(&[0])).is_ok());
        assert_eq!(
            gather_v2("Ascend910A", &b, 0, &idx64(&[0]))
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            gather_v2("Ascend310B1", &x, 0, &idx64(&[0]))
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
        assert!(gather_v2("Ascend310P3", &x, 0, &idx64(&[0])).is_ok());
    }

    #[test]
    fn empty_tensors() {
        let x = arange_i32(&[3, 2]);
        let y = gather_v2(A2_SOC, &x, 0, &idx64(&[])).unwrap();
        assert_eq!(y.shape(), &[0, 2]);
        let e2 = Tensor::from_slice::<i64>(&[2, 0], &[]).unwrap();
        assert_eq!(gather_v2(A2_SOC, &x, 1, &e2).unwrap().shape(), &[3, 2, 0]);
        // Nothing to move, values still checked.
        let x0 = arange_i32(&[0, 2]);
        assert_eq!(
            gather_v2(A2_SOC, &x0, 1, &idx64(&[1])).unwrap().shape(),
            &[0, 1]
        );
        assert_eq!(
            gather_v2(A2_SOC, &x0, 1, &idx64(&[2])).unwrap_err().kind(),
            "index_out_of_range"
        );
        assert_eq!(
            gather_v2(A2_SOC, &x0, 0, &idx64(&[0])).unwrap_err().kind(),
            "index_out_of_range"
        );
    }

    #[test]
    fn out_shape_function() {
        assert_eq!(gather_v2_out_shape(&[2, 3], 1, &[4, 5]), Ok(vec![2, 4, 5]));
        assert_eq!(gather_v2_out_shape(&[2, 3], 0, &[]), Ok(vec![1, 3]));
        assert_eq!(gather_v2_out_shape(&[], -1, &[1, 1]), Ok(vec![]));
        assert_eq!(
            gather_v2_out_shape(&[2], 1, &[1]).unwrap_err().param(),
            Some("dim")
        );
    }
}
