//! Device tensors and zero-copy views.

use crate::dtype::{self, DType, Element};
use crate::error::{Error, Result};
use crate::fault::Write;
use crate::ffi::{self, AclTensor, DevicePtr, TensorHandle};
use crate::layout::{self, Layout};
use crate::runtime::Runtime;
use std::sync::{Arc, Mutex, OnceLock};

pub use crate::layout::MAX_RANK;

/// Who frees a storage's memory.
enum Owner {
    /// The runtime's caching allocator (a block of this size).
    Pool { block: usize },
    /// Foreign memory: this runs once when the storage goes.
    Foreign(Option<Box<dyn FnOnce() + Send + Sync>>),
}

/// One device allocation, freed when the last tensor and the last piece of
/// queued work that use it are gone.
pub(crate) struct Storage {
    rt: Runtime,
    device: i32,
    /// The allocation's start: `bytes` bytes of `device`, live while the
    /// storage is.
    pub(crate) ptr: DevicePtr,
    pub(crate) bytes: usize,
    /// Where the memory came from, and how it goes back.
    owner: Owner,
    /// The work that last wrote it (`None`: written by the host, or never).
    writer: Mutex<Option<Arc<Write>>>,
    /// The latest pending read of it per stream (pruned as reads finish):
    /// a write on another stream waits for them.
    readers: Mutex<Vec<(Arc<crate::fault::Timeline>, u64)>>,
}

impl Storage {
    pub(crate) fn alloc(rt: &Runtime, device: i32, bytes: usize) -> Result<Storage> {
        rt.bind(device)?;
        Storage::alloc_bound(rt, device, bytes)
    }

    /// [`Storage::alloc`] on a thread that has `device` current already
    /// (binding nothing: a runtime's callback must not change its thread's
    /// context).
    pub(crate) fn alloc_bound(rt: &Runtime, device: i32, bytes: usize) -> Result<Storage> {
        let (ptr, block) = rt.0.alloc.alloc(&rt.0.api, device, bytes)?;
        Ok(Storage {
            rt: rt.clone(),
            device,
            ptr,
            bytes,
            owner: Owner::Pool { block },
            writer: Mutex::new(None),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// Foreign device memory: `bytes` bytes of `device` at `ptr`;
    /// `release` runs once when the storage goes.
    ///
    /// # Safety
    /// `ptr` is device memory of `device` (of `rt`), valid for reads and
    /// writes of `bytes` bytes until `release` runs.
    pub(crate) unsafe fn foreign(
        rt: &Runtime,
        device: i32,
        ptr: DevicePtr,
        bytes: usize,
        release: Box<dyn FnOnce() + Send + Sync>,
    ) -> Storage {
        Storage {
            rt: rt.clone(),
            device,
            ptr,
            bytes,
            owner: Owner::Foreign(Some(release)),
            writer: Mutex::new(None),
            readers: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn writer(&self) -> Option<Arc<Write>> {
        self.writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// `f` of the last writer, read under its lock (no handle taken).
    pub(crate) fn with_writer<R>(&self, f: impl FnOnce(Option<&Arc<Write>>) -> R) -> R {
        f(self
            .writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref())
    }

    /// Replaces the last writer with `make(previous)`, in one step (two
    /// streams writing parts of one storage never lose each other's record).
    pub(crate) fn replace_writer(&self, make: impl FnOnce(Option<Arc<Write>>) -> Arc<Write>) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let prev = w.take();
        *w = Some(make(prev));
    }

    /// Notes a pending read by launch `seq` of `tl`'s stream (replacing that
    /// stream's earlier one; dropping finished ones).
    pub(crate) fn note_read(&self, tl: &Arc<crate::fault::Timeline>, seq: u64) {
        let mut r = self.readers.lock().unwrap_or_else(|e| e.into_inner());
        r.retain(|(t, s)| Arc::ptr_eq(t, tl) || !t.is_resolved(*s));
        // This stream's earlier read, replaced in place (no handle taken
        // or dropped in a loop reading one tensor).
        match r.iter_mut().find(|(t, _)| Arc::ptr_eq(t, tl)) {
            Some(own) => own.1 = seq,
            None => r.push((tl.clone(), seq)),
        }
    }

    /// Pending reads by streams other than `tl`'s.
    pub(crate) fn foreign_readers(
        &self,
        tl: &Arc<crate::fault::Timeline>,
    ) -> Vec<(Arc<crate::fault::Timeline>, u64)> {
        let r = self.readers.lock().unwrap_or_else(|e| e.into_inner());
        r.iter()
            .filter(|(t, s)| !Arc::ptr_eq(t, tl) && !t.is_resolved(*s))
            .cloned()
            .collect()
    }

    /// Waits for the work that last wrote this storage; its fault (or that
    /// of work its data came from) is the error.
    fn settle(&self) -> Result<()> {
        match self.writer() {
            Some(w) => w.wait(),
            None => Ok(()),
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // No queued work uses it any more (streams hold the buffers of
        // their queued work): the block may be handed out at once.
        match &mut self.owner {
            // SAFETY: `ptr` is this storage's block (of size `block`, from
            // this runtime's allocator for `device`), returned once, here;
            // no handle or queued work uses it any more.
            Owner::Pool { block } => unsafe {
                self.rt
                    .0
                    .alloc
                    .free(&self.rt.0.api, self.device, self.ptr, *block)
            },
            Owner::Foreign(release) => {
                if let Some(f) = release.take() {
                    f();
                }
            }
        }
    }
}

/// A device tensor: a view (shape, element strides, element offset) over
/// device storage, of one [`DType`]. Views share storage and enqueue no
/// work; cloning is cheap. Every operator accepts any view as input:
/// non-contiguous, with gaps, or overlapping itself (a broadcast).
///
/// A tensor whose producing work faulted (or was skipped after a fault on
/// its stream) reports that fault when read, waited on or used as an input,
/// from any thread; see [`Stream::synchronize`](crate::Stream::synchronize).
///
/// ```
/// use npu_ops::{Backend, Runtime, Tensor};
/// let rt = Runtime::new(Backend::Simulator)?;
/// let s = rt.stream()?;
/// let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
/// let t = x.transpose(0, 1)?; // a view: no copy
/// assert_eq!(t.shape(), &[3, 2]);
/// assert_eq!(t.to_vec::<f32>()?, [1., 4., 2., 5., 3., 6.]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
pub struct Tensor {
    pub(crate) storage: Arc<Storage>,
    dtype: DType,
    layout: Layout,
    /// This value's `aclTensor` descriptor (its view over its whole
    /// storage, through its runtime), made by its first launch and kept
    /// for the next ones: a launch then makes no `aclCreateTensor` /
    /// `aclDestroyTensor` call and no allocation (see [`acl_of`]).
    /// Destroyed by the drop; a clone starts without one.
    desc: OnceLock<TensorHandle>,
}

impl Clone for Tensor {
    fn clone(&self) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            layout: self.layout,
            desc: OnceLock::new(),
        }
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        if let Some(raw) = self.desc.take() {
            // SAFETY: made by `AclTensor::new` with this tensor's runtime's
            // API and released to this value by `into_raw`; destroyed once,
            // here. Every first phase that read it has returned (each
            // borrowed this tensor), and no executor reads it later: the
            // runtime copies what it needs at the first phase, and nothing
            // rebinds it (rebinding is for a prepared operator's own).
            unsafe { ffi::destroy_tensor(&self.storage.rt.0.api, raw) };
        }
    }
}

/// A host buffer of `bytes`, or a typed out-of-memory error.
pub(crate) fn host_buffer(bytes: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|_| Error::HostOutOfMemory { bytes })?;
    v.resize(bytes, 0);
    Ok(v)
}

impl Tensor {
    /// A tensor over all of a new `storage`, with a `layout` of `dtype`
    /// elements already checked against it.
    pub(crate) fn new(storage: Storage, dtype: DType, layout: Layout) -> Tensor {
        Tensor {
            storage: Arc::new(storage),
            dtype,
            layout,
            desc: OnceLock::new(),
        }
    }

    /// The device address of the first element (for other CANN code). It
    /// stays valid while this tensor (or a view of its storage) lives; wait
    /// for pending work ([`Tensor::wait`]) or order with events before
    /// other code reads it.
    pub fn device_ptr(&self) -> *mut std::ffi::c_void {
        self.storage
            .ptr
            .byte_add(self.offset() * self.dtype.size())
            .as_raw()
    }

    /// An `aclTensor` descriptor of this view (shape, strides, offset,
    /// storage), for calling other aclnn operators on it; destroyed when
    /// the returned handle drops.
    pub fn acl_tensor(&self) -> Result<AclTensorHandle> {
        let api = self.storage.rt.0.api.clone();
        let raw = acl_new(&api, self, Declared::Whole)?.into_raw();
        Ok(AclTensorHandle { api, raw })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// Strides, in elements.
    pub fn strides(&self) -> &[usize] {
        self.layout.strides()
    }

    /// Offset into the storage, in elements.
    pub fn offset(&self) -> usize {
        self.layout.offset()
    }

    /// Number of dims.
    pub fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// Whether the elements are row-major and dense (extent-1 dims ignored).
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// Whether two tensors share device storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// The layout.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Storage size in elements (for `aclCreateTensor`).
    pub(crate) fn storage_elems(&self) -> usize {
        self.storage.bytes / self.dtype.size()
    }

    pub(crate) fn storage_device(&self) -> i32 {
        self.storage.device
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.storage.rt
    }

    /// Whether a write through this view replaces every byte of the
    /// storage: as many elements as the storage holds, none twice.
    pub(crate) fn covers_storage(&self) -> bool {
        self.numel() * self.dtype.size() == self.storage.bytes && !self.layout.may_overlap()
    }

    /// The same view read as `dtype`, an element type of the same size.
    pub(crate) fn reinterpreted(&self, dtype: DType) -> Tensor {
        debug_assert_eq!(dtype.size(), self.dtype.size());
        Tensor {
            storage: self.storage.clone(),
            dtype,
            layout: self.layout,
            desc: OnceLock::new(),
        }
    }

    /// A view with the same storage and a layout already checked against it.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        debug_assert!(layout.fits(self.storage_elems()));
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            layout,
            desc: OnceLock::new(),
        }
    }

    /// A view over the same storage, checked (naming `op`): the layout's
    /// own bounds, and every element inside the storage.
    pub(crate) fn view_as(
        &self,
        op: &'static str,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
    ) -> Result<Tensor> {
        let l = Layout::new(op, shape, strides, offset, self.dtype.size())?;
        self.checked(op, l)
    }

    fn checked(&self, op: &'static str, l: Layout) -> Result<Tensor> {
        let storage = self.storage_elems();
        if !l.fits(storage) {
            return Err(Error::invalid(
                op,
                "shape",
                format!(
                    "the view ({l:?}) reaches element {}, past the storage of {storage} elements",
                    l.storage_needed() - 1
                ),
            ));
        }
        Ok(self.with_layout(l))
    }

    /// Waits for the work that wrote this tensor's storage. Its fault, or
    /// that of work it was computed from, is the error.
    pub fn wait(&self) -> Result<()> {
        self.storage.settle()
    }

    /// The elements in row-major order, as bytes. Waits for the work that
    /// writes this tensor first (see [`Tensor::wait`]). A result too large
    /// for the host is [`Error::HostOutOfMemory`].
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.storage.settle()?;
        // Checked by the layout: numel * es <= i64::MAX.
        let mut out = host_buffer(self.numel() * self.dtype.size())?;
        self.read_settled(&mut out)?;
        Ok(out)
    }

    /// Copies the elements (row-major) into `out` (exactly this view's
    /// bytes), once its writer has settled (the caller's check).
    pub(crate) fn read_settled(&self, out: &mut [u8]) -> Result<()> {
        let es = self.dtype.size();
        debug_assert_eq!(out.len(), self.numel() * es);
        let api = &self.storage.rt.0.api;
        self.storage.rt.bind(self.storage.device)?;
        let Some((first, last)) = self.layout.span() else {
            return Ok(());
        };
        let from = self.storage.ptr.byte_add(first * es);
        if self.is_contiguous() {
            // SAFETY: the view's elements `first..=last` (`out.len()` bytes,
            // all present: contiguous) lie inside the storage (the layout
            // was checked against it); its writer has finished (settled),
            // and this tensor keeps the storage alive for the call.
            return unsafe { ffi::download(api, out, from) };
        }
        // Download the covered range once and gather on the host.
        let mut raw = host_buffer((last - first + 1) * es)?;
        // SAFETY: as above, for the span `first..=last`.
        unsafe { ffi::download(api, &mut raw, from) }?;
        // Offsets from `first` (a checked layout: they fit).
        let at = layout::offsets(self.shape(), self.strides(), 0);
        for (chunk, at) in out.chunks_exact_mut(es).zip(at) {
            chunk.copy_from_slice(&raw[at * es..(at + 1) * es]);
        }
        Ok(())
    }

    /// The elements in row-major order (`T` must be this tensor's dtype),
    /// copied from the device straight into the returned `Vec` (no second
    /// copy). Waits for the work that writes this tensor first (see
    /// [`Tensor::wait`]); its fault is the error.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// # let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1u16, 2, 3, 4])?;
    /// assert_eq!(x.transpose(0, 1)?.to_vec::<u16>()?, [1, 3, 2, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype {
            return Err(Error::invalid(
                "tensor",
                "T",
                format!("the tensor holds {}, not {}", self.dtype, T::DTYPE),
            ));
        }
        if T::bytes_mut(&mut []).is_none() {
            // Not every bit pattern is a `T` (bool): convert each.
            return Ok(dtype::from_bytes(&self.to_bytes()?));
        }
        self.storage.settle()?;
        let n = self.numel();
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(n).map_err(|_| Error::HostOutOfMemory {
            bytes: n * self.dtype.size(),
        })?;
        v.resize(n, T::get(&[0u8; 16][..self.dtype.size()]));
        let bytes = T::bytes_mut(&mut v).expect("checked above");
        self.read_settled(bytes)?;
        Ok(v)
    }

    /// The values of an int32 or int64 tensor as `i64` (`None` for other
    /// dtypes); waits for queued work on it first.
    pub(crate) fn int_values(&self) -> Option<Result<Vec<i64>>> {
        match self.dtype {
            DType::I64 => Some(self.to_vec::<i64>()),
            DType::U32 => Some(
                self.to_vec::<u32>()
                    .map(|v| v.into_iter().map(i64::from).collect()),
            ),
            DType::I32 => Some(
                self.to_vec::<i32>()
                    .map(|v| v.into_iter().map(i64::from).collect()),
            ),
            _ => None,
        }
    }

    fn dim(&self, op: &'static str, dim: i64) -> Result<usize> {
        layout::norm_dim(op, dim, self.rank())
    }

    /// A view with any shape, element strides and element offset over the
    /// same storage (zero-copy); every element it addresses must lie in the
    /// storage, and its element count and bytes must be at most 2^63 - 1.
    pub fn view(&self, shape: &[usize], strides: &[usize], offset: usize) -> Result<Tensor> {
        self.view_as("view", shape, strides, offset)
    }

    /// A view of `len` elements of `dim` from `start` (zero-copy).
    pub fn narrow(&self, dim: i64, start: usize, len: usize) -> Result<Tensor> {
        let d = self.dim("narrow", dim)?;
        let l = self
            .layout
            .narrow("narrow", d, start, len, self.dtype.size())?;
        Ok(self.with_layout(l))
    }

    /// A view of `dim` from `start` to `end` every `step` (zero-copy), with
    /// the normalisation of [`crate::Stream::slice`].
    ///
    /// Deprecated: one spelling per view. Use [`Tensor::narrow`] (`start`,
    /// `len`) for a step of 1, and [`Tensor::view`] for a larger step.
    #[deprecated(note = "use narrow (or view for a step other than 1)")]
    pub fn slice_view(&self, dim: i64, start: i64, end: i64, step: i64) -> Result<Tensor> {
        self.stepped_view(dim, start, end, step)
    }

    /// The view behind the deprecated `slice_view` and `range`.
    fn stepped_view(&self, dim: i64, start: i64, end: i64, step: i64) -> Result<Tensor> {
        let (d, s, len) =
            layout::SliceArgs::new(dim, start, end, step).resolve("slice", self.shape())?;
        let l = self
            .layout
            .slice("slice", d, s, len, step as usize, self.dtype.size())?;
        Ok(self.with_layout(l))
    }

    /// Reorders dims: dim `i` of the result is dim `order[i]` (zero-copy;
    /// negative dims count from the end).
    pub fn permute(&self, order: &[i64]) -> Result<Tensor> {
        if order.len() != self.rank() {
            return Err(Error::invalid(
                "permute",
                "order",
                format!("{} dims for a rank-{} tensor", order.len(), self.rank()),
            ));
        }
        let mut o = [0usize; MAX_RANK];
        for (i, &d) in order.iter().enumerate() {
            o[i] = self.dim("permute", d)?;
        }
        Ok(self.with_layout(self.layout.permute("permute", &o[..order.len()])?))
    }

    /// A view of `range` along `dim` (zero-copy), with the normalisation of
    /// [`crate::Stream::slice`]: negative bounds count from the end, bounds
    /// past it clamp.
    ///
    /// Deprecated: torch and candle users read `range` as a new sequence,
    /// not a view. Use [`Tensor::narrow`]: `x.range(0, 1..3)` is
    /// `x.narrow(0, 1, 2)`.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// # let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[5], &[0i32, 1, 2, 3, 4])?;
    /// assert_eq!(x.range(0, 1..3)?.to_vec::<i32>()?, [1, 2]);
    /// assert_eq!(x.range(0, -2..)?.to_vec::<i32>()?, [3, 4]);
    /// assert_eq!(x.range(-1, ..=1)?.to_vec::<i32>()?, [0, 1]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    #[deprecated(note = "use narrow")]
    pub fn range(&self, dim: i64, range: impl std::ops::RangeBounds<i64>) -> Result<Tensor> {
        let (start, end) = layout::range_bounds(&range);
        self.stepped_view(dim, start, end, 1)
    }

    /// Swaps two dims (zero-copy).
    pub fn transpose(&self, a: i64, b: i64) -> Result<Tensor> {
        let (a, b) = (self.dim("transpose", a)?, self.dim("transpose", b)?);
        let mut order = [0i64; MAX_RANK];
        for (i, o) in order.iter_mut().enumerate() {
            *o = i as i64;
        }
        order.swap(a, b);
        self.permute(&order[..self.rank()])
    }

    /// The AsStrided view (zero-copy): `out[i] = flat(self)[offset +
    /// sum(i_j * stride_j)]`. Needs a contiguous `self` (a strided view of a
    /// strided view is not a strided view in general); materialise first
    /// with [`crate::Stream::contiguous`] otherwise.
    pub fn as_strided_view(&self, size: &[i64], stride: &[i64], offset: i64) -> Result<Tensor> {
        let (size, stride, offset) =
            layout::as_strided_params(self.numel(), size, stride, &[offset])?;
        if !self.is_contiguous() {
            return Err(Error::invalid(
                "as_strided",
                "self",
                "the zero-copy view needs a contiguous input; use Stream::as_strided or Stream::contiguous",
            ));
        }
        // The largest index read is below numel(self), inside the storage.
        self.view_as("as_strided", &size, &stride, self.offset() + offset)
    }

    /// The MLI sub-tensor (zero-copy, no device work):
    /// `self[c_0]..[c_{k-1} : c_{k-1} + first_out_dim_size]`.
    pub fn subtensor(&self, start_coord: &[i64], first_out_dim_size: i64) -> Result<Tensor> {
        const OP: &str = "subtensor";
        let k = start_coord.len();
        let shape = self.shape();
        if k < 1 || k >= self.rank() {
            return Err(Error::invalid(
                OP,
                "start_coord",
                format!(
                    "needs 1 to rank-1 = {} coordinates, got {k}",
                    self.rank().saturating_sub(1)
                ),
            ));
        }
        for (j, &c) in start_coord.iter().enumerate() {
            if c < 0 || c as u64 >= shape[j] as u64 {
                return Err(Error::invalid(
                    OP,
                    "start_coord",
                    format!("coordinate {j} is {c}, outside [0, {})", shape[j]),
                ));
            }
        }
        let last = start_coord[k - 1] as i128;
        if first_out_dim_size < 1 || last + first_out_dim_size as i128 > shape[k - 1] as i128 {
            return Err(Error::invalid(
                OP,
                "first_out_dim_size",
                format!(
                    "must be >= 1 with start_coord[{}] + size <= {}, got {first_out_dim_size}",
                    k - 1,
                    shape[k - 1]
                ),
            ));
        }
        // Checked: an empty view may have any strides.
        let offset = start_coord
            .iter()
            .zip(self.strides())
            .try_fold(self.offset(), |acc, (&c, &s)| {
                (c as usize).checked_mul(s).and_then(|v| v.checked_add(acc))
            })
            .ok_or_else(|| {
                Error::invalid(OP, "start_coord", "the sub-tensor's offset overflows")
            })?;
        let mut out_shape = [0usize; MAX_RANK];
        let mut out_strides = [0usize; MAX_RANK];
        let r = self.rank() - k + 1;
        out_shape[0] = first_out_dim_size as usize;
        out_strides[0] = self.strides()[k - 1];
        out_shape[1..r].copy_from_slice(&shape[k..]);
        out_strides[1..r].copy_from_slice(&self.strides()[k..]);
        self.view_as(OP, &out_shape[..r], &out_strides[..r], offset)
    }
}

/// How much storage a descriptor from [`acl_of`] declares.
#[derive(Clone, Copy)]
pub(crate) enum Declared {
    /// All of the tensor's storage ([`acl`]).
    Whole,
    /// Only the storage the view needs (up to its last element): valid for
    /// any view of the same layout, whatever the size of its storage (a
    /// prepared operator's descriptor).
    Span,
}

/// The descriptor of `t` through `api`, declaring `declared` storage.
///
/// A descriptor of the whole storage through the tensor's own runtime is
/// cached in the tensor (made once, then borrowed: no C call and no
/// allocation per launch); one-shot executors of later launches are
/// planned from the same descriptor, which a first phase only reads.
pub(crate) fn acl_of<'a>(
    api: &'a cann_sys::Api,
    t: &'a Tensor,
    declared: Declared,
) -> Result<AclTensor<'a>> {
    if !matches!(declared, Declared::Whole) || !std::ptr::eq(api, &t.storage.rt.0.api) {
        return acl_new(api, t, declared);
    }
    let raw = match t.desc.get() {
        Some(d) => *d,
        None => {
            let d = acl_new(api, t, declared)?.into_raw();
            if let Err(d) = t.desc.set(d) {
                // Another thread cached one meanwhile: use theirs.
                // SAFETY: made just above with `api`, never shared.
                unsafe { ffi::destroy_tensor(api, d) };
            }
            *t.desc.get().expect("set above")
        }
    };
    // SAFETY: `t`'s descriptor, made with `api` (checked above: the
    // tensor's runtime's), destroyed only by `t`'s drop, which `'a`
    // outlasts.
    Ok(unsafe { AclTensor::borrowed(api, raw) })
}

/// A new descriptor of `t` through `api` (owned by the value returned),
/// declaring `declared` storage.
pub(crate) fn acl_new<'a>(
    api: &'a cann_sys::Api,
    t: &Tensor,
    declared: Declared,
) -> Result<AclTensor<'a>> {
    let mut shape = [0i64; MAX_RANK];
    let mut strides = [0i64; MAX_RANK];
    for (i, (&n, &st)) in t.shape().iter().zip(t.strides()).enumerate() {
        shape[i] = n as i64;
        strides[i] = st as i64;
    }
    let r = t.rank();
    let storage = match declared {
        Declared::Whole => t.storage_elems(),
        Declared::Span => t.layout().span().map_or(t.offset(), |(_, last)| last + 1),
    };
    AclTensor::new(
        api,
        t.dtype().acl(),
        &shape[..r],
        &strides[..r],
        t.offset() as i64,
        storage as i64,
        t.storage.ptr,
    )
}

/// An `aclTensor` descriptor made by [`Tensor::acl_tensor`]; destroyed on
/// drop. It does not keep the tensor's memory alive: keep the tensor too.
pub struct AclTensorHandle {
    api: cann_sys::Api,
    raw: TensorHandle,
}

impl AclTensorHandle {
    /// The raw `aclTensor*`, valid until this handle drops.
    pub fn as_raw(&self) -> *mut cann_sys::aclTensor {
        self.raw.as_raw()
    }
}

impl Drop for AclTensorHandle {
    fn drop(&mut self) {
        // SAFETY: released to this handle by `into_raw` with `api`, and
        // destroyed once, here (the raw pointer handed out is the user's to
        // stop using: documented on `as_raw`).
        unsafe { ffi::destroy_tensor(&self.api, self.raw) };
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset())
            .finish()
    }
}
