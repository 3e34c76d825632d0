//! The fixed case table: shapes, inputs, the launch each case times and
//! the host computation its output is checked against.

use super::nd::Nd;
use super::BenchError;
use half::{bf16, f16};
use npu_ops::{
    DType, PreparedAdd, PreparedMul, SampleMode, SampledSlice, Scalar, Stream, Tensor, Window,
};

/// The output sizes, in bytes, with their name suffixes.
pub const SIZES: [(&str, usize); 3] = [("4k", 4 << 10), ("1m", 1 << 20), ("256m", 256 << 20)];

/// The dtypes each size runs: `f32` everywhere, `f16` at 4 KiB and
/// 1 MiB, `i64` at 1 MiB.
fn dtypes(size: &str) -> &'static [DType] {
    match size {
        "1m" => &[DType::F32, DType::F16, DType::I64],
        "4k" => &[DType::F32, DType::F16],
        _ => &[DType::F32],
    }
}

/// A dtype as case names spell it (`f32`, `f16`, `i64`, ...).
pub fn short_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::F64 => "f64",
        DType::I8 => "i8",
        DType::U8 => "u8",
        DType::I16 => "i16",
        DType::U16 => "u16",
        DType::I32 => "i32",
        DType::U32 => "u32",
        DType::I64 => "i64",
        DType::U64 => "u64",
        DType::Bool => "bool",
        DType::C64 => "c64",
        DType::C128 => "c128",
        other => other.name(), // a dtype without a short name: its full one
    }
}

/// What a case does (its name without size and dtype).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// A contiguous input copied into a contiguous output ([`Stream::copy`]).
    Clone,
    /// `[2R, C]` sliced along dim 0, rows `R/2 .. R/2 + R`, step 1.
    SliceD0S1,
    /// `[2R, C]` sliced along dim 0 with step 2.
    SliceD0S2,
    /// `[R, 2C]` sliced along the last dim, columns `C/2 .. C/2 + C`.
    SliceLastS1,
    /// `[R, 2C]` sliced along the last dim with step 2.
    SliceLastS2,
    /// `[R, C]` gathered along dim 0 by `R` random int64 device indices
    /// (with repeats).
    IndexSelectRows,
    /// `[R, C]` gathered along dim 1 by `C` random int64 device indices.
    IndexSelectCols,
    /// AsStrided size `[R/8, 8, C]`, stride `[C, C, 1]` (overlapping
    /// windows of 8 rows) over `[R/8 + 7, C]`.
    AsStridedWindows,
    /// AsStrided size `[C, R]`, stride `[1, C]` over `[R, C]`.
    AsStridedTranspose,
    /// A sampled slice of `[R, C]`: start `[-R/4, -C/4]`, size `[R, C]`,
    /// stride `[1, 1]`, WRAP.
    SampledWrap,
    /// The same in FILL mode (fill value 3).
    SampledFill,
    /// A sampled slice of `[R-2, C-2]`: start `[-1, -1]`, size `[R, C]`,
    /// stride `[1, 1]`, REFLECT (the window of [`Base::ReflectionPad2d`]).
    SampledReflect,
    /// `x.transpose(0, 1)` of a contiguous `[C, R]` copied into a
    /// contiguous `[R, C]` ([`Stream::copy`], aclnnInplaceCopy).
    InplaceCopyTranspose,
    /// `out = x + 2 * y`, `x`, `y` and `out` contiguous `[R, C]`
    /// ([`Stream::add_into`], aclnnAdd).
    Add,
    /// The same through a [`PreparedAdd`] made once.
    AddPrepared,
    /// `out = x * y`, contiguous `[R, C]` ([`Stream::mul_into`], aclnnMul).
    Mul,
    /// The same through a [`PreparedMul`] made once.
    MulPrepared,
    /// `[R, C/2]` joined with itself along the last dim into a contiguous
    /// `[R, C]` ([`Stream::cat_into`], aclnnCat).
    CatLast,
    /// `[R/2, C]` stacked with itself along a new leading dim into a
    /// contiguous `[2, R/2, C]` ([`Stream::stack_into`], aclnnStack).
    StackLead,
    /// Every element of a contiguous `[R, C]` set to 3
    /// ([`Stream::fill_scalar_inplace`], aclnnInplaceFillScalar).
    FillScalar,
    /// Every element of a contiguous `[R, C]` set to zero
    /// ([`Stream::zero_inplace`], aclnnInplaceZero).
    Zero,
    /// A contiguous `[R, C]` converted into the case's dtype
    /// ([`Stream::cast_into`], aclnnCast) from `cast_source`'s: int32 to
    /// float32, float32 to float16, int32 to int64.
    Cast,
    /// The lower triangle (diagonal 0) of a contiguous `[R, C]` into a
    /// contiguous `[R, C]` ([`Stream::tril_into`], aclnnTril): a row copy
    /// of each row's prefix, zeros after it.
    TrilLower,
    /// Rows of a `[R, C]` weight picked by `R` random int64 device indices
    /// (with repeats) into a `[R, C]` ([`Stream::embedding_into`],
    /// aclnnEmbedding): IndexSelectRows through the gathers' own operator.
    EmbeddingRows,
    /// A contiguous `[C, R]` permuted by `[1, 0]` into a contiguous
    /// `[R, C]` ([`Stream::permute_into`], aclnnPermute): a transpose.
    PermuteTranspose,
    /// A contiguous `[R, C]` with its rows reversed into a contiguous
    /// `[R, C]` ([`Stream::flip_into`], aclnnFlip, dims `[0]`).
    FlipRows,
    /// A contiguous `[R, C]` rolled by `[R/4, C/4]` along `[0, 1]` into a
    /// contiguous `[R, C]` ([`Stream::roll_into`], aclnnRoll): the output
    /// of `SampledWrap`, in four box copies.
    Roll2d,
    /// A contiguous `[1, C]` broadcast to a contiguous `[R, C]`
    /// ([`Stream::expand_into`], aclnnExpand).
    ExpandRows,
    /// A contiguous `[R/4, C]` tiled `[4, 1]` into a contiguous `[R, C]`
    /// ([`Stream::repeat_into`], aclnnRepeat).
    RepeatRows,
    /// `[1, R-2, C-2]` padded by one on every side of its last two dims
    /// into a contiguous `[1, R, C]` ([`Stream::reflection_pad2d_into`],
    /// aclnnReflectionPad2d): row copies, then the edges.
    ReflectionPad2d,
    /// The odd rows of a contiguous `[2R, C]` (starts `[1, 0]`, ends
    /// `[i64::MAX, C]`, axes `[0, 1]`, steps `[2, 1]`) into a contiguous
    /// `[R, C]` ([`Stream::slice_v2_into`], aclnnSliceV2): a strided row
    /// copy, the slices group's case.
    SliceV2Rows,
    /// Rows of a contiguous `[R, C]` picked by `R` random int64 device
    /// indices (with repeats) along dim 0 into a contiguous `[R, C]`
    /// ([`Stream::gather_v2_into`], aclnnGatherV2, ops.md §24).
    GatherV2Rows,
    /// torch.gather along the last dim: `out[i, j] = x[i, index[i, j]]`,
    /// `x`, `index` (random int64 in `[0, C)`) and `out` contiguous
    /// `[R, C]` ([`Stream::gather_into`], aclnnGather, §25): one index per
    /// output element.
    GatherElements,
    /// `out[i] = flat(x)[index[i]]`, `x` a contiguous `[R, C]`, `index`
    /// random int64 flat positions shaped `[R, C]` ([`Stream::take_into`],
    /// aclnnTake, §26).
    Take,
    /// Rows of a contiguous `[R, C]` picked by `[R, 1]` random int64 index
    /// tuples of length 1 into a contiguous `[R, C]`
    /// ([`Stream::gather_nd_into`], aclnnGatherNd, §28).
    GatherNdRows,
    /// A contiguous `[R, C]` (the first `R` rows of the input `[R + R/2,
    /// C]`) with `R/2` rows of a `[R/2, C]` source (the input's last `R/2`
    /// rows) copied in at random int64 row indices (with repeats: the last
    /// one wins) into a contiguous `[R, C]` ([`Stream::index_copy_into`],
    /// aclnnIndexCopy, §27).
    IndexCopyRows,
    /// The elements of a contiguous `[2R, C]` where a bool `[2R, C]` mask
    /// is true; the mask keeps one element of each adjacent pair, picked at
    /// random: exactly half, so exactly `R * C` elements, the output's size
    /// class (its output size is data dependent: the case fixes it by
    /// construction). The `_into` form writes the front of a 1-D out of
    /// `2 * R * C` elements (CANN's out, the broadcast count), the part
    /// checked ([`Stream::masked_select_into`], aclnnMaskedSelect, §29;
    /// the count is taken from the mask read back to the host, in every
    /// run).
    MaskedSelect,
    /// A contiguous `[R, C]` split along dim 0 into 4 pieces of `R/4`
    /// rows, written into 4 row blocks of a contiguous `[R, C]`
    /// ([`Stream::split_tensor_into`], aclnnSplitTensor, §12; output
    /// bytes = input bytes).
    SplitRows,
    /// The box begin `[R/2, 0]`, size `[R, C]` of a contiguous `[2R, C]`
    /// into a contiguous `[R, C]` ([`Stream::slice_v3_into`],
    /// aclnnSliceV3, §31; `slice_d0_s1`'s rows). No int64 case: SliceV3
    /// has no INT64.
    SliceV3Rows,
    /// In place: every second row (begin `[0]`, end `[R]`, strides `[2]`,
    /// axes `[0]`) of a contiguous `[R, C]` var set from a `[R/2, C]`
    /// value ([`Stream::strided_slice_assign_v2`],
    /// aclnnStridedSliceAssignV2, §35). The input `[R + R/2, C]` holds
    /// var's initial rows, then value's; the `_into` form assigns into the
    /// preallocated output (set to var's initial rows before each check),
    /// the plain form copies var's initial rows into a new tensor and
    /// assigns there (`x.clone(); x[::2] = v`). Half the output is written.
    StridedSliceAssignRows,
    /// Rows of a contiguous `[R, C]` picked by one int64 index member of
    /// `R` random row numbers (with repeats) into a contiguous `[R, C]`
    /// ([`Stream::index_into`], aclnnIndex, §30: `x[index]`, PyTorch's
    /// advanced indexing with one member; gather_v2_rows' rows).
    IndexRows,
    /// A contiguous `[R, C]` dst with the whole of a `[R/2, C]` src
    /// (size `[R/2, C]`, stride `[C, 1]`, offset 0) written over its rows
    /// `R/4 .. R/4 + R/2` (size `[R/2, C]`, stride `[C, 1]`, offset
    /// `R/4 * C`) into a contiguous `[R, C]` out
    /// ([`Stream::view_copy_into`], aclnnViewCopy, §34; A2 only). The
    /// input `[R + R/2, C]` holds dst's rows, then src's; the output is
    /// dst's shape.
    ViewCopyBox,
}

/// The input dtype of a [`Base::Cast`] case whose output is `d`.
pub fn cast_source(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        _ => DType::I32,
    }
}

impl Base {
    /// Every base, in table order.
    pub const ALL: [Base; 42] = [
        Base::Clone,
        Base::SliceD0S1,
        Base::SliceD0S2,
        Base::SliceLastS1,
        Base::SliceLastS2,
        Base::IndexSelectRows,
        Base::IndexSelectCols,
        Base::AsStridedWindows,
        Base::AsStridedTranspose,
        Base::SampledWrap,
        Base::SampledFill,
        Base::InplaceCopyTranspose,
        Base::Add,
        Base::AddPrepared,
        Base::Mul,
        Base::MulPrepared,
        Base::CatLast,
        Base::StackLead,
        Base::FillScalar,
        Base::Zero,
        Base::Cast,
        Base::TrilLower,
        Base::EmbeddingRows,
        Base::PermuteTranspose,
        Base::FlipRows,
        Base::Roll2d,
        Base::ExpandRows,
        Base::RepeatRows,
        Base::ReflectionPad2d,
        Base::SampledReflect,
        Base::SliceV2Rows,
        Base::GatherV2Rows,
        Base::GatherElements,
        Base::Take,
        Base::GatherNdRows,
        Base::IndexCopyRows,
        Base::MaskedSelect,
        Base::SplitRows,
        Base::SliceV3Rows,
        Base::StridedSliceAssignRows,
        Base::IndexRows,
        Base::ViewCopyBox,
    ];

    /// The name without size and dtype (`"slice_d0_s1"`).
    pub fn name(self) -> &'static str {
        match self {
            Base::Clone => "clone",
            Base::SliceD0S1 => "slice_d0_s1",
            Base::SliceD0S2 => "slice_d0_s2",
            Base::SliceLastS1 => "slice_last_s1",
            Base::SliceLastS2 => "slice_last_s2",
            Base::IndexSelectRows => "index_select_rows",
            Base::IndexSelectCols => "index_select_cols",
            Base::AsStridedWindows => "as_strided_windows",
            Base::AsStridedTranspose => "as_strided_transpose",
            Base::SampledWrap => "sampled_wrap",
            Base::SampledFill => "sampled_fill",
            Base::InplaceCopyTranspose => "inplace_copy_transpose",
            Base::Add => "add",
            Base::AddPrepared => "add_prepared",
            Base::Mul => "mul",
            Base::MulPrepared => "mul_prepared",
            Base::CatLast => "cat_last",
            Base::StackLead => "stack_lead",
            Base::FillScalar => "fill_scalar",
            Base::Zero => "zero",
            Base::Cast => "cast",
            Base::ReflectionPad2d => "reflection_pad2d",
            Base::SampledReflect => "sampled_reflect",
            Base::PermuteTranspose => "permute_transpose",
            Base::FlipRows => "flip_rows",
            Base::Roll2d => "roll_2d",
            Base::ExpandRows => "expand_rows",
            Base::RepeatRows => "repeat_rows",
            Base::SliceV2Rows => "slice_v2_rows",
            Base::TrilLower => "tril_lower",
            Base::EmbeddingRows => "embedding_rows",
            Base::GatherV2Rows => "gather_v2_rows",
            Base::GatherElements => "gather_elements",
            Base::Take => "take",
            Base::GatherNdRows => "gather_nd_rows",
            Base::IndexCopyRows => "index_copy_rows",
            Base::MaskedSelect => "masked_select",
            Base::SplitRows => "split_rows",
            Base::SliceV3Rows => "slice_v3_rows",
            Base::StridedSliceAssignRows => "strided_slice_assign_rows",
            Base::IndexRows => "index_rows",
            Base::ViewCopyBox => "view_copy_box",
        }
    }

    /// The operator timed (`"copy"`, `"slice"`, `"index_select"`,
    /// `"as_strided"`, `"sampled_slice"`, `"add"`, `"mul"`, `"cat"`, `"stack"`,
    /// `"fill_scalar"`, `"zero"`, `"cast"`, `"reflection_pad2d"`, `"permute"`,
    /// `"flip"`, `"roll"`, `"expand"`, `"repeat"`, `"tril"`, `"embedding"`,
    /// `"slice_v2"`, `"gather_v2"`, `"gather"`, `"take"`, `"gather_nd"`,
    /// `"index_copy"`, `"masked_select"`, `"split_tensor"`, `"slice_v3"`,
    /// `"strided_slice_assign_v2"`, `"index"`, `"view_copy"`).
    pub fn op(self) -> &'static str {
        match self {
            Base::Clone | Base::InplaceCopyTranspose => "copy",
            Base::SliceD0S1 | Base::SliceD0S2 | Base::SliceLastS1 | Base::SliceLastS2 => "slice",
            Base::IndexSelectRows | Base::IndexSelectCols => "index_select",
            Base::AsStridedWindows | Base::AsStridedTranspose => "as_strided",
            Base::SampledWrap | Base::SampledFill | Base::SampledReflect => "sampled_slice",
            Base::Add | Base::AddPrepared => "add",
            Base::Mul | Base::MulPrepared => "mul",
            Base::CatLast => "cat",
            Base::StackLead => "stack",
            Base::FillScalar => "fill_scalar",
            Base::Zero => "zero",
            Base::Cast => "cast",
            Base::ReflectionPad2d => "reflection_pad2d",
            Base::PermuteTranspose => "permute",
            Base::FlipRows => "flip",
            Base::Roll2d => "roll",
            Base::ExpandRows => "expand",
            Base::RepeatRows => "repeat",
            Base::SliceV2Rows => "slice_v2",
            Base::TrilLower => "tril",
            Base::EmbeddingRows => "embedding",
            Base::GatherV2Rows => "gather_v2",
            Base::GatherElements => "gather",
            Base::Take => "take",
            Base::GatherNdRows => "gather_nd",
            Base::IndexCopyRows => "index_copy",
            Base::MaskedSelect => "masked_select",
            Base::SplitRows => "split_tensor",
            Base::SliceV3Rows => "slice_v3",
            Base::StridedSliceAssignRows => "strided_slice_assign_v2",
            Base::IndexRows => "index",
            Base::ViewCopyBox => "view_copy",
        }
    }

    /// Whether the case runs at `dtype`: every base runs the suite's
    /// dtypes but SliceV3, which has no INT64 (ops.md §31).
    pub fn supports(self, dtype: DType) -> bool {
        !(self == Base::SliceV3Rows && dtype == DType::I64)
    }
}

/// One case of the suite: a base at an output size and dtype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseSpec {
    /// `base_size_dtype`, e.g. `slice_d0_s1_1m_f32`.
    pub name: String,
    /// What it does.
    pub base: Base,
    /// The element type.
    pub dtype: DType,
    /// The output's size in bytes (exactly).
    pub out_bytes: usize,
}

/// The whole suite, in table order: by size, then base, then dtype.
pub fn suite() -> Vec<CaseSpec> {
    let mut v = Vec::new();
    for (size, bytes) in SIZES {
        for base in Base::ALL {
            for &dtype in dtypes(size).iter().filter(|&&d| base.supports(d)) {
                v.push(CaseSpec::new(base, dtype, size, bytes));
            }
        }
    }
    v
}

impl CaseSpec {
    /// `base` at `out_bytes` (a power of two, at least 64 elements of
    /// `dtype`), named with `size` (`"4k"`, ...).
    pub fn new(base: Base, dtype: DType, size: &str, out_bytes: usize) -> CaseSpec {
        CaseSpec {
            name: format!("{}_{size}_{}", base.name(), short_name(dtype)),
            base,
            dtype,
            out_bytes,
        }
    }

    /// The operator timed (see [`Base::op`]).
    pub fn op(&self) -> &'static str {
        self.base.op()
    }

    /// `[R, C]`: powers of two, `C / R` 1 or 2, `R * C * size` = the output
    /// bytes.
    pub fn rc(&self) -> (usize, usize) {
        let n = (self.out_bytes / self.dtype.size()).max(1);
        let k = n.ilog2();
        (1 << (k / 2), 1 << (k - k / 2))
    }

    /// Bytes moved per run, logically: the output written and as many
    /// bytes read, plus the indices of a gather, or the second input of
    /// Add and Mul; a fill only writes its output; a masked select reads
    /// its whole input (twice the output) and its 1-byte mask and writes
    /// its output; the strided slice assign writes half its output and
    /// reads as many bytes.
    pub fn logical_bytes(&self) -> usize {
        let (r, c) = self.rc();
        if matches!(
            self.base,
            Base::FillScalar | Base::Zero | Base::StridedSliceAssignRows
        ) {
            return self.out_bytes;
        }
        if self.base == Base::MaskedSelect {
            return 3 * self.out_bytes + 2 * r * c;
        }
        if self.base == Base::Cast {
            // The output written and the input (of its own width) read.
            return self.out_bytes / self.dtype.size()
                * (self.dtype.size() + cast_source(self.dtype).size());
        }
        2 * self.out_bytes
            + match self.base {
                Base::IndexSelectRows
                | Base::EmbeddingRows
                | Base::GatherV2Rows
                | Base::GatherNdRows
                | Base::IndexRows => r * 8,
                Base::IndexSelectCols => c * 8,
                Base::GatherElements | Base::Take => r * c * 8,
                Base::IndexCopyRows => r / 2 * 8,
                Base::Add | Base::AddPrepared | Base::Mul | Base::MulPrepared => self.out_bytes,
                _ => 0,
            }
    }

    /// Builds the case on `stream` (inputs uploaded, output preallocated),
    /// runs it once and checks the output against a host computation:
    /// a wrong result is [`BenchError::Mismatch`].
    pub fn build(&self, stream: &Stream) -> Result<Case, BenchError> {
        let (r, c) = self.rc();
        let (ri, ci) = (r as i64, c as i64);
        let e = self.dtype.size();
        let npu = |e: npu_ops::Error| BenchError::Npu {
            case: self.name.clone(),
            error: e,
        };
        let input_shape: [usize; 2] = match self.base {
            Base::SliceD0S1
            | Base::SliceD0S2
            | Base::SliceV2Rows
            | Base::SliceV3Rows
            | Base::MaskedSelect => [2 * r, c],
            Base::IndexCopyRows | Base::StridedSliceAssignRows | Base::ViewCopyBox => {
                [r + r / 2, c]
            }
            Base::SliceLastS1 | Base::SliceLastS2 => [r, 2 * c],
            Base::AsStridedWindows => [r / 8 + 7, c],
            Base::InplaceCopyTranspose | Base::PermuteTranspose => [c, r],
            Base::CatLast => [r, c / 2],
            Base::StackLead => [r / 2, c],
            Base::ExpandRows => [1, c],
            Base::RepeatRows => [r / 4, c],
            Base::ReflectionPad2d | Base::SampledReflect => [r - 2, c - 2],
            _ => [r, c],
        };
        let in_dtype = if self.base == Base::Cast {
            cast_source(self.dtype)
        } else {
            self.dtype
        };
        let host = random_elements(in_dtype, input_shape[0] * input_shape[1], 0x5eed);
        let x = Tensor::from_bytes(stream, in_dtype, &input_shape, &host).map_err(npu)?;
        let out_shape: Vec<usize> = match self.base {
            Base::AsStridedWindows => vec![r / 8, 8, c],
            Base::AsStridedTranspose => vec![c, r],
            Base::StackLead => vec![2, r / 2, c],
            // CANN's out: 1-D of the broadcast count (the case checks the
            // front R * C elements, a view made below).
            Base::MaskedSelect => vec![2 * r * c],
            _ => vec![r, c],
        };
        let out = Tensor::empty(stream, self.dtype, &out_shape).map_err(npu)?;
        let mut fill = Vec::new();
        let mut other = Vec::new();
        let (launch, index): (Launch, Vec<i64>) = match self.base {
            Base::Clone => (Launch::Copy(x.clone()), vec![]),
            Base::SliceD0S1 => (Launch::slice(0, ri / 2, ri / 2 + ri, 1), vec![]),
            Base::SliceD0S2 => (Launch::slice(0, 0, 2 * ri, 2), vec![]),
            Base::SliceLastS1 => (Launch::slice(1, ci / 2, ci / 2 + ci, 1), vec![]),
            Base::SliceLastS2 => (Launch::slice(1, 0, 2 * ci, 2), vec![]),
            Base::IndexSelectRows | Base::IndexSelectCols => {
                let (dim, n) = if self.base == Base::IndexSelectRows {
                    (0, r)
                } else {
                    (1, c)
                };
                let idx = random_indices(n, n, 0x1dec5);
                let t = Tensor::from_slice(stream, &[n], &idx).map_err(npu)?;
                (Launch::IndexSelect { dim, index: t }, idx)
            }
            Base::EmbeddingRows => {
                let idx = random_indices(r, r, 0x1dec5);
                let t = Tensor::from_slice(stream, &[r], &idx).map_err(npu)?;
                (Launch::Embedding(t), idx)
            }
            // The materialising `as_strided_into` (the `_into` form exists).
            Base::AsStridedWindows => (
                Launch::AsStrided {
                    size: vec![ri / 8, 8, ci],
                    stride: vec![ci, ci, 1],
                },
                vec![],
            ),
            Base::AsStridedTranspose => (
                Launch::AsStrided {
                    size: vec![ci, ri],
                    stride: vec![1, ci],
                },
                vec![],
            ),
            Base::SampledWrap | Base::SampledFill => {
                let mut p =
                    SampledSlice::new(&[-ri / 4, -ci / 4], &[ri, ci], &[1, 1], SampleMode::Wrap);
                if self.base == Base::SampledFill {
                    p = SampledSlice {
                        mode: SampleMode::Fill,
                        ..p
                    }
                    .with_fill(Scalar::Int(3));
                    fill = Scalar::Int(3).to_bytes(self.dtype).map_err(npu)?;
                }
                (Launch::Sampled(p), vec![])
            }
            Base::InplaceCopyTranspose => (Launch::Copy(x.transpose(0, 1).map_err(npu)?), vec![]),
            Base::FillScalar => {
                fill = Scalar::Int(FILL_VALUE).to_bytes(self.dtype).map_err(npu)?;
                (Launch::Fill(Some(Scalar::Int(FILL_VALUE))), vec![])
            }
            Base::Zero => {
                fill = vec![0; e];
                (Launch::Fill(None), vec![])
            }
            Base::Cast => (Launch::Cast, vec![]),
            Base::TrilLower => {
                fill = vec![0; e];
                (Launch::Tril, vec![])
            }
            Base::PermuteTranspose => (Launch::Permute, vec![]),
            Base::FlipRows => (Launch::Flip, vec![]),
            Base::Roll2d => (Launch::Roll([ri / 4, ci / 4]), vec![]),
            Base::ExpandRows => (Launch::Expand([ri, ci]), vec![]),
            Base::RepeatRows => (Launch::Repeat, vec![]),
            Base::SliceV2Rows => (Launch::SliceV2(ci), vec![]),
            Base::SampledReflect => (
                Launch::Sampled(SampledSlice::new(
                    &[-1, -1],
                    &[ri, ci],
                    &[1, 1],
                    SampleMode::Reflect,
                )),
                vec![],
            ),
            Base::ReflectionPad2d => {
                let (h, w) = (r - 2, c - 2);
                let x3 = x.view(&[1, h, w], &[h * w, w, 1], 0).map_err(npu)?;
                let out3 = out.view(&[1, r, c], &[r * c, c, 1], 0).map_err(npu)?;
                (Launch::Pad { x3, out3 }, vec![])
            }
            Base::Add | Base::AddPrepared | Base::Mul | Base::MulPrepared => {
                other = random_elements(self.dtype, r * c, 0x0add);
                let y = Tensor::from_bytes(stream, self.dtype, &[r, c], &other).map_err(npu)?;
                let add = matches!(self.base, Base::Add | Base::AddPrepared);
                let prepared = match self.base {
                    Base::AddPrepared => Some(Prepared::Add(
                        stream.prepare_add(&x, &y, ADD_ALPHA, &out).map_err(npu)?,
                    )),
                    Base::MulPrepared => Some(Prepared::Mul(
                        stream.prepare_mul(&x, &y, &out).map_err(npu)?,
                    )),
                    _ => None,
                }
                .map(Box::new);
                let alpha = add.then_some(ADD_ALPHA);
                (Launch::Elementwise { y, alpha, prepared }, vec![])
            }
            Base::CatLast => (Launch::Cat, vec![]),
            Base::StackLead => (Launch::Stack, vec![]),
            Base::GatherV2Rows | Base::GatherNdRows => {
                let idx = random_indices(r, r, 0x1dec5);
                if self.base == Base::GatherV2Rows {
                    let t = Tensor::from_slice(stream, &[r], &idx).map_err(npu)?;
                    (Launch::GatherV2(t), idx)
                } else {
                    let t = Tensor::from_slice(stream, &[r, 1], &idx).map_err(npu)?;
                    (Launch::GatherNd(t), idx)
                }
            }
            Base::GatherElements => {
                let idx = random_indices(r * c, c, 0x6a7e);
                let t = Tensor::from_slice(stream, &[r, c], &idx).map_err(npu)?;
                (Launch::Gather(t), idx)
            }
            Base::Take => {
                let idx = random_indices(r * c, r * c, 0x7a4e);
                let t = Tensor::from_slice(stream, &[r, c], &idx).map_err(npu)?;
                (Launch::Take(t), idx)
            }
            Base::IndexCopyRows => {
                let idx = random_indices(r / 2, r, 0xc0b1);
                let index = Tensor::from_slice(stream, &[r / 2], &idx).map_err(npu)?;
                let base = x.narrow(0, 0, r).map_err(npu)?;
                let source = x.narrow(0, r, r / 2).map_err(npu)?;
                (
                    Launch::IndexCopy {
                        base,
                        index,
                        source,
                    },
                    idx,
                )
            }
            Base::MaskedSelect => {
                // index[i]: which element of the pair (2i, 2i + 1) is kept.
                let pick = random_indices(r * c, 2, 0x3a5c);
                let mut m = vec![false; 2 * r * c];
                for (i, &k) in pick.iter().enumerate() {
                    m[2 * i + k as usize] = true;
                }
                let mask = Tensor::from_slice(stream, &[2 * r, c], &m).map_err(npu)?;
                (
                    Launch::MaskedSelect {
                        mask,
                        full: out.clone(),
                    },
                    pick,
                )
            }
            Base::SplitRows => {
                let parts = (0..4)
                    .map(|k| out.narrow(0, k * (r / 4), r / 4))
                    .collect::<npu_ops::Result<Vec<_>>>()
                    .map_err(npu)?;
                (Launch::Split(parts), vec![])
            }
            Base::SliceV3Rows => (Launch::SliceV3([ri / 2, 0], [ri, ci]), vec![]),
            Base::StridedSliceAssignRows => {
                let base = x.narrow(0, 0, r).map_err(npu)?;
                let value = x.narrow(0, r, r / 2).map_err(npu)?;
                (Launch::SliceAssign { base, value }, vec![])
            }
            Base::IndexRows => {
                let idx = random_indices(r, r, 0x1dec5);
                let t = Tensor::from_slice(stream, &[r], &idx).map_err(npu)?;
                (Launch::Index(t), idx)
            }
            Base::ViewCopyBox => {
                let dst = x.narrow(0, 0, r).map_err(npu)?;
                let src = x.narrow(0, r, r / 2).map_err(npu)?;
                (
                    Launch::ViewCopy {
                        dst,
                        src,
                        size: [ri / 2, ci],
                        stride: [ci, 1],
                        offset: ri / 4 * ci,
                    },
                    vec![],
                )
            }
        };
        // The checked output of a masked select: the front of CANN's out.
        let out = if self.base == Base::MaskedSelect {
            out.narrow(0, 0, r * c).map_err(npu)?
        } else {
            out
        };
        let want = expected(self.base, self.dtype, r, c, &host, &other, &index, &fill).ok_or_else(
            || {
                npu(npu_ops::Error::InvalidArgument {
                    op: "bench",
                    param: "dtype",
                    reason: format!("no host arithmetic for {}", self.dtype),
                })
            },
        )?;
        let nd = Nd::new(self.base, e, (r, c), input_shape, &host, &index, &fill);
        drop((host, other));
        let case = Case {
            spec: self.clone(),
            stream: stream.clone(),
            x,
            out,
            launch,
            want,
            nd,
        };
        case.check_into()?;
        case.check_fresh()?;
        if let Some(nd) = &case.nd {
            case.check("(ndarray)", &nd.output_bytes())?;
        }
        Ok(case)
    }
}

/// What one run of a case enqueues.
enum Launch {
    /// `stream.copy(out, src)`.
    Copy(Tensor),
    Slice {
        dim: i64,
        start: i64,
        end: i64,
        step: i64,
    },
    /// `embedding_into(x, indices, out)` (`x` the weight).
    Embedding(Tensor),
    IndexSelect {
        dim: i64,
        index: Tensor,
    },
    AsStrided {
        size: Vec<i64>,
        stride: Vec<i64>,
    },
    Sampled(SampledSlice),
    /// `add_into(x, y, alpha, out)` (`alpha` given) or `mul_into(x, y,
    /// out)`, or the prepared form made at build.
    Elementwise {
        y: Tensor,
        alpha: Option<Scalar>,
        prepared: Option<Box<Prepared>>,
    },
    /// `cat_into(&[x, x], -1, out)`.
    Cat,
    /// `stack_into(&[x, x], 0, out)`.
    Stack,
    /// `fill_scalar_inplace(out, value)`, or `zero_inplace(out)` (`None`).
    Fill(Option<Scalar>),
    /// `cast_into(x, out)`.
    Cast,
    /// `tril_into(x, 0, out)`.
    Tril,
    /// `permute_into(x, [1, 0], out)`.
    Permute,
    /// `flip_into(x, [0], out)`.
    Flip,
    /// `roll_into(x, shifts, [0, 1], out)`.
    Roll([i64; 2]),
    /// `expand_into(x, size, out)`.
    Expand([i64; 2]),
    /// `repeat_into(x, [4, 1], out)`.
    Repeat,
    /// `slice_v2_into(x, [1, 0], [i64::MAX, C], [0, 1], [2, 1], out)`.
    SliceV2(i64),
    /// `reflection_pad2d_into(x3, [1, 1, 1, 1], out3)` over 3-D views of
    /// `x` and `out`.
    Pad {
        x3: Tensor,
        out3: Tensor,
    },
    /// `gather_v2_into(x, 0, index, out)`.
    GatherV2(Tensor),
    /// `gather_into(x, 1, index, out)`.
    Gather(Tensor),
    /// `take_into(x, index, out)`.
    Take(Tensor),
    /// `gather_nd_into(x, indices, false, out)`.
    GatherNd(Tensor),
    /// `index_copy_into(base, 0, index, source, out)` (`base` and
    /// `source` views of `x`).
    IndexCopy {
        base: Tensor,
        index: Tensor,
        source: Tensor,
    },
    /// `masked_select_into(x, mask, full)`, `out` the front of `full`.
    MaskedSelect {
        mask: Tensor,
        full: Tensor,
    },
    /// `split_tensor_into(x, R/4, 0, parts)`, the parts row blocks of
    /// `out`.
    Split(Vec<Tensor>),
    /// `slice_v3_into(x, begin, size, out)`.
    SliceV3([i64; 2], [i64; 2]),
    /// `strided_slice_assign_v2(out, value, [0], [R], [2], [0])`; `base`
    /// (a view of `x`) holds out's initial rows.
    SliceAssign {
        base: Tensor,
        value: Tensor,
    },
    /// `index_into(x, [index], out)`.
    Index(Tensor),
    /// `view_copy_into(dst, Window(size, stride, offset), src,
    /// Window(size, stride, 0), out)` (`dst` and `src` views of `x`).
    ViewCopy {
        dst: Tensor,
        src: Tensor,
        size: [i64; 2],
        stride: [i64; 2],
        offset: i64,
    },
}

/// The padding of the reflection_pad2d cases (one on every side).
const PAD: [i64; 4] = [1, 1, 1, 1];

/// The value of the fill_scalar cases.
const FILL_VALUE: i64 = 3;

/// Add's alpha in the bench (`out = x + 2 * y`).
const ADD_ALPHA: Scalar = Scalar::Int(2);

/// A prepared Add or Mul of a case.
enum Prepared {
    Add(PreparedAdd),
    Mul(PreparedMul),
}

impl Launch {
    fn slice(dim: i64, start: i64, end: i64, step: i64) -> Launch {
        Launch::Slice {
            dim,
            start,
            end,
            step,
        }
    }
}

/// A built and checked case: its tensors stay allocated, so every run
/// writes the same preallocated output (a steady-state loop).
pub struct Case {
    spec: CaseSpec,
    stream: Stream,
    x: Tensor,
    out: Tensor,
    launch: Launch,
    /// The host's answer (row-major bytes).
    want: Vec<u8>,
    /// The same in ndarray, for the host-library row.
    nd: Option<Nd>,
}

impl Case {
    /// Its description.
    pub fn spec(&self) -> &CaseSpec {
        &self.spec
    }

    /// The stream it runs on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The input tensor.
    pub fn input(&self) -> &Tensor {
        &self.x
    }

    /// The preallocated output.
    pub fn output(&self) -> &Tensor {
        &self.out
    }

    /// Enqueues one run (the `_into` form of its operator, or
    /// [`Stream::copy`]); returns once enqueued, without synchronising.
    pub fn run(&self) -> npu_ops::Result<()> {
        self.run_on(&self.stream)
    }

    /// Enqueues the plain form of the operator, which returns a new output
    /// tensor (`slice`, `index_select`, `as_strided`, `sampled_slice`, a
    /// new tensor and [`Stream::copy`] for a clone, `contiguous` for a
    /// transposed copy).
    pub fn run_fresh(&self) -> npu_ops::Result<Tensor> {
        let (s, x) = (&self.stream, &self.x);
        match &self.launch {
            Launch::Copy(src) if src.is_contiguous() => {
                let out = Tensor::empty(s, src.dtype(), src.shape())?;
                s.copy(&out, src)?;
                Ok(out)
            }
            Launch::Copy(src) => s.contiguous(src),
            Launch::Slice {
                dim,
                start,
                end,
                step,
            } => s.slice(x, *dim, *start, *end, *step),
            Launch::IndexSelect { dim, index } => s.index_select(x, *dim, index),
            Launch::Embedding(index) => s.embedding(x, index),
            Launch::AsStrided { size, stride } => s.as_strided(x, size, stride, 0),
            Launch::Sampled(p) => s.sampled_slice(x, p),
            Launch::Elementwise { y, alpha, .. } => match alpha {
                Some(a) => s.add(x, y, *a),
                None => s.mul(x, y),
            },
            Launch::Cat => s.cat(&[x, x], -1),
            Launch::Stack => s.stack(&[x, x], 0),
            Launch::Fill(Some(v)) => s.full(x.dtype(), x.shape(), *v),
            Launch::Fill(None) => {
                let out = Tensor::empty(s, x.dtype(), x.shape())?;
                s.zero_inplace(&out)?;
                Ok(out)
            }
            Launch::Cast => s.cast(x, self.spec.dtype),
            Launch::Tril => s.tril(x, 0),
            Launch::Permute => s.permute(x, &[1, 0]),
            Launch::Flip => s.flip(x, &[0]),
            Launch::Roll(k) => s.roll(x, k, &[0, 1]),
            Launch::Expand(size) => s.expand(x, size),
            Launch::Repeat => s.repeat(x, &[4, 1]),
            Launch::SliceV2(c) => s.slice_v2(x, &[1, 0], &[i64::MAX, *c], &[0, 1], &[2, 1]),
            Launch::Pad { x3, .. } => s.reflection_pad2d(x3, &PAD),
            Launch::GatherV2(index) => s.gather_v2(x, 0, index),
            Launch::Gather(index) => s.gather(x, 1, index),
            Launch::Take(index) => s.take(x, index),
            Launch::GatherNd(index) => s.gather_nd(x, index, false),
            Launch::IndexCopy {
                base,
                index,
                source,
            } => s.index_copy(base, 0, index, source),
            Launch::MaskedSelect { mask, .. } => s.masked_select(x, mask),
            Launch::Split(parts) => {
                // The pieces are views of one new storage, back to back:
                // the whole of it, as one [R, C].
                let pieces = s.split_tensor(x, parts[0].shape()[0] as u64, 0)?;
                let (r, c) = (x.shape()[0], x.shape()[1]);
                pieces[0].view(&[r, c], &[c, 1], 0)
            }
            Launch::SliceV3(begin, size) => s.slice_v3(x, begin, size),
            Launch::SliceAssign { base, value } => {
                let out = Tensor::empty(s, base.dtype(), base.shape())?;
                s.copy(&out, base)?;
                let rows = base.shape()[0] as i64;
                s.strided_slice_assign_v2(&out, value, &[0], &[rows], &[2], Some(&[0]))?;
                Ok(out)
            }
            Launch::Index(index) => s.index(x, &[index]),
            Launch::ViewCopy {
                dst,
                src,
                size,
                stride,
                offset,
            } => s.view_copy(
                dst,
                Window::new(size, stride, *offset),
                src,
                Window::new(size, stride, 0),
            ),
        }
    }

    /// The ndarray form of the case (`None` for an element width without
    /// one).
    pub fn nd(&self) -> Option<&Nd> {
        self.nd.as_ref()
    }

    /// Compares `got` (row-major bytes) with the host's answer; `form`
    /// names what produced it in the error.
    pub fn check(&self, form: &str, got: &[u8]) -> Result<(), BenchError> {
        let (e, want) = (self.spec.dtype.size(), &self.want);
        let bad = (got.len() != want.len()).then_some(got.len().min(want.len()) / e);
        if let Some(i) = bad.or_else(|| {
            (0..got.len() / e).find(|&i| got[i * e..(i + 1) * e] != want[i * e..(i + 1) * e])
        }) {
            let at = |b: &[u8]| b.get(i * e..(i + 1) * e).map_or("(none)".into(), hex);
            return Err(BenchError::Mismatch {
                case: format!("{} {form}", self.spec.name),
                element: i,
                got: at(got),
                want: at(want),
            });
        }
        Ok(())
    }

    /// Poisons the preallocated output, runs the `_into` form once and
    /// checks the output. The strided slice assign's output is set to
    /// var's initial rows instead (it keeps the rows it does not assign;
    /// each row it assigns starts with other values than value's).
    pub fn check_into(&self) -> Result<(), BenchError> {
        let npu = |error| BenchError::Npu {
            case: format!("{} (into)", self.spec.name),
            error,
        };
        match &self.launch {
            Launch::SliceAssign { base, .. } => self.stream.copy(&self.out, base),
            _ => self
                .stream
                .upload_bytes(&self.out, &vec![0xa5; self.spec.out_bytes]),
        }
        .map_err(npu)?;
        self.run().map_err(npu)?;
        self.stream.synchronize().map_err(npu)?;
        self.check("(into)", &self.out.to_bytes().map_err(npu)?)
    }

    /// Runs the plain form once and checks its new output.
    pub fn check_fresh(&self) -> Result<(), BenchError> {
        let npu = |error| BenchError::Npu {
            case: format!("{} (fresh)", self.spec.name),
            error,
        };
        let out = self.run_fresh().map_err(npu)?;
        self.stream.synchronize().map_err(npu)?;
        self.check("(fresh)", &out.to_bytes().map_err(npu)?)
    }

    /// [`Case::run`] on another stream of the same device (the stream a
    /// graph capture gives); a prepared case runs on the stream it was
    /// prepared on, whatever `s`.
    pub fn run_on(&self, s: &Stream) -> npu_ops::Result<()> {
        let (x, out) = (&self.x, &self.out);
        match &self.launch {
            Launch::Copy(src) => s.copy(out, src),
            Launch::Slice {
                dim,
                start,
                end,
                step,
            } => s.slice_into(x, *dim, *start, *end, *step, out),
            Launch::IndexSelect { dim, index } => s.index_select_into(x, *dim, index, out),
            Launch::Embedding(index) => s.embedding_into(x, index, out),
            Launch::AsStrided { size, stride } => s.as_strided_into(x, size, stride, 0, out),
            Launch::Sampled(p) => s.sampled_slice_into(x, p, out),
            Launch::Elementwise { y, alpha, prepared } => match (prepared, alpha) {
                (Some(p), _) => match &**p {
                    Prepared::Add(p) => p.run(x, y, out),
                    Prepared::Mul(p) => p.run(x, y, out),
                },
                (None, Some(a)) => s.add_into(x, y, *a, out),
                (None, None) => s.mul_into(x, y, out),
            },
            Launch::Cat => s.cat_into(&[x, x], -1, out),
            Launch::Stack => s.stack_into(&[x, x], 0, out),
            Launch::Fill(Some(v)) => s.fill_scalar_inplace(out, *v),
            Launch::Fill(None) => s.zero_inplace(out),
            Launch::Cast => s.cast_into(x, out),
            Launch::Tril => s.tril_into(x, 0, out),
            Launch::Permute => s.permute_into(x, &[1, 0], out),
            Launch::Flip => s.flip_into(x, &[0], out),
            Launch::Roll(k) => s.roll_into(x, k, &[0, 1], out),
            Launch::Expand(size) => s.expand_into(x, size, out),
            Launch::Repeat => s.repeat_into(x, &[4, 1], out),
            Launch::SliceV2(c) => {
                s.slice_v2_into(x, &[1, 0], &[i64::MAX, *c], &[0, 1], &[2, 1], out)
            }
            Launch::Pad { x3, out3 } => s.reflection_pad2d_into(x3, &PAD, out3),
            Launch::GatherV2(index) => s.gather_v2_into(x, 0, index, out),
            Launch::Gather(index) => s.gather_into(x, 1, index, out),
            Launch::Take(index) => s.take_into(x, index, out),
            Launch::GatherNd(index) => s.gather_nd_into(x, index, false, out),
            Launch::IndexCopy {
                base,
                index,
                source,
            } => s.index_copy_into(base, 0, index, source, out),
            Launch::MaskedSelect { mask, full } => s.masked_select_into(x, mask, full).map(drop),
            Launch::Split(parts) => s.split_tensor_into(x, parts[0].shape()[0] as u64, 0, parts),
            Launch::SliceV3(begin, size) => s.slice_v3_into(x, begin, size, out),
            Launch::SliceAssign { value, .. } => {
                let rows = out.shape()[0] as i64;
                s.strided_slice_assign_v2(out, value, &[0], &[rows], &[2], Some(&[0]))
            }
            Launch::Index(index) => s.index_into(x, &[index], out),
            Launch::ViewCopy {
                dst,
                src,
                size,
                stride,
                offset,
            } => s.view_copy_into(
                dst,
                Window::new(size, stride, *offset),
                src,
                Window::new(size, stride, 0),
                out,
            ),
        }
    }

    /// A prepared form of the case's launch, for slices: its
    /// [`npu_ops::PreparedSlice`] (`None` for other operators).
    pub fn prepare_slice(&self) -> npu_ops::Result<Option<npu_ops::PreparedSlice>> {
        match &self.launch {
            Launch::Slice {
                dim,
                start,
                end,
                step,
            } => self
                .stream
                .prepare_slice(&self.x, *dim, *start, *end, *step, &self.out)
                .map(Some),
            _ => Ok(None),
        }
    }
}

/// `n` elements of `dtype` as bytes, pseudo-random from `seed`, finite for
/// floats (so that no NaN payload question can arise).
fn random_elements(dtype: DType, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix(seed);
    let mut v = vec![0u8; n * dtype.size()];
    for chunk in v.chunks_mut(8) {
        let r = rng.next().to_le_bytes();
        chunk.copy_from_slice(&r[..chunk.len()]);
    }
    // Clear the top exponent bit: a float exponent below its maximum.
    match dtype {
        DType::F32 => v.chunks_exact_mut(4).for_each(|b| b[3] &= !0x40),
        DType::F16 | DType::BF16 => v.chunks_exact_mut(2).for_each(|b| b[1] &= !0x40),
        DType::F64 => v.chunks_exact_mut(8).for_each(|b| b[7] &= !0x40),
        _ => {}
    }
    v
}

/// `x + 2 * y` (`add`) or `x * y`, elementwise, as ops.md §8/§9 round:
/// in the dtype, the half types computed in float32 and rounded once;
/// integers wrap. `None` for a dtype without a rule here. The inputs are
/// finite and below 2 in magnitude (see [`random_elements`]): no NaN.
fn arithmetic(dtype: DType, add: bool, x: &[u8], y: &[u8]) -> Option<Vec<u8>> {
    fn each<const E: usize>(
        x: &[u8],
        y: &[u8],
        f: impl Fn([u8; E], [u8; E]) -> [u8; E],
    ) -> Vec<u8> {
        x.chunks_exact(E)
            .zip(y.chunks_exact(E))
            .flat_map(|(a, b)| {
                f(
                    a.try_into().expect("E bytes"),
                    b.try_into().expect("E bytes"),
                )
            })
            .collect()
    }
    // Integers wrap.
    macro_rules! int {
        ($t:ty, $e:literal) => {
            each::<$e>(x, y, |a, b| {
                let (a, b) = (<$t>::from_le_bytes(a), <$t>::from_le_bytes(b));
                let v = if add {
                    a.wrapping_add(b.wrapping_mul(2))
                } else {
                    a.wrapping_mul(b)
                };
                v.to_le_bytes()
            })
        };
    }
    let f32_op = |a: f32, b: f32| if add { a + 2.0 * b } else { a * b };
    Some(match dtype {
        DType::F32 => each::<4>(x, y, |a, b| {
            f32_op(f32::from_le_bytes(a), f32::from_le_bytes(b)).to_le_bytes()
        }),
        DType::F64 => each::<8>(x, y, |a, b| {
            let (a, b) = (f64::from_le_bytes(a), f64::from_le_bytes(b));
            if add { a + 2.0 * b } else { a * b }.to_le_bytes()
        }),
        DType::F16 => each::<2>(x, y, |a, b| {
            let (a, b) = (f16::from_le_bytes(a), f16::from_le_bytes(b));
            f16::from_f32(f32_op(a.to_f32(), b.to_f32())).to_le_bytes()
        }),
        DType::BF16 => each::<2>(x, y, |a, b| {
            let (a, b) = (bf16::from_le_bytes(a), bf16::from_le_bytes(b));
            bf16::from_f32(f32_op(a.to_f32(), b.to_f32())).to_le_bytes()
        }),
        DType::I64 => int!(i64, 8),
        DType::I32 => int!(i32, 4),
        _ => return None,
    })
}

/// `n` indices in `[0, bound)`, with repeats, from `seed`.
fn random_indices(n: usize, bound: usize, seed: u64) -> Vec<i64> {
    let mut rng = SplitMix(seed);
    (0..n).map(|_| (rng.next() % bound as u64) as i64).collect()
}

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The output the host computes, as bytes, from the input `x` and (Add,
/// Mul) `y`; `None` for an arithmetic case of a dtype [`arithmetic`] lacks.
#[allow(clippy::too_many_arguments)]
fn expected(
    base: Base,
    dtype: DType,
    r: usize,
    c: usize,
    x: &[u8],
    y: &[u8],
    index: &[i64],
    fill: &[u8],
) -> Option<Vec<u8>> {
    let e = dtype.size();
    if base == Base::Cast {
        return converted(dtype, x);
    }
    let add = match base {
        Base::Add | Base::AddPrepared => true,
        Base::Mul | Base::MulPrepared => false,
        _ => return Some(moved(base, e, r, c, x, index, fill)),
    };
    arithmetic(dtype, add, x, y)
}

/// The output of a [`Base::Cast`] case into `d` from [`cast_source`]'s
/// elements `x` (round to nearest even; exact widening).
fn converted(d: DType, x: &[u8]) -> Option<Vec<u8>> {
    Some(match d {
        DType::F32 => x
            .chunks_exact(4)
            .flat_map(|b| (i32::from_le_bytes(b.try_into().unwrap()) as f32).to_le_bytes())
            .collect(),
        DType::I64 => x
            .chunks_exact(4)
            .flat_map(|b| i64::from(i32::from_le_bytes(b.try_into().unwrap())).to_le_bytes())
            .collect(),
        DType::F16 => x
            .chunks_exact(4)
            .flat_map(|b| f16::from_f32(f32::from_le_bytes(b.try_into().unwrap())).to_le_bytes())
            .collect(),
        DType::BF16 => x
            .chunks_exact(4)
            .flat_map(|b| bf16::from_f32(f32::from_le_bytes(b.try_into().unwrap())).to_le_bytes())
            .collect(),
        _ => return None,
    })
}

/// The output of a data-movement case (`e`-byte elements).
fn moved(
    base: Base,
    e: usize,
    r: usize,
    c: usize,
    x: &[u8],
    index: &[i64],
    fill: &[u8],
) -> Vec<u8> {
    // Source element of output element i (row-major), or None for FILL.
    let (r4, c4) = ((r / 4) as i64, (c / 4) as i64);
    // IndexCopyRows: the source row each output row ends with (the last
    // index naming it), if any.
    let mut copied = vec![None; if base == Base::IndexCopyRows { r } else { 0 }];
    if base == Base::IndexCopyRows {
        for (k, &row) in index.iter().enumerate() {
            copied[row as usize] = Some(k);
        }
    }
    let src = |i: usize| -> Option<usize> {
        let (row, col) = (i / c, i % c);
        Some(match base {
            Base::Clone => i,
            Base::SliceD0S1 => (row + r / 2) * c + col,
            Base::SliceD0S2 => 2 * row * c + col,
            Base::SliceLastS1 => row * 2 * c + c / 2 + col,
            Base::SliceLastS2 => row * 2 * c + 2 * col,
            Base::IndexSelectRows
            | Base::EmbeddingRows
            | Base::GatherV2Rows
            | Base::GatherNdRows
            | Base::IndexRows => index[row] as usize * c + col,
            Base::GatherElements => row * c + index[i] as usize,
            Base::Take => index[i] as usize,
            // x is [R + R/2, C]: out row `row` is source row k (x's row
            // R + k) for the last k with index[k] = row, else x's row.
            Base::IndexCopyRows => match copied[row] {
                Some(k) => (r + k) * c + col,
                None => i,
            },
            // x is [2R, C]: the kept element of the pair (2i, 2i + 1).
            Base::MaskedSelect => 2 * i + index[i] as usize,
            Base::SplitRows => i,
            Base::SliceV3Rows => (row + r / 2) * c + col,
            // x is [R + R/2, C]: even rows from value (x's rows R..), odd
            // rows var's own.
            Base::StridedSliceAssignRows => {
                if row % 2 == 0 {
                    (r + row / 2) * c + col
                } else {
                    i
                }
            }
            // x is [R + R/2, C]: rows R/4 .. R/4 + R/2 from src (x's rows
            // R..), the others dst's own.
            Base::ViewCopyBox => {
                if (r / 4..r / 4 + r / 2).contains(&row) {
                    (r + row - r / 4) * c + col
                } else {
                    i
                }
            }
            Base::IndexSelectCols => row * c + index[col] as usize,
            // out [R/8, 8, C]: window w = i / 8C, row k of it, column col.
            Base::AsStridedWindows => (i / (8 * c) + (i / c) % 8) * c + col,
            // out [C, R]: (a, b) = x[b, a].
            Base::AsStridedTranspose => (i % r) * c + i / r,
            Base::SampledWrap | Base::Roll2d => {
                let y = (row as i64 - r4).rem_euclid(r as i64) as usize;
                let z = (col as i64 - c4).rem_euclid(c as i64) as usize;
                y * c + z
            }
            Base::SampledFill => {
                let (y, z) = (row as i64 - r4, col as i64 - c4);
                if y < 0 || z < 0 {
                    return None;
                }
                y as usize * c + z as usize
            }
            // x is [C, R]; out (row, col) = x[col, row].
            Base::InplaceCopyTranspose | Base::PermuteTranspose => col * r + row,
            Base::FlipRows => (r - 1 - row) * c + col,
            Base::ExpandRows => col,
            Base::RepeatRows => (row % (r / 4)) * c + col,
            Base::SliceV2Rows => (2 * row + 1) * c + col,
            // x is [R, C/2], out (row, col) = x[row, col mod C/2].
            Base::CatLast => row * (c / 2) + col % (c / 2),
            // x is [R/2, C]; out [2, R/2, C] read as [R, C] rows.
            Base::StackLead => (row % (r / 2)) * c + col,
            // Computed by `arithmetic`, not moved.
            Base::Add | Base::AddPrepared | Base::Mul | Base::MulPrepared => i,
            // Every element is the fill value.
            Base::FillScalar | Base::Zero => return None,
            // Converted by `converted`, not moved.
            Base::Cast => i,
            // The lower triangle: kept where col <= row, else zero.
            Base::TrilLower => {
                if col > row {
                    return None;
                }
                i
            }
            // x is [R-2, C-2]; each out index reflected into it.
            Base::ReflectionPad2d | Base::SampledReflect => {
                let m = |o: usize, n: usize| -> usize {
                    let i = o as i64 - 1;
                    let n = n as i64;
                    (if i < 0 {
                        -i
                    } else if i >= n {
                        2 * (n - 1) - i
                    } else {
                        i
                    }) as usize
                };
                m(row, r - 2) * (c - 2) + m(col, c - 2)
            }
        })
    };
    let mut out = vec![0u8; r * c * e];
    match e {
        2 => gather::<2>(&mut out, x, src, fill),
        4 => gather::<4>(&mut out, x, src, fill),
        8 => gather::<8>(&mut out, x, src, fill),
        _ => gather_any(e, &mut out, x, src, fill),
    }
    out
}

fn gather<const E: usize>(
    out: &mut [u8],
    x: &[u8],
    src: impl Fn(usize) -> Option<usize>,
    fill: &[u8],
) {
    for (i, o) in out.chunks_exact_mut(E).enumerate() {
        match src(i) {
            Some(s) => o.copy_from_slice(&x[s * E..s * E + E]),
            None => o.copy_from_slice(&fill[..E]),
        }
    }
}

fn gather_any(
    e: usize,
    out: &mut [u8],
    x: &[u8],
    src: impl Fn(usize) -> Option<usize>,
    fill: &[u8],
) {
    for (i, o) in out.chunks_exact_mut(e).enumerate() {
        match src(i) {
            Some(s) => o.copy_from_slice(&x[s * e..s * e + e]),
            None => o.copy_from_slice(&fill[..e]),
        }
    }
}

/// An element's little-endian bytes as one hex number (`0x3f800000`).
pub(crate) fn hex(b: &[u8]) -> String {
    let digits: String = b.iter().rev().map(|x| format!("{x:02x}")).collect();
    format!("0x{digits}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sizes() {
        let s = suite();
        // 42 bases at 6 dtype-sizes each, less slice_v3_rows_1m_i64
        // (SliceV3 has no INT64).
        assert_eq!(s.len(), 42 * 6 - 1);
        assert!(!s.iter().any(|c| c.name == "slice_v3_rows_1m_i64"));
        for c in &s {
            let (r, cc) = c.rc();
            assert_eq!(r * cc * c.dtype.size(), c.out_bytes, "{}", c.name);
            assert!(cc == r || cc == 2 * r);
            assert!(r >= 8);
        }
        assert!(s.iter().any(|c| c.name == "as_strided_windows_1m_i64"));
        assert!(s.iter().any(|c| c.name == "clone_256m_f32"));
        assert!(s.iter().any(|c| c.name == "add_prepared_256m_f32"));
        assert!(s.iter().any(|c| c.name == "mul_1m_f16"));
        assert!(s.iter().any(|c| c.name == "cat_last_256m_f32"));
        for name in [
            "gather_v2_rows_4k_f16",
            "gather_elements_1m_i64",
            "take_256m_f32",
            "gather_nd_rows_1m_f16",
            "index_copy_rows_4k_f32",
            "masked_select_1m_i64",
            "split_rows_256m_f32",
            "slice_v3_rows_1m_f16",
            "strided_slice_assign_rows_1m_i64",
            "index_rows_4k_f16",
            "index_rows_1m_i64",
            "view_copy_box_1m_i64",
            "view_copy_box_256m_f32",
        ] {
            assert!(s.iter().any(|c| c.name == name), "{name}");
        }
    }
}
