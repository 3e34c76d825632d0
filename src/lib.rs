// The modules in layers, lowest first: each uses only modules listed
// before it, so the layer reads top to bottom (no two modules use each
// other, directly or around a circle; within `ops/`, submodules may use
// each other and `super`).
//
//   dtype, status  element types; CANN's status codes
//   error          the one error type
//   layout         shapes, strides and offsets of views, checked
//   product        which operators and dtypes each product family has
//   ffi            typed handles and calls over `cann_sys::Api`
//   binding        the device each thread has bound, per runtime
//   alloc          the caching device allocator; the staging pool's state
//   runtime        Runtime, Backend, Device
//   pinned         PinnedBuffer and the staging blocks lent to copies
//   event          Event, and the completion events streams record
//   fault          launch timelines and write records (a timeline reaches
//                  its stream only through the `StreamSync` trait)
//   tensor         storage, Tensor, views, reads, aclnn descriptors
//   stream         Stream: launches, ordering, what queued work holds;
//                  the tensors made on a stream (`Tensor::empty`, ...)
//   context        Context: contexts, their scopes and streams
//   device_alloc   the registered-allocator hook (`DeviceAllocator`)
//   waiter         Event::wait_async (feature `async`)
//   ops            the operators and the copies and fills they build on
//   transfer       uploads, downloads, copies and fills; PinnedCopy
//   prepared       prepared operators
//   graph          captured graphs, their replay and task group updates

//! `npu-ops`: safe, fast data-movement operators for Huawei Ascend NPUs,
//! through CANN's aclnn two-phase C API, or through the embedded simulator
//! (`npu-sim`) that speaks the same C ABI on machines without an NPU.
//!
//! - [`Runtime`] over real CANN or the simulator ([`Backend`];
//!   `NPU_OPS_BACKEND=cann|sim` overrides `Auto`), initialised once per
//!   process; [`Device`], [`Stream`], [`Event`].
//! - [`Tensor`]: device storage with dtype, shape, element strides and
//!   offset, and zero-copy views (`view`, `narrow`, `permute`,
//!   `transpose`, `as_strided_view`, `subtensor`).
//! - Operators on a [`Stream`]: [`Stream::slice`], [`Stream::index_select`]
//!   (device or host indices), [`Stream::as_strided`],
//!   [`Stream::sampled_slice`] (five modes, axes, dynamic parameters),
//!   [`Stream::cat`] (a tensor list joined along a dim), [`Stream::stack`]
//!   (along a new dim), each
//!   with an `_into` form; the elementwise [`Stream::add`] and
//!   [`Stream::mul`] (broadcasting, dtype promotion, `alpha`; `_into` and
//!   in-place forms); the fills [`Stream::fill_scalar_inplace`],
//!   [`Stream::full`] and [`Stream::zero_inplace`]; [`Stream::cast`] (with
//!   `_into`); [`Stream::tril`] and [`Stream::triu`] (`_into` and in-place
//!   forms); [`Stream::split_tensor`] and [`Stream::split_with_size`] (a
//!   tensor cut into a list, with `_into` forms); the pads [`Stream::reflection_pad1d`] .. `_3d`,
//!   [`Stream::replication_pad1d`] .. `_3d`, [`Stream::circular_pad2d`] and
//!   [`Stream::circular_pad3d`] (each with `_into`); [`Stream::permute`],
//!   [`Stream::flip`], [`Stream::roll`], [`Stream::expand`] and
//!   [`Stream::repeat`] (with `_into`); [`Stream::slice_v2`], [`Stream::slice_v3`] and [`Stream::as_strided_aclnn`] (with `_into`); [`Stream::strided_slice_assign_v2`] (in place); [`Stream::embedding`] (with
//!   `_into`); prepared operators ([`PreparedSlice`], [`PreparedIndexSelect`],
//!   [`PreparedAdd`], [`PreparedMul`], [`PreparedCat`], [`PreparedEmbedding`]) for hot loops.
//!   [`Stream::repeat`] (with `_into`); [`Stream::embedding`],
//!   [`Stream::gather_v2`], [`Stream::gather`] and [`Stream::take`] (with
//!   `_into`); [`Stream::index_copy`] (with `_into` and in-place forms);
//!   [`Stream::gather_nd`], [`Stream::masked_select`] and [`Stream::index`] (with `_into`); prepared operators ([`PreparedSlice`], [`PreparedIndexSelect`],
//!   [`PreparedAdd`], [`PreparedMul`], [`PreparedCat`]) for hot loops.
//! - Every call is validated by the operator contract before anything is
//!   enqueued; failures are one [`Error`] naming the operator, the
//!   parameter and the rule.
//!
//! Buffers used by queued work stay alive until the work has run, so no use
//! after free is possible from safe code; each stream caches its workspace,
//! so steady-state launches allocate no device memory.
//!
//! ```
//! use npu_ops::{Backend, Runtime, Tensor};
//! let rt = Runtime::new(Backend::Simulator)?;
//! let s = rt.stream()?;
//! let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
//! let y = s.slice(&x, 1, 1, 3, 1)?;
//! assert_eq!(y.to_vec::<f32>()?, [2., 3., 5., 6.]);
//! # Ok::<(), npu_ops::Error>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod alloc;
mod binding;
mod context;
mod device_alloc;
mod dtype;
mod error;
mod event;
mod fault;
mod ffi;
mod graph;
mod layout;
mod ops;
mod pinned;
mod prepared;
mod product;
mod runtime;
mod status;
mod stream;
mod tensor;
mod transfer;
#[cfg(feature = "async")]
mod waiter;

pub use context::{Context, ContextGuard};
pub use device_alloc::{DeviceAllocator, DeviceBlock, PoolAllocator};
pub use dtype::{DType, Element};
pub use error::{Error, ErrorKind, Result};
pub use event::Event;
pub use graph::{Graph, TaskGroup};
pub use layout::MAX_RANK;
pub use ops::index_select::IndexValue;
pub use ops::sampled_slice::{SampleMode, SampledSlice, Scalar};
pub use ops::view_copy::Window;
pub use pinned::PinnedBuffer;
pub use prepared::{
    PreparedAdd, PreparedCat, PreparedEmbedding, PreparedIndexSelect, PreparedMul, PreparedSlice,
};
pub use product::{Family, OpKind};
pub use runtime::{build_info, Backend, BackendKind, BuildInfo, Device, MemoryStats, Runtime};
pub use status::{status_class, status_name, StatusClass};
pub use stream::Stream;
pub use tensor::{AclTensorHandle, Tensor};
pub use transfer::PinnedCopy;
#[cfg(feature = "async")]
pub use waiter::EventFuture;

/// Raw FFI and the run-time CANN loader.
pub use cann_sys;
/// The `half` crate, whose [`f16`](half::f16) and [`bf16`](half::bf16) are
/// this crate's 16-bit float element types.
pub use half;
