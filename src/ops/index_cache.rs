//! Gather indices kept on the device, per stream, keyed by the view layout
//! they were computed for: a composite that gathers (an overlapping
//! AsStrided view, a sampled slice) builds and uploads its index once per
//! layout, and every later call with that layout is one IndexSelect launch
//! with no host work and no upload.
//!
//! - **Key.** What the index depends on and nothing else: a tag naming the
//!   composite, then its shape, strides and parameters, offset-free (an
//!   index holds unit numbers relative to the lowest unit read; the caller
//!   adds the view's offset to the span it gathers from). Device and dtype:
//!   a cache belongs to one stream, so to its device; the index's own dtype
//!   (`int32` when every value fits, else `int64`) follows from the values,
//!   and the unit size (elements per unit) is part of the key.
//! - **Memory.** Indices of up to [`MAX_ENTRY_BYTES`] bytes are kept, at most
//!   [`MAX_ENTRIES`] of them and [`MAX_BYTES`] bytes in all per stream, least
//!   recently used first out; larger ones are built per call.
//! - **Upload.** A synchronous copy (`aclrtMemcpy`), done once per layout on
//!   a block no queued work uses: the index is complete before any launch
//!   can read it, on any stream and in a graph capture (a stream-ordered
//!   upload on a capturing stream would only run when the graph replays),
//!   and the host buffer is free as soon as the copy returns.
//! - **Lifetime.** An entry is a [`Tensor`]: every launch that reads it
//!   holds its storage until the launch has run (the stream's bookkeeping,
//!   or a graph's), so evicting an entry, or dropping the stream, never
//!   frees memory that queued work still reads.
//! - **Constants.** Small `int64` arrays an operator reads from the device
//!   (ViewCopy's window metadata) are kept the same way, keyed by their
//!   tag and values, as views of one upload ([`Stream::cached_i64`]): a
//!   repeated call uploads nothing, and the views keep their descriptors
//!   (no `aclCreateTensor` either).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::stream::Stream;
use crate::tensor::Tensor;
use std::sync::{Arc, Mutex};

/// The largest index kept (bytes on the device).
pub(crate) const MAX_ENTRY_BYTES: usize = 4 * super::ONE_LAUNCH_ELEMS;
/// Bytes of kept indices per stream, at most.
pub(crate) const MAX_BYTES: usize = 1 << 20;
/// Kept indices per stream, at most.
pub(crate) const MAX_ENTRIES: usize = 64;

/// An index on the device: `n` unit numbers in `[0, span)`, relative to
/// the lowest unit read.
pub(crate) struct Index {
    pub(crate) tensor: Tensor,
    /// The lowest unit read, relative to the offset-free layout.
    pub(crate) lo: usize,
    /// Units from the lowest read to the highest, inclusive.
    pub(crate) span: usize,
    /// The caller's units per index entry: runs of `unit` consecutive
    /// units starting at a multiple of `unit` are one entry (see
    /// [`Stream::cached_index`]).
    pub(crate) unit: usize,
}

/// What an entry keeps (its key's tag says which), behind an `Arc`: a
/// hit shares the kept tensors, for a clone of a `Tensor` would start
/// without the descriptor the kept one makes at its first launch.
#[derive(Clone)]
enum Kept {
    Index(Arc<Index>),
    Constant(Arc<[Tensor]>),
}

struct Entry {
    key: Box<[u64]>,
    kept: Kept,
    bytes: usize,
    used: u64,
}

#[derive(Default)]
struct Entries {
    v: Vec<Entry>,
    bytes: usize,
    clock: u64,
}

/// A stream's kept indices (see the module's documentation).
#[derive(Default)]
pub(crate) struct IndexCache(Mutex<Entries>);

impl IndexCache {
    fn get(&self, key: &[u64]) -> Option<Kept> {
        let mut e = self.0.lock().unwrap_or_else(|e| e.into_inner());
        e.clock += 1;
        let now = e.clock;
        let hit = e.v.iter_mut().find(|x| &*x.key == key)?;
        hit.used = now;
        Some(hit.kept.clone())
    }

    fn put(&self, key: &[u64], kept: &Kept, bytes: usize) {
        let mut e = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if e.v.iter().any(|x| &*x.key == key) {
            return; // another thread built it meanwhile
        }
        while !e.v.is_empty() && (e.v.len() >= MAX_ENTRIES || e.bytes + bytes > MAX_BYTES) {
            let (i, _) =
                e.v.iter()
                    .enumerate()
                    .min_by_key(|(_, x)| x.used)
                    .expect("not empty");
            // Dropped here: launches still queued hold the storage.
            let gone = e.v.swap_remove(i);
            e.bytes -= gone.bytes;
        }
        e.clock += 1;
        let used = e.clock;
        e.bytes += bytes;
        e.v.push(Entry {
            key: key.into(),
            kept: kept.clone(),
            bytes,
            used,
        });
    }

    /// How many indices are kept, and their bytes (for tests).
    #[cfg(test)]
    pub(crate) fn usage(&self) -> (usize, usize) {
        let e = self.0.lock().unwrap_or_else(|e| e.into_inner());
        (e.v.len(), e.bytes)
    }
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Builds an index from `n` unit numbers (offset-free) on `s`'s device:
/// `int32` when the span fits, else `int64`, uploaded synchronously.
fn build(
    s: &Stream,
    op: &'static str,
    n: usize,
    coarsen: bool,
    units: impl Iterator<Item = usize>,
) -> Result<(Index, usize)> {
    let mut idx: Vec<i64> = Vec::new();
    idx.try_reserve_exact(n)
        .map_err(|_| Error::HostOutOfMemory { bytes: n * 8 })?;
    idx.extend(units.take(n).map(|u| u as i64));
    // The largest `c` dividing `n` such that each run of `c` entries at a
    // multiple of `c` reads `c` consecutive units from a multiple of `c`:
    // the gcd of `n`, of every position where a run of consecutive units
    // breaks, and of the unit read there.
    let mut unit = 1;
    if coarsen && n > 1 {
        let mut g = n as i64;
        for k in 0..n {
            if k == 0 || idx[k] != idx[k - 1] + 1 {
                g = gcd(gcd(g, k as i64), idx[k]);
                if g == 1 {
                    break;
                }
            }
        }
        unit = g.max(1) as usize;
        if unit > 1 {
            let mut k = 0;
            idx.retain(|_| {
                k += 1;
                (k - 1) % unit == 0
            });
            idx.iter_mut().for_each(|v| *v /= unit as i64);
        }
    }
    let n = idx.len();
    let lo = idx.iter().copied().min().unwrap_or(0);
    let hi = idx.iter().copied().max().unwrap_or(0);
    idx.iter_mut().for_each(|v| *v -= lo);
    let narrow = hi - lo <= i32::MAX as i64;
    let dtype = if narrow { DType::I32 } else { DType::I64 };
    // The device index first: a size the device (or the runtime's limit)
    // refuses is refused before the host copy below.
    let tensor = Tensor::empty_for(s, op, "size", dtype, &[n])?;
    let bytes = n * dtype.size();
    if narrow {
        let v: Vec<i32> = idx.iter().map(|&x| x as i32).collect();
        drop(idx);
        // SAFETY: `tensor` is a new contiguous storage of `n` i32s (exactly
        // `v`'s bytes) on this stream's device, that no work uses yet.
        unsafe { crate::ffi::upload(s.api(), tensor.storage.ptr, crate::dtype::as_bytes(&v)) }?;
    } else {
        // SAFETY: as above, `n` i64s.
        unsafe { crate::ffi::upload(s.api(), tensor.storage.ptr, crate::dtype::as_bytes(&idx)) }?;
    }
    Ok((
        Index {
            tensor,
            lo: lo as usize,
            span: (hi - lo) as usize + 1,
            unit,
        },
        bytes,
    ))
}

impl Stream {
    /// The index for `key` (`n` unit numbers, offset-free, that `units`
    /// yields on a miss): kept from an earlier call, or built now (and kept
    /// when small enough). With `coarsen` (the unit numbers are absolute:
    /// the caller adds no offset), runs of consecutive units may become one
    /// entry each ([`Index::unit`]): a wrapped or windowed element gather
    /// then moves rows of elements instead of elements.
    pub(crate) fn cached_index<I: Iterator<Item = usize>>(
        &self,
        op: &'static str,
        key: &[u64],
        n: usize,
        coarsen: bool,
        units: impl FnOnce() -> I,
    ) -> Result<Arc<Index>> {
        let cache = &self.0.indices;
        if let Some(Kept::Index(hit)) = cache.get(key) {
            return Ok(hit);
        }
        let (index, bytes) = build(self, op, n, coarsen, units())?;
        let index = Arc::new(index);
        if bytes <= MAX_ENTRY_BYTES {
            cache.put(key, &Kept::Index(index.clone()), bytes);
        }
        Ok(index)
    }

    /// `values` as a contiguous `int64` tensor on this stream's device,
    /// returned as its `parts` (`(start, len)` views of it), kept under
    /// `tag` (a `KEY_*` of `crate::ops`, which fixes the parts for a
    /// length) and the values: a repeated call returns the same views (no
    /// upload; their descriptors made once). Launches only read them. An
    /// allocation the device refuses names `op` and `param`.
    pub(crate) fn cached_i64(
        &self,
        op: &'static str,
        param: &'static str,
        tag: u64,
        values: &[i64],
        parts: &[(usize, usize)],
    ) -> Result<Arc<[Tensor]>> {
        let mut key = Vec::with_capacity(values.len() + 2);
        key.extend([tag, values.len() as u64]);
        key.extend(values.iter().map(|&v| v as u64));
        let cache = &self.0.indices;
        if let Some(Kept::Constant(hit)) = cache.get(&key) {
            // One span layout per tag and length (the caller's contract).
            debug_assert!(hit
                .iter()
                .zip(parts)
                .all(|(t, &(start, len))| t.shape() == [len] && t.offset() == start));
            return Ok(hit);
        }
        let tensor = Tensor::empty_for(self, op, param, DType::I64, &[values.len()])?;
        // SAFETY: `tensor` is a new contiguous storage of `values.len()`
        // i64s (exactly `values`' bytes) on this stream's device, that no
        // work uses yet.
        unsafe {
            crate::ffi::upload(
                self.api(),
                tensor.storage.ptr,
                crate::dtype::as_bytes(values),
            )
        }?;
        let views: Arc<[Tensor]> = parts
            .iter()
            .map(|&(start, len)| tensor.narrow(0, start, len))
            .collect::<Result<_>>()?;
        let bytes = std::mem::size_of_val(values);
        if bytes <= MAX_ENTRY_BYTES {
            cache.put(&key, &Kept::Constant(views.clone()), bytes);
        }
        Ok(views)
    }

    /// The stream's kept indices (for tests).
    #[cfg(test)]
    pub(crate) fn index_cache_usage(&self) -> (usize, usize) {
        self.0.indices.usage()
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::*;
    use crate::{Backend, Runtime, SampleMode, SampledSlice};

    fn host_windows(x: &[f64], c: usize, w: usize, off: usize) -> Vec<f64> {
        let mut v = Vec::new();
        for i in 0..w {
            for k in 0..8 {
                v.extend_from_slice(&x[off + (i + k) * c..][..c]);
            }
        }
        v
    }

    #[test]
    fn one_index_per_layout_whatever_the_offset() {
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let s = rt.stream().unwrap();
        let (c, w) = (32usize, 4usize);
        // float64: overlapping windows of the dtypes aclnnAsStrided moves
        // are one launch of it on A2 (ops.md §33), not gathers.
        let xs: Vec<f64> = (0..(w + 8) * c).map(|i| i as f64).collect();
        let x = Tensor::from_slice(&s, &[w + 8, c], &xs).unwrap();
        let size = [w as i64, 8, c as i64];
        let stride = [c as i64, c as i64, 1];
        for off in [0usize, c, 7] {
            let y = s.as_strided(&x, &size, &stride, off as i64).unwrap();
            assert_eq!(y.to_vec::<f64>().unwrap(), host_windows(&xs, c, w, off));
        }
        // Offsets 0 and c share the row index; 7 is an element gather
        // (coarsened to runs), its own entry.
        assert_eq!(s.index_cache_usage().0, 2);
        // The same again: hits.
        let y = s.as_strided(&x, &size, &stride, 0).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), host_windows(&xs, c, w, 0));
        assert_eq!(s.index_cache_usage().0, 2);
        // A float32 copy of the same windows: one aclnnAsStrided launch
        // each, no index.
        let x32 = Tensor::from_slice(
            &s,
            &[w + 8, c],
            &xs.iter().map(|&v| v as f32).collect::<Vec<_>>(),
        )
        .unwrap();
        let y = s.as_strided(&x32, &size, &stride, 7).unwrap();
        let want: Vec<f32> = host_windows(&xs, c, w, 7)
            .iter()
            .map(|&v| v as f32)
            .collect();
        assert_eq!(y.to_vec::<f32>().unwrap(), want);
        assert_eq!(s.index_cache_usage().0, 2);
    }

    #[test]
    fn view_copy_windows_are_uploaded_once_per_window() {
        use crate::{DType, Window};
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let s = rt.stream().unwrap();
        let xs: Vec<i32> = (0..48).collect();
        let x = Tensor::from_slice(&s, &[12, 4], &xs).unwrap();
        let dst = x.narrow(0, 0, 8).unwrap();
        let src = x.narrow(0, 8, 4).unwrap();
        let out = Tensor::empty(&s, DType::I32, &[8, 4]).unwrap();
        let want = |off: usize| -> Vec<i32> {
            let mut v = xs[..32].to_vec();
            v[off..off + 8].copy_from_slice(&xs[32..40]);
            v
        };
        let run = |off: i64| {
            let w = Window::new(&[2, 4], &[4, 1], off);
            s.view_copy_into(&dst, w, &src, Window::new(&[2, 4], &[4, 1], 0), &out)
                .unwrap();
            out.to_vec::<i32>().unwrap()
        };
        assert_eq!(run(4), want(4));
        assert_eq!(s.index_cache_usage(), (1, 10 * 8));
        // The same windows again: the kept metadata, no new entry.
        for _ in 0..3 {
            assert_eq!(run(4), want(4));
        }
        assert_eq!(s.index_cache_usage().0, 1);
        // Another offset is other metadata: its own entry, its own result.
        assert_eq!(run(16), want(16));
        assert_eq!(run(4), want(4));
        assert_eq!(s.index_cache_usage().0, 2);
    }

    #[test]
    fn the_cache_is_bounded_and_eviction_waits_for_queued_reads() {
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let s = rt.stream().unwrap();
        // 127 x 127 f32 wrapped by an odd shift: an element index of
        // 64516 bytes (no runs to coarsen), so 17 of them pass MAX_BYTES
        // (fewer launches than a stream keeps in flight while held).
        let d = 127usize;
        let xs: Vec<f32> = (0..d * d).map(|i| i as f32 * 0.5).collect();
        let x = Tensor::from_slice(&s, &[d, d], &xs).unwrap();
        let want = |start: i64| -> Vec<f32> {
            let mut v = Vec::new();
            for r in 0..d as i64 {
                for q in 0..d as i64 {
                    let a = (r + start).rem_euclid(d as i64) as usize;
                    let b = (q + 2 * start).rem_euclid(d as i64) as usize;
                    v.push(xs[a * d + b]);
                }
            }
            v
        };
        // Queued, not run: the first windows' indices are evicted by the
        // later ones while their gathers still wait (a freed index would be
        // reused by a later allocation and the results would differ).
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        let mut outs = Vec::new();
        for start in 1..=20i64 {
            let (a, b) = (-start, -2 * start);
            let p = SampledSlice::new(&[a, b], &[d as i64, d as i64], &[1, 1], SampleMode::Wrap);
            outs.push((start, s.sampled_slice(&x, &p).unwrap()));
        }
        let (n, bytes) = s.index_cache_usage();
        assert!(n < 20 && bytes <= MAX_BYTES, "{n} entries, {bytes} bytes");
        drop(hold);
        for (start, y) in outs {
            assert_eq!(y.to_vec::<f32>().unwrap(), want(-start), "start {start}");
        }
    }
}
