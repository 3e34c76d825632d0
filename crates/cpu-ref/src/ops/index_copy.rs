//! IndexCopy — `aclnnIndexCopy` / `aclnnInplaceIndexCopy` (ops.md section
//! 27): a copy of `self` with `source`'s slices written at `index` along
//! `dim`.

use crate::error::RefError;
use crate::ops::{check_rank, new_output, normalize_dim, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "index_copy";

/// `out = x`, then `out[.., index[i], ..] = source[.., i, ..]` along `dim`
/// for every `i` in order (a repeated index: the last write wins), as a new
/// contiguous tensor of `x`'s shape and dtype (the in-place form's new
/// value of `x`). A 0-D `x`, `source` or `index` counts as 1-D of one
/// element.
///
/// Every index value must lie in `[0, N)`, `N = x.shape[dim]` (1 for a
/// 0-D `x`): the first bad one gives `IndexOutOfRange`.
pub fn index_copy(
    soc: &str,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
) -> Result<Tensor, RefError> {
    check_op_dtype(Op::IndexCopy, soc, x.dtype())?;
    check_rank(OP, x.rank(), 0)?;
    let values = read_index_tensor(OP, "index", index)?;
    if index.rank() > 1 {
        return Err(RefError::invalid(
            OP,
            "index",
            format!("rank must be 0 or 1, got {}", index.rank()),
        ));
    }
    if source.dtype() != x.dtype() {
        return Err(RefError::invalid(
            OP,
            "source",
            format!("dtype {} must be self's {}", source.dtype(), x.dtype()),
        ));
    }
    let xs: Vec<usize> = if x.rank() == 0 {
        vec![1]
    } else {
        x.shape().to_vec()
    };
    let ss: Vec<usize> = if source.rank() == 0 {
        vec![1]
    } else {
        source.shape().to_vec()
    };
    if xs.len() != ss.len() {
        return Err(RefError::invalid(
            OP,
            "source",
            format!("rank {} must be self's rank {}", source.rank(), x.rank()),
        ));
    }
    let d = normalize_dim(OP, dim, xs.len())?;
    for k in 0..xs.len() {
        let want = if k == d { values.len() } else { xs[k] };
        if ss[k] != want {
            return Err(RefError::invalid(
                OP,
                "source",
                format!(
                    "shape {:?} must be self's {:?} with {} along dim {d}",
                    source.shape(),
                    x.shape(),
                    values.len()
                ),
            ));
        }
    }
    let n = xs[d];
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
    let bytes = output_byte_len(OP, "self", x.dtype(), x.shape())?;
    let mut out = new_output(OP, "self", bytes)?;
    out.extend_from_slice(&x.contiguous_bytes());
    let es = x.dtype().size();
    // Row-major strides of xs, to place each source element.
    let mut strides = vec![1usize; xs.len()];
    for k in (0..xs.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * xs[k + 1];
    }
    for p in row_major(&ss) {
        let mut at = 0usize;
        for k in 0..xs.len() {
            let c = if k == d { values[p[k]] as usize } else { p[k] };
            at += c * strides[k];
        }
        let src = if source.rank() == 0 {
            source.element_bytes(&[])
        } else {
            source.element_bytes(&p)
        };
        out[at * es..(at + 1) * es].copy_from_slice(src);
    }
    Ok(Tensor::from_parts_contiguous(
        x.dtype(),
        x.shape().to_vec(),
        out,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::*;

    #[test]
    fn copies_slices_along_dim() {
        let x = arange_i32(&[3, 2]); // [[0,1],[2,3],[4,5]]
        let src = Tensor::from_slice(&[2, 2], &[10i32, 11, 12, 13]).unwrap();
        let y = index_copy(A2_SOC, &x, 0, &idx64(&[2, 0]), &src).unwrap();
        assert_eq!(ints(&y), [12, 13, 2, 3, 10, 11]);
        let src = Tensor::from_slice(&[3, 1], &[7i32, 8, 9]).unwrap();
        let y = index_copy(A2_SOC, &x, -1, &idx64(&[1]), &src).unwrap();
        assert_eq!(ints(&y), [0, 7, 2, 8, 4, 9]);
        // Repeats: the last write wins.
        let src = Tensor::from_slice(&[2, 2], &[10i32, 11, 12, 13]).unwrap();
        let y = index_copy(A2_SOC, &x, 0, &idx64(&[1, 1]), &src).unwrap();
        assert_eq!(ints(&y), [0, 1, 12, 13, 4, 5]);
        // A transposed self; a 0-D index and 0-D self/source.
        let xt = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let src = Tensor::from_slice(&[1, 2], &[8i32, 9]).unwrap();
        let y = index_copy(A2_SOC, &xt, 0, &Tensor::scalar(1i64), &src).unwrap();
        assert_eq!(ints(&y), [0, 3, 8, 9, 2, 5]);
        let y = index_copy(
            A2_SOC,
            &Tensor::scalar(1i32),
            0,
            &Tensor::scalar(0i32),
            &Tensor::scalar(6i32),
        )
        .unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[][..], vec![6]));
        // An empty index: a copy of self.
        let src = arange_i32(&[0, 2]);
        assert_eq!(
            ints(&index_copy(A2_SOC, &x, 0, &idx64(&[]), &src).unwrap()),
            ints(&x)
        );
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[3, 2]);
        let s2 = arange_i32(&[1, 2]);
        let e = index_copy(A2_SOC, &x, 0, &zeros(DType::Float32, &[1]), &s2).unwrap_err();
        assert_eq!(e.param(), Some("index"));
        let i2 = Tensor::from_slice(&[1, 1], &[0i64]).unwrap();
        assert_eq!(
            index_copy(A2_SOC, &x, 0, &i2, &s2).unwrap_err().param(),
            Some("index")
        );
        let f = zeros(DType::Float32, &[1, 2]);
        let e = index_copy(A2_SOC, &x, 0, &idx64(&[0]), &f).unwrap_err();
        assert_eq!(e.param(), Some("source"));
        let e = index_copy(A2_SOC, &x, 0, &idx64(&[0]), &arange_i32(&[2])).unwrap_err();
        assert_eq!(e.param(), Some("source"));
        for dim in [2, -3, i64::MIN] {
            let e = index_copy(A2_SOC, &x, dim, &idx64(&[0]), &s2).unwrap_err();
            assert_eq!(e.param(), Some("dim"));
        }
        let e = index_copy(A2_SOC, &x, 0, &idx64(&[0, 1]), &s2).unwrap_err();
        assert_eq!(e.param(), Some("source"));
        let e = index_copy(A2_SOC, &x, 0, &idx64(&[0]), &arange_i32(&[1, 3])).unwrap_err();
        assert_eq!(e.param(), Some("source"));
        let e = index_copy(A2_SOC, &x, 0, &idx64(&[3]), &s2).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 0,
                value: 3,
                bound: 3
            }
        );
        assert_eq!(
            index_copy(A2_SOC, &x, 0, &idx64(&[-1]), &s2)
                .unwrap_err()
                .kind(),
            "index_out_of_range"
        );
        assert_eq!(
            index_copy("Ascend310P3", &x, 0, &idx64(&[0]), &s2)
                .unwrap_err()
                .kind(),
            "unsupported_op"
        );
        let u = zeros(DType::UInt32, &[3, 2]);
        assert_eq!(
            index_copy(A2_SOC, &u, 0, &idx64(&[0]), &s2)
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
    }
}
