//! Products (families of SoCs) and which operators and dtypes each supports.
//!
//! Everything here is a data table taken from the operator contract (`docs/ops.md`), plus the
//! project decisions marked below.

use crate::dtype::DType;
use crate::error::RefError;

/// The SoC the simulator pretends to be when a case names none (an Atlas A2 part).
pub const DEFAULT_SOC: &str = "Ascend910B3";

/// A product family; the SoC name decides the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Atlas training series (Ascend910A and relatives, and plain `Ascend910B`).
    Training,
    /// Atlas A2 training series / Atlas 800I A2 (`Ascend910B1`..).
    A2,
    /// Atlas A3 training / inference series (`Ascend910_93xx`).
    A3,
    /// Atlas inference series (`Ascend310P*`).
    Inference,
    /// Atlas 200I/500 A2 inference products (`Ascend310B*`).
    A200I500A2,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 5] = [
        Family::Training,
        Family::A2,
        Family::A3,
        Family::Inference,
        Family::A200I500A2,
    ];

    /// The SoC names of the family, exactly as `aclrtGetSocName` reports them.
    pub fn soc_names(self) -> &'static [&'static str] {
        match self {
            Family::Training => &[
                "Ascend910A",
                "Ascend910ProA",
                "Ascend910PremiumA",
                "Ascend910ProB",
                "Ascend910B",
            ],
            Family::A2 => &[
                "Ascend910B1",
                "Ascend910B2",
                "Ascend910B2C",
                "Ascend910B3",
                "Ascend910B4",
                "Ascend910B4-1",
            ],
            Family::A3 => &[
                "Ascend910_9391",
                "Ascend910_9392",
                "Ascend910_9381",
                "Ascend910_9382",
                "Ascend910_9372",
                "Ascend910_9362",
                "Ascend910_9363",
            ],
            Family::Inference => &[
                "Ascend310P1",
                "Ascend310P2",
                "Ascend310P3",
                "Ascend310P4",
                "Ascend310P5",
                "Ascend310P7",
            ],
            Family::A200I500A2 => &["Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4"],
        }
    }

    /// The family of an exact SoC name, or `None` for an unknown name.
    pub fn from_soc(soc: &str) -> Option<Family> {
        Family::ALL
            .into_iter()
            .find(|f| f.soc_names().contains(&soc))
    }

    /// The family of `soc`, or `InvalidArgument { op, param: "soc" }` for an
    /// unknown name (never a default).
    pub fn from_soc_checked(op: &'static str, soc: &str) -> Result<Family, RefError> {
        Family::from_soc(soc)
            .ok_or_else(|| RefError::invalid(op, "soc", format!("unknown SoC name {soc:?}")))
    }

    /// Human-readable product name, e.g. `"Atlas A2"`.
    pub fn label(self) -> &'static str {
        match self {
            Family::Training => "Atlas training series",
            Family::A2 => "Atlas A2",
            Family::A3 => "Atlas A3",
            Family::Inference => "Atlas inference series",
            Family::A200I500A2 => "Atlas 200I/500 A2",
        }
    }
}

/// The operators of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `aclnnSlice` (ops.md section 1).
    Slice,
    /// `aclnnIndexSelect` (section 2).
    IndexSelect,
    /// ATB AsStrided (section 3).
    AsStrided,
    /// TensorRT-style sampled slice (section 4).
    SampledSlice,
    /// MLI sub-tensor view (section 5).
    Subtensor,
    /// `aclnnAdd` / `aclnnInplaceAdd` (section 8).
    Add,
    /// `aclnnMul` / `aclnnInplaceMul` (section 9).
    Mul,
    /// `aclnnCat` (section 10).
    Cat,
    /// `aclnnStack` (section 11).
    Stack,
    /// `aclnnSplitTensor` (section 12).
    SplitTensor,
    /// `aclnnSplitWithSize` (section 12).
    SplitWithSize,
    /// `aclnnInplaceFillScalar` (section 13).
    FillScalar,
    /// `aclnnInplaceZero` (section 13).
    Zero,
    /// `aclnnCast` (section 14).
    Cast,
    /// `aclnnTril` / `aclnnInplaceTril` (section 15).
    Tril,
    /// `aclnnTriu` / `aclnnInplaceTriu` (section 15).
    Triu,
    /// `aclnnPermute` (section 18).
    Permute,
    /// `aclnnFlip` (section 19).
    Flip,
    /// `aclnnRoll` (section 20).
    Roll,
    /// `aclnnExpand` (section 21).
    Expand,
    /// `aclnnRepeat` (section 22).
    Repeat,
    /// `aclnnEmbedding` (section 23).
    Embedding,
    /// `aclnnSliceV2` (section 31).
    SliceV2,
    /// `aclnnSliceV3` (section 31).
    SliceV3,
    /// `aclnnAsStrided`, the aclnn operator (section 33).
    AsStridedAclnn,
    /// `aclnnViewCopy` (section 34).
    ViewCopy,
    /// `aclnnStridedSliceAssignV2` (section 35).
    StridedSliceAssignV2,
    /// `aclnnGatherV2` (section 24).
    GatherV2,
    /// `aclnnGather` (section 25).
    Gather,
    /// `aclnnTake` (section 26).
    Take,
    /// `aclnnIndexCopy` / `aclnnInplaceIndexCopy` (section 27).
    IndexCopy,
    /// `aclnnGatherNd` (section 28).
    GatherNd,
    /// `aclnnMaskedSelect` (section 29).
    MaskedSelect,
    /// `aclnnIndex` (section 30).
    Index,
    /// `aclnnReflectionPad1d` (section 16).
    ReflectionPad1d,
    /// `aclnnReflectionPad2d` (section 16).
    ReflectionPad2d,
    /// `aclnnReflectionPad3d` (section 16).
    ReflectionPad3d,
    /// `aclnnReplicationPad1d` (section 16).
    ReplicationPad1d,
    /// `aclnnReplicationPad2d` (section 16).
    ReplicationPad2d,
    /// `aclnnReplicationPad3d` (section 16).
    ReplicationPad3d,
    /// `aclnnCircularPad2d` (section 17).
    CircularPad2d,
    /// `aclnnCircularPad3d` (section 17).
    CircularPad3d,
}

impl Op {
    /// Every operator.
    pub const ALL: [Op; 42] = [
        Op::Slice,
        Op::IndexSelect,
        Op::AsStrided,
        Op::SampledSlice,
        Op::Subtensor,
        Op::Add,
        Op::Mul,
        Op::Cat,
        Op::Stack,
        Op::SplitTensor,
        Op::SplitWithSize,
        Op::FillScalar,
        Op::Zero,
        Op::Cast,
        Op::Tril,
        Op::Triu,
        Op::Embedding,
        Op::ReflectionPad1d,
        Op::ReflectionPad2d,
        Op::ReflectionPad3d,
        Op::ReplicationPad1d,
        Op::ReplicationPad2d,
        Op::ReplicationPad3d,
        Op::CircularPad2d,
        Op::CircularPad3d,
        Op::Permute,
        Op::Flip,
        Op::Roll,
        Op::Expand,
        Op::Repeat,
        Op::SliceV2,
        Op::SliceV3,
        Op::AsStridedAclnn,
        Op::ViewCopy,
        Op::StridedSliceAssignV2,
        Op::GatherV2,
        Op::Gather,
        Op::Take,
        Op::IndexCopy,
        Op::GatherNd,
        Op::MaskedSelect,
        Op::Index,
    ];

    /// The conformance-format operator name, also used in errors.
    pub fn name(self) -> &'static str {
        match self {
            Op::Slice => "slice",
            Op::IndexSelect => "index_select",
            Op::AsStrided => "as_strided",
            Op::SampledSlice => "sampled_slice",
            Op::Subtensor => "subtensor",
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Cat => "cat",
            Op::Stack => "stack",
            Op::SplitTensor => "split_tensor",
            Op::SplitWithSize => "split_with_size",
            Op::FillScalar => "fill_scalar",
            Op::Zero => "zero",
            Op::Cast => "cast",
            Op::Tril => "tril",
            Op::Triu => "triu",
            Op::Permute => "permute",
            Op::Flip => "flip",
            Op::Roll => "roll",
            Op::Expand => "expand",
            Op::Repeat => "repeat",
            Op::Embedding => "embedding",
            Op::SliceV2 => "slice_v2",
            Op::SliceV3 => "slice_v3",
            Op::AsStridedAclnn => "as_strided_aclnn",
            Op::ViewCopy => "view_copy",
            Op::StridedSliceAssignV2 => "strided_slice_assign_v2",
            Op::GatherV2 => "gather_v2",
            Op::Gather => "gather",
            Op::Take => "take",
            Op::IndexCopy => "index_copy",
            Op::GatherNd => "gather_nd",
            Op::Index => "index",
            Op::MaskedSelect => "masked_select",
            Op::ReflectionPad1d => "reflection_pad1d",
            Op::ReflectionPad2d => "reflection_pad2d",
            Op::ReflectionPad3d => "reflection_pad3d",
            Op::ReplicationPad1d => "replication_pad1d",
            Op::ReplicationPad2d => "replication_pad2d",
            Op::ReplicationPad3d => "replication_pad3d",
            Op::CircularPad2d => "circular_pad2d",
            Op::CircularPad3d => "circular_pad3d",
        }
    }
}

/// Slice on the training series.
const SLICE_TRAINING: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int32,
    DType::Int64,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
];

/// Slice on A2 / A3: the training list plus bfloat16.
const SLICE_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int32,
    DType::Int64,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::BFloat16,
];

/// The aclnn AsStrided on A2 (its page, section 33): IndexSelect's A2
/// list without float64 and complex128.
const AS_STRIDED_ACLNN_A2: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::BFloat16,
    DType::Int64,
    DType::Int32,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Bool,
    DType::Complex64,
];

/// StridedSliceAssignV2 on A2 / A3 (its page, section 35).
const STRIDED_SLICE_ASSIGN_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::BFloat16,
    DType::Int32,
    DType::Int64,
    DType::Float64,
    DType::Int8,
];

/// ViewCopy on A2 (its page, section 34).
const VIEW_COPY_A2: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::BFloat16,
    DType::Int8,
    DType::UInt8,
    DType::Int16,
    DType::UInt16,
    DType::Int32,
    DType::UInt32,
    DType::Bool,
    DType::Int64,
];

/// SliceV3 on A2 (its operator definition, section 31).
const SLICE_V3_A2: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int32,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::BFloat16,
];

/// IndexSelect on A2 / A3.
const INDEX_SELECT_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::BFloat16,
    DType::Int64,
    DType::Int32,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Bool,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// IndexSelect on the training and inference series: the A2/A3 list without bfloat16.
const INDEX_SELECT_NO_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int64,
    DType::Int32,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Bool,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// Permute (section 18) on the training series: IndexSelect's list
/// without bfloat16 and complex128 (CANN's aclnnPermute page).
const PERMUTE_TRAINING: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int64,
    DType::Int32,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Bool,
    DType::Float64,
    DType::Complex64,
];

/// Flip (section 19, A2 and A3 only): CANN's aclnnFlip page.
const FLIP_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::Int32,
    DType::Int16,
    DType::Int64,
    DType::Bool,
    DType::Int8,
    DType::UInt8,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
    DType::BFloat16,
];

/// Roll (section 20) on A2 / A3 (CANN's aclnnRoll page); the other
/// families take the first eight (no bfloat16).
const ROLL_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::Int8,
    DType::UInt8,
    DType::Int32,
    DType::Int64,
    DType::UInt32,
    DType::Bool,
    DType::BFloat16,
];

/// Expand (section 21) on A2 / A3 (CANN's aclnnExpand page); the other
/// families take the first seven (no bfloat16).
/// Index (section 30): the page's list without COMPLEX64; BFLOAT16 last.
const INDEX_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::BFloat16,
];

const EXPAND_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::UInt8,
    DType::Int8,
    DType::Int32,
    DType::Int64,
    DType::Bool,
    DType::BFloat16,
];

/// MaskedSelect (section 29) on A2 / A3; elsewhere without bfloat16.
const MASKED_SELECT_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Bool,
    DType::BFloat16,
];

/// Add and Mul (sections 8 and 9) on A2 / A3.
const ELEMENTWISE_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
    DType::BFloat16,
];

/// Add and Mul elsewhere: the A2/A3 list without bfloat16.
const ELEMENTWISE_NO_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
];

/// Cat (section 10) on A2 / A3.
const CAT_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::BFloat16,
    DType::Float64,
    DType::Complex64,
];

/// Cat on the training and inference series: the A2/A3 list without bfloat16.
const CAT_NO_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::Float64,
    DType::Complex64,
];

/// Zero (section 13) on A2 / A3: the elementwise list plus uint16.
const ZERO_A2_A3: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
    DType::UInt16,
    DType::BFloat16,
];

/// Cast (section 14) off A2/A3: every dtype but bfloat16 (on A2/A3: all).
const CAST_NO_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int8,
    DType::UInt8,
    DType::Int16,
    DType::UInt16,
    DType::Int32,
    DType::UInt32,
    DType::Int64,
    DType::UInt64,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
];

/// Tril and Triu (section 15) on A2 / A3: no complex types.
const TRI_A2_A3: &[DType] = &[
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Bool,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::BFloat16,
];

/// Tril and Triu elsewhere: the A2/A3 list without bfloat16.
const TRI_NO_BF16: &[DType] = &[
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Bool,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
];

/// The reflection pads (section 16) on A2 / A3.
const REFLECTION_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::BFloat16,
    DType::Float64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
];

/// The reflection pads on the training and inference series: no bfloat16,
/// no complex types.
const REFLECTION_OTHER: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Bool,
];

/// The replication pads (section 16) on A2 / A3: no bool.
const REPLICATION_A2_A3: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::BFloat16,
    DType::Float64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Complex64,
    DType::Complex128,
];

/// The replication pads elsewhere: the A2/A3 list without bfloat16.
const REPLICATION_NO_BF16: &[DType] = &[
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Complex64,
    DType::Complex128,
];

/// The circular pads (section 17), A2 / A3 only.
const CIRCULAR: &[DType] = &[
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Int8,
    DType::Int32,
];

/// Zero elsewhere: the A2/A3 list without bfloat16.
const ZERO_NO_BF16: &[DType] = &[
    DType::Float32,
    DType::Float16,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::Int16,
    DType::Int8,
    DType::UInt8,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
    DType::UInt16,
];

/// Whether `op` exists on `family`.
///
/// - slice, slice_v2: training, A2, A3 (section 31: Slice's table);
///   slice_v3: A2 only (its README and definition).
/// - as_strided_aclnn: A2 only (its page, section 33).
/// - view_copy: A2 only (its page, section 34).
/// - strided_slice_assign_v2: A2 and A3 (its page, section 35).
/// - index_select: every family but Atlas 200I/500 A2.
/// - as_strided **(project)**: every family; its NPU composition needs only
///   InplaceCopy (or IndexSelect for self-overlapping windows), and
///   InplaceCopy exists everywhere.
/// - sampled_slice **(project)**: every family but Atlas 200I/500 A2, whose
///   lack of IndexSelect and ConstantPadNd rules out the NPU composition.
/// - subtensor: every family (a pure view, no device work).
/// - add: training, A2, A3 (CANN's English aclnnAdd page).
/// - mul: every family but Atlas 200I/500 A2.
/// - cat: every family but Atlas 200I/500 A2 (CANN's aclnnCat page).
/// - stack: every family but Atlas 200I/500 A2 (CANN's aclnnStack page).
/// - split_tensor: every family but Atlas 200I/500 A2; split_with_size:
///   training, A2, A3 (their pages).
/// - fill_scalar, zero: every family but Atlas 200I/500 A2 (section 13).
/// - cast: every family but Atlas 200I/500 A2 (section 14).
/// - tril, triu **(project, to be checked)**: every family but Atlas
///   200I/500 A2 (section 15).
/// - embedding: A2 and A3 (CANN's aclnnEmbedding page, section 23).
/// - gather_v2, gather, gather_nd, masked_select: every family but Atlas
///   200I/500 A2 (sections 24, 25, 28, 29).
/// - take, index_copy: training, A2, A3 (sections 26, 27).
/// - index: every family (section 30).
/// - the reflection and replication pads: every family but Atlas 200I/500
///   A2 (section 16); the circular pads: A2 and A3 (section 17).
pub fn supports_op(op: Op, family: Family) -> bool {
    match op {
        Op::Slice | Op::SliceV2 | Op::Add => {
            matches!(family, Family::Training | Family::A2 | Family::A3)
        }
        Op::Mul | Op::Cat | Op::Stack | Op::SplitTensor => family != Family::A200I500A2,
        Op::SplitWithSize => matches!(family, Family::Training | Family::A2 | Family::A3),
        Op::FillScalar | Op::Zero | Op::Cast => family != Family::A200I500A2,
        Op::Tril | Op::Triu => family != Family::A200I500A2,
        Op::Permute => matches!(family, Family::Training | Family::A2 | Family::A3),
        Op::Flip => matches!(family, Family::A2 | Family::A3),
        Op::Roll | Op::Expand | Op::Repeat => family != Family::A200I500A2,
        Op::Embedding => matches!(family, Family::A2 | Family::A3),
        Op::SliceV3 | Op::AsStridedAclnn | Op::ViewCopy => family == Family::A2,
        Op::StridedSliceAssignV2 => matches!(family, Family::A2 | Family::A3),
        Op::GatherV2 | Op::Gather | Op::GatherNd | Op::MaskedSelect => family != Family::A200I500A2,
        Op::Take | Op::IndexCopy => {
            matches!(family, Family::Training | Family::A2 | Family::A3)
        }
        Op::ReflectionPad1d
        | Op::ReflectionPad2d
        | Op::ReflectionPad3d
        | Op::ReplicationPad1d
        | Op::ReplicationPad2d
        | Op::ReplicationPad3d => family != Family::A200I500A2,
        Op::CircularPad2d | Op::CircularPad3d => matches!(family, Family::A2 | Family::A3),
        Op::IndexSelect | Op::SampledSlice => family != Family::A200I500A2,
        Op::AsStrided | Op::Subtensor | Op::Index => true,
    }
}

/// The dtypes of the data tensor that `op` accepts on `family`; empty when
/// the operator does not exist there.
///
/// as_strided and sampled_slice **(project)** take the index_select list of
/// the family (with bfloat16 only on A2/A3); subtensor takes every dtype.
pub fn supported_dtypes(op: Op, family: Family) -> &'static [DType] {
    if !supports_op(op, family) {
        return &[];
    }
    let a2_or_a3 = matches!(family, Family::A2 | Family::A3);
    match op {
        Op::Slice | Op::SliceV2 if a2_or_a3 => SLICE_A2_A3,
        Op::Slice | Op::SliceV2 => SLICE_TRAINING,
        // SliceV3 (section 31): its definition's list (only on A2, so with
        // bfloat16).
        Op::SliceV3 => SLICE_V3_A2,
        Op::AsStridedAclnn => AS_STRIDED_ACLNN_A2,
        Op::ViewCopy => VIEW_COPY_A2,
        Op::StridedSliceAssignV2 => STRIDED_SLICE_ASSIGN_A2_A3,
        Op::IndexSelect | Op::AsStrided | Op::SampledSlice if a2_or_a3 => INDEX_SELECT_A2_A3,
        Op::IndexSelect | Op::AsStrided | Op::SampledSlice => INDEX_SELECT_NO_BF16,
        Op::Subtensor => &DType::ALL,
        Op::Add | Op::Mul if a2_or_a3 => ELEMENTWISE_A2_A3,
        Op::Add | Op::Mul => ELEMENTWISE_NO_BF16,
        Op::Cat if a2_or_a3 => CAT_A2_A3,
        Op::Cat => CAT_NO_BF16,
        // Stack (section 11): IndexSelect's list.
        Op::Stack if a2_or_a3 => INDEX_SELECT_A2_A3,
        Op::Stack => INDEX_SELECT_NO_BF16,
        // Split (section 12): the elementwise list of section 8.
        Op::SplitTensor | Op::SplitWithSize if a2_or_a3 => ELEMENTWISE_A2_A3,
        Op::SplitTensor | Op::SplitWithSize => ELEMENTWISE_NO_BF16,
        Op::FillScalar if a2_or_a3 => ELEMENTWISE_A2_A3,
        Op::FillScalar => ELEMENTWISE_NO_BF16,
        Op::Zero if a2_or_a3 => ZERO_A2_A3,
        Op::Zero => ZERO_NO_BF16,
        Op::Cast if a2_or_a3 => &DType::ALL,
        Op::Cast => CAST_NO_BF16,
        Op::Tril | Op::Triu if a2_or_a3 => TRI_A2_A3,
        Op::Tril | Op::Triu => TRI_NO_BF16,
        Op::Permute if a2_or_a3 => INDEX_SELECT_A2_A3,
        Op::Permute => PERMUTE_TRAINING,
        Op::Flip => FLIP_A2_A3,
        Op::Roll if a2_or_a3 => ROLL_A2_A3,
        Op::Roll => &ROLL_A2_A3[..8],
        Op::Expand if a2_or_a3 => EXPAND_A2_A3,
        Op::Expand => &EXPAND_A2_A3[..7],
        Op::Repeat if a2_or_a3 => INDEX_SELECT_A2_A3,
        Op::Repeat => INDEX_SELECT_NO_BF16,
        // Embedding (section 23): the elementwise list of section 8 (only
        // on A2/A3, so with bfloat16).
        Op::Embedding => ELEMENTWISE_A2_A3,
        // GatherV2 (section 24): the elementwise list of section 8.
        Op::GatherV2 if a2_or_a3 => ELEMENTWISE_A2_A3,
        Op::GatherV2 => ELEMENTWISE_NO_BF16,
        // Gather (section 25): every dtype but the complex ones (Tril's list).
        Op::Gather if a2_or_a3 => TRI_A2_A3,
        Op::Gather => TRI_NO_BF16,
        // Take (section 26): IndexSelect's list.
        Op::Take if a2_or_a3 => INDEX_SELECT_A2_A3,
        Op::Take => INDEX_SELECT_NO_BF16,
        // IndexCopy (section 27): the elementwise list of section 8.
        Op::IndexCopy if a2_or_a3 => ELEMENTWISE_A2_A3,
        Op::IndexCopy => ELEMENTWISE_NO_BF16,
        // GatherNd (section 28): Expand's list.
        Op::GatherNd if a2_or_a3 => EXPAND_A2_A3,
        Op::GatherNd => &EXPAND_A2_A3[..7],
        // MaskedSelect (section 29): its own list.
        Op::MaskedSelect if a2_or_a3 => MASKED_SELECT_A2_A3,
        Op::MaskedSelect => &MASKED_SELECT_A2_A3[..9],
        // Index (section 30): its own list; BFLOAT16 on A2, A3 and 200I/500
        // A2 (the page's notes), COMPLEX64 nowhere (950 only).
        Op::Index if a2_or_a3 || family == Family::A200I500A2 => INDEX_BF16,
        Op::Index => &INDEX_BF16[..9],
        Op::ReflectionPad1d | Op::ReflectionPad2d | Op::ReflectionPad3d if a2_or_a3 => {
            REFLECTION_A2_A3
        }
        Op::ReflectionPad1d | Op::ReflectionPad2d | Op::ReflectionPad3d => REFLECTION_OTHER,
        Op::ReplicationPad1d | Op::ReplicationPad2d | Op::ReplicationPad3d if a2_or_a3 => {
            REPLICATION_A2_A3
        }
        Op::ReplicationPad1d | Op::ReplicationPad2d | Op::ReplicationPad3d => REPLICATION_NO_BF16,
        Op::CircularPad2d | Op::CircularPad3d => CIRCULAR,
    }
}

/// Validation steps 0 to 2 for a call of `op` on `soc` with data dtype `dtype`:
/// known SoC (`InvalidArgument`, param `soc`), operator available
/// (`UnsupportedOp`), dtype supported (`UnsupportedDtype`).
pub fn check_op_dtype(op: Op, soc: &str, dtype: DType) -> Result<Family, RefError> {
    let family = Family::from_soc_checked(op.name(), soc)?;
    if !supports_op(op, family) {
        return Err(RefError::UnsupportedOp {
            op: op.name(),
            soc: soc.to_string(),
        });
    }
    if !supported_dtypes(op, family).contains(&dtype) {
        return Err(RefError::UnsupportedDtype {
            op: op.name(),
            dtype,
            soc: soc.to_string(),
        });
    }
    Ok(family)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Family::*;

    #[test]
    fn soc_table_is_exact() {
        let table: [(&str, Family); 28] = [
            ("Ascend910A", Training),
            ("Ascend910ProA", Training),
            ("Ascend910PremiumA", Training),
            ("Ascend910ProB", Training),
            ("Ascend910B", Training),
            ("Ascend910B1", A2),
            ("Ascend910B2", A2),
            ("Ascend910B2C", A2),
            ("Ascend910B3", A2),
            ("Ascend910B4", A2),
            ("Ascend910B4-1", A2),
            ("Ascend910_9391", A3),
            ("Ascend910_9392", A3),
            ("Ascend910_9381", A3),
            ("Ascend910_9382", A3),
            ("Ascend910_9372", A3),
            ("Ascend910_9362", A3),
            ("Ascend910_9363", A3),
            ("Ascend310P1", Inference),
            ("Ascend310P2", Inference),
            ("Ascend310P3", Inference),
            ("Ascend310P4", Inference),
            ("Ascend310P5", Inference),
            ("Ascend310P7", Inference),
            ("Ascend310B1", A200I500A2),
            ("Ascend310B2", A200I500A2),
            ("Ascend310B3", A200I500A2),
            ("Ascend310B4", A200I500A2),
        ];
        for (soc, fam) in table {
            assert_eq!(Family::from_soc(soc), Some(fam), "{soc}");
            assert_eq!(Family::from_soc_checked("slice", soc), Ok(fam));
        }
        let total: usize = Family::ALL.iter().map(|f| f.soc_names().len()).sum();
        assert_eq!(total, table.len(), "no SoC names beyond the table");
    }

    #[test]
    fn unknown_soc_names_are_errors_not_defaults() {
        for bad in [
            "",
            "Ascend310P6",
            "Ascend310P8",
            "Ascend310B5",
            "Ascend910B4_1",
            "Ascend910B5",
            "ascend910b3",
            "Ascend910B3 ",
            "Ascend910_9393",
            "Ascend910",
            "Ascend310P",
        ] {
            assert_eq!(Family::from_soc(bad), None, "{bad:?}");
            let e = Family::from_soc_checked("index_select", bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument");
            assert_eq!(e.op(), "index_select");
            assert_eq!(e.param(), Some("soc"));
        }
    }

    #[test]
    fn default_soc_is_an_a2_part() {
        assert_eq!(DEFAULT_SOC, "Ascend910B3");
        assert_eq!(Family::from_soc(DEFAULT_SOC), Some(A2));
    }

    #[test]
    fn labels_are_distinct() {
        let labels: Vec<_> = Family::ALL.iter().map(|f| f.label()).collect();
        assert_eq!(
            labels,
            [
                "Atlas training series",
                "Atlas A2",
                "Atlas A3",
                "Atlas inference series",
                "Atlas 200I/500 A2"
            ]
        );
    }

    #[test]
    fn op_names() {
        let names: Vec<_> = Op::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(
            names,
            [
                "slice",
                "index_select",
                "as_strided",
                "sampled_slice",
                "subtensor",
                "add",
                "mul",
                "cat",
                "stack",
                "split_tensor",
                "split_with_size",
                "fill_scalar",
                "zero",
                "cast",
                "tril",
                "triu",
                "embedding",
                "reflection_pad1d",
                "reflection_pad2d",
                "reflection_pad3d",
                "replication_pad1d",
                "replication_pad2d",
                "replication_pad3d",
                "circular_pad2d",
                "circular_pad3d",
                "permute",
                "flip",
                "roll",
                "expand",
                "repeat",
                "slice_v2",
                "slice_v3",
                "as_strided_aclnn",
                "view_copy",
                "strided_slice_assign_v2",
                "gather_v2",
                "gather",
                "take",
                "index_copy",
                "gather_nd",
                "masked_select",
                "index"
            ]
        );
    }

    #[test]
    fn availability_table() {
        let expect = |op: Op| -> [bool; 5] {
            match op {
                Op::Slice | Op::SliceV2 => [true, true, true, false, false],
                Op::IndexSelect => [true, true, true, true, false],
                Op::AsStrided => [true, true, true, true, true],
                Op::SampledSlice => [true, true, true, true, false],
                Op::Subtensor => [true, true, true, true, true],
                Op::Add => [true, true, true, false, false],
                Op::Mul => [true, true, true, true, false],
                Op::Cat => [true, true, true, true, false],
                Op::Stack => [true, true, true, true, false],
                Op::SplitTensor => [true, true, true, true, false],
                Op::SplitWithSize => [true, true, true, false, false],
                Op::FillScalar | Op::Zero | Op::Cast => [true, true, true, true, false],
                Op::Tril | Op::Triu => [true, true, true, true, false],
                Op::Permute => [true, true, true, false, false],
                Op::Flip => [false, true, true, false, false],
                Op::Roll | Op::Expand | Op::Repeat => [true, true, true, true, false],
                Op::Embedding => [false, true, true, false, false],
                Op::SliceV3 | Op::AsStridedAclnn | Op::ViewCopy => {
                    [false, true, false, false, false]
                }
                Op::StridedSliceAssignV2 => [false, true, true, false, false],
                Op::GatherV2 | Op::Gather | Op::GatherNd | Op::MaskedSelect => {
                    [true, true, true, true, false]
                }
                Op::Take | Op::IndexCopy => [true, true, true, false, false],
                Op::Index => [true, true, true, true, true],
                Op::ReflectionPad1d
                | Op::ReflectionPad2d
                | Op::ReflectionPad3d
                | Op::ReplicationPad1d
                | Op::ReplicationPad2d
                | Op::ReplicationPad3d => [true, true, true, true, false],
                Op::CircularPad2d | Op::CircularPad3d => [false, true, true, false, false],
            }
        };
        for op in Op::ALL {
            for (fam, want) in Family::ALL.into_iter().zip(expect(op)) {
                assert_eq!(supports_op(op, fam), want, "{op:?} on {fam:?}");
                if !want {
                    assert!(supported_dtypes(op, fam).is_empty());
                }
            }
        }
    }

    fn sorted(v: &[DType]) -> Vec<&'static str> {
        let mut n: Vec<_> = v.iter().map(|d| d.name()).collect();
        n.sort();
        n
    }

    #[test]
    fn slice_dtypes() {
        let training = [
            DType::Float32,
            DType::Float16,
            DType::Int32,
            DType::Int64,
            DType::Int8,
            DType::UInt8,
            DType::Bool,
        ];
        let mut a2 = training.to_vec();
        a2.push(DType::BFloat16);
        assert_eq!(
            sorted(supported_dtypes(Op::Slice, Training)),
            sorted(&training)
        );
        assert_eq!(sorted(supported_dtypes(Op::Slice, A2)), sorted(&a2));
        assert_eq!(sorted(supported_dtypes(Op::Slice, A3)), sorted(&a2));
    }

    #[test]
    fn index_like_dtypes() {
        let all_but_bf16: Vec<DType> = DType::ALL
            .into_iter()
            .filter(|d| *d != DType::BFloat16)
            .collect();
        for op in [Op::IndexSelect, Op::AsStrided, Op::SampledSlice] {
            for fam in [A2, A3] {
                assert_eq!(
                    sorted(supported_dtypes(op, fam)),
                    sorted(&DType::ALL),
                    "{op:?}"
                );
            }
            for fam in [Training, Inference] {
                assert_eq!(
                    sorted(supported_dtypes(op, fam)),
                    sorted(&all_but_bf16),
                    "{op:?}"
                );
            }
        }
        assert_eq!(
            sorted(supported_dtypes(Op::AsStrided, A200I500A2)),
            sorted(&all_but_bf16)
        );
        assert!(supported_dtypes(Op::IndexSelect, A200I500A2).is_empty());
        assert!(supported_dtypes(Op::SampledSlice, A200I500A2).is_empty());
    }

    #[test]
    fn subtensor_takes_every_dtype_everywhere() {
        for fam in Family::ALL {
            assert_eq!(supported_dtypes(Op::Subtensor, fam), &DType::ALL);
        }
    }

    #[test]
    fn check_order_soc_then_op_then_dtype() {
        // Unknown SoC beats everything.
        let e = check_op_dtype(Op::Slice, "Nope", DType::Complex64).unwrap_err();
        assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("soc")));
        // Missing operator beats a bad dtype.
        let e = check_op_dtype(Op::Slice, "Ascend310P3", DType::Complex64).unwrap_err();
        assert_eq!(
            e,
            RefError::UnsupportedOp {
                op: "slice",
                soc: "Ascend310P3".into()
            }
        );
        let e = check_op_dtype(Op::Slice, "Ascend910A", DType::BFloat16).unwrap_err();
        assert_eq!(
            e,
            RefError::UnsupportedDtype {
                op: "slice",
                dtype: DType::BFloat16,
                soc: "Ascend910A".into()
            }
        );
        assert_eq!(
            check_op_dtype(Op::Slice, "Ascend910B", DType::Float32),
            Ok(Training)
        );
        assert_eq!(
            check_op_dtype(Op::Slice, "Ascend910B4-1", DType::BFloat16),
            Ok(A2)
        );
    }
}
