//! Embedding — `aclnnEmbedding` (ops.md section 23): the rows of a 2-D
//! `weight` picked by an index tensor of any rank.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::Tensor;

const OP: &str = "embedding";

/// The output shape of `embedding`: `indices_shape` followed by `weight`'s
/// row length. `weight` must be 2-D and `indices` of rank 0 to 7 (the
/// output's rank is at most 8).
pub fn embedding_out_shape(
    weight_shape: &[usize],
    indices_shape: &[usize],
) -> Result<Vec<usize>, RefError> {
    if weight_shape.len() != 2 {
        return Err(RefError::invalid(
            OP,
            "weight",
            format!("must be 2-D, got rank {}", weight_shape.len()),
        ));
    }
    if indices_shape.len() > 7 {
        return Err(RefError::invalid(
            OP,
            "indices",
            format!(
                "rank must be 0 to 7 (out has one more), got {}",
                indices_shape.len()
            ),
        ));
    }
    let mut out = indices_shape.to_vec();
    out.push(weight_shape[1]);
    Ok(out)
}

/// `out[i.., :] = weight[indices[i..], :]`, as a new contiguous tensor of
/// `weight`'s dtype and shape `indices.shape + [weight.shape[1]]`.
/// `indices` is INT32 or INT64 of any shape (any view), repeats allowed.
///
/// Every index value must lie in `[0, weight.shape[0])`: the first bad one
/// gives `IndexOutOfRange`, checked even when the output is empty because
/// the row length is 0 (the project never returns CANN's undefined rows for
/// an index past the end).
pub fn embedding(soc: &str, weight: &Tensor, indices: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Embedding, soc, weight.dtype())?;
    check_rank(OP, weight.rank(), 0)?;
    let values = read_index_tensor(OP, "indices", indices)?;
    let out_shape = embedding_out_shape(weight.shape(), indices.shape())?;
    let bytes = output_byte_len(OP, "indices", weight.dtype(), &out_shape)?;
    let (rows, cols) = (weight.shape()[0], weight.shape()[1]);
    for (position, &value) in values.iter().enumerate() {
        if value < 0 || value as u64 >= rows as u64 {
            return Err(RefError::IndexOutOfRange {
                op: OP,
                position,
                value,
                bound: rows,
            });
        }
    }
    let mut out = new_output(OP, "indices", bytes)?;
    for &v in &values {
        for j in 0..cols {
            out.extend_from_slice(weight.element_bytes(&[v as usize, j]));
        }
    }
    Ok(Tensor::from_parts_contiguous(
        weight.dtype(),
        out_shape,
        out,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    #[test]
    fn cann_sample_and_shapes() {
        // CANN's sample: a [10, 3] weight of 1..30, indices [1, 2, 3, 4].
        let w = Tensor::from_slice(&[10, 3], &(1..=30).collect::<Vec<i32>>()).unwrap();
        let y = embedding(A2_SOC, &w, &idx64(&[1, 2, 3, 4])).unwrap();
        assert_eq!(y.shape(), &[4, 3]);
        assert_eq!(ints(&y), (4..=15).collect::<Vec<i32>>());
        // Indices of rank 2 (int32, repeats) and rank 0.
        let i2 = Tensor::from_slice(&[2, 2], &[0i32, 9, 9, 0]).unwrap();
        let y = embedding(A2_SOC, &w, &i2).unwrap();
        assert_eq!(y.shape(), &[2, 2, 3]);
        assert_eq!(ints(&y), [1, 2, 3, 28, 29, 30, 28, 29, 30, 1, 2, 3]);
        let i0 = Tensor::from_slice(&[], &[5i64]).unwrap();
        assert_eq!(ints(&embedding(A2_SOC, &w, &i0).unwrap()), [16, 17, 18]);
        // A transposed weight view.
        let wt = arange_i32(&[2, 3]).view(&[3, 2], &[1, 3], 0).unwrap();
        assert_eq!(ints(&embedding(A2_SOC, &wt, &idx64(&[2])).unwrap()), [2, 5]);
    }

    #[test]
    fn rules_in_order() {
        let w = arange_i32(&[3, 2]);
        let e = embedding(A2_SOC, &arange_i32(&[6]), &idx64(&[0])).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("weight")));
        let f = Tensor::from_slice(&[1], &[0f32]).unwrap();
        let e = embedding(A2_SOC, &w, &f).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("indices")));
        let e = embedding(A2_SOC, &w, &idx64(&[0, 3])).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
        let e = embedding(A2_SOC, &w, &idx64(&[-1])).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range");
        let u = Tensor::from_bytes(DType::UInt16, &[1, 1], vec![0; 2]).unwrap();
        assert_eq!(
            embedding(A2_SOC, &u, &idx64(&[0])).unwrap_err().kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            embedding("Ascend910A", &w, &idx64(&[0]))
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
        // Empty: no rows picked, or rows of length 0 (values still checked).
        assert_eq!(embedding(A2_SOC, &w, &idx64(&[])).unwrap().shape(), &[0, 2]);
        let w0 = arange_i32(&[3, 0]);
        assert_eq!(
            embedding(A2_SOC, &w0, &idx64(&[2])).unwrap().shape(),
            &[1, 0]
        );
        assert_eq!(
            embedding(A2_SOC, &w0, &idx64(&[3])).unwrap_err().kind(),
            "index_out_of_range"
        );
    }
}
