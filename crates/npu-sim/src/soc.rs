//! Products the simulator can pretend to be, and what each supports.
//!
//! The SoC table is `cann_sys::soc`, shared with the safe layer; the
//! operator and dtype tables here are the simulator's own, written from the
//! aclnn documentation summarised in the operator contract (`docs/ops.md`).
//! Tests compare both with `cpu-ref`, which keeps independent ones.

use cann_sys::aclDataType;

pub use cann_sys::soc::Family;

/// The SoC the simulator is by default.
pub const DEFAULT_SOC: &str = "Ascend910B3";

/// The family of a SoC name, exactly as `aclrtGetSocName` spells it.
pub fn family_of(soc: &str) -> Option<Family> {
    Family::of_soc(soc)
}

/// Every SoC name the simulator knows.
pub fn soc_names() -> impl Iterator<Item = &'static str> {
    cann_sys::soc::SOCS.iter().map(|(n, _)| *n)
}

/// The simulated aclnn operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// aclnnSlice
    Slice,
    /// aclnnIndexSelect
    IndexSelect,
    /// aclnnInplaceCopy
    InplaceCopy,
    /// aclnnConstantPadNd
    ConstantPadNd,
    /// aclnnAdd
    Add,
    /// aclnnInplaceAdd
    InplaceAdd,
    /// aclnnMul
    Mul,
    /// aclnnInplaceMul
    InplaceMul,
    /// aclnnCat
    Cat,
    /// aclnnStack
    Stack,
    /// aclnnInplaceFillScalar
    InplaceFillScalar,
    /// aclnnInplaceZero
    InplaceZero,
    /// aclnnCast
    Cast,
    /// aclnnPermute
    Permute,
    /// aclnnFlip
    Flip,
    /// aclnnRoll
    Roll,
    /// aclnnExpand
    Expand,
    /// aclnnRepeat
    Repeat,
    /// aclnnSliceV2
    SliceV2,
    /// aclnnSliceV3
    SliceV3,
    /// aclnnStridedSlice (Ascend 950 only: refused on every modeled family)
    StridedSlice,
    /// aclnnAsStrided
    AsStrided,
    /// aclnnViewCopy
    ViewCopy,
    /// aclnnStridedSliceAssignV2
    StridedSliceAssignV2,
    /// aclnnTril
    Tril,
    /// aclnnInplaceTril
    InplaceTril,
    /// aclnnTriu
    Triu,
    /// aclnnInplaceTriu
    InplaceTriu,
    /// aclnnSplitTensor
    SplitTensor,
    /// aclnnSplitWithSize
    SplitWithSize,
    /// aclnnEmbedding
    Embedding,
    /// aclnnGatherV2
    GatherV2,
    /// aclnnGather
    Gather,
    /// aclnnTake
    Take,
    /// aclnnIndexCopy
    IndexCopy,
    /// aclnnInplaceIndexCopy
    InplaceIndexCopy,
    /// aclnnGatherNd
    GatherNd,
    /// aclnnMaskedSelect
    MaskedSelect,
    /// aclnnIndex
    Index,
    /// aclnnReflectionPad1d
    ReflectionPad1d,
    /// aclnnReflectionPad2d
    ReflectionPad2d,
    /// aclnnReflectionPad3d
    ReflectionPad3d,
    /// aclnnReplicationPad1d
    ReplicationPad1d,
    /// aclnnReplicationPad2d
    ReplicationPad2d,
    /// aclnnReplicationPad3d
    ReplicationPad3d,
    /// aclnnCircularPad2d
    CircularPad2d,
    /// aclnnCircularPad3d
    CircularPad3d,
}

impl Op {
    /// The aclnn function name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Slice => "aclnnSlice",
            Op::IndexSelect => "aclnnIndexSelect",
            Op::InplaceCopy => "aclnnInplaceCopy",
            Op::ConstantPadNd => "aclnnConstantPadNd",
            Op::Add => "aclnnAdd",
            Op::InplaceAdd => "aclnnInplaceAdd",
            Op::Mul => "aclnnMul",
            Op::InplaceMul => "aclnnInplaceMul",
            Op::Cat => "aclnnCat",
            Op::Stack => "aclnnStack",
            Op::InplaceFillScalar => "aclnnInplaceFillScalar",
            Op::InplaceZero => "aclnnInplaceZero",
            Op::Cast => "aclnnCast",
            Op::Permute => "aclnnPermute",
            Op::Flip => "aclnnFlip",
            Op::Roll => "aclnnRoll",
            Op::Expand => "aclnnExpand",
            Op::Repeat => "aclnnRepeat",
            Op::SliceV2 => "aclnnSliceV2",
            Op::SliceV3 => "aclnnSliceV3",
            Op::StridedSlice => "aclnnStridedSlice",
            Op::AsStrided => "aclnnAsStrided",
            Op::ViewCopy => "aclnnViewCopy",
            Op::StridedSliceAssignV2 => "aclnnStridedSliceAssignV2",
            Op::Tril => "aclnnTril",
            Op::InplaceTril => "aclnnInplaceTril",
            Op::Triu => "aclnnTriu",
            Op::InplaceTriu => "aclnnInplaceTriu",
            Op::SplitTensor => "aclnnSplitTensor",
            Op::SplitWithSize => "aclnnSplitWithSize",
            Op::Embedding => "aclnnEmbedding",
            Op::GatherV2 => "aclnnGatherV2",
            Op::Gather => "aclnnGather",
            Op::Take => "aclnnTake",
            Op::IndexCopy => "aclnnIndexCopy",
            Op::InplaceIndexCopy => "aclnnInplaceIndexCopy",
            Op::GatherNd => "aclnnGatherNd",
            Op::MaskedSelect => "aclnnMaskedSelect",
            Op::Index => "aclnnIndex",
            Op::ReflectionPad1d => "aclnnReflectionPad1d",
            Op::ReflectionPad2d => "aclnnReflectionPad2d",
            Op::ReflectionPad3d => "aclnnReflectionPad3d",
            Op::ReplicationPad1d => "aclnnReplicationPad1d",
            Op::ReplicationPad2d => "aclnnReplicationPad2d",
            Op::ReplicationPad3d => "aclnnReplicationPad3d",
            Op::CircularPad2d => "aclnnCircularPad2d",
            Op::CircularPad3d => "aclnnCircularPad3d",
        }
    }

    /// The first phase's function name.
    pub fn first_phase_name(self) -> &'static str {
        match self {
            Op::Slice => "aclnnSliceGetWorkspaceSize",
            Op::IndexSelect => "aclnnIndexSelectGetWorkspaceSize",
            Op::InplaceCopy => "aclnnInplaceCopyGetWorkspaceSize",
            Op::ConstantPadNd => "aclnnConstantPadNdGetWorkspaceSize",
            Op::Add => "aclnnAddGetWorkspaceSize",
            Op::InplaceAdd => "aclnnInplaceAddGetWorkspaceSize",
            Op::Mul => "aclnnMulGetWorkspaceSize",
            Op::InplaceMul => "aclnnInplaceMulGetWorkspaceSize",
            Op::Cat => "aclnnCatGetWorkspaceSize",
            Op::Stack => "aclnnStackGetWorkspaceSize",
            Op::InplaceFillScalar => "aclnnInplaceFillScalarGetWorkspaceSize",
            Op::InplaceZero => "aclnnInplaceZeroGetWorkspaceSize",
            Op::Cast => "aclnnCastGetWorkspaceSize",
            Op::Permute => "aclnnPermuteGetWorkspaceSize",
            Op::Flip => "aclnnFlipGetWorkspaceSize",
            Op::Roll => "aclnnRollGetWorkspaceSize",
            Op::Expand => "aclnnExpandGetWorkspaceSize",
            Op::Repeat => "aclnnRepeatGetWorkspaceSize",
            Op::SliceV2 => "aclnnSliceV2GetWorkspaceSize",
            Op::SliceV3 => "aclnnSliceV3GetWorkspaceSize",
            Op::StridedSlice => "aclnnStridedSliceGetWorkspaceSize",
            Op::AsStrided => "aclnnAsStridedGetWorkspaceSize",
            Op::ViewCopy => "aclnnViewCopyGetWorkspaceSize",
            Op::StridedSliceAssignV2 => "aclnnStridedSliceAssignV2GetWorkspaceSize",
            Op::Tril => "aclnnTrilGetWorkspaceSize",
            Op::InplaceTril => "aclnnInplaceTrilGetWorkspaceSize",
            Op::Triu => "aclnnTriuGetWorkspaceSize",
            Op::InplaceTriu => "aclnnInplaceTriuGetWorkspaceSize",
            Op::SplitTensor => "aclnnSplitTensorGetWorkspaceSize",
            Op::SplitWithSize => "aclnnSplitWithSizeGetWorkspaceSize",
            Op::Embedding => "aclnnEmbeddingGetWorkspaceSize",
            Op::GatherV2 => "aclnnGatherV2GetWorkspaceSize",
            Op::Gather => "aclnnGatherGetWorkspaceSize",
            Op::Take => "aclnnTakeGetWorkspaceSize",
            Op::IndexCopy => "aclnnIndexCopyGetWorkspaceSize",
            Op::InplaceIndexCopy => "aclnnInplaceIndexCopyGetWorkspaceSize",
            Op::GatherNd => "aclnnGatherNdGetWorkspaceSize",
            Op::MaskedSelect => "aclnnMaskedSelectGetWorkspaceSize",
            Op::Index => "aclnnIndexGetWorkspaceSize",
            Op::ReflectionPad1d => "aclnnReflectionPad1dGetWorkspaceSize",
            Op::ReflectionPad2d => "aclnnReflectionPad2dGetWorkspaceSize",
            Op::ReflectionPad3d => "aclnnReflectionPad3dGetWorkspaceSize",
            Op::ReplicationPad1d => "aclnnReplicationPad1dGetWorkspaceSize",
            Op::ReplicationPad2d => "aclnnReplicationPad2dGetWorkspaceSize",
            Op::ReplicationPad3d => "aclnnReplicationPad3dGetWorkspaceSize",
            Op::CircularPad2d => "aclnnCircularPad2dGetWorkspaceSize",
            Op::CircularPad3d => "aclnnCircularPad3dGetWorkspaceSize",
        }
    }
}

/// Whether `op` has a kernel on `family`.
pub fn op_available(op: Op, family: Family) -> bool {
    use Family::*;
    match op {
        // aclnnSliceV2's page: Slice's table (ops.md §31).
        Op::Slice | Op::SliceV2 => matches!(family, Training | A2 | A3),
        // SliceV3's README and definition: A2 only (ops.md §31).
        Op::SliceV3 => matches!(family, A2),
        // aclnnAsStrided's page: A2 only (ops.md §33).
        Op::AsStrided => matches!(family, A2),
        // In every CANN package; its first phase refuses every product but
        // Ascend 950 with 161002, not 561003 (ops.md §32).
        Op::StridedSlice => true,
        // aclnnViewCopy's page: A2 only (ops.md §34).
        Op::ViewCopy => matches!(family, A2),
        // aclnnStridedSliceAssignV2's page: A2 and A3 (ops.md §35).
        Op::StridedSliceAssignV2 => matches!(family, A2 | A3),
        Op::IndexSelect | Op::ConstantPadNd => !matches!(family, Atlas200I500A2),
        Op::InplaceCopy => true,
        // aclnnAdd's English page: not on the inference series or 200I/500 A2.
        Op::Add | Op::InplaceAdd => matches!(family, Training | A2 | A3),
        Op::Mul | Op::InplaceMul => !matches!(family, Atlas200I500A2),
        // aclnnCat's page: the training and inference series, A2, A3.
        Op::Cat => !matches!(family, Atlas200I500A2),
        // aclnnStack's page: not on 200I/500 A2.
        Op::Stack => !matches!(family, Atlas200I500A2),
        // Their English pages: every family but 200I/500 A2.
        Op::InplaceFillScalar | Op::InplaceZero | Op::Cast => !matches!(family, Atlas200I500A2),
        // aclnnPermute's page: the training series, A2 and A3.
        Op::Permute => matches!(family, Training | A2 | A3),
        // aclnnFlip's page: A2 and A3 only.
        Op::Flip => matches!(family, A2 | A3),
        // aclnnRoll's page: every family but 200I/500 A2.
        Op::Roll => !matches!(family, Atlas200I500A2),
        // aclnnExpand's page: every family but 200I/500 A2.
        Op::Expand => !matches!(family, Atlas200I500A2),
        // aclnnRepeat's page: every family but 200I/500 A2.
        Op::Repeat => !matches!(family, Atlas200I500A2),
        // ops.md §15 (project): every family but 200I/500 A2.
        Op::Tril | Op::InplaceTril | Op::Triu | Op::InplaceTriu => {
            !matches!(family, Atlas200I500A2)
        }
        // Their pages: SplitTensor on every family but 200I/500 A2,
        // SplitWithSize on the training series, A2 and A3 only.
        Op::SplitTensor => !matches!(family, Atlas200I500A2),
        Op::SplitWithSize => matches!(family, Training | A2 | A3),
        // aclnnEmbedding's page: A2 and A3 (ops.md §23).
        Op::Embedding => matches!(family, A2 | A3),
        // aclnnGatherV2's page (ops.md §24): every family but 200I/500 A2.
        Op::GatherV2 => !matches!(family, Atlas200I500A2),
        // aclnnGather's page (ops.md §25): every family but 200I/500 A2.
        Op::Gather => !matches!(family, Atlas200I500A2),
        // aclnnGatherNd's page (ops.md §28): every family but 200I/500 A2.
        Op::GatherNd => !matches!(family, Atlas200I500A2),
        // aclnnMaskedSelect's page (ops.md §29): every family but 200I/500 A2.
        Op::MaskedSelect => !matches!(family, Atlas200I500A2),
        // aclnnIndex's page (ops.md §30): every family.
        Op::Index => true,
        // aclnnTake's page (ops.md §26): the training series, A2 and A3.
        Op::Take => matches!(family, Training | A2 | A3),
        // aclnnIndexCopy's page (ops.md §27): the training series, A2, A3.
        Op::IndexCopy | Op::InplaceIndexCopy => matches!(family, Training | A2 | A3),
        // Their pages (ops.md §16): every family but 200I/500 A2.
        Op::ReflectionPad1d
        | Op::ReflectionPad2d
        | Op::ReflectionPad3d
        | Op::ReplicationPad1d
        | Op::ReplicationPad2d
        | Op::ReplicationPad3d => !matches!(family, Atlas200I500A2),
        // aclnnCircularPad2d's page (ops.md §17): A2 and A3 only.
        Op::CircularPad2d | Op::CircularPad3d => matches!(family, A2 | A3),
    }
}

/// Add's and Mul's list (aclnnAdd / aclnnMul pages; BF16 separately).
const ELEMENTWISE_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_DOUBLE,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_BOOL,
    aclDataType::ACL_COMPLEX64,
    aclDataType::ACL_COMPLEX128,
];

/// Cat's list (aclnnCat page; BF16 separately).
const CAT_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_BOOL,
    aclDataType::ACL_DOUBLE,
    aclDataType::ACL_COMPLEX64,
];

/// Roll's list (aclnnRoll page; BF16 separately).
const ROLL_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_UINT32,
    aclDataType::ACL_BOOL,
];

const SLICE_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_BOOL,
];

const GENERAL_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_INT64,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_UINT16,
    aclDataType::ACL_UINT32,
    aclDataType::ACL_UINT64,
    aclDataType::ACL_BOOL,
    aclDataType::ACL_DOUBLE,
    aclDataType::ACL_COMPLEX64,
    aclDataType::ACL_COMPLEX128,
];

/// The reflection pads' list (aclnn_reflection_pad2d.cpp; complex types
/// on A2/A3 only, BF16 separately).
const REFLECTION_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_DOUBLE,
    aclDataType::ACL_INT8,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_BOOL,
];

/// The replication pads' list (op_replication_pad.h; BF16 separately).
const REPLICATION_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_DOUBLE,
    aclDataType::ACL_INT8,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT64,
    aclDataType::ACL_UINT8,
    aclDataType::ACL_COMPLEX64,
    aclDataType::ACL_COMPLEX128,
];

/// SliceV3's list (its operator definition, ops.md §31; BF16 separately).
const SLICE_V3_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_INT32,
    aclDataType::ACL_INT16,
    aclDataType::ACL_INT8,
    aclDataType::ACL_UINT8,
];

/// The circular pads' list (aclnnCircularPad2d page; BF16 separately).
const CIRCULAR_DTYPES: &[aclDataType] = &[
    aclDataType::ACL_FLOAT,
    aclDataType::ACL_FLOAT16,
    aclDataType::ACL_INT8,
    aclDataType::ACL_INT32,
];

/// Whether `op` accepts data of `dtype` on `family`. BF16 only on A2/A3.
/// Cast takes the general list for `self` and `dtype` (aclnn_cast.cpp).
/// Slice has its own short list; IndexSelect's list is used for the others
/// (InplaceCopy and ConstantPadNd document the same set).
pub fn dtype_supported(op: Op, family: Family, dtype: aclDataType) -> bool {
    if dtype == aclDataType::ACL_BF16 {
        // aclnnIndex's page (ops.md §30): BF16 on 200I/500 A2 too.
        return family.has_bf16() || (op == Op::Index && family == Family::Atlas200I500A2);
    }
    match op {
        Op::Slice | Op::SliceV2 => SLICE_DTYPES.contains(&dtype),
        // SliceV3's definition (BF16 above).
        Op::SliceV3 => SLICE_V3_DTYPES.contains(&dtype),
        // aclnnStridedSliceAssignV2's page (ops.md §35; BF16 above).
        Op::StridedSliceAssignV2 => matches!(
            dtype,
            aclDataType::ACL_FLOAT16
                | aclDataType::ACL_FLOAT
                | aclDataType::ACL_INT32
                | aclDataType::ACL_INT64
                | aclDataType::ACL_DOUBLE
                | aclDataType::ACL_INT8
        ),
        // aclnnAsStrided's page: no DOUBLE, no COMPLEX128 (ops.md §33).
        Op::AsStrided => {
            !matches!(dtype, aclDataType::ACL_DOUBLE | aclDataType::ACL_COMPLEX128)
                && GENERAL_DTYPES.contains(&dtype)
        }
        // Never reached on a modeled product (ops.md §32): the general list.
        Op::StridedSlice => GENERAL_DTYPES.contains(&dtype),
        // aclnnViewCopy's page (ops.md §34).
        Op::ViewCopy => matches!(
            dtype,
            aclDataType::ACL_FLOAT16
                | aclDataType::ACL_FLOAT
                | aclDataType::ACL_BF16
                | aclDataType::ACL_INT8
                | aclDataType::ACL_UINT8
                | aclDataType::ACL_INT16
                | aclDataType::ACL_UINT16
                | aclDataType::ACL_INT32
                | aclDataType::ACL_UINT32
                | aclDataType::ACL_BOOL
                | aclDataType::ACL_INT64
        ),
        Op::Add
        | Op::InplaceAdd
        | Op::Mul
        | Op::InplaceMul
        | Op::InplaceFillScalar
        | Op::SplitTensor
        | Op::SplitWithSize
        | Op::Embedding
        | Op::GatherV2
        | Op::IndexCopy
        | Op::InplaceIndexCopy => ELEMENTWISE_DTYPES.contains(&dtype),
        Op::Cat => CAT_DTYPES.contains(&dtype),
        // aclnn_zero.cpp: FillScalar's list plus UINT16.
        Op::InplaceZero => ELEMENTWISE_DTYPES.contains(&dtype) || dtype == aclDataType::ACL_UINT16,
        // aclnnPermute's page: no COMPLEX128 on the training series.
        Op::Permute if dtype == aclDataType::ACL_COMPLEX128 => family.has_bf16(),
        // aclnnRoll's page (BF16 above).
        Op::Roll => ROLL_DTYPES.contains(&dtype),
        // aclnnExpand's page: Roll's list without UINT32 (BF16 above).
        Op::Expand => ROLL_DTYPES.contains(&dtype) && dtype != aclDataType::ACL_UINT32,
        // aclnnMaskedSelect's page (ops.md §29): its own list (BF16 above).
        Op::MaskedSelect => matches!(
            dtype,
            aclDataType::ACL_FLOAT
                | aclDataType::ACL_FLOAT16
                | aclDataType::ACL_DOUBLE
                | aclDataType::ACL_INT8
                | aclDataType::ACL_INT16
                | aclDataType::ACL_INT32
                | aclDataType::ACL_INT64
                | aclDataType::ACL_UINT8
                | aclDataType::ACL_BOOL
        ),
        // aclnnIndex's page (ops.md §30): its list without COMPLEX64
        // (BF16 above).
        Op::Index => matches!(
            dtype,
            aclDataType::ACL_FLOAT
                | aclDataType::ACL_FLOAT16
                | aclDataType::ACL_DOUBLE
                | aclDataType::ACL_INT8
                | aclDataType::ACL_INT16
                | aclDataType::ACL_INT32
                | aclDataType::ACL_INT64
                | aclDataType::ACL_UINT8
                | aclDataType::ACL_BOOL
        ),
        // aclnnGatherNd's page (ops.md §28): Expand's list (BF16 above).
        Op::GatherNd => ROLL_DTYPES.contains(&dtype) && dtype != aclDataType::ACL_UINT32,
        // aclnnFlip's page: no unsigned type wider than 8 bits.
        Op::Flip => {
            GENERAL_DTYPES.contains(&dtype)
                && !matches!(
                    dtype,
                    aclDataType::ACL_UINT16 | aclDataType::ACL_UINT32 | aclDataType::ACL_UINT64
                )
        }
        // aclnn_tril.h / aclnn_triu.h, and aclnnGather's page (ops.md
        // §25): the general list without complex types.
        Op::Tril | Op::InplaceTril | Op::Triu | Op::InplaceTriu | Op::Gather => {
            GENERAL_DTYPES.contains(&dtype)
                && !matches!(
                    dtype,
                    aclDataType::ACL_COMPLEX64 | aclDataType::ACL_COMPLEX128
                )
        }
        Op::ReflectionPad1d | Op::ReflectionPad2d | Op::ReflectionPad3d => {
            REFLECTION_DTYPES.contains(&dtype)
                || (family.has_bf16()
                    && matches!(
                        dtype,
                        aclDataType::ACL_COMPLEX64 | aclDataType::ACL_COMPLEX128
                    ))
        }
        Op::ReplicationPad1d | Op::ReplicationPad2d | Op::ReplicationPad3d => {
            REPLICATION_DTYPES.contains(&dtype)
        }
        Op::CircularPad2d | Op::CircularPad3d => CIRCULAR_DTYPES.contains(&dtype),
        _ => GENERAL_DTYPES.contains(&dtype),
    }
}

/// Size in bytes of an element of `dtype`, for the dtypes the simulator
/// can hold in device memory; `None` for the others (string, sub-byte, fp8).
pub fn dtype_size(dtype: aclDataType) -> Option<usize> {
    use aclDataType as D;
    Some(match dtype {
        D::ACL_INT8 | D::ACL_UINT8 | D::ACL_BOOL => 1,
        D::ACL_FLOAT16 | D::ACL_BF16 | D::ACL_INT16 | D::ACL_UINT16 => 2,
        D::ACL_FLOAT | D::ACL_INT32 | D::ACL_UINT32 => 4,
        D::ACL_INT64 | D::ACL_UINT64 | D::ACL_DOUBLE | D::ACL_COMPLEX64 => 8,
        D::ACL_COMPLEX128 => 16,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ascend910b_is_training_not_a2() {
        assert_eq!(family_of("Ascend910B"), Some(Family::Training));
        assert_eq!(family_of("Ascend910B3"), Some(Family::A2));
        assert_eq!(family_of("Ascend910B4-1"), Some(Family::A2));
        assert_eq!(family_of("Ascend310P6"), None);
        assert_eq!(family_of("ascend910b3"), None);
    }

    #[test]
    fn availability() {
        assert!(!op_available(Op::Slice, Family::Inference));
        assert!(op_available(Op::ViewCopy, Family::A2));
        assert!(!op_available(Op::ViewCopy, Family::A3));
        assert!(!dtype_supported(
            Op::ViewCopy,
            Family::A2,
            aclDataType::ACL_DOUBLE
        ));
        assert!(dtype_supported(
            Op::ViewCopy,
            Family::A2,
            aclDataType::ACL_BF16
        ));
        assert!(!op_available(Op::IndexSelect, Family::Atlas200I500A2));
        assert!(op_available(Op::InplaceCopy, Family::Atlas200I500A2));
        assert!(!op_available(Op::ConstantPadNd, Family::Atlas200I500A2));
        assert!(op_available(Op::IndexSelect, Family::Inference));
        assert!(!op_available(Op::Add, Family::Inference));
        assert!(op_available(Op::Mul, Family::Inference));
        assert!(!op_available(Op::InplaceMul, Family::Atlas200I500A2));
        assert!(op_available(Op::InplaceAdd, Family::Training));
        assert!(op_available(Op::Cat, Family::Inference));
        assert!(!op_available(Op::Cat, Family::Atlas200I500A2));
        assert!(op_available(Op::Stack, Family::Training));
        assert!(!op_available(Op::Stack, Family::Atlas200I500A2));
        assert!(dtype_supported(
            Op::Stack,
            Family::A2,
            aclDataType::ACL_UINT64
        ));
        assert!(dtype_supported(
            Op::Stack,
            Family::A3,
            aclDataType::ACL_COMPLEX128
        ));
    }

    #[test]
    fn index_table() {
        use aclDataType as D;
        for fam in [
            Family::Training,
            Family::A2,
            Family::A3,
            Family::Inference,
            Family::Atlas200I500A2,
        ] {
            assert!(op_available(Op::Index, fam));
            assert!(dtype_supported(Op::Index, fam, D::ACL_INT16));
            assert!(!dtype_supported(Op::Index, fam, D::ACL_COMPLEX64));
            assert!(!dtype_supported(Op::Index, fam, D::ACL_UINT16));
        }
        assert!(dtype_supported(
            Op::Index,
            Family::Atlas200I500A2,
            D::ACL_BF16
        ));
        assert!(dtype_supported(Op::Index, Family::A3, D::ACL_BF16));
        assert!(!dtype_supported(Op::Index, Family::Training, D::ACL_BF16));
        assert!(!dtype_supported(Op::Index, Family::Inference, D::ACL_BF16));
    }

    #[test]
    fn gather_v2_table() {
        use aclDataType as D;
        assert!(op_available(Op::GatherV2, Family::Training));
        assert!(op_available(Op::GatherV2, Family::Inference));
        assert!(!op_available(Op::GatherV2, Family::Atlas200I500A2));
        assert!(dtype_supported(Op::GatherV2, Family::A2, D::ACL_BF16));
        assert!(!dtype_supported(
            Op::GatherV2,
            Family::Inference,
            D::ACL_BF16
        ));
        assert!(dtype_supported(
            Op::GatherV2,
            Family::Training,
            D::ACL_COMPLEX128
        ));
        assert!(!dtype_supported(Op::GatherV2, Family::A2, D::ACL_UINT16));
        assert_eq!(
            Op::GatherV2.first_phase_name(),
            "aclnnGatherV2GetWorkspaceSize"
        );
        assert!(op_available(Op::Gather, Family::Inference));
        assert!(!op_available(Op::Gather, Family::Atlas200I500A2));
        assert!(dtype_supported(Op::Gather, Family::A2, D::ACL_UINT64));
        assert!(!dtype_supported(Op::Gather, Family::A2, D::ACL_COMPLEX64));
        assert!(!dtype_supported(Op::Gather, Family::Training, D::ACL_BF16));
        assert!(!op_available(Op::Take, Family::Inference));
        assert!(dtype_supported(
            Op::Take,
            Family::Training,
            D::ACL_COMPLEX128
        ));
    }

    #[test]
    fn pad_tables() {
        use aclDataType as D;
        assert!(!op_available(Op::ReflectionPad2d, Family::Atlas200I500A2));
        assert!(op_available(Op::ReplicationPad3d, Family::Inference));
        assert!(!op_available(Op::CircularPad2d, Family::Training));
        assert!(op_available(Op::CircularPad3d, Family::A3));
        assert!(dtype_supported(
            Op::ReflectionPad1d,
            Family::A2,
            D::ACL_COMPLEX64
        ));
        assert!(!dtype_supported(
            Op::ReflectionPad1d,
            Family::Training,
            D::ACL_COMPLEX64
        ));
        assert!(dtype_supported(
            Op::ReflectionPad1d,
            Family::Training,
            D::ACL_BOOL
        ));
        assert!(!dtype_supported(
            Op::ReplicationPad1d,
            Family::A2,
            D::ACL_BOOL
        ));
        assert!(dtype_supported(Op::CircularPad2d, Family::A2, D::ACL_BF16));
        assert!(!dtype_supported(
            Op::CircularPad2d,
            Family::A2,
            D::ACL_INT64
        ));
    }

    #[test]
    fn cat_dtypes() {
        use aclDataType as D;
        assert!(dtype_supported(Op::Cat, Family::A2, D::ACL_BF16));
        assert!(!dtype_supported(Op::Cat, Family::Inference, D::ACL_BF16));
        assert!(!dtype_supported(Op::Cat, Family::A2, D::ACL_COMPLEX128));
        assert!(!dtype_supported(Op::Cat, Family::A2, D::ACL_UINT32));
        assert!(dtype_supported(Op::Cat, Family::Training, D::ACL_DOUBLE));
    }

    #[test]
    fn elementwise_dtypes() {
        use aclDataType as D;
        assert!(dtype_supported(Op::Add, Family::A2, D::ACL_BF16));
        assert!(!dtype_supported(Op::Mul, Family::Training, D::ACL_BF16));
        assert!(!dtype_supported(Op::Add, Family::A2, D::ACL_UINT16));
        assert!(dtype_supported(
            Op::InplaceMul,
            Family::A3,
            D::ACL_COMPLEX128
        ));
    }

    #[test]
    fn fill_dtypes() {
        use aclDataType as D;
        assert!(!dtype_supported(
            Op::InplaceFillScalar,
            Family::A2,
            D::ACL_UINT16
        ));
        assert!(dtype_supported(
            Op::InplaceZero,
            Family::Inference,
            D::ACL_UINT16
        ));
        assert!(!dtype_supported(
            Op::InplaceZero,
            Family::Training,
            D::ACL_BF16
        ));
        assert!(dtype_supported(
            Op::InplaceFillScalar,
            Family::A3,
            D::ACL_BF16
        ));
        assert!(!op_available(Op::InplaceZero, Family::Atlas200I500A2));
        assert!(op_available(Op::InplaceFillScalar, Family::Inference));
    }

    #[test]
    fn permute_table() {
        use aclDataType as D;
        assert!(op_available(Op::Permute, Family::Training));
        assert!(!op_available(Op::Permute, Family::Inference));
        assert!(!op_available(Op::Permute, Family::Atlas200I500A2));
        assert!(!dtype_supported(
            Op::Permute,
            Family::Training,
            D::ACL_COMPLEX128
        ));
        assert!(dtype_supported(Op::Permute, Family::A3, D::ACL_COMPLEX128));
        assert!(dtype_supported(
            Op::Permute,
            Family::Training,
            D::ACL_UINT16
        ));
        assert!(dtype_supported(Op::Permute, Family::A2, D::ACL_BF16));
        assert!(!op_available(Op::Flip, Family::Training));
        assert!(op_available(Op::Flip, Family::A3));
        assert!(!dtype_supported(Op::Flip, Family::A2, D::ACL_UINT16));
        assert!(dtype_supported(Op::Flip, Family::A2, D::ACL_COMPLEX128));
        assert!(op_available(Op::Roll, Family::Inference));
        assert!(!dtype_supported(Op::Roll, Family::A2, D::ACL_INT16));
        assert!(dtype_supported(Op::Roll, Family::Training, D::ACL_UINT32));
        assert!(!dtype_supported(
            Op::Expand,
            Family::Training,
            D::ACL_UINT32
        ));
        assert!(dtype_supported(Op::Expand, Family::Inference, D::ACL_UINT8));
    }

    #[test]
    fn tri_dtypes() {
        use aclDataType as D;
        for op in [Op::Tril, Op::InplaceTril, Op::Triu, Op::InplaceTriu] {
            assert!(dtype_supported(op, Family::A2, D::ACL_UINT64));
            assert!(dtype_supported(op, Family::A3, D::ACL_BF16));
            assert!(!dtype_supported(op, Family::Inference, D::ACL_BF16));
            assert!(!dtype_supported(op, Family::A2, D::ACL_COMPLEX64));
            assert!(op_available(op, Family::Inference));
            assert!(!op_available(op, Family::Atlas200I500A2));
        }
    }

    #[test]
    fn split_products() {
        use aclDataType as D;
        assert!(op_available(Op::SplitTensor, Family::Inference));
        assert!(!op_available(Op::SplitWithSize, Family::Inference));
        assert!(!op_available(Op::SplitTensor, Family::Atlas200I500A2));
        assert!(dtype_supported(
            Op::SplitWithSize,
            Family::A2,
            D::ACL_COMPLEX128
        ));
        assert!(!dtype_supported(Op::SplitTensor, Family::A2, D::ACL_UINT16));
    }

    #[test]
    fn bf16_only_on_a2_a3() {
        assert!(dtype_supported(
            Op::Slice,
            Family::A3,
            aclDataType::ACL_BF16
        ));
        assert!(!dtype_supported(
            Op::Slice,
            Family::Training,
            aclDataType::ACL_BF16
        ));
        assert!(!dtype_supported(
            Op::IndexSelect,
            Family::Inference,
            aclDataType::ACL_BF16
        ));
        assert!(!dtype_supported(
            Op::Slice,
            Family::A2,
            aclDataType::ACL_DOUBLE
        ));
        assert!(!dtype_supported(
            Op::SliceV2,
            Family::Training,
            aclDataType::ACL_BF16
        ));
        assert!(!dtype_supported(
            Op::SliceV2,
            Family::A2,
            aclDataType::ACL_INT16
        ));
        assert!(!op_available(Op::SliceV2, Family::Inference));
        assert!(!op_available(Op::SliceV3, Family::A3));
        assert!(dtype_supported(
            Op::SliceV3,
            Family::A2,
            aclDataType::ACL_INT16
        ));
        assert!(!dtype_supported(
            Op::SliceV3,
            Family::A2,
            aclDataType::ACL_INT64
        ));
        assert!(dtype_supported(
            Op::IndexSelect,
            Family::A2,
            aclDataType::ACL_COMPLEX128
        ));
    }
}
