//! Products (SoC families) and what each supports: the safe layer checks
//! these before anything is enqueued, so a call the product would reject
//! fails with a typed error naming the operator and the SoC.

use crate::dtype::DType;

/// Product families: the SoC table the simulator shares (`cann_sys::soc`).
pub use cann_sys::soc::Family;

/// The operators of the safe layer, for support checks and error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpKind {
    /// [`crate::Stream::slice`]
    Slice,
    /// [`crate::Stream::index_select`]
    IndexSelect,
    /// [`crate::Stream::as_strided`]
    AsStrided,
    /// [`crate::Stream::sampled_slice`]
    SampledSlice,
    /// [`crate::Tensor::subtensor`]
    Subtensor,
    /// [`crate::Stream::add`]
    Add,
    /// [`crate::Stream::mul`]
    Mul,
    /// [`crate::Stream::cat`]
    Cat,
    /// [`crate::Stream::stack`]
    Stack,
    /// [`crate::Stream::fill_scalar_inplace`]
    FillScalar,
    /// [`crate::Stream::zero_inplace`]
    Zero,
    /// [`crate::Stream::cast`]
    Cast,
    /// [`crate::Stream::permute`]
    Permute,
    /// [`crate::Stream::flip`]
    Flip,
    /// [`crate::Stream::roll`]
    Roll,
    /// [`crate::Stream::expand`]
    Expand,
    /// [`crate::Stream::repeat`]
    Repeat,
    /// [`crate::Stream::tril`] and its `_into` and in-place forms
    Tril,
    /// [`crate::Stream::triu`] and its `_into` and in-place forms
    Triu,
    /// [`crate::Stream::split_tensor`]
    SplitTensor,
    /// [`crate::Stream::split_with_size`]
    SplitWithSize,
    /// [`crate::Stream::embedding`]
    Embedding,
    /// [`crate::Stream::slice_v2`]
    SliceV2,
    /// [`crate::Stream::slice_v3`]
    SliceV3,
    /// [`crate::Stream::as_strided_aclnn`]
    AsStridedAclnn,
    /// [`crate::Stream::view_copy`]
    ViewCopy,
    /// [`crate::Stream::strided_slice_assign_v2`]
    StridedSliceAssignV2,
    /// [`crate::Stream::gather_v2`]
    GatherV2,
    /// [`crate::Stream::gather`]
    Gather,
    /// [`crate::Stream::take`]
    Take,
    /// [`crate::Stream::gather_nd`]
    GatherNd,
    /// [`crate::Stream::masked_select`]
    MaskedSelect,
    /// [`crate::Stream::index`] and its `_into` form
    Index,
    /// [`crate::Stream::index_copy`] and its `_into` and in-place forms
    IndexCopy,
    /// [`crate::Stream::reflection_pad1d`]
    ReflectionPad1d,
    /// [`crate::Stream::reflection_pad2d`]
    ReflectionPad2d,
    /// [`crate::Stream::reflection_pad3d`]
    ReflectionPad3d,
    /// [`crate::Stream::replication_pad1d`]
    ReplicationPad1d,
    /// [`crate::Stream::replication_pad2d`]
    ReplicationPad2d,
    /// [`crate::Stream::replication_pad3d`]
    ReplicationPad3d,
    /// [`crate::Stream::circular_pad2d`]
    CircularPad2d,
    /// [`crate::Stream::circular_pad3d`]
    CircularPad3d,
}

impl OpKind {
    /// The name used in errors (`"slice"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Slice => "slice",
            OpKind::IndexSelect => "index_select",
            OpKind::AsStrided => "as_strided",
            OpKind::SampledSlice => "sampled_slice",
            OpKind::Subtensor => "subtensor",
            OpKind::Add => "add",
            OpKind::Mul => "mul",
            OpKind::Cat => "cat",
            OpKind::Stack => "stack",
            OpKind::FillScalar => "fill_scalar",
            OpKind::Zero => "zero",
            OpKind::Cast => "cast",
            OpKind::Permute => "permute",
            OpKind::Flip => "flip",
            OpKind::Roll => "roll",
            OpKind::Expand => "expand",
            OpKind::Repeat => "repeat",
            OpKind::Tril => "tril",
            OpKind::Triu => "triu",
            OpKind::SplitTensor => "split_tensor",
            OpKind::SplitWithSize => "split_with_size",
            OpKind::Embedding => "embedding",
            OpKind::SliceV2 => "slice_v2",
            OpKind::SliceV3 => "slice_v3",
            OpKind::AsStridedAclnn => "as_strided_aclnn",
            OpKind::ViewCopy => "view_copy",
            OpKind::StridedSliceAssignV2 => "strided_slice_assign_v2",
            OpKind::GatherV2 => "gather_v2",
            OpKind::Gather => "gather",
            OpKind::Take => "take",
            OpKind::GatherNd => "gather_nd",
            OpKind::MaskedSelect => "masked_select",
            OpKind::Index => "index",
            OpKind::IndexCopy => "index_copy",
            OpKind::ReflectionPad1d => "reflection_pad1d",
            OpKind::ReflectionPad2d => "reflection_pad2d",
            OpKind::ReflectionPad3d => "reflection_pad3d",
            OpKind::ReplicationPad1d => "replication_pad1d",
            OpKind::ReplicationPad2d => "replication_pad2d",
            OpKind::ReplicationPad3d => "replication_pad3d",
            OpKind::CircularPad2d => "circular_pad2d",
            OpKind::CircularPad3d => "circular_pad3d",
        }
    }

    /// Whether the operator exists on `family`. AsStrided needs only
    /// InplaceCopy (every family); sampled slice needs IndexSelect and
    /// ConstantPadNd (not on 200I/500 A2). Add exists on the training
    /// series, A2 and A3, as SplitWithSize, Permute and SliceV2; Mul, Cat, Stack,
    /// FillScalar, Zero, Cast, Tril, Triu, SplitTensor, Roll, Expand,
    /// Repeat and the reflection and replication pads everywhere but
    /// 200I/500 A2; Flip and the circular pads on A2 and A3 only (ops.md
    /// §7).
    pub fn available(self, family: Family) -> bool {
        match self {
            OpKind::Slice
            | OpKind::SliceV2
            | OpKind::Add
            | OpKind::SplitWithSize
            | OpKind::Permute => {
                matches!(family, Family::Training | Family::A2 | Family::A3)
            }
            OpKind::IndexSelect
            | OpKind::SampledSlice
            | OpKind::Mul
            | OpKind::Cat
            | OpKind::Stack
            | OpKind::FillScalar
            | OpKind::Zero
            | OpKind::Cast
            | OpKind::Tril
            | OpKind::Triu
            | OpKind::SplitTensor
            | OpKind::Roll
            | OpKind::Expand
            | OpKind::Repeat => family != Family::Atlas200I500A2,
            OpKind::Flip => matches!(family, Family::A2 | Family::A3),
            OpKind::ReflectionPad1d
            | OpKind::ReflectionPad2d
            | OpKind::ReflectionPad3d
            | OpKind::ReplicationPad1d
            | OpKind::ReplicationPad2d
            | OpKind::ReplicationPad3d => family != Family::Atlas200I500A2,
            OpKind::CircularPad2d | OpKind::CircularPad3d => {
                matches!(family, Family::A2 | Family::A3)
            }
            OpKind::AsStrided | OpKind::Subtensor => true,
            // ops.md §23: A2 and A3.
            OpKind::Embedding => matches!(family, Family::A2 | Family::A3),
            // ops.md §31: A2 only.
            OpKind::SliceV3 | OpKind::AsStridedAclnn => family == Family::A2,
            // ops.md §34: A2 only.
            OpKind::ViewCopy => family == Family::A2,
            // ops.md §35: A2 and A3.
            OpKind::StridedSliceAssignV2 => matches!(family, Family::A2 | Family::A3),
            // ops.md §24: every family but 200I/500 A2.
            OpKind::GatherV2 => family != Family::Atlas200I500A2,
            // ops.md §25: every family but 200I/500 A2.
            OpKind::Gather => family != Family::Atlas200I500A2,
            // ops.md §28: every family but 200I/500 A2.
            OpKind::GatherNd => family != Family::Atlas200I500A2,
            // ops.md §29: every family but 200I/500 A2.
            OpKind::MaskedSelect => family != Family::Atlas200I500A2,
            // ops.md §30: every family.
            OpKind::Index => true,
            // ops.md §26: the training series, A2 and A3.
            OpKind::Take => matches!(family, Family::Training | Family::A2 | Family::A3),
            // ops.md §27: the training series, A2 and A3.
            OpKind::IndexCopy => matches!(family, Family::Training | Family::A2 | Family::A3),
        }
    }

    /// Whether the operator moves `dtype` on `family`.
    pub fn supports(self, family: Family, dtype: DType) -> bool {
        if dtype == DType::BF16 && self != OpKind::Subtensor {
            // Index (ops.md §30): bfloat16 on 200I/500 A2 too.
            return family.has_bf16()
                || (self == OpKind::Index && family == Family::Atlas200I500A2);
        }
        match self {
            // StridedSliceAssignV2 (ops.md §35; bfloat16 above).
            OpKind::StridedSliceAssignV2 => matches!(
                dtype,
                DType::F16 | DType::F32 | DType::I32 | DType::I64 | DType::F64 | DType::I8
            ),
            // The aclnn AsStrided (ops.md §33): no f64, no complex128.
            OpKind::AsStridedAclnn => !matches!(dtype, DType::F64 | DType::C128),
            // ViewCopy (ops.md §34; bfloat16 above).
            OpKind::ViewCopy => matches!(
                dtype,
                DType::F16
                    | DType::F32
                    | DType::I8
                    | DType::U8
                    | DType::I16
                    | DType::U16
                    | DType::I32
                    | DType::U32
                    | DType::Bool
                    | DType::I64
            ),
            // SliceV3 (ops.md §31): its definition's list (bfloat16 above).
            OpKind::SliceV3 => matches!(
                dtype,
                DType::F32 | DType::F16 | DType::I32 | DType::I16 | DType::I8 | DType::U8
            ),
            // SliceV2 takes Slice's list (ops.md §31).
            OpKind::Slice | OpKind::SliceV2 => matches!(
                dtype,
                DType::F32
                    | DType::F16
                    | DType::I32
                    | DType::I64
                    | DType::I8
                    | DType::U8
                    | DType::Bool
            ),
            // The elementwise list (ops.md §8): no unsigned type wider than 8 bits.
            OpKind::Add
            | OpKind::Mul
            | OpKind::FillScalar
            | OpKind::SplitTensor
            | OpKind::SplitWithSize
            | OpKind::Embedding
            | OpKind::GatherV2
            | OpKind::IndexCopy => !matches!(dtype, DType::U16 | DType::U32 | DType::U64),
            // Cat's list (ops.md §10).
            OpKind::Cat => !matches!(dtype, DType::U16 | DType::U32 | DType::U64 | DType::C128),
            // Cast (ops.md §14): every dtype (bfloat16 above).
            OpKind::Cast => true,
            // Permute (ops.md §18): no complex128 off A2 and A3.
            OpKind::Permute => dtype != DType::C128 || family.has_bf16(),
            // Roll (ops.md §20): its own list (bfloat16 above).
            OpKind::Roll => matches!(
                dtype,
                DType::F16
                    | DType::F32
                    | DType::I8
                    | DType::U8
                    | DType::I32
                    | DType::I64
                    | DType::U32
                    | DType::Bool
            ),
            // Expand (ops.md §21), GatherNd (§28): its own list (bfloat16
            // above).
            OpKind::Expand | OpKind::GatherNd => matches!(
                dtype,
                DType::F16
                    | DType::F32
                    | DType::U8
                    | DType::I8
                    | DType::I32
                    | DType::I64
                    | DType::Bool
            ),
            // Flip (ops.md §19): no unsigned type wider than 8 bits.
            OpKind::Flip => !matches!(dtype, DType::U16 | DType::U32 | DType::U64),
            // Zero (ops.md §13): that list plus uint16.
            OpKind::Zero => !matches!(dtype, DType::U32 | DType::U64),
            // MaskedSelect (ops.md §29), Index (§30): their list
            // (bfloat16 above).
            OpKind::MaskedSelect | OpKind::Index => matches!(
                dtype,
                DType::F32
                    | DType::F16
                    | DType::F64
                    | DType::I8
                    | DType::I16
                    | DType::I32
                    | DType::I64
                    | DType::U8
                    | DType::Bool
            ),
            // Tril and Triu (ops.md §15), Gather (§25): no complex types.
            OpKind::Tril | OpKind::Triu | OpKind::Gather => {
                !matches!(dtype, DType::C64 | DType::C128)
            }
            // The pads (ops.md §16, §17).
            OpKind::ReflectionPad1d | OpKind::ReflectionPad2d | OpKind::ReflectionPad3d => {
                match dtype {
                    DType::U16 | DType::U32 | DType::U64 => false,
                    DType::C64 | DType::C128 => family.has_bf16(),
                    _ => true,
                }
            }
            OpKind::ReplicationPad1d | OpKind::ReplicationPad2d | OpKind::ReplicationPad3d => {
                !matches!(dtype, DType::U16 | DType::U32 | DType::U64 | DType::Bool)
            }
            OpKind::CircularPad2d | OpKind::CircularPad3d => {
                matches!(dtype, DType::F16 | DType::F32 | DType::I8 | DType::I32)
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        assert_eq!(Family::of_soc("Ascend910B"), Some(Family::Training));
        assert_eq!(Family::of_soc("Ascend910B4-1"), Some(Family::A2));
        assert_eq!(Family::of_soc("Ascend310P6"), None);
        assert!(!OpKind::Slice.available(Family::Inference));
        assert!(!OpKind::SampledSlice.available(Family::Atlas200I500A2));
        assert!(OpKind::AsStrided.available(Family::Atlas200I500A2));
        assert!(!OpKind::Slice.supports(Family::A2, DType::F64));
        assert!(OpKind::IndexSelect.supports(Family::A3, DType::BF16));
        assert!(!OpKind::IndexSelect.supports(Family::Inference, DType::BF16));
    }
}
