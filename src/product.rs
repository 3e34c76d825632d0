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
            OpKind::Tril => "tril",
            OpKind::Triu => "triu",
            OpKind::SplitTensor => "split_tensor",
            OpKind::SplitWithSize => "split_with_size",
            OpKind::Embedding => "embedding",
        }
    }

    /// Whether the operator exists on `family`. AsStrided needs only
    /// InplaceCopy (every family); sampled slice needs IndexSelect and
    /// ConstantPadNd (not on 200I/500 A2). Add exists on the training
    /// series, A2 and A3; Mul, Cat, Stack, FillScalar, Zero, Cast, Tril and
    /// Triu everywhere but 200I/500 A2 (ops.md §7).
    pub fn available(self, family: Family) -> bool {
        match self {
            OpKind::Slice | OpKind::Add | OpKind::SplitWithSize => {
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
            | OpKind::SplitTensor => family != Family::Atlas200I500A2,
            OpKind::AsStrided | OpKind::Subtensor => true,
            // ops.md §23: A2 and A3.
            OpKind::Embedding => matches!(family, Family::A2 | Family::A3),
        }
    }

    /// Whether the operator moves `dtype` on `family`.
    pub fn supports(self, family: Family, dtype: DType) -> bool {
        if dtype == DType::BF16 && self != OpKind::Subtensor {
            return family.has_bf16();
        }
        match self {
            OpKind::Slice => matches!(
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
            | OpKind::Embedding => !matches!(dtype, DType::U16 | DType::U32 | DType::U64),
            // Cat's list (ops.md §10).
            OpKind::Cat => !matches!(dtype, DType::U16 | DType::U32 | DType::U64 | DType::C128),
            // Cast (ops.md §14): every dtype (bfloat16 above).
            OpKind::Cast => true,
            // Zero (ops.md §13): that list plus uint16.
            OpKind::Zero => !matches!(dtype, DType::U32 | DType::U64),
            // Tril and Triu (ops.md §15): no complex types.
            OpKind::Tril | OpKind::Triu => !matches!(dtype, DType::C64 | DType::C128),
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
