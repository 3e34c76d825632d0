// Modules, lowest first; each uses only modules listed before it:
// dtype, element, error, product, scalar, tensor, ops (test_util: tests only).
//! Reference implementation of the npu-ops operator contract (`docs/ops.md` of the npu-ops repository).
//!
//! Plain, obviously-correct host loops: the test oracle that the CPU
//! simulator and real NPU hardware are compared against bit for bit. The
//! operators are [`slice()`], [`index_select`], [`as_strided`],
//! [`sampled_slice`], [`subtensor`], [`add()`], [`mul()`], [`cat()`], [`stack()`], [`split_tensor`],
//! [`split_with_size`], [`fill_scalar`], [`zero`], [`cast()`], [`tril`], [`triu`], the pads
//! ([`reflection_pad1d`] .. [`replication_pad3d`], [`circular_pad2d`], [`circular_pad3d`]),
//! [`embedding()`], [`permute()`], [`flip()`], [`roll()`], [`expand()`], [`repeat()`], [`slice_v2()`], [`slice_v3()`], [`as_strided_aclnn()`], [`view_copy()`], [`strided_slice_assign_v2()`], [`gather_v2()`], [`gather()`], [`take()`], [`index_copy()`], [`gather_nd()`], [`masked_select()`] and [`index()`]; each
//! takes the SoC name of the
//! product it pretends to be (see [`Family`]) and validates in the order
//! documented on [`RefError`].
//!
//! ```
//! use cpu_ref::{slice, index_select, Tensor, DEFAULT_SOC};
//!
//! let x = Tensor::from_slice(&[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9])?;
//! let y = slice(DEFAULT_SOC, &x, 0, 0, 2, 1)?;
//! assert_eq!(y.shape(), &[2, 3]);
//! assert_eq!(y.to_vec::<i32>()?, [1, 2, 3, 4, 5, 6]);
//!
//! let index = Tensor::from_slice(&[2], &[1i64, 0])?;
//! let z = index_select(DEFAULT_SOC, &x, 1, &index)?;
//! assert_eq!(z.to_vec::<i32>()?, [2, 1, 5, 4, 8, 7]);
//!
//! // Slice does not exist on the Atlas inference series.
//! let err = slice("Ascend310P3", &x, 0, 0, 2, 1).unwrap_err();
//! assert_eq!(err.kind(), "unsupported_op");
//! # Ok::<(), cpu_ref::RefError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod dtype;
pub mod element;
pub mod error;
pub mod ops;
pub mod product;
pub mod scalar;
pub mod tensor;

#[cfg(test)]
mod test_util;

pub use dtype::DType;
pub use element::Element;
pub use error::RefError;
pub use ops::add::{add, add_cast, add_inplace, add_out_shape};
pub use ops::as_strided::as_strided;
pub use ops::as_strided_aclnn::{as_strided_aclnn, as_strided_aclnn_out_shape};
pub use ops::cast::{cast, cast_element};
pub use ops::cat::{cat, cat_cast, cat_out_shape};
pub use ops::check_out_shape;
pub use ops::elementwise::{broadcast_shape, can_cast, merged_groups, promote};
pub use ops::embedding::{embedding, embedding_out_shape};
pub use ops::expand::{expand, expand_out_shape};
pub use ops::fill::{fill_scalar, fill_target_overlaps, fill_value, zero};
pub use ops::flip::{flip, flip_dims};
pub use ops::gather::{gather, gather_check};
pub use ops::gather_nd::{gather_nd, gather_nd_out_shape};
pub use ops::gather_v2::{gather_v2, gather_v2_out_shape};
pub use ops::index::{
    broadcast_shapes, expand_bool_members, index, index_layout, index_out_shape, mask_coordinates,
    IndexLayout,
};
pub use ops::index_copy::index_copy;
pub use ops::index_select::{index_select, index_select_out_shape};
pub use ops::masked_select::{masked_select, masked_select_shape};
pub use ops::mul::{mul, mul_cast, mul_inplace};
pub use ops::pad::{
    circular_pad2d, circular_pad3d, pad, pad_kind, pad_out_shape, reflection_pad1d,
    reflection_pad2d, reflection_pad3d, replication_pad1d, replication_pad2d, replication_pad3d,
    PadMode,
};
pub use ops::permute::{permute, permute_dims, permute_out_shape};
pub use ops::repeat::{repeat, repeat_out_shape};
pub use ops::roll::{roll, roll_shifts};
pub use ops::sampled_slice::{sampled_slice, SampleMode, SampledSliceParams};
pub use ops::slice::{slice, slice_out_shape, slice_range, SliceRange};
pub use ops::slice_v2::{
    slice_v2, slice_v2_out_shape, slice_v2_ranges, slice_v3, slice_v3_out_shape,
};
pub use ops::split::{split_tensor, split_tensor_sizes, split_with_size};
pub use ops::stack::{stack, stack_cast, stack_out_shape, STACK_MAX_RANK};
pub use ops::strided_slice_assign::{strided_slice_assign_ranges, strided_slice_assign_v2};
pub use ops::subtensor::subtensor;
pub use ops::take::take;
pub use ops::tri::{tril, triu};
pub use ops::view_copy::{view_copy, view_copy_check, Window};
pub use product::{check_op_dtype, supported_dtypes, supports_op, Family, Op, DEFAULT_SOC};
pub use scalar::Scalar;
pub use tensor::{Tensor, MAX_RANK};
