//! Device tensors and zero-copy views.

use crate::dtype::{self, DType, Element};
use crate::error::{Error, Result};
use crate::ffi;
use crate::runtime::Runtime;
use crate::stream::{Stream, StreamInner};
use std::sync::{Arc, Mutex, Weak};

/// The largest rank a tensor may have (aclnn's limit).
pub const MAX_RANK: usize = 8;

/// One device allocation, freed when the last tensor and the last piece of
/// queued work that use it are gone.
pub(crate) struct Storage {
    rt: Runtime,
    device: i32,
    pub(crate) ptr: usize,
    pub(crate) bytes: usize,
    /// Streams that have had work on this storage (synchronised before a
    /// host read).
    users: Mutex<Vec<Weak<StreamInner>>>,
}

impl Storage {
    pub(crate) fn alloc(rt: &Runtime, device: i32, bytes: usize) -> Result<Storage> {
        rt.bind(device)?;
        let ptr = ffi::malloc(&rt.0.api, bytes)?;
        Ok(Storage {
            rt: rt.clone(),
            device,
            ptr,
            bytes,
            users: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn used_by(&self, s: &Stream) {
        let mut u = self.users.lock().unwrap_or_else(|e| e.into_inner());
        u.retain(|w| w.strong_count() > 0);
        if !u
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&s.0)))
        {
            u.push(Arc::downgrade(&s.0));
        }
    }

    /// Waits for every stream that has queued work on this storage.
    fn settle(&self) -> Result<()> {
        let users: Vec<Stream> = self
            .users
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|w| w.upgrade().map(Stream))
            .collect();
        for s in users {
            s.synchronize()?;
        }
        Ok(())
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if self.rt.bind(self.device).is_ok() {
            ffi::free(&self.rt.0.api, self.ptr);
        }
    }
}

/// A device tensor: a view (shape, element strides, element offset) over
/// device storage, of one [`DType`]. Views share storage and enqueue no
/// work; cloning is cheap. Every operator accepts non-contiguous tensors.
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
#[derive(Clone)]
pub struct Tensor {
    pub(crate) storage: Arc<Storage>,
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
}

/// Elements of a shape, or an error if it overflows.
pub(crate) fn numel_checked(
    op: &'static str,
    param: &'static str,
    shape: &[usize],
) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::invalid(op, param, format!("shape {shape:?} has too many elements")))
}

/// Row-major strides of `shape`.
pub(crate) fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    s
}

impl Tensor {
    /// A tensor of uninitialised device memory (contents unspecified until
    /// written), on the stream's device.
    pub fn empty(stream: &Stream, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::empty_for(stream, "tensor", "shape", dtype, shape)
    }

    /// [`Tensor::empty`] for an operator's output: a shape that could never
    /// fit the device is an invalid `param` of `op`, not an out-of-memory.
    pub(crate) fn empty_for(
        stream: &Stream,
        op: &'static str,
        param: &'static str,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Tensor> {
        let bytes = Tensor::bytes_that_fit(stream, op, param, dtype, shape)?;
        let storage = Storage::alloc(&stream.0.rt, stream.0.device, bytes)?;
        Ok(Tensor {
            storage: Arc::new(storage),
            dtype,
            strides: contiguous_strides(shape),
            shape: shape.to_vec(),
            offset: 0,
        })
    }

    /// The bytes of a `shape` tensor of `dtype`, if it could fit the
    /// stream's device at all (else an invalid `param` of `op`).
    pub(crate) fn bytes_that_fit(
        stream: &Stream,
        op: &'static str,
        param: &'static str,
        dtype: DType,
        shape: &[usize],
    ) -> Result<usize> {
        if shape.len() > MAX_RANK {
            return Err(Error::invalid(
                op,
                param,
                format!("rank {} exceeds {MAX_RANK}", shape.len()),
            ));
        }
        let n = numel_checked(op, param, shape)?;
        let total = stream.0.rt.total_memory(stream.0.device)?;
        n.checked_mul(dtype.size()).filter(|b| *b <= total).ok_or_else(|| {
            Error::invalid(op, param, format!("an output of shape {shape:?} ({dtype}) cannot fit the device's {total} bytes"))
        })
    }

    /// A tensor holding `bytes` (row-major, `dtype`'s little-endian layout).
    pub fn from_bytes(
        stream: &Stream,
        dtype: DType,
        shape: &[usize],
        bytes: &[u8],
    ) -> Result<Tensor> {
        let t = Tensor::empty(stream, dtype, shape)?;
        if bytes.len() != t.numel() * dtype.size() {
            return Err(Error::invalid(
                "tensor",
                "data",
                format!(
                    "{} bytes for shape {shape:?} of {dtype} (need {})",
                    bytes.len(),
                    t.numel() * dtype.size()
                ),
            ));
        }
        ffi::upload(&stream.0.rt.0.api, t.storage.ptr, bytes)?;
        Ok(t)
    }

    /// A tensor holding `data` (row-major).
    pub fn from_slice<T: Element>(stream: &Stream, shape: &[usize], data: &[T]) -> Result<Tensor> {
        Tensor::from_bytes(stream, T::DTYPE, shape, &dtype::to_bytes(data))
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// Offset into the storage, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of dims.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the elements are row-major and dense (extent-1 dims ignored).
    pub fn is_contiguous(&self) -> bool {
        let mut expect = 1usize;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            if n != 1 && s != expect {
                return false;
            }
            expect = expect.saturating_mul(n);
        }
        true
    }

    /// Whether two tensors share device storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
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

    /// A view with the same storage.
    pub(crate) fn with_layout(
        &self,
        shape: Vec<usize>,
        strides: Vec<usize>,
        offset: usize,
    ) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            shape,
            strides,
            offset,
        }
    }

    /// The elements in row-major order, as bytes. Waits for queued work on
    /// this tensor's storage first.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.storage.settle()?;
        let es = self.dtype.size();
        let api = &self.storage.rt.0.api;
        self.storage.rt.bind(self.storage.device)?;
        let n = self.numel();
        if n == 0 {
            return Ok(Vec::new());
        }
        if self.is_contiguous() {
            let mut out = vec![0u8; n * es];
            ffi::download(api, &mut out, self.storage.ptr + self.offset * es)?;
            return Ok(out);
        }
        // Download the covered range once and gather on the host.
        let span = self
            .shape
            .iter()
            .zip(&self.strides)
            .map(|(&d, &s)| (d - 1) * s)
            .sum::<usize>()
            + 1;
        let mut raw = vec![0u8; span * es];
        ffi::download(api, &mut raw, self.storage.ptr + self.offset * es)?;
        let mut out = Vec::with_capacity(n * es);
        let mut idx = vec![0usize; self.rank()];
        for _ in 0..n {
            let at: usize = idx.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
            out.extend_from_slice(&raw[at * es..(at + 1) * es]);
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < self.shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        Ok(out)
    }

    /// The elements in row-major order (`T` must be this tensor's dtype).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype {
            return Err(Error::invalid(
                "tensor",
                "T",
                format!("the tensor holds {}, not {}", self.dtype, T::DTYPE),
            ));
        }
        Ok(dtype::from_bytes(&self.to_bytes()?))
    }

    /// The values of an int32 or int64 tensor as `i64` (`None` for other
    /// dtypes); waits for queued work on it first.
    pub(crate) fn int_values(&self) -> Option<Result<Vec<i64>>> {
        match self.dtype {
            DType::I64 => Some(self.to_vec::<i64>()),
            DType::I32 => Some(
                self.to_vec::<i32>()
                    .map(|v| v.into_iter().map(i64::from).collect()),
            ),
            _ => None,
        }
    }

    fn norm_dim(&self, op: &'static str, dim: isize) -> Result<usize> {
        let r = self.rank() as isize;
        if dim < -r || dim >= r {
            return Err(Error::invalid(
                op,
                "dim",
                format!("{dim} is outside [{}, {}]", -r, r - 1),
            ));
        }
        Ok(if dim < 0 { dim + r } else { dim } as usize)
    }

    /// A view with any shape, element strides and element offset over the
    /// same storage (zero-copy); every element it addresses must lie in the
    /// storage.
    pub fn view(&self, shape: &[usize], strides: &[usize], offset: usize) -> Result<Tensor> {
        if shape.len() > MAX_RANK || strides.len() != shape.len() {
            return Err(Error::invalid(
                "view",
                "strides",
                format!(
                    "{} strides for {} dims (rank at most {MAX_RANK})",
                    strides.len(),
                    shape.len()
                ),
            ));
        }
        let limit = i64::MAX as usize;
        if shape.iter().chain(strides).any(|&v| v > limit) || offset > limit {
            return Err(Error::invalid(
                "view",
                "shape",
                "extents, strides and offset must be at most i64::MAX",
            ));
        }
        let storage = self.storage_elems();
        // An empty view touches nothing: only the bounds above apply.
        if !shape.contains(&0) {
            // Each term is below 2^126; eight of them and the offset fit u128.
            let last: u128 = offset as u128
                + shape
                    .iter()
                    .zip(strides)
                    .map(|(&n, &s)| (n as u128 - 1) * s as u128)
                    .sum::<u128>();
            if last >= storage as u128 {
                return Err(Error::invalid(
                    "view",
                    "shape",
                    format!(
                        "the view reaches element {last}, past the storage of {storage} elements"
                    ),
                ));
            }
        }
        Ok(self.with_layout(shape.to_vec(), strides.to_vec(), offset))
    }

    /// A view of `len` elements of `dim` from `start` (zero-copy).
    pub fn narrow(&self, dim: isize, start: usize, len: usize) -> Result<Tensor> {
        let d = self.norm_dim("narrow", dim)?;
        if start.checked_add(len).is_none_or(|e| e > self.shape[d]) {
            return Err(Error::invalid(
                "narrow",
                "start",
                format!(
                    "[{start}, {start}+{len}) is not inside dim {d} of extent {}",
                    self.shape[d]
                ),
            ));
        }
        let mut shape = self.shape.clone();
        shape[d] = len;
        let offset = if len == 0 {
            Some(self.offset)
        } else {
            start
                .checked_mul(self.strides[d])
                .and_then(|o| o.checked_add(self.offset))
        };
        let offset =
            offset.ok_or_else(|| Error::invalid("narrow", "start", "the offset overflows"))?;
        self.view(&shape, &self.strides, offset)
    }

    /// A view of `dim` from `start` to `end` every `step` (zero-copy), with
    /// the normalisation of [`crate::Stream::slice`].
    pub fn slice_view(&self, dim: isize, start: i64, end: i64, step: i64) -> Result<Tensor> {
        let d = self.norm_dim("slice", dim)?;
        let (s, len) = crate::ops::slice::normalise(self.shape[d], start, end, step)?;
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape[d] = len;
        let overflow = || Error::invalid("slice", "step", "the view's offset or stride overflows");
        let offset = if len == 0 {
            self.offset
        } else {
            s.checked_mul(self.strides[d])
                .and_then(|o| o.checked_add(self.offset))
                .ok_or_else(overflow)?
        };
        if len > 1 {
            strides[d] = self.strides[d]
                .checked_mul(step as usize)
                .ok_or_else(overflow)?;
        }
        self.view(&shape, &strides, offset)
    }

    /// Reorders dims: dim `i` of the result is dim `order[i]` (zero-copy).
    pub fn permute(&self, order: &[usize]) -> Result<Tensor> {
        let mut seen = vec![false; self.rank()];
        if order.len() != self.rank()
            || order
                .iter()
                .any(|&o| o >= self.rank() || std::mem::replace(&mut seen[o], true))
        {
            return Err(Error::invalid(
                "permute",
                "order",
                format!("{order:?} is not a permutation of 0..{}", self.rank()),
            ));
        }
        Ok(self.with_layout(
            order.iter().map(|&o| self.shape[o]).collect(),
            order.iter().map(|&o| self.strides[o]).collect(),
            self.offset,
        ))
    }

    /// Swaps two dims (zero-copy).
    pub fn transpose(&self, a: isize, b: isize) -> Result<Tensor> {
        let (a, b) = (
            self.norm_dim("transpose", a)?,
            self.norm_dim("transpose", b)?,
        );
        let mut order: Vec<usize> = (0..self.rank()).collect();
        order.swap(a, b);
        self.permute(&order)
    }

    /// The AsStrided view (zero-copy): `out[i] = flat(self)[offset +
    /// sum(i_j * stride_j)]`. Needs a contiguous `self` (a strided view of a
    /// strided view is not a strided view in general); materialise first
    /// with [`crate::Stream::contiguous`] otherwise.
    pub fn as_strided_view(&self, size: &[i64], stride: &[i64], offset: i64) -> Result<Tensor> {
        let (size, stride, offset) =
            crate::ops::as_strided::validate(self, size, stride, &[offset])?;
        if !self.is_contiguous() {
            return Err(Error::invalid(
                "as_strided",
                "self",
                "the zero-copy view needs a contiguous input; use Stream::as_strided or Stream::contiguous",
            ));
        }
        Ok(self.with_layout(size, stride, self.offset + offset))
    }

    /// The MLI sub-tensor (zero-copy, no device work):
    /// `self[c_0]..[c_{k-1} : c_{k-1} + first_out_dim_size]`.
    pub fn subtensor(&self, start_coord: &[i64], first_out_dim_size: i64) -> Result<Tensor> {
        crate::ops::subtensor::subtensor(self, start_coord, first_out_dim_size)
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .field("offset", &self.offset)
            .finish()
    }
}
