//! Cat — `aclnnCat` (ops.md section 10): the tensors of a list joined
//! along `dim`.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::cast::cast_element;
use crate::ops::elementwise::{check_out_dtype, promote};
use crate::ops::{new_output, normalize_dim, output_byte_len};
use crate::product::{check_op_dtype, Family, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "cat";

/// Whether `t` is a 1-D tensor of length 0: such members are dropped before
/// any other rule (ops.md §10, rule 2), whatever their dtype.
fn dropped(shape: &[usize]) -> bool {
    shape == [0]
}

/// What the rules leave: the kept members, their promoted dtype, the
/// normalised dim and the output shape.
type Checked<'a> = (Vec<&'a Tensor>, DType, usize, Vec<usize>);

/// Rules 1 to 6 of ops.md §10 on the members' dtypes and shapes; returns
/// the members kept, the common dtype, the normalised dim and the output
/// shape. `out_dtype`: the caller's output dtype (`None`: the members').
fn check<'a>(
    soc: &str,
    tensors: &[&'a Tensor],
    dim: i64,
    out_dtype: Option<DType>,
) -> Result<Option<Checked<'a>>, RefError> {
    let family = Family::from_soc_checked(OP, soc)?;
    if !crate::product::supports_op(Op::Cat, family) {
        return Err(RefError::UnsupportedOp {
            op: OP,
            soc: soc.to_string(),
        });
    }
    if tensors.is_empty() {
        return Err(RefError::invalid(
            OP,
            "tensors",
            "the list must hold at least one tensor",
        ));
    }
    let kept: Vec<&Tensor> = tensors
        .iter()
        .copied()
        .filter(|t| !dropped(t.shape()))
        .collect();
    if kept.is_empty() {
        return Ok(None);
    }
    for t in &kept {
        check_op_dtype(Op::Cat, soc, t.dtype())?;
    }
    let dtype = promoted(OP, &kept)?;
    if let Some(o) = out_dtype {
        check_out_dtype(Op::Cat, soc, "out", dtype, o)?;
    }
    let shapes: Vec<&[usize]> = kept.iter().map(|t| t.shape()).collect();
    let (d, out_shape) = shape_rules(&shapes, dim)?;
    Ok(Some((kept, dtype, d, out_shape)))
}

/// The members' promoted dtype (ops.md §10, mixed dtypes): §8's table in
/// list order; a pair that does not promote, or COMPLEX128 promoted from
/// other dtypes, is invalid (`op`, `tensors`).
pub(crate) fn promoted(op: &'static str, members: &[&Tensor]) -> Result<DType, RefError> {
    let mut p = members[0].dtype();
    for (i, t) in members.iter().enumerate().skip(1) {
        p = promote(t.dtype(), p).ok_or_else(|| {
            RefError::invalid(
                op,
                "tensors",
                format!("tensor {i}'s dtype {} does not promote with {p}", t.dtype()),
            )
        })?;
    }
    if p == DType::Complex128 && members.iter().any(|t| t.dtype() != p) {
        return Err(RefError::invalid(
            op,
            "tensors",
            "the dtypes promote to complex128 from others, which is not implemented",
        ));
    }
    Ok(p)
}

/// One element `b` of a member of dtype `from` as it reaches an output of
/// dtype `to` (ops.md §10, mixed dtypes): through the promoted dtype `via`
/// when several members have elements and their dtypes differ (`Some`),
/// else straight.
pub(crate) fn member_element(from: DType, b: &[u8], via: Option<DType>, to: DType) -> Vec<u8> {
    // Each conversion is Cast's (ops.md §14: NaN payloads kept).
    match via {
        Some(p) if p != from && p != to => cast_element(p, &cast_element(from, b, p), to),
        _ => cast_element(from, b, to),
    }
}

/// The dtype members meet in before the output's (ops.md §10): the
/// promoted one when two or more have elements and their dtypes differ.
pub(crate) fn meeting_dtype(members: &[&Tensor], promoted: DType) -> Option<DType> {
    let mixed = members.iter().any(|t| t.dtype() != members[0].dtype());
    let with_elements = members.iter().filter(|t| t.numel() > 0).count();
    (mixed && with_elements > 1).then_some(promoted)
}

/// Rule 5 of ops.md §10 over the kept members' shapes: the normalised dim
/// and the output shape.
fn shape_rules(shapes: &[&[usize]], dim: i64) -> Result<(usize, Vec<usize>), RefError> {
    let first = shapes[0];
    if first.len() > MAX_RANK {
        return Err(RefError::invalid(
            OP,
            "tensors",
            format!("rank must be at most {MAX_RANK}, got {}", first.len()),
        ));
    }
    let d = normalize_dim(OP, dim, first.len())?;
    let mut out_shape = first.to_vec();
    out_shape[d] = 0;
    for (i, s) in shapes.iter().enumerate() {
        let same = s.len() == first.len()
            && s.iter()
                .zip(first)
                .enumerate()
                .all(|(j, (a, b))| j == d || a == b);
        if !same {
            return Err(RefError::invalid(
                OP,
                "tensors",
                format!(
                    "kept tensor {i} has shape {s:?}; every tensor must have the first's {first:?} \
                     except along dim {d}"
                ),
            ));
        }
        out_shape[d] = out_shape[d]
            .checked_add(s[d])
            .ok_or_else(|| RefError::invalid(OP, "tensors", "the joined extent overflows usize"))?;
    }
    Ok((d, out_shape))
}

/// The output shape of `cat` over members of `shapes` (dtypes aside):
/// `None` when every member is a dropped 1-D empty tensor (then any `out`
/// is accepted and left untouched).
pub fn cat_out_shape(shapes: &[&[usize]], dim: i64) -> Result<Option<Vec<usize>>, RefError> {
    if shapes.is_empty() {
        return Err(RefError::invalid(
            OP,
            "tensors",
            "the list must hold at least one tensor",
        ));
    }
    let kept: Vec<&[usize]> = shapes.iter().copied().filter(|s| !dropped(s)).collect();
    if kept.is_empty() {
        return Ok(None);
    }
    Ok(Some(shape_rules(&kept, dim)?.1))
}

/// `tensors` joined along `dim`, as a new contiguous tensor of their
/// promoted dtype (ops.md §10: the dtypes of several members with elements
/// meet there; a lone member with elements is cast straight to it).
/// When every member is a 1-D empty tensor, the result is a 1-D empty
/// tensor of the first member's dtype.
pub fn cat(soc: &str, tensors: &[&Tensor], dim: i64) -> Result<Tensor, RefError> {
    let dtype = tensors.first().map(|t| t.dtype()).unwrap_or(DType::Float32);
    cat_impl(soc, tensors, dim, None).map(|t| t.unwrap_or_else(|| empty(dtype)))
}

/// [`cat`] into an output of dtype `out_dtype` (the `_into` form): each
/// element cast to it. `Ok(None)`: every member was dropped, the output
/// is left as it was. The caller checks the output's shape against
/// [`cat_out_shape`].
pub fn cat_cast(
    soc: &str,
    tensors: &[&Tensor],
    dim: i64,
    out_dtype: DType,
) -> Result<Option<Tensor>, RefError> {
    cat_impl(soc, tensors, dim, Some(out_dtype))
}

fn empty(dtype: DType) -> Tensor {
    Tensor::from_bytes(dtype, &[0], Vec::new()).expect("empty tensor")
}

fn cat_impl(
    soc: &str,
    tensors: &[&Tensor],
    dim: i64,
    out_dtype: Option<DType>,
) -> Result<Option<Tensor>, RefError> {
    let Some((kept, dtype, d, out_shape)) = check(soc, tensors, dim, out_dtype)? else {
        return Ok(None);
    };
    let to = out_dtype.unwrap_or(dtype);
    let via = meeting_dtype(&kept, dtype);
    let bytes = output_byte_len(OP, "tensors", to, &out_shape)?;
    let mut out = new_output(OP, "tensors", bytes)?;
    // Which member, and where in it, each output element comes from.
    let mut starts = Vec::with_capacity(kept.len());
    let mut acc = 0usize;
    for t in &kept {
        starts.push(acc);
        acc += t.shape()[d];
    }
    for idx in row_major(&out_shape) {
        let k = starts.partition_point(|&s| s <= idx[d]) - 1;
        // Members of extent 0 along dim share a start; the last of them is
        // followed by the member that holds idx.
        let mut src = idx.clone();
        src[d] -= starts[k];
        let m = kept[k];
        out.extend_from_slice(&member_element(m.dtype(), m.element_bytes(&src), via, to));
    }
    Ok(Some(Tensor::from_parts_contiguous(to, out_shape, out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;

    #[test]
    fn joins_along_dim_0_as_cann_example() {
        let a = Tensor::from_slice(&[2, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_slice(&[1, 3], &[7f32, 8., 9.]).unwrap();
        let y = cat(A2_SOC, &[&a, &b], 0).unwrap();
        assert_eq!(y.shape(), &[3, 3]);
        assert_eq!(
            y.to_vec::<f32>().unwrap(),
            (1..=9).map(|v| v as f32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn joins_along_last_dim_with_views() {
        let a = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let b = arange_i32(&[3, 1]);
        let y = cat(A2_SOC, &[&a, &b, &a], -1).unwrap();
        assert_eq!(y.shape(), &[3, 5]);
        assert_eq!(ints(&y), [0, 3, 0, 0, 3, 1, 4, 1, 1, 4, 2, 5, 2, 2, 5]);
    }

    #[test]
    fn empty_members_along_dim_and_dropped_1d_empties() {
        let a = arange_i32(&[2, 2]);
        let e = arange_i32(&[2, 0]);
        let z = Tensor::from_bytes(DType::Float64, &[0], Vec::new()).unwrap();
        let y = cat(A2_SOC, &[&e, &a, &z, &e, &a], 1).unwrap();
        assert_eq!(y.shape(), &[2, 4]);
        assert_eq!(ints(&y), [0, 1, 0, 1, 2, 3, 2, 3]);
        // Only dropped members: an empty result, no rule checked.
        let y = cat(A2_SOC, &[&z, &z], 5).unwrap();
        assert_eq!(y.shape(), &[0]);
    }

    #[test]
    fn mixed_dtypes_meet_in_the_promoted_one() {
        // INT32 2049 beside FLOAT16: through FLOAT16 (2048) into FLOAT.
        let a = Tensor::from_slice(&[1, 2], &[2049i32, 7]).unwrap();
        let h = Tensor::from_slice(&[1, 1], &[half::f16::from_f32(0.5)])
            .unwrap()
            .view(&[1, 2], &[1, 0], 0)
            .unwrap();
        let y = cat_cast(A2_SOC, &[&a, &h], 0, DType::Float32)
            .unwrap()
            .unwrap();
        let got: Vec<f32> = y
            .contiguous_bytes()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [2048.0, 7.0, 0.5, 0.5]);
        // The new-tensor form has the promoted dtype.
        assert_eq!(cat(A2_SOC, &[&a, &h], 0).unwrap().dtype(), DType::Float16);
        // A lone member with elements goes straight to out's dtype.
        let e = zeros(DType::Float16, &[0, 2]);
        let y = cat_cast(A2_SOC, &[&a, &e], 0, DType::Float32)
            .unwrap()
            .unwrap();
        let got: Vec<f32> = y
            .contiguous_bytes()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [2049.0, 7.0]);
        // The promoted dtype must cast to out's: FLOAT into INT32 does not.
        let f = zeros(DType::Float32, &[1, 2]);
        assert!(cat_cast(A2_SOC, &[&a, &f], 0, DType::Int32).is_err());
    }

    #[test]
    fn rules_in_order() {
        let a = arange_i32(&[2, 2]);
        let b = arange_i32(&[2, 3]);
        let f = zeros(DType::Float32, &[2, 2]);
        let err = |r: Result<Tensor, RefError>| match r.unwrap_err() {
            RefError::InvalidArgument { param, .. } => param,
            other => panic!("{other:?}"),
        };
        assert_eq!(err(cat(A2_SOC, &[], 0)), "tensors");
        // Mixed dtypes promote (here to FLOAT); COMPLEX64 with DOUBLE
        // would be COMPLEX128, refused.
        assert_eq!(cat(A2_SOC, &[&a, &f], 0).unwrap().dtype(), DType::Float32);
        let (c, d) = (
            zeros(DType::Complex64, &[2, 2]),
            zeros(DType::Float64, &[2, 2]),
        );
        assert_eq!(err(cat(A2_SOC, &[&c, &d], 0)), "tensors");
        assert_eq!(err(cat(A2_SOC, &[&a, &b], 0)), "tensors");
        assert_eq!(err(cat(A2_SOC, &[&a, &b], 2)), "dim");
        assert_eq!(err(cat(A2_SOC, &[&a, &arange_i32(&[2])], 0)), "tensors");
        assert_eq!(err(cat(A2_SOC, &[&Tensor::scalar(1i32)], 0)), "dim");
        assert!(cat(A2_SOC, &[&a, &b], 1).is_ok());
        assert!(matches!(
            cat(A2_SOC, &[&zeros(DType::UInt16, &[1])], 0),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(cat("Ascend910B1", &[&zeros(DType::BFloat16, &[1])], 0).is_ok());
        assert!(matches!(
            cat("Ascend910A", &[&zeros(DType::BFloat16, &[1])], 0),
            Err(RefError::UnsupportedDtype { .. })
        ));
        assert!(matches!(
            cat("Ascend310B1", &[&a], 0),
            Err(RefError::UnsupportedOp { .. })
        ));
    }

    #[test]
    fn casts_into_out_dtype() {
        let a = arange_i32(&[3]);
        let y = cat_cast(A2_SOC, &[&a, &a], 0, DType::Float32)
            .unwrap()
            .unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [0., 1., 2., 0., 1., 2.]);
        let f = zeros(DType::Float32, &[1]);
        assert!(matches!(
            cat_cast(A2_SOC, &[&f], 0, DType::Int32),
            Err(RefError::InvalidArgument { param: "out", .. })
        ));
    }

    #[test]
    fn out_shape() {
        assert_eq!(
            cat_out_shape(&[&[2, 3], &[2, 4]], -1).unwrap(),
            Some(vec![2, 7])
        );
        assert_eq!(cat_out_shape(&[&[0]], 0).unwrap(), None);
    }
}
