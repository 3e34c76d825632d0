//! The operators (the five data-movement ones, Add, Mul, Cat, Stack, Split, the fills, Cast, Tril and Triu, the pads, Embedding, Permute, Flip, Roll, Expand, Repeat, SliceV2, SliceV3, the aclnn AsStrided, ViewCopy, StridedSliceAssignV2, GatherV2, Gather, Take, IndexCopy, GatherNd, MaskedSelect and Index), and the
//! helpers they share.
//!
//! Every operator validates in the order documented on [`RefError`]:
//! SoC name, operator availability, data dtype, parameters/shapes, index
//! values. Operators that go to the device take inputs of rank <= 8.

pub mod add;
pub mod as_strided;
pub mod as_strided_aclnn;
pub mod cast;
pub mod cat;
pub mod elementwise;
pub mod embedding;
pub mod expand;
pub mod fill;
pub mod flip;
pub mod gather;
pub mod gather_nd;
pub mod gather_v2;
pub mod index;
pub mod index_copy;
pub mod index_select;
pub mod masked_select;
pub mod mul;
pub mod pad;
pub mod permute;
pub mod repeat;
pub mod roll;
pub mod sampled_slice;
pub mod slice;
pub mod slice_v2;
pub mod split;
pub mod stack;
pub mod strided_slice_assign;
pub mod subtensor;
pub mod take;
pub mod tri;
pub mod view_copy;

use crate::dtype::DType;
use crate::error::RefError;
use crate::tensor::{checked_byte_len, Tensor, MAX_RANK};

/// The caller-given output shape must equal the inferred one, else
/// `InvalidArgument { op, param: "out" }`.
pub fn check_out_shape(
    op: &'static str,
    expected: &[usize],
    given: &[usize],
) -> Result<(), RefError> {
    if expected == given {
        Ok(())
    } else {
        Err(RefError::invalid(
            op,
            "out",
            format!("output shape must be {expected:?}, got {given:?}"),
        ))
    }
}

/// The largest position a window reaches, `offset + sum_j((size_j - 1) *
/// stride_j)`, for a window without a zero extent; saturating, so any sum
/// past `i128` is past every tensor (the aclnn AsStrided and ViewCopy).
pub(crate) fn window_reach(size: &[i64], stride: &[i64], offset: i64) -> i128 {
    size.iter()
        .zip(stride)
        .map(|(&n, &s)| i128::from(n - 1) * i128::from(s))
        .fold(0i128, i128::saturating_add)
        .saturating_add(i128::from(offset))
}

/// The data tensor's rank must lie in `min..=MAX_RANK` (param `self`).
pub(crate) fn check_rank(op: &'static str, rank: usize, min: usize) -> Result<(), RefError> {
    if rank < min || rank > MAX_RANK {
        return Err(RefError::invalid(
            op,
            "self",
            format!("rank must be in {min}..={MAX_RANK}, got {rank}"),
        ));
    }
    Ok(())
}

/// `dim` normalised into `0..rank`; it must lie in `[-rank, rank-1]` (param `dim`).
pub(crate) fn normalize_dim(op: &'static str, dim: i64, rank: usize) -> Result<usize, RefError> {
    let r = rank as i128;
    let d = i128::from(dim);
    if d < -r || d >= r {
        return Err(RefError::invalid(
            op,
            "dim",
            format!("must be in [-{rank}, {}], got {dim}", r - 1),
        ));
    }
    let normalised = if d < 0 { d + r } else { d };
    Ok(normalised as usize)
}

/// Byte length of an output of `shape`, or `InvalidArgument { op, param }`
/// when it cannot exist on this host.
pub(crate) fn output_byte_len(
    op: &'static str,
    param: &'static str,
    dtype: DType,
    shape: &[usize],
) -> Result<usize, RefError> {
    checked_byte_len(dtype, shape).ok_or_else(|| {
        RefError::invalid(
            op,
            param,
            format!("output shape {shape:?} of {dtype} is too large for this host"),
        )
    })
}

/// An empty buffer with room for `bytes` bytes; an allocation failure is
/// `InvalidArgument { op, param }`, never an abort.
pub(crate) fn new_output(
    op: &'static str,
    param: &'static str,
    bytes: usize,
) -> Result<Vec<u8>, RefError> {
    let mut out = Vec::new();
    out.try_reserve_exact(bytes).map_err(|_| {
        RefError::invalid(
            op,
            param,
            format!("cannot allocate {bytes} bytes for the output"),
        )
    })?;
    Ok(out)
}

/// The values of an INT32 / INT64 tensor (any rank, any view) as i64, in
/// row-major order; any other dtype is `InvalidArgument { op, param }`.
pub(crate) fn read_index_tensor(
    op: &'static str,
    param: &'static str,
    t: &Tensor,
) -> Result<Vec<i64>, RefError> {
    match t.dtype() {
        DType::Int64 => Ok(t.to_vec::<i64>().expect("dtype checked")),
        DType::Int32 => Ok(t
            .to_vec::<i32>()
            .expect("dtype checked")
            .into_iter()
            .map(i64::from)
            .collect()),
        other => Err(RefError::invalid(
            op,
            param,
            format!("dtype must be int32 or int64, got {other}"),
        )),
    }
}

/// An i64 that must be a valid `usize` (always true for non-negative values
/// on 64-bit hosts).
pub(crate) fn to_usize(op: &'static str, param: &'static str, v: i64) -> Result<usize, RefError> {
    usize::try_from(v)
        .map_err(|_| RefError::invalid(op, param, format!("{v} does not fit this host's usize")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_shape_must_match() {
        assert_eq!(check_out_shape("slice", &[2, 3], &[2, 3]), Ok(()));
        let e = check_out_shape("slice", &[2, 3], &[3, 2]).unwrap_err();
        assert_eq!((e.op(), e.param()), ("slice", Some("out")));
        assert!(check_out_shape("slice", &[2, 3], &[2, 3, 1]).is_err());
        assert!(check_out_shape("index_select", &[], &[1]).is_err());
    }

    #[test]
    fn dim_bounds_both_sides() {
        assert_eq!(normalize_dim("slice", -3, 3), Ok(0));
        assert_eq!(normalize_dim("slice", -1, 3), Ok(2));
        assert_eq!(normalize_dim("slice", 2, 3), Ok(2));
        assert_eq!(
            normalize_dim("slice", 3, 3).unwrap_err().param(),
            Some("dim")
        );
        assert_eq!(
            normalize_dim("slice", -4, 3).unwrap_err().param(),
            Some("dim")
        );
        assert!(normalize_dim("slice", i64::MIN, 3).is_err());
        assert!(normalize_dim("slice", i64::MAX, 3).is_err());
    }

    #[test]
    fn rank_bounds() {
        assert!(check_rank("slice", 1, 1).is_ok());
        assert!(check_rank("slice", 8, 1).is_ok());
        assert_eq!(check_rank("slice", 0, 1).unwrap_err().param(), Some("self"));
        assert!(check_rank("slice", 9, 1).is_err());
        assert!(check_rank("index_select", 0, 0).is_ok());
    }

    #[test]
    fn output_size_guard() {
        assert_eq!(output_byte_len("x", "size", DType::Int32, &[2, 3]), Ok(24));
        assert_eq!(
            output_byte_len("x", "size", DType::Int32, &[0, usize::MAX]),
            Ok(0)
        );
        let e = output_byte_len("x", "size", DType::Int32, &[usize::MAX / 2]).unwrap_err();
        assert_eq!(e.param(), Some("size"));
        assert!(new_output("x", "size", 16).is_ok());
    }

    #[test]
    fn index_tensor_dtypes() {
        let t = Tensor::from_slice(&[2], &[1i32, -2]).unwrap();
        assert_eq!(read_index_tensor("x", "index", &t), Ok(vec![1, -2]));
        let t = Tensor::from_slice(&[2], &[i64::MIN, i64::MAX]).unwrap();
        assert_eq!(
            read_index_tensor("x", "index", &t),
            Ok(vec![i64::MIN, i64::MAX])
        );
        for bad in [
            DType::UInt32,
            DType::Int16,
            DType::UInt64,
            DType::Float32,
            DType::Bool,
        ] {
            let t = Tensor::from_bytes(bad, &[1], vec![0; bad.size()]).unwrap();
            let e = read_index_tensor("x", "index", &t).unwrap_err();
            assert_eq!(e.param(), Some("index"), "{bad}");
        }
    }
}
