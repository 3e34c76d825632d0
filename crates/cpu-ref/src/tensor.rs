//! [`Tensor`]: a host tensor that may be a strided view over shared storage.

use std::sync::Arc;

use crate::dtype::DType;
use crate::element::Element;
use crate::error::RefError;

/// Largest rank of a view, and of the inputs of every device operator.
pub const MAX_RANK: usize = 8;

/// A host tensor: `shape`, `strides` and `offset` (both in elements, never
/// negative) over a shared byte storage.
///
/// The element at logical index `i` is storage element
/// `offset + sum_k(i_k * strides_k)`. Cloning shares the storage.
///
/// Contiguous tensors may have any rank (the operators reject ranks above
/// [`MAX_RANK`]); views have at most [`MAX_RANK`] dimensions.
///
/// Invariants (upheld by every constructor): every element addressed lies
/// inside the storage, `numel * dtype.size()` fits in `isize`, and bool
/// storage holds only 0 and 1.
#[derive(Debug, Clone)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    storage: Arc<[u8]>,
}

/// Number of elements of `shape`: 0 if any extent is 0 (even when the other
/// extents multiply past `usize::MAX`), `None` if the product overflows.
pub(crate) fn checked_numel(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// `numel(shape) * itemsize` if it is a possible allocation size (<= isize::MAX).
pub(crate) fn checked_byte_len(dtype: DType, shape: &[usize]) -> Option<usize> {
    let bytes = checked_numel(shape)?.checked_mul(dtype.size())?;
    if bytes <= isize::MAX as usize {
        Some(bytes)
    } else {
        None
    }
}

/// Row-major strides of a contiguous tensor of `shape`. They saturate
/// instead of overflowing; only an empty shape can get there, and an empty
/// tensor addresses nothing.
fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = 1usize;
    for k in (0..shape.len()).rev() {
        strides[k] = step;
        step = step.saturating_mul(shape[k]);
    }
    strides
}

/// Every logical index of `shape` in row-major order (one empty index for
/// rank 0, none if an extent is 0).
pub(crate) struct RowMajor {
    shape: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for RowMajor {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        // Odometer: bump the last axis, carrying into earlier ones.
        let mut following = current.clone();
        let mut k = following.len();
        let mut done = true;
        while k > 0 {
            k -= 1;
            following[k] += 1;
            if following[k] < self.shape[k] {
                done = false;
                break;
            }
            following[k] = 0;
        }
        if !done {
            self.next = Some(following);
        }
        Some(current)
    }
}

/// Iterates over every logical index of `shape` in row-major order.
pub(crate) fn row_major(shape: &[usize]) -> RowMajor {
    let first = if shape.contains(&0) {
        None
    } else {
        Some(vec![0; shape.len()])
    };
    RowMajor {
        shape: shape.to_vec(),
        next: first,
    }
}

impl Tensor {
    /// A contiguous tensor from raw bytes in row-major order. `bytes` must
    /// hold exactly `numel * dtype.size()` bytes, and 0 or 1 per bool.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: Vec<u8>) -> Result<Tensor, RefError> {
        let want = checked_byte_len(dtype, shape).ok_or_else(|| {
            RefError::invalid(
                "tensor",
                "shape",
                format!("shape {shape:?} of {dtype} is too large for this host"),
            )
        })?;
        if bytes.len() != want {
            return Err(RefError::invalid(
                "tensor",
                "data",
                format!(
                    "shape {shape:?} of {dtype} needs {want} bytes, got {}",
                    bytes.len()
                ),
            ));
        }
        if dtype == DType::Bool {
            if let Some(pos) = bytes.iter().position(|&b| b > 1) {
                return Err(RefError::invalid(
                    "tensor",
                    "data",
                    format!("bool element {pos} must be 0 or 1, got {}", bytes[pos]),
                ));
            }
        }
        Ok(Tensor {
            dtype,
            strides: contiguous_strides(shape),
            shape: shape.to_vec(),
            offset: 0,
            storage: bytes.into(),
        })
    }

    /// A contiguous tensor of `T::DTYPE` from values in row-major order;
    /// `data.len()` must equal the element count of `shape`.
    pub fn from_slice<T: Element>(shape: &[usize], data: &[T]) -> Result<Tensor, RefError> {
        let numel = checked_numel(shape);
        if numel != Some(data.len()) {
            return Err(RefError::invalid(
                "tensor",
                "data",
                format!(
                    "shape {shape:?} needs {numel:?} elements, got {}",
                    data.len()
                ),
            ));
        }
        let mut bytes = Vec::with_capacity(data.len() * T::DTYPE.size());
        for &v in data {
            v.append_bytes(&mut bytes);
        }
        Tensor::from_bytes(T::DTYPE, shape, bytes)
    }

    /// A 0-D tensor holding `value`.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        let mut bytes = Vec::new();
        value.append_bytes(&mut bytes);
        Tensor {
            dtype: T::DTYPE,
            shape: Vec::new(),
            strides: Vec::new(),
            offset: 0,
            storage: bytes.into(),
        }
    }

    /// A view with `shape`, `strides` and `offset` (in elements) over this
    /// tensor's storage; `offset` counts from the start of the storage, not
    /// from `self.offset()` (the conformance format's `input.view`).
    ///
    /// Rank at most [`MAX_RANK`]; every addressed element must lie inside the
    /// storage (a view with a zero extent addresses nothing and always fits).
    /// Errors are `InvalidArgument { op: "tensor", .. }`.
    pub fn view(
        &self,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
    ) -> Result<Tensor, RefError> {
        if shape.len() > MAX_RANK {
            return Err(RefError::invalid(
                "tensor",
                "shape",
                format!("view rank must be <= {MAX_RANK}, got {}", shape.len()),
            ));
        }
        if strides.len() != shape.len() {
            return Err(RefError::invalid(
                "tensor",
                "strides",
                format!(
                    "must have one entry per dimension ({}), got {}",
                    shape.len(),
                    strides.len()
                ),
            ));
        }
        if checked_byte_len(self.dtype, shape).is_none() {
            return Err(RefError::invalid(
                "tensor",
                "shape",
                format!(
                    "view shape {shape:?} of {} is too large for this host",
                    self.dtype
                ),
            ));
        }
        let storage_elems = self.storage.len() / self.dtype.size();
        if !shape.contains(&0) {
            // Largest storage element addressed; overflow means "far outside".
            let mut last = Some(offset);
            for (&d, &s) in shape.iter().zip(strides) {
                last = last.and_then(|acc| (d - 1).checked_mul(s).and_then(|t| acc.checked_add(t)));
            }
            if !matches!(last, Some(l) if l < storage_elems) {
                return Err(RefError::invalid(
                    "tensor",
                    "view",
                    format!(
                        "view (shape {shape:?}, strides {strides:?}, offset {offset}) reads past \
                         the end of the storage ({storage_elems} elements)"
                    ),
                ));
            }
        }
        Ok(Tensor {
            dtype: self.dtype,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
            storage: Arc::clone(&self.storage),
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The offset of element `[0, .., 0]` in the storage, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements (1 for a 0-D tensor, 0 if any extent is 0).
    pub fn numel(&self) -> usize {
        checked_numel(&self.shape).expect("constructors keep numel within usize")
    }

    /// The whole storage, as bytes.
    pub fn storage_bytes(&self) -> &[u8] {
        &self.storage
    }

    /// True when both tensors are views of the same storage allocation.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// True when the logical row-major order is the storage order without
    /// gaps (strides of extent-1 axes are ignored; an empty tensor is
    /// contiguous). The offset may be non-zero.
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected = 1usize;
        for k in (0..self.rank()).rev() {
            if self.shape[k] != 1 && self.strides[k] != expected {
                return false;
            }
            expected *= self.shape[k];
        }
        true
    }

    /// The bytes of the element at logical `index`.
    ///
    /// # Panics
    /// If `index` has the wrong length or lies outside the shape.
    pub fn element_bytes(&self, index: &[usize]) -> &[u8] {
        assert_eq!(index.len(), self.rank(), "index rank");
        let mut pos = self.offset;
        for k in 0..index.len() {
            assert!(
                index[k] < self.shape[k],
                "index {index:?} outside shape {:?}",
                self.shape
            );
            pos += index[k] * self.strides[k];
        }
        let size = self.dtype.size();
        &self.storage[pos * size..(pos + 1) * size]
    }

    /// The bytes of element `k` of `flat(self)`, the tensor read in logical
    /// row-major order.
    ///
    /// # Panics
    /// If `k >= numel`.
    pub fn flat_element_bytes(&self, k: usize) -> &[u8] {
        assert!(
            k < self.numel(),
            "flat index {k} outside {} elements",
            self.numel()
        );
        let mut index = vec![0; self.rank()];
        let mut rest = k;
        for axis in (0..self.rank()).rev() {
            index[axis] = rest % self.shape[axis];
            rest /= self.shape[axis];
        }
        self.element_bytes(&index)
    }

    /// All elements as bytes, in logical row-major order.
    pub fn contiguous_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.numel() * self.dtype.size());
        for index in row_major(&self.shape) {
            out.extend_from_slice(self.element_bytes(&index));
        }
        out
    }

    /// A new contiguous tensor (own storage, offset 0) with the same elements.
    pub fn to_contiguous(&self) -> Tensor {
        Tensor {
            dtype: self.dtype,
            shape: self.shape.clone(),
            strides: contiguous_strides(&self.shape),
            offset: 0,
            storage: self.contiguous_bytes().into(),
        }
    }

    /// All elements in logical row-major order as `T`; `T::DTYPE` must be
    /// the tensor's dtype (else `InvalidArgument { op: "tensor", param: "dtype" }`).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, RefError> {
        if T::DTYPE != self.dtype {
            return Err(RefError::invalid(
                "tensor",
                "dtype",
                format!("tensor holds {}, asked for {}", self.dtype, T::DTYPE),
            ));
        }
        Ok(row_major(&self.shape)
            .map(|index| T::read_bytes(self.element_bytes(&index)))
            .collect())
    }

    /// Internal constructor for operator outputs: contiguous, already sized.
    pub(crate) fn from_parts_contiguous(dtype: DType, shape: Vec<usize>, bytes: Vec<u8>) -> Tensor {
        debug_assert_eq!(Some(bytes.len()), checked_byte_len(dtype, &shape));
        Tensor {
            dtype,
            strides: contiguous_strides(&shape),
            shape,
            offset: 0,
            storage: bytes.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    #[test]
    fn row_major_order() {
        let all: Vec<_> = row_major(&[2, 3]).collect();
        assert_eq!(
            all,
            [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]].map(|a| a.to_vec())
        );
        assert_eq!(
            row_major(&[]).collect::<Vec<_>>(),
            vec![Vec::<usize>::new()]
        );
        assert_eq!(row_major(&[3, 0, 2]).count(), 0);
        assert_eq!(row_major(&[1, 1, 1]).count(), 1);
    }

    #[test]
    fn from_bytes_checks_length() {
        assert!(Tensor::from_bytes(DType::Float32, &[2, 3], vec![0; 24]).is_ok());
        for len in [0, 23, 25] {
            let e = Tensor::from_bytes(DType::Float32, &[2, 3], vec![0; len]).unwrap_err();
            assert_eq!((e.op(), e.param()), ("tensor", Some("data")));
        }
        // 0-D takes one element; a zero extent takes none.
        assert!(Tensor::from_bytes(DType::Int16, &[], vec![0; 2]).is_ok());
        assert!(Tensor::from_bytes(DType::Int16, &[4, 0], vec![]).is_ok());
        // Zero extent next to huge ones is still an empty tensor.
        let t = Tensor::from_bytes(DType::Int16, &[0, usize::MAX, usize::MAX], vec![]).unwrap();
        assert_eq!(t.numel(), 0);
        assert!(t.contiguous_bytes().is_empty());
    }

    #[test]
    fn from_bytes_rejects_absurd_shapes() {
        let e = Tensor::from_bytes(DType::Int8, &[usize::MAX, 2], vec![]).unwrap_err();
        assert_eq!(e.param(), Some("shape"));
        let e = Tensor::from_bytes(DType::Int64, &[usize::MAX / 4], vec![]).unwrap_err();
        assert_eq!(e.param(), Some("shape"));
    }

    #[test]
    fn bool_storage_holds_only_0_and_1() {
        assert!(Tensor::from_bytes(DType::Bool, &[3], vec![0, 1, 1]).is_ok());
        let e = Tensor::from_bytes(DType::Bool, &[3], vec![0, 2, 1]).unwrap_err();
        assert_eq!(e.param(), Some("data"));
        let t = Tensor::from_slice(&[2], &[true, false]).unwrap();
        assert_eq!(t.storage_bytes(), &[1, 0]);
    }

    #[test]
    fn from_slice_checks_count_and_sets_dtype() {
        let t = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        assert_eq!(t.dtype(), DType::Int32);
        assert_eq!(t.shape(), &[2, 2]);
        assert_eq!(t.strides(), &[2, 1]);
        assert_eq!(t.offset(), 0);
        assert_eq!(t.rank(), 2);
        assert_eq!(t.numel(), 4);
        assert!(t.is_contiguous());
        assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
        let e = Tensor::from_slice(&[2, 2], &[1i32, 2, 3]).unwrap_err();
        assert_eq!(e.param(), Some("data"));
        let e = Tensor::from_slice(&[usize::MAX, 2], &[1i32]).unwrap_err();
        assert_eq!(e.param(), Some("data"));
    }

    #[test]
    fn every_dtype_from_slice() {
        let t = Tensor::from_slice(&[1], &[f16::from_f32(2.0)]).unwrap();
        assert_eq!(t.dtype(), DType::Float16);
        let t = Tensor::from_slice(&[1], &[bf16::from_f32(2.0)]).unwrap();
        assert_eq!(t.dtype(), DType::BFloat16);
        let t = Tensor::from_slice(&[2], &[[1.0f32, 2.0], [3.0, 4.0]]).unwrap();
        assert_eq!(t.dtype(), DType::Complex64);
        assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), [[1.0, 2.0], [3.0, 4.0]]);
        let t = Tensor::from_slice(&[1], &[[1.0f64, -1.0]]).unwrap();
        assert_eq!(t.dtype(), DType::Complex128);
        assert_eq!(t.storage_bytes().len(), 16);
    }

    #[test]
    fn scalar_is_0d() {
        let t = Tensor::scalar(7u64);
        assert_eq!(t.shape(), &[] as &[usize]);
        assert_eq!(t.numel(), 1);
        assert_eq!(t.to_vec::<u64>().unwrap(), [7]);
    }

    #[test]
    fn to_vec_checks_dtype() {
        let t = Tensor::from_slice(&[1], &[1i32]).unwrap();
        let e = t.to_vec::<u32>().unwrap_err();
        assert_eq!((e.op(), e.param()), ("tensor", Some("dtype")));
    }

    #[test]
    fn transposed_view_reads_in_logical_order() {
        let t = Tensor::from_slice(&[2, 3], &[0i32, 1, 2, 3, 4, 5]).unwrap();
        let tt = t.view(&[3, 2], &[1, 3], 0).unwrap();
        assert!(tt.shares_storage(&t));
        assert!(!tt.is_contiguous());
        assert_eq!(tt.to_vec::<i32>().unwrap(), [0, 3, 1, 4, 2, 5]);
        let c = tt.to_contiguous();
        assert!(c.is_contiguous());
        assert!(!c.shares_storage(&t));
        assert_eq!(c.to_vec::<i32>().unwrap(), [0, 3, 1, 4, 2, 5]);
        assert_eq!(c.contiguous_bytes(), tt.contiguous_bytes());
        assert_eq!(tt.flat_element_bytes(1), 3i32.to_ne_bytes());
        assert_eq!(tt.element_bytes(&[2, 1]), 5i32.to_ne_bytes());
    }

    #[test]
    fn view_offset_counts_from_storage_start() {
        let t = Tensor::from_slice(&[6], &[0u8, 1, 2, 3, 4, 5]).unwrap();
        let v = t.view(&[2], &[1], 3).unwrap();
        assert_eq!(v.to_vec::<u8>().unwrap(), [3, 4]);
        let w = v.view(&[2], &[2], 0).unwrap();
        assert_eq!(w.to_vec::<u8>().unwrap(), [0, 2]);
        // Offset view of contiguous data is still contiguous.
        assert!(v.is_contiguous());
    }

    #[test]
    fn view_bounds_are_checked_on_both_sides() {
        let t = Tensor::from_slice(&[6], &[0u8; 6]).unwrap();
        // Last element read: 1 + (2-1)*2 + (2-1)*1 = 4 < 6.
        assert!(t.view(&[2, 2], &[2, 1], 1).is_ok());
        // Reading element 5 is fine, element 6 is not.
        assert!(t.view(&[2, 2], &[2, 1], 2).is_ok());
        let e = t.view(&[2, 2], &[2, 1], 3).unwrap_err();
        assert_eq!((e.op(), e.param()), ("tensor", Some("view")));
        assert!(t.view(&[], &[], 5).is_ok());
        assert_eq!(t.view(&[], &[], 6).unwrap_err().param(), Some("view"));
    }

    #[test]
    fn view_arithmetic_never_overflows() {
        let t = Tensor::from_slice(&[6], &[0u8; 6]).unwrap();
        let e = t.view(&[2; 8], &[usize::MAX; 8], usize::MAX).unwrap_err();
        assert_eq!(e.param(), Some("view"));
        // Stride 0 with a huge extent addresses one element: valid.
        let b = t.view(&[1 << 40], &[0], 5).unwrap();
        assert_eq!(b.numel(), 1 << 40);
        // Too many elements to ever materialise.
        let e = t.view(&[usize::MAX, 2], &[0, 0], 0).unwrap_err();
        assert_eq!(e.param(), Some("shape"));
    }

    #[test]
    fn zero_extent_views_are_always_valid() {
        let t = Tensor::from_slice(&[1], &[0u8]).unwrap();
        let v = t
            .view(&[0, 5], &[usize::MAX, usize::MAX], usize::MAX)
            .unwrap();
        assert_eq!(v.numel(), 0);
        assert!(v.to_vec::<u8>().unwrap().is_empty());
        // Also over an empty storage.
        let e = Tensor::from_slice::<u8>(&[0], &[]).unwrap();
        assert!(e.view(&[3, 0], &[1, 1], 0).is_ok());
        assert!(e.view(&[1], &[1], 0).is_err());
    }

    #[test]
    fn view_rank_and_stride_count() {
        let t = Tensor::from_slice(&[1], &[0u8]).unwrap();
        assert!(t.view(&[1; 8], &[0; 8], 0).is_ok());
        let e = t.view(&[1; 9], &[0; 9], 0).unwrap_err();
        assert_eq!(e.param(), Some("shape"));
        let e = t.view(&[1, 1], &[0], 0).unwrap_err();
        assert_eq!(e.param(), Some("strides"));
    }

    #[test]
    fn contiguity() {
        let t = Tensor::from_slice(&[2, 1, 3], &[0u8; 6]).unwrap();
        assert!(t.is_contiguous());
        // Stride of an extent-1 axis does not matter.
        assert!(t.view(&[2, 1, 3], &[3, 99, 1], 0).unwrap().is_contiguous());
        assert!(!t.view(&[2, 3], &[1, 2], 0).unwrap().is_contiguous());
        assert!(!t.view(&[2], &[2], 0).unwrap().is_contiguous());
        assert!(t.view(&[0, 3], &[5, 5], 0).unwrap().is_contiguous());
    }
}
