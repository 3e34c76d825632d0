//! The objects behind the aclnn handles: tensor views (`aclTensor`),
//! scalars (`aclScalar`) and executors (`aclOpExecutor`, the plan a first
//! phase made). Plain data: the registry that hands out their handles is
//! [`crate::state`]; the operators that make and run them are above it.

use crate::soc::Op;
use cann_sys::aclDataType;
use smallvec::SmallVec;

/// An `aclTensor`: a view (shape, strides, offset, in elements) over a
/// storage whose base device address is `data`. The format and storage
/// shape are not kept: every operator here treats data as ND, and the
/// memory checker bounds views by their allocation, not a declared shape.
#[derive(Debug)]
pub struct Tensor {
    /// Element type.
    pub dtype: aclDataType,
    /// View shape.
    pub view: Dims,
    /// View strides in elements.
    pub strides: Dims,
    /// View offset in elements.
    pub offset: i64,
    /// Storage base address.
    pub data: u64,
}

// By hand: a derived clone copies `SmallVec`s element by element through
// `extend` (about 60 instructions each); `from_slice` copies the
// elements at once. A first phase clones each tensor it looks up.
impl Clone for Tensor {
    fn clone(&self) -> Tensor {
        Tensor {
            dtype: self.dtype,
            view: Dims::from_slice(&self.view),
            strides: Dims::from_slice(&self.strides),
            offset: self.offset,
            data: self.data,
        }
    }
}

/// Extents or strides of a view, inline up to rank 8 (no heap).
pub type Dims = SmallVec<[i64; 8]>;

/// An `aclScalar`: a host value of `dtype`, up to 16 bytes.
#[derive(Clone, Debug)]
pub struct Scalar {
    /// Its type.
    pub dtype: aclDataType,
    /// Its bytes (little-endian, as in memory).
    pub bytes: [u8; 16],
}

/// Operator-specific results of the first phase.
#[derive(Clone, Debug)]
pub enum Plan {
    /// Nothing to run (an empty tensor).
    Empty,
    /// `out = self[.., start + i*step, ..]` along `dim`.
    Slice {
        /// Strides of the source view (out's shape over self).
        strides: Dims,
        /// Its offset, in elements.
        offset: i64,
    },
    /// Gather along `dim` (0 for a 0-D self).
    IndexSelect {
        /// Normalised dim.
        dim: usize,
    },
    /// `self` read flat, gathered by the index (Take).
    Take,
    /// The elements of `self` where the broadcast mask is set, packed at
    /// the front of `out` (MaskedSelect).
    MaskedSelect,
    /// `out = self[indices]` (Index): the non-empty members' broadcast
    /// values as coordinate tuples into `self`'s indexed dims, moved to
    /// the front; the gather-nd step of GatherNd.
    Index {
        /// The indexed dims of `self`, ascending: the positions of the
        /// non-empty entries of the list, each BOOL mask counted once per
        /// dim it covers.
        indexed: Dims,
        /// The members' broadcast shape.
        broadcast: Dims,
        /// Where the broadcast dims sit in `out` (the first indexed dim
        /// when they are adjacent, else 0).
        at: usize,
        /// Per column of the coordinate table: the member, and for a BOOL
        /// mask its column and rank (rank 0: an integer member).
        cols: smallvec::SmallVec<[(u8, u8, u8); 8]>,
        /// The set elements each mask must have (out's extent there).
        count: i64,
    },
    /// Slices of `self` at the coordinate tuples of `indices` (GatherNd).
    GatherNd {
        /// Coordinates in `[-s, -1]` count from the end.
        negative: bool,
    },
    /// `out = self`, then `source`'s slices written at the index along
    /// `dim` (IndexCopy, InplaceIndexCopy).
    IndexCopy {
        /// Normalised dim (0 for a 0-D self).
        dim: usize,
        /// In place: the output is `self` (the executor's inputs are
        /// `[index, source]`).
        inplace: bool,
        /// Out of place, the output meets an input: through the workspace.
        stage: bool,
    },
    /// Element-wise gather along `dim` (Gather: torch.gather; 0-D tensors
    /// seen as rank 1).
    GatherElements {
        /// Normalised dim.
        dim: usize,
    },
    /// `selfRef = src` (broadcast, cast); `stage` when they share memory.
    InplaceCopy {
        /// Copy `src` through the workspace first.
        stage: bool,
    },
    /// Pad with `value` (already in self's dtype).
    ConstantPadNd {
        /// The part of self that lands in out (negative pads crop): its
        /// extents, or `None` if nothing does.
        inner: Option<Vec<i64>>,
        /// Where that part starts in self (elements, self's strides).
        src_offset: i64,
        /// Where it lands in out (elements, out row-major).
        dst_offset: i64,
        /// The fill element.
        value: Vec<u8>,
    },
    /// Elementwise arithmetic (inputs self and other, output out).
    Binary(BinaryPlan),
    /// Cat: the inputs (the kept members) joined along `dim` into out;
    /// Stack (`stack`): each input is out's slice `k` along `dim`.
    Cat {
        /// Normalised dim (of out).
        dim: usize,
        /// A member meets out: every member goes through the workspace.
        stage: bool,
        /// Stack's new dim rather than Cat's join.
        stack: bool,
        /// The members' promoted dtype, when members of other dtypes are
        /// cast to it before the join (several non-empty members of mixed
        /// dtypes); `None`: each member goes straight to out's dtype.
        via: Option<crate::kernels::KDtype>,
    },
    /// Every element of the output (InplaceFillScalar, InplaceZero) set to
    /// `value` (already in its dtype, `len` bytes).
    Fill {
        /// The element, in its first `len` bytes.
        value: [u8; 16],
        /// The element's size.
        len: u8,
    },
    /// `out = self` converted to out's dtype (Cast).
    Cast,
    /// `out` = `self` rolled (Roll): `2^m` box copies for `m` rolled dims,
    /// or two copies of the flat sequence.
    Roll {
        /// Per dim, the shift in `[0, N)` (dims mode).
        shifts: Dims,
        /// The flat sequence's shift (`dims` empty), in `[0, numel)`.
        flat: Option<i64>,
        /// Copy a non-contiguous `self` into the workspace first (flat).
        stage_in: bool,
        /// Write through the workspace (`out` strided or meeting `self`).
        stage: bool,
    },
    /// `out` = `self` tiled `reps` times along each dim (Repeat; `self`
    /// seen with leading extent-1 dims up to `reps`' length).
    Repeat {
        /// Per output dim, the repeat count.
        reps: Dims,
        /// Write through the workspace (`out` strided or meeting `self`).
        stage: bool,
    },
    /// The view (value's shape, `strides`, var's offset + `start`) of
    /// `varRef` = `inputValue` (StridedSliceAssignV2, ops.md §35): one
    /// strided copy, from a copy of `inputValue` in the workspace when
    /// `stage` (it meets `varRef`).
    SliceAssign {
        /// Strides of the destination view, in elements of varRef.
        strides: Dims,
        /// Its first element, in elements from varRef's offset.
        start: i64,
        /// `inputValue` meets `varRef`: read it into the workspace first.
        stage: bool,
    },
    /// `out` = the window (out's shape, `strides`, `start`) over flat(x)
    /// (AsStrided, ops.md §33): one strided copy, after a flat copy of a
    /// non-contiguous `x` into the workspace when `stage_in`, and through
    /// the workspace when `stage`.
    AsStrided {
        /// Strides of the window, in elements of flat(x).
        strides: Dims,
        /// Its first element, in elements of flat(x).
        start: i64,
        /// Copy a non-contiguous `x` into the workspace first (flat).
        stage_in: bool,
        /// Write through the workspace (`out` strided or meeting `x`).
        stage: bool,
    },
    /// `dst_out` = `dst` with the window of `src` written over the window
    /// of `dst` (ViewCopy, ops.md §34), positions in elements of each
    /// tensor's flat (logical) order.
    WindowCopy {
        /// The window's extents (empty: no window, the base only).
        size: Dims,
        /// Its strides over flat(dst_out).
        dst_strides: Dims,
        /// Its first position in flat(dst_out).
        dst_start: i64,
        /// Its strides over flat(src).
        src_strides: Dims,
        /// Its first position in flat(src).
        src_start: i64,
        /// Copy a non-contiguous `src` into the workspace first (flat).
        stage_in: bool,
        /// Build the result in the workspace (`dst_out` strided or meeting
        /// what is read), then copy it out.
        stage: bool,
    },
    /// `out` = the view (out's shape, `strides`, self's offset + `start`)
    /// of self (Permute; Flip, whose strides may be negative; Expand, whose
    /// may be 0): one strided copy, through the workspace when `stage`.
    ViewCopy {
        /// Strides of the source view, in elements (negative: read
        /// backwards).
        strides: Dims,
        /// Its first element, in elements from self's offset.
        start: i64,
        /// `out` is not contiguous or meets `self`.
        stage: bool,
    },
    /// `out = tril(self)` or `triu(self)` (Tril, Triu and their in-place
    /// forms, whose only tensor is the output `selfRef`).
    Tri {
        /// The diagonal.
        diagonal: i64,
        /// Tril (else Triu).
        lower: bool,
        /// `selfRef` is contiguous: masked where it lies, no workspace.
        in_place: bool,
    },
    /// `self` cut along `dim` into the outputs, in order (SplitTensor,
    /// SplitWithSize).
    Split {
        /// Normalised dim.
        dim: usize,
        /// An output meets `self`: `self` is read into the workspace first.
        stage: bool,
    },
    /// The reflection, replication and circular pads.
    Pad {
        /// How a padded dim maps out indices to self's.
        mode: crate::pads::PadMode,
        /// (before, after) per dim of self (0 for the dims not padded).
        pads: Vec<(i64, i64)>,
        /// Write out through the workspace (not contiguous, or meeting self).
        stage: bool,
    },
}

/// `out = self + alpha * other` or `self * other` (Add, Mul and their
/// in-place forms), broadcast to out's shape, computed in `promoted`.
#[derive(Clone, Debug)]
pub struct BinaryPlan {
    /// The arithmetic.
    pub op: crate::kernels::BinaryOp,
    /// The promoted dtype the arithmetic runs in.
    pub promoted: crate::kernels::KDtype,
    /// Add's alpha, converted to `promoted` (one element).
    pub alpha: Option<[u8; 16]>,
}

/// The tensors of an executor, inline (no heap for up to two: every
/// operator but Cat and Stack; a first phase moves its executor a few
/// times, and each inline slot is 184 bytes of it).
pub type Tensors = SmallVec<[std::sync::Arc<Tensor>; 2]>;

/// An `aclOpExecutor`.
pub struct Executor {
    /// Its operator.
    pub op: Op,
    /// The plan.
    pub plan: Plan,
    /// Input tensors (rebindable by index).
    pub inputs: Tensors,
    /// Output tensors (rebindable by index).
    pub outputs: Tensors,
    /// Workspace bytes the run needs.
    pub workspace: u64,
    /// Survives runs.
    pub repeatable: bool,
    /// A repeatable executor's last launch, for its next run
    /// ([`crate::executor::run`]).
    pub reuse: Option<Box<crate::work::Reuse>>,
}

impl Executor {
    /// Why this executor cannot be made repeatable, if it cannot.
    pub fn repeatable_refusal(&self) -> Option<&'static str> {
        match &self.plan {
            Plan::ConstantPadNd { .. } => {
                Some("it holds a host value (the pad scalar) copied inside")
            }
            Plan::InplaceCopy { stage: true } => Some("it copies a buffer onto itself"),
            Plan::Cat { stage: true, .. } => Some("it copies a buffer onto itself"),
            Plan::Fill { .. } if self.op == Op::InplaceFillScalar => {
                Some("it holds a host value (the fill scalar) copied inside")
            }
            _ => None,
        }
    }
}
