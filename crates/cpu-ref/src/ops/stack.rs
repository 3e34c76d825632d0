//! Stack — `aclnnStack` (ops.md section 11): tensors of one shape joined
//! along a new dim.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::cat::{meeting_dtype, member_element, promoted};
use crate::ops::elementwise::check_out_dtype;
use crate::ops::{new_output, output_byte_len};
use crate::product::{check_op_dtype, supports_op, Family, Op};
use crate::tensor::{row_major, Tensor};

const OP: &str = "stack";

/// Most dims a member may have (the output has one more, at most 8).
pub const STACK_MAX_RANK: usize = 7;

/// The output shape of `stack` over `n` members of `shape`: `shape` with
/// `n` inserted at the normalised `dim` (`dim` in `[-(rank+1), rank]`).
pub fn stack_out_shape(shape: &[usize], n: usize, dim: i64) -> Result<Vec<usize>, RefError> {
    if shape.len() > STACK_MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "tensors",
            format!("rank must be at most {STACK_MAX_RANK}, got {}", shape.len()),
        ));
    }
    let r = shape.len() as i128 + 1;
    let d = i128::from(dim);
    if d < -r || d >= r {
        return Err(RefError::invalid(
            OP,
            "dim",
            format!("must be in [-{r}, {}], got {dim}", r - 1),
        ));
    }
    let d = if d < 0 { d + r } else { d } as usize;
    let mut out = shape.to_vec();
    out.insert(d, n);
    Ok(out)
}

fn check(
    soc: &str,
    tensors: &[&Tensor],
    dim: i64,
    out_dtype: Option<DType>,
) -> Result<(DType, usize, Vec<usize>), RefError> {
    let family = Family::from_soc_checked(OP, soc)?;
    if !supports_op(Op::Stack, family) {
        return Err(RefError::UnsupportedOp {
            op: OP,
            soc: soc.to_string(),
        });
    }
    let Some(first) = tensors.first() else {
        return Err(RefError::invalid(
            OP,
            "tensors",
            "the list must hold at least one tensor",
        ));
    };
    for t in tensors {
        check_op_dtype(Op::Stack, soc, t.dtype())?;
    }
    let dtype = promoted(OP, tensors)?;
    if let Some(o) = out_dtype {
        check_out_dtype(Op::Stack, soc, "out", dtype, o)?;
    }
    let out_shape = stack_out_shape(first.shape(), tensors.len(), dim)?;
    if let Some((i, t)) = tensors
        .iter()
        .enumerate()
        .find(|(_, t)| t.shape() != first.shape())
    {
        return Err(RefError::invalid(
            OP,
            "tensors",
            format!(
                "tensor {i} has shape {:?}; every tensor must have the first's {:?}",
                t.shape(),
                first.shape()
            ),
        ));
    }
    let d = out_shape
        .iter()
        .enumerate()
        .position(|(j, _)| {
            let r = first.rank() as i64 + 1;
            j as i64 == if dim < 0 { dim + r } else { dim }
        })
        .expect("dim checked");
    Ok((dtype, d, out_shape))
}

/// `tensors` (one shape) joined along a new dim `dim`, as a new
/// contiguous tensor of their promoted dtype (ops.md §11, as Cat's mixed
/// dtypes): `out[.., k, ..] = tensors[k]`.
pub fn stack(soc: &str, tensors: &[&Tensor], dim: i64) -> Result<Tensor, RefError> {
    stack_impl(soc, tensors, dim, None)
}

/// [`stack`] into an output of dtype `out_dtype` (the `_into` form): each
/// element cast to it. The caller checks the output's shape against
/// [`stack_out_shape`].
pub fn stack_cast(
    soc: &str,
    tensors: &[&Tensor],
    dim: i64,
    out_dtype: DType,
) -> Result<Tensor, RefError> {
    stack_impl(soc, tensors, dim, Some(out_dtype))
}

fn stack_impl(
    soc: &str,
    tensors: &[&Tensor],
    dim: i64,
    out_dtype: Option<DType>,
) -> Result<Tensor, RefError> {
    let (dtype, d, out_shape) = check(soc, tensors, dim, out_dtype)?;
    let to = out_dtype.unwrap_or(dtype);
    let via = meeting_dtype(tensors, dtype);
    let bytes = output_byte_len(OP, "tensors", to, &out_shape)?;
    let mut out = new_output(OP, "tensors", bytes)?;
    for idx in row_major(&out_shape) {
        let mut src = idx.clone();
        let k = src.remove(d);
        let m = tensors[k];
        out.extend_from_slice(&member_element(m.dtype(), m.element_bytes(&src), via, to));
    }
    Ok(Tensor::from_parts_contiguous(to, out_shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;

    #[test]
    fn stacks_as_cann_example() {
        let a = Tensor::from_slice(&[2, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_slice(&[2, 3], &[7f32, 8., 9., 10., 11., 12.]).unwrap();
        let y = stack(A2_SOC, &[&a, &b], 0).unwrap();
        assert_eq!(y.shape(), &[2, 2, 3]);
        assert_eq!(
            y.to_vec::<f32>().unwrap(),
            (1..=12).map(|v| v as f32).collect::<Vec<_>>()
        );
        let y = stack(A2_SOC, &[&a, &b], -1).unwrap();
        assert_eq!(y.shape(), &[2, 3, 2]);
        assert_eq!(
            y.to_vec::<f32>().unwrap(),
            [1., 7., 2., 8., 3., 9., 4., 10., 5., 11., 6., 12.]
        );
    }

    #[test]
    fn views_zero_d_and_empty_members() {
        let t = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = stack(A2_SOC, &[&t, &t], 1).unwrap();
        assert_eq!(y.shape(), &[3, 2, 2]);
        assert_eq!(ints(&y), [0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5]);
        let s = Tensor::scalar(7i32);
        let y = stack(A2_SOC, &[&s, &s, &s], -1).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[3usize][..], vec![7, 7, 7]));
        let e = arange_i32(&[0, 2]);
        assert_eq!(stack(A2_SOC, &[&e, &e], 2).unwrap().shape(), &[0, 2, 2]);
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 2]);
        let param = |r: Result<Tensor, RefError>| match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        };
        assert_eq!(param(stack(A2_SOC, &[], 0)), "tensors");
        // Mixed dtypes promote (INT32 with INT64: INT64); COMPLEX64 with
        // DOUBLE would be COMPLEX128, refused.
        let y = stack(A2_SOC, &[&a, &zeros(DType::Int64, &[2, 2])], 0).unwrap();
        assert_eq!(y.dtype(), DType::Int64);
        assert_eq!(
            param(stack(
                A2_SOC,
                &[
                    &zeros(DType::Complex64, &[2, 2]),
                    &zeros(DType::Float64, &[2, 2])
                ],
                0
            )),
            "tensors"
        );
        assert_eq!(param(stack(A2_SOC, &[&a, &a], 3)), "dim");
        assert_eq!(param(stack(A2_SOC, &[&a, &a], -4)), "dim");
        assert!(stack(A2_SOC, &[&a, &a], -3).is_ok());
        assert_eq!(
            param(stack(A2_SOC, &[&a, &arange_i32(&[2, 3])], 0)),
            "tensors"
        );
        assert_eq!(
            param(stack(A2_SOC, &[&zeros(DType::Int8, &[1; 8])], 0)),
            "tensors"
        );
        assert!(stack(A2_SOC, &[&zeros(DType::UInt64, &[1])], 0).is_ok());
        assert!(matches!(
            stack("Ascend910A", &[&zeros(DType::BFloat16, &[1])], 0),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            stack("Ascend310B1", &[&a], 0),
            Err(RefError::UnsupportedOp { .. })
        ));
        assert!(matches!(
            stack_cast(A2_SOC, &[&zeros(DType::Float32, &[1])], 0, DType::Int32),
            Err(RefError::InvalidArgument { param: "out", .. })
        ));
    }
}
