//! FFI to the C device kernels (`kernels/`), and their split into blocks
//! across the "AI Core" threads.

use crate::cores::Cores;
use std::ffi::c_void;

/// Maximum rank the kernels handle.
pub const MAX_RANK: usize = 8;

/// `npu_copy_desc`: a strided N-d copy (strides in elements).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CopyDesc {
    /// Number of dims (0..=8).
    pub rank: i32,
    /// Extents.
    pub shape: [i64; MAX_RANK],
    /// Destination strides, elements.
    pub dst_stride: [i64; MAX_RANK],
    /// Source strides, elements.
    pub src_stride: [i64; MAX_RANK],
    /// Element size, bytes.
    pub elem_size: usize,
}

/// `npu_dtype`: element types of the casting copy.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)]
pub enum KDtype {
    F32,
    F16,
    Bf16,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    Bool,
    C64,
    C128,
}

/// `npu_binary_op`: the elementwise arithmetic of [`binary`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + alpha * b`.
    Add,
    /// `a * b`.
    Mul,
}

unsafe extern "C" {
    /// IEEE half to single precision (exact).
    pub(crate) safe fn npu_f16_to_f32(h: u16) -> f32;
    /// Single to half precision, rounded to nearest even.
    pub(crate) safe fn npu_f32_to_f16(f: f32) -> u16;
    fn npu_copy_normalize(d: *mut CopyDesc);
    fn npu_copy_rows(d: *const CopyDesc) -> i64;
    fn npu_copy_run_ex(
        d: *const CopyDesc,
        dst: *mut c_void,
        src: *const c_void,
        row_begin: i64,
        row_end: i64,
        flags: u32,
    );
    fn npu_copy_split_inner(d: *mut CopyDesc, want_rows: i64, min_inner: i64);
    fn npu_gather_nd_run(
        dst: *mut c_void,
        src: *const c_void,
        k: i32,
        dims: *const i64,
        inner_bytes: i64,
        indices: *const c_void,
        index_is_64: i32,
        negative: i32,
        t_begin: i64,
        t_end: i64,
        bad_value: *mut i64,
    ) -> i64;
    fn npu_masked_select_run(
        d: *const CopyDesc,
        dst: *mut c_void,
        src: *const c_void,
        mask: *const c_void,
    ) -> i64;
    fn npu_masked_select_rows(
        d: *const CopyDesc,
        dst: *mut c_void,
        src: *const c_void,
        mask: *const c_void,
        row_begin: i64,
        row_end: i64,
        count_only: i32,
    ) -> i64;
    fn npu_scatter_run(
        dst: *mut c_void,
        src: *const c_void,
        n_dst: i64,
        inner_bytes: i64,
        index: *const c_void,
        index_is_64: i32,
        n_index: i64,
        outer_begin: i64,
        outer_end: i64,
        bad_value: *mut i64,
    ) -> i64;
    fn npu_gather_elements_run(
        d: *const CopyDesc,
        dim: i32,
        n_src: i64,
        dst: *mut c_void,
        src: *const c_void,
        index: *const c_void,
        index_is_64: i32,
        begin: i64,
        end: i64,
        bad_value: *mut i64,
    ) -> i64;
    fn npu_fill(dst: *mut c_void, count: i64, value: *const c_void, elem_size: usize);
    fn npu_tri_zero_run(
        data: *mut c_void,
        rows: i64,
        cols: i64,
        diagonal: i64,
        lower: i32,
        elem_size: usize,
        row_begin: i64,
        row_end: i64,
    );
    fn npu_gather_run_ex(
        dst: *mut c_void,
        src: *const c_void,
        n_src: i64,
        inner_bytes: i64,
        index: *const c_void,
        index_is_64: i32,
        n_index: i64,
        outer_begin: i64,
        outer_end: i64,
        bad_value: *mut i64,
        flags: u32,
    ) -> i64;
    fn npu_binary_run(
        op: BinaryOp,
        t: KDtype,
        dst: *mut c_void,
        a: *const c_void,
        b: *const c_void,
        alpha: *const c_void,
        begin: i64,
        end: i64,
    ) -> i32;
    fn npu_cast_run(
        d: *const CopyDesc,
        dst_type: KDtype,
        dst: *mut c_void,
        src_type: KDtype,
        src: *const c_void,
        row_begin: i64,
        row_end: i64,
    ) -> i32;
}

impl CopyDesc {
    /// A copy of `shape` with the given element strides.
    pub fn new(
        shape: &[i64],
        dst_stride: &[i64],
        src_stride: &[i64],
        elem_size: usize,
    ) -> CopyDesc {
        assert!(
            shape.len() <= MAX_RANK
                && dst_stride.len() == shape.len()
                && src_stride.len() == shape.len()
        );
        let mut d = CopyDesc {
            rank: shape.len() as i32,
            shape: [0; MAX_RANK],
            dst_stride: [0; MAX_RANK],
            src_stride: [0; MAX_RANK],
            elem_size,
        };
        d.shape[..shape.len()].copy_from_slice(shape);
        d.dst_stride[..shape.len()].copy_from_slice(dst_stride);
        d.src_stride[..shape.len()].copy_from_slice(src_stride);
        d
    }
}

/// Raw pointers that may cross to the pool's threads (each block writes
/// disjoint bytes).
#[derive(Clone, Copy)]
struct Ptr(usize);

/// Work below this many bytes runs on the calling thread alone; from here
/// up it is shared with helpers that are already awake (spinning after
/// their last block: no futex call). On a quiet 2-core host, 128 KiB
/// instead of 512 KiB took a 1 MiB WRAP sampled slice (four copies of
/// 64-576 KiB) from 33-41 us to 30-35 us and changed no other 1 MiB case
/// beyond noise (docs/architecture.md, "Kernel speed").
pub(crate) const PARALLEL_BYTES: u64 = 128 << 10;

/// Work of at least this many bytes also wakes sleeping helpers. The wake
/// is a futex call on the launching thread, 8-10 us (median) on a 2-vCPU
/// VM, and the helper starts 5-20 us later: worth it against the 22 us a
/// 1 MiB copy takes on one core, not against the 3 us of 128 KiB.
const WAKE_BYTES: u64 = 512 << 10;

/// Bytes per block of parallel work (small enough that a helper which
/// wakes late still finds blocks to take).
const BLOCK_BYTES: u64 = 64 << 10;

/// Runs `f(begin, end)` over `[0, units)` (`bytes` of work in all): small
/// work on the calling thread, larger work in blocks shared with the
/// cores' helpers ([`Cores::run`]).
fn par_ranges(cores: &Cores, units: i64, bytes: u64, f: impl Fn(i64, i64) + Sync) {
    par_ranges_min(cores, units, bytes, 1, f)
}

/// [`par_ranges`] with blocks of at least `min_units` units (a tiled
/// kernel needs rows to tile).
fn par_ranges_min(
    cores: &Cores,
    units: i64,
    bytes: u64,
    min_units: i64,
    f: impl Fn(i64, i64) + Sync,
) {
    let most = units / min_units.max(1);
    if bytes < PARALLEL_BYTES || most < 2 || cores.threads() < 2 {
        f(0, units);
        return;
    }
    let nblocks = ((bytes / BLOCK_BYTES) as i64).clamp(2, most);
    cores.run(units, nblocks, bytes >= WAKE_BYTES, f);
}

/// `NPU_RUN_STREAM`: long runs written with non-temporal stores.
const RUN_STREAM: u32 = 1;

/// Outputs of at least this many bytes are written with non-temporal
/// stores (where the kernel writes contiguous runs of 256 bytes or more):
/// such an output does not stay in the cache anyway, and a cached store
/// first reads each line it writes. The crossover, measured on a 2-core
/// EPYC (32 MiB L3): 4 MiB copied in 64 KiB pieces ran at 90 GB/s cached
/// and 57 streaming, 8 MiB at 51 and 54, 16 MiB at 25 and 28, 64 MiB at
/// 20 and 29 (docs/architecture.md, "Kernel speed").
pub(crate) const STREAM_BYTES: u64 = 16 << 20;

/// The kernels' flags for an operation writing `out_bytes`.
fn flags_for(out_bytes: u64) -> u32 {
    if out_bytes >= STREAM_BYTES {
        RUN_STREAM
    } else {
        0
    }
}

/// Rows a block of a copy needs: many when an inner dim leaps across
/// cache lines (the kernel tiles rows and columns, as transposes need),
/// one otherwise.
fn min_rows(d: &CopyDesc) -> i64 {
    let r = d.rank as usize;
    let es = d.elem_size.max(1) as i64;
    let far = |stride: i64| stride.saturating_mul(es) > 64;
    if r >= 1 && (far(d.dst_stride[r - 1]) || far(d.src_stride[r - 1])) {
        64
    } else {
        1
    }
}

/// The elements a descriptor addresses.
pub(crate) fn numel(d: &CopyDesc) -> u64 {
    d.shape[..d.rank as usize]
        .iter()
        .map(|&x| x as u64)
        .product()
}

/// Normalises `d` and, for big copies with few rows, splits the innermost
/// extent so that every thread gets rows; returns the row count.
fn prepare(pool: &Cores, d: &mut CopyDesc, bytes: u64) -> i64 {
    // SAFETY: `d` is a valid descriptor.
    unsafe {
        npu_copy_normalize(d);
        let rows = npu_copy_rows(d);
        let want = ((pool.threads() * 4) as i64).max((bytes / BLOCK_BYTES) as i64);
        if bytes >= PARALLEL_BYTES && rows < want {
            // A casting copy (elem_size 0) counts 8 bytes per element, as
            // its `bytes` do: with 1 its rows could never be cut into
            // enough pieces of 16 KiB, and a contiguous cast ran on one
            // thread.
            let es = if d.elem_size == 0 {
                8
            } else {
                d.elem_size as i64
            };
            npu_copy_split_inner(d, want, (16 << 10) / es);
            return npu_copy_rows(d);
        }
        rows
    }
}

/// Strided copy.
///
/// # Safety
/// Every element the descriptor addresses from `dst`/`src` is valid memory
/// (checked by the memory checker), and `dst` does not overlap itself.
pub unsafe fn copy(pool: &Cores, mut d: CopyDesc, dst: *mut u8, src: *const u8) {
    let bytes = numel(&d) * d.elem_size as u64;
    let rows = prepare(pool, &mut d, bytes);
    let flags = flags_for(bytes);
    let (dp, sp) = (Ptr(dst as usize), Ptr(src as usize));
    par_ranges_min(pool, rows, bytes, min_rows(&d), |lo, hi| {
        // SAFETY: caller's contract; row ranges write disjoint bytes.
        unsafe {
            npu_copy_run_ex(
                &d,
                dp.0 as *mut c_void,
                sp.0 as *const c_void,
                lo,
                hi,
                flags,
            )
        }
    });
}

/// Strided copies that touch disjoint memory (no copy writes bytes another
/// reads or writes), run as one parallel region: their blocks are shared
/// by the cores together, so several medium copies (a split's pieces, a
/// wrapped window's boxes) cost one hand-off and use both cores where each
/// alone would run on one (below [`WAKE_BYTES`]) or join separately.
///
/// # Safety
/// As for [`copy`], for each `(desc, dst, src)`; and no copy's `dst`
/// meets another copy's `dst` or `src`.
pub unsafe fn copy_group(pool: &Cores, items: &[(CopyDesc, *mut u8, *const u8)]) {
    struct Item {
        d: CopyDesc,
        dst: Ptr,
        src: Ptr,
        rows: i64,
        blocks: i64,
    }
    let total: u64 = items
        .iter()
        .map(|(d, ..)| numel(d).saturating_mul(d.elem_size as u64))
        .fold(0, u64::saturating_add);
    let flags = flags_for(total);
    let mut plan: smallvec::SmallVec<[Item; 8]> = smallvec::SmallVec::new();
    for &(mut d, dst, src) in items {
        let bytes = numel(&d) * d.elem_size as u64;
        if bytes == 0 {
            continue;
        }
        let rows = prepare(pool, &mut d, bytes);
        let most = (rows / min_rows(&d)).max(1);
        let blocks = ((bytes / BLOCK_BYTES) as i64).clamp(1, most);
        plan.push(Item {
            d,
            dst: Ptr(dst as usize),
            src: Ptr(src as usize),
            rows,
            blocks,
        });
    }
    let run = |it: &Item, lo: i64, hi: i64| {
        // SAFETY: caller's contract; row ranges of one copy write disjoint
        // bytes, and copies write disjoint memory.
        unsafe {
            npu_copy_run_ex(
                &it.d,
                it.dst.0 as *mut c_void,
                it.src.0 as *const c_void,
                lo,
                hi,
                flags,
            )
        }
    };
    let nblocks: i64 = plan.iter().map(|it| it.blocks).sum();
    if total < PARALLEL_BYTES || nblocks < 2 || pool.threads() < 2 {
        for it in &plan {
            run(it, 0, it.rows);
        }
        return;
    }
    pool.run(nblocks, nblocks, total >= WAKE_BYTES, |lo, hi| {
        for b in lo..hi {
            let mut first = 0;
            for it in &plan {
                if b < first + it.blocks {
                    let (lo, hi) = crate::cores::split(it.rows, it.blocks, b - first);
                    run(it, lo, hi);
                    break;
                }
                first += it.blocks;
            }
        }
    });
}

/// Casting strided copy; `false` if the kernel does not support the pair.
///
/// # Safety
/// As for [`copy`], with each side's element size that of its type.
pub unsafe fn cast(
    pool: &Cores,
    mut d: CopyDesc,
    dt: KDtype,
    dst: *mut u8,
    st: KDtype,
    src: *const u8,
) -> bool {
    d.elem_size = 0; // elements must stay elements when converting
    let bytes = numel(&d) * 8;
    let rows = prepare(pool, &mut d, bytes);
    let ok = std::sync::atomic::AtomicBool::new(true);
    let (dp, sp) = (Ptr(dst as usize), Ptr(src as usize));
    par_ranges_min(pool, rows, bytes, min_rows(&d), |lo, hi| {
        // SAFETY: caller's contract; row ranges write disjoint bytes.
        let r = unsafe {
            npu_cast_run(
                &d,
                dt,
                dp.0 as *mut c_void,
                st,
                sp.0 as *const c_void,
                lo,
                hi,
            )
        };
        if r != 0 {
            ok.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    });
    ok.into_inner()
}

/// Fills `count` contiguous elements with `value`.
///
/// # Safety
/// `dst` is valid for `count * value.len()` bytes.
pub unsafe fn fill(pool: &Cores, dst: *mut u8, count: i64, value: &[u8]) {
    let es = value.len();
    let dp = Ptr(dst as usize);
    par_ranges(
        pool,
        count,
        (count as u64).saturating_mul(es as u64),
        |lo, hi| {
            // SAFETY: caller's contract; ranges are disjoint.
            unsafe {
                npu_fill(
                    (dp.0 + lo as usize * es) as *mut c_void,
                    hi - lo,
                    value.as_ptr().cast(),
                    es,
                )
            }
        },
    );
}

/// A box inside a contiguous tensor: the tensor's extents, and per dim the
/// box's first index and extent (`lo[k] + ext[k] <= shape[k]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Border {
    /// Number of dims (1..=8).
    pub rank: usize,
    /// The tensor's extents.
    pub shape: [i64; MAX_RANK],
    /// The box's first index per dim.
    pub lo: [i64; MAX_RANK],
    /// The box's extent per dim.
    pub ext: [i64; MAX_RANK],
}

/// Sets every element of the contiguous tensor at `dst` outside the box of
/// `b` to `value` (one element's bytes), leaving the box untouched: rows
/// (along the last dim) outside the box along an outer dim are filled
/// whole, the others left and right of the box.
///
/// # Safety
/// `dst` is valid for writes of the whole tensor; `b` is a box inside it.
pub unsafe fn border(pool: &Cores, dst: *mut u8, b: &Border, value: &[u8]) {
    let (r, es) = (b.rank.min(MAX_RANK), value.len());
    if r == 0 || b.shape[..r].iter().any(|&n| n <= 0) {
        return;
    }
    let last = r - 1;
    let row = b.shape[last];
    let rows: i64 = b.shape[..last].iter().product();
    let (left, right_at) = (b.lo[last], b.lo[last] + b.ext[last]);
    let total = (rows as u64) * (row as u64) * es as u64;
    let dp = Ptr(dst as usize);
    let fill = |at: i64, count: i64| {
        if count > 0 {
            // SAFETY: caller's contract: `[at, at + count)` is inside the
            // tensor, and blocks of rows write disjoint bytes.
            unsafe {
                npu_fill(
                    (dp.0 + at as usize * es) as *mut c_void,
                    count,
                    value.as_ptr().cast(),
                    es,
                )
            }
        }
    };
    par_ranges(pool, rows, total, |lo, hi| {
        // The outer coordinates of row `lo`, then counted up row by row.
        let mut c = [0i64; MAX_RANK];
        let mut q = lo;
        for k in (0..last).rev() {
            c[k] = q % b.shape[k];
            q /= b.shape[k];
        }
        let mut run = lo; // first of the whole rows not yet filled
        for i in lo..hi {
            let inside = (0..last).all(|k| c[k] >= b.lo[k] && c[k] < b.lo[k] + b.ext[k]);
            if inside {
                fill(run * row, (i - run) * row);
                fill(i * row, left);
                fill(i * row + right_at, row - right_at);
                run = i + 1;
            }
            for k in (0..last).rev() {
                c[k] += 1;
                if c[k] < b.shape[k] {
                    break;
                }
                c[k] = 0;
            }
        }
        fill(run * row, (hi - run) * row);
    });
}

/// The triangle mask of Tril (`lower`) and Triu over `mats` contiguous
/// matrices of `rows` x `cols` elements of `es` bytes at `data`: element
/// (i, j) of each is zeroed where `j - i > diagonal` (Tril) or
/// `j - i < diagonal` (Triu).
///
/// # Safety
/// `data` is valid for reads and writes of `mats * rows * cols * es` bytes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tri_zero(
    pool: &Cores,
    data: *mut u8,
    mats: i64,
    rows: i64,
    cols: i64,
    diagonal: i64,
    lower: bool,
    es: usize,
) {
    let dp = Ptr(data as usize);
    let units = mats.saturating_mul(rows);
    let bytes = (units as u64)
        .saturating_mul(cols as u64)
        .saturating_mul(es as u64);
    par_ranges(pool, units, bytes, |lo, hi| {
        // SAFETY: caller's contract; row ranges are disjoint.
        unsafe {
            npu_tri_zero_run(
                dp.0 as *mut c_void,
                rows,
                cols,
                diagonal,
                i32::from(lower),
                es,
                lo,
                hi,
            )
        }
    });
}

/// `dst[o, i, :] = src[o, index[i], :]`, contiguous `[outer, n, inner]`;
/// each index is checked when loaded (the kernel's check on load). Returns
/// the first index outside `[0, n_src)` as (position, value), if any: the
/// gather stopped there (earlier rows may have been written).
///
/// # Safety
/// Buffers valid for their shapes (`src` for `outer * n_src * inner_bytes`
/// bytes, `dst` for `outer * n_index * inner_bytes`, `index` for `n_index`
/// indices of the given width).
#[allow(clippy::too_many_arguments)]
pub unsafe fn gather(
    pool: &Cores,
    dst: *mut u8,
    src: *const u8,
    outer: i64,
    n_src: i64,
    inner_bytes: i64,
    index: *const u8,
    is64: bool,
    n_index: i64,
) -> Option<(i64, i64)> {
    // Bounded by the checked output size (at most i64::MAX bytes).
    let bytes = (outer as u64)
        .saturating_mul(n_index as u64)
        .saturating_mul(inner_bytes as u64);
    let flags = flags_for(bytes);
    let (dp, sp, ip) = (Ptr(dst as usize), Ptr(src as usize), Ptr(index as usize));
    let first = std::sync::Mutex::new(None::<(i64, i64)>);
    let found = |pos: i64, val: i64| {
        let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none_or(|(p, _)| pos < p) {
            *f = Some((pos, val));
        }
    };
    if outer > 1 {
        par_ranges(pool, outer, bytes, |lo, hi| {
            let mut bad = 0i64;
            // SAFETY: caller's contract; outer ranges write disjoint rows.
            let pos = unsafe {
                npu_gather_run_ex(
                    dp.0 as *mut c_void,
                    sp.0 as *const c_void,
                    n_src,
                    inner_bytes,
                    ip.0 as *const c_void,
                    is64 as i32,
                    n_index,
                    lo,
                    hi,
                    &mut bad,
                    flags,
                )
            };
            if pos >= 0 {
                found(pos, bad);
            }
        });
    } else {
        // One outer row: split the index list instead.
        let iw = if is64 { 8 } else { 4 };
        par_ranges(pool, n_index, bytes, |lo, hi| {
            let mut bad = 0i64;
            // SAFETY: caller's contract; index ranges write disjoint output.
            let pos = unsafe {
                npu_gather_run_ex(
                    (dp.0 + (lo * inner_bytes) as usize) as *mut c_void,
                    sp.0 as *const c_void,
                    n_src,
                    inner_bytes,
                    (ip.0 + lo as usize * iw) as *const c_void,
                    is64 as i32,
                    hi - lo,
                    0,
                    outer,
                    &mut bad,
                    flags,
                )
            };
            if pos >= 0 {
                found(lo + pos, bad);
            }
        });
    }
    first.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `dst[p] = src[p with p[dim] = index[p]]` for every index `p` of
/// `d.shape` (rank 1..=8, no extent 0): `dst` and `src` addressed by
/// `d`'s strides, `index` contiguous over `d.shape`; each index is checked
/// when loaded. Returns the first index outside `[0, n_src)` as (row-major
/// position, value), if any: the gather stopped there.
///
/// # Safety
/// `dst` and `src` valid for every element `d`'s strides address (`src`
/// with any coordinate along `dim` in `[0, n_src)`), `index` for
/// `numel(d.shape)` indices of the given width.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gather_elements(
    pool: &Cores,
    d: CopyDesc,
    dim: usize,
    n_src: i64,
    dst: *mut u8,
    src: *const u8,
    index: *const u8,
    is64: bool,
) -> Option<(i64, i64)> {
    let rank = (d.rank.max(0) as usize).min(MAX_RANK);
    let total = d.shape[..rank]
        .iter()
        .fold(1i64, |n, &e| n.saturating_mul(e.max(0)));
    let bytes = (total as u64).saturating_mul(d.elem_size as u64);
    let (dp, sp, ip) = (Ptr(dst as usize), Ptr(src as usize), Ptr(index as usize));
    let first = std::sync::Mutex::new(None::<(i64, i64)>);
    par_ranges(pool, total, bytes, |lo, hi| {
        let mut bad = 0i64;
        // SAFETY: caller's contract; distinct position ranges write
        // distinct elements (dst does not overlap itself).
        let pos = unsafe {
            npu_gather_elements_run(
                &d,
                dim as i32,
                n_src,
                dp.0 as *mut c_void,
                sp.0 as *const c_void,
                ip.0 as *const c_void,
                is64 as i32,
                lo,
                hi,
                &mut bad,
            )
        };
        if pos >= 0 {
            let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
            if f.is_none_or(|(p, _)| pos < p) {
                *f = Some((pos, bad));
            }
        }
    });
    first.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `dst[o, index[i], :] = src[o, i, :]`, contiguous `[outer, n_dst,
/// inner]` and `[outer, n_index, inner]`, each outer row in index order (a
/// repeated index: the last write wins); each index is checked when
/// loaded. Returns the first index outside `[0, n_dst)` as (position,
/// value), if any: the scatter stopped there.
///
/// # Safety
/// Buffers valid for their shapes (`dst` for `outer * n_dst *
/// inner_bytes` bytes, `src` for `outer * n_index * inner_bytes`, `index`
/// for `n_index` indices of the given width).
#[allow(clippy::too_many_arguments)]
pub unsafe fn scatter(
    pool: &Cores,
    dst: *mut u8,
    src: *const u8,
    outer: i64,
    n_dst: i64,
    inner_bytes: i64,
    index: *const u8,
    is64: bool,
    n_index: i64,
) -> Option<(i64, i64)> {
    let bytes = (outer as u64)
        .saturating_mul(n_index as u64)
        .saturating_mul(inner_bytes as u64);
    let (dp, sp, ip) = (Ptr(dst as usize), Ptr(src as usize), Ptr(index as usize));
    let first = std::sync::Mutex::new(None::<(i64, i64)>);
    // Split by outer rows only: within a row the writes stay in index
    // order, so a repeated index always ends with its last slice.
    par_ranges(pool, outer, bytes, |lo, hi| {
        let mut bad = 0i64;
        // SAFETY: caller's contract; outer ranges write disjoint rows.
        let pos = unsafe {
            npu_scatter_run(
                dp.0 as *mut c_void,
                sp.0 as *const c_void,
                n_dst,
                inner_bytes,
                ip.0 as *const c_void,
                is64 as i32,
                n_index,
                lo,
                hi,
                &mut bad,
            )
        };
        if pos >= 0 {
            let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
            if f.is_none() {
                *f = Some((pos, bad));
            }
        }
    });
    first.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `dst[t, :] = src[indices[t, 0], .., indices[t, k-1], :]`, `src`
/// contiguous `[dims.., inner]`, `indices` contiguous `[tuples, k]`
/// (`k = dims.len()`, 1..=8); with `negative` a coordinate in `[-s, -1]`
/// counts from the end. Each coordinate is checked when loaded. Returns
/// the first one outside its range as (position in `indices`, value), if
/// any: the gather stopped there.
///
/// # Safety
/// Buffers valid for their shapes (`src` for `prod(dims) * inner_bytes`
/// bytes, `dst` for `tuples * inner_bytes`, `indices` for `tuples * k`
/// indices of the given width).
#[allow(clippy::too_many_arguments)]
pub unsafe fn gather_nd(
    pool: &Cores,
    dst: *mut u8,
    src: *const u8,
    dims: &[i64],
    inner_bytes: i64,
    indices: *const u8,
    is64: bool,
    negative: bool,
    tuples: i64,
) -> Option<(i64, i64)> {
    let bytes = (tuples as u64).saturating_mul(inner_bytes as u64);
    let (dp, sp, ip) = (Ptr(dst as usize), Ptr(src as usize), Ptr(indices as usize));
    let first = std::sync::Mutex::new(None::<(i64, i64)>);
    par_ranges(pool, tuples, bytes, |lo, hi| {
        let mut bad = 0i64;
        // SAFETY: caller's contract; tuple ranges write disjoint rows.
        let pos = unsafe {
            npu_gather_nd_run(
                dp.0 as *mut c_void,
                sp.0 as *const c_void,
                dims.len() as i32,
                dims.as_ptr(),
                inner_bytes,
                ip.0 as *const c_void,
                is64 as i32,
                negative as i32,
                lo,
                hi,
                &mut bad,
            )
        };
        if pos >= 0 {
            let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
            if f.is_none_or(|(p, _)| pos < p) {
                *f = Some((pos, bad));
            }
        }
    });
    first.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The elements of `src` whose mask byte is set, walking `d.shape` in
/// row-major order (`src` at `d.src_stride`, the 1-byte mask at
/// `d.dst_stride`, either 0 to broadcast), packed into `dst`; returns the
/// count written. In two passes over blocks of rows when big enough to
/// share the cores: each block counts its set mask bytes, then each packs
/// at the place the counts before it give (the walk's order, whichever
/// core packs a block).
///
/// # Safety
/// `src` and `mask` valid for every element `d`'s strides address; `dst`
/// for `numel(d.shape)` elements of `d.elem_size` bytes.
pub unsafe fn masked_select(
    pool: &Cores,
    mut d: CopyDesc,
    dst: *mut u8,
    src: *const u8,
    mask: *const u8,
) -> i64 {
    let total = numel(&d);
    // Each element: its mask byte and, when set, itself read and written.
    let bytes = total.saturating_mul(d.elem_size as u64 + 1);
    // The one-pass walk, for work too small to share or a row that will
    // not cut.
    let walk = |d: &CopyDesc| {
        // SAFETY: the caller's contract.
        unsafe {
            npu_masked_select_run(
                d,
                dst as *mut c_void,
                src as *const c_void,
                mask as *const c_void,
            )
        }
    };
    let r = d.rank as usize;
    if bytes < PARALLEL_BYTES || pool.threads() < 2 || r == 0 || r > MAX_RANK {
        return walk(&d);
    }
    // Rows of the walk (the innermost dim); a long last dim is cut into
    // rows of its own (row-major order, so the packing order, is kept).
    // Not normalised: merging or reordering dims would change the order.
    let want = ((pool.threads() * 4) as i64).max((bytes / BLOCK_BYTES) as i64);
    let rows = |d: &CopyDesc| numel(d) as i64 / d.shape[d.rank as usize - 1].max(1);
    if rows(&d) < want {
        // SAFETY: `d` is a valid descriptor; the split keeps its elements
        // and their order.
        unsafe { npu_copy_split_inner(&mut d, want, 4096) };
    }
    let nrows = rows(&d);
    let nblocks = ((bytes / BLOCK_BYTES) as i64).min(nrows);
    if nblocks < 2 {
        return walk(&d);
    }
    let at = |b: i64| crate::cores::split(nrows, nblocks, b).0;
    let (dp, sp, mp) = (Ptr(dst as usize), Ptr(src as usize), Ptr(mask as usize));
    let counts: Vec<std::sync::atomic::AtomicI64> = (0..nblocks)
        .map(|_| std::sync::atomic::AtomicI64::new(0))
        .collect();
    let dref = &d;
    pool.run(nblocks, nblocks, bytes >= WAKE_BYTES, |lo, hi| {
        for b in lo..hi {
            // SAFETY: the caller's contract (reads only).
            let n = unsafe {
                npu_masked_select_rows(
                    dref,
                    std::ptr::null_mut(),
                    sp.0 as *const c_void,
                    mp.0 as *const c_void,
                    at(b),
                    at(b + 1),
                    1,
                )
            };
            counts[b as usize].store(n, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let mut starts = Vec::with_capacity(nblocks as usize);
    let mut sum = 0i64;
    for c in &counts {
        starts.push(sum);
        sum += c.load(std::sync::atomic::Ordering::Relaxed);
    }
    let es = d.elem_size;
    pool.run(nblocks, nblocks, bytes >= WAKE_BYTES, |lo, hi| {
        for b in lo..hi {
            // SAFETY: the caller's contract; block `b` writes its count of
            // elements from its start, after the counts of the blocks
            // before it: blocks write disjoint parts of `dst`.
            unsafe {
                npu_masked_select_rows(
                    dref,
                    (dp.0 + starts[b as usize] as usize * es) as *mut c_void,
                    sp.0 as *const c_void,
                    mp.0 as *const c_void,
                    at(b),
                    at(b + 1),
                    0,
                )
            };
        }
    });
    sum
}

/// Element size of a kernel dtype.
pub fn kdtype_size(t: KDtype) -> usize {
    match t {
        KDtype::I8 | KDtype::U8 | KDtype::Bool => 1,
        KDtype::F16 | KDtype::Bf16 | KDtype::I16 | KDtype::U16 => 2,
        KDtype::F32 | KDtype::I32 | KDtype::U32 => 4,
        KDtype::F64 | KDtype::I64 | KDtype::U64 | KDtype::C64 => 8,
        KDtype::C128 => 16,
    }
}

/// `dst[i] = a[i] + alpha * b[i]` or `a[i] * b[i]` for `i < n`, contiguous
/// buffers of dtype `t` (the arithmetic of docs/ops.md §8/§9, in
/// `kernels/arith.c`); `alpha` is one element of `t` (`None`: 1). `false`
/// if the kernel refused the op or dtype (nothing written).
///
/// # Safety
/// `dst`, `a` and `b` are valid for `n` elements of `t`; `dst` is `a`,
/// `b` or disjoint from both.
#[allow(clippy::too_many_arguments)]
pub unsafe fn binary(
    pool: &Cores,
    op: BinaryOp,
    t: KDtype,
    dst: *mut u8,
    a: *const u8,
    b: *const u8,
    alpha: Option<&[u8; 16]>,
    n: i64,
) -> bool {
    let es = kdtype_size(t) as u64;
    let (dp, ap, bp) = (Ptr(dst as usize), Ptr(a as usize), Ptr(b as usize));
    let al = Ptr(alpha.map_or(0, |v| v.as_ptr() as usize));
    let ok = std::sync::atomic::AtomicBool::new(true);
    par_ranges(pool, n, (n as u64).saturating_mul(es * 3), |lo, hi| {
        // SAFETY: caller's contract; element ranges write disjoint bytes,
        // and `alpha` (if any) outlives the call.
        let r = unsafe {
            npu_binary_run(
                op,
                t,
                dp.0 as *mut c_void,
                ap.0 as *const c_void,
                bp.0 as *const c_void,
                al.0 as *const c_void,
                lo,
                hi,
            )
        };
        if r != 0 {
            ok.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    });
    ok.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic bytes.
    fn bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// Copies through `copy` on a 2-thread pool: contiguous and row copies
    /// at every size class (one thread, shared with the helper, streaming
    /// stores), odd sizes, misaligned ends, run twice (the second finds
    /// the helper awake).
    #[test]
    fn copies_at_every_size_class_are_exact() {
        let pool = Cores::new(2).unwrap();
        let sizes = [
            1usize,
            255,
            (128 << 10) + 3,
            (512 << 10) - 1,
            (1 << 20) + 17,
            STREAM_BYTES as usize + 4099,
        ];
        for (k, &n) in sizes.iter().enumerate() {
            let src = bytes(n + 8, k as u64);
            for off in [0usize, 3] {
                // Twice: the second run finds the helper awake.
                for _ in 0..2 {
                    let mut dst = vec![0xeeu8; n + 8];
                    let d = CopyDesc::new(&[n as i64], &[1], &[1], 1);
                    // SAFETY: both buffers hold n bytes past `off`.
                    unsafe { copy(&pool, d, dst.as_mut_ptr().add(off), src.as_ptr().add(5)) };
                    assert_eq!(
                        &dst[off..off + n],
                        &src[5..5 + n],
                        "contiguous {n} off {off}"
                    );
                    assert!(dst[..off].iter().chain(&dst[off + n..]).all(|&b| b == 0xee));
                }
            }
            // Rows: half of each source row, rows of 4 KiB + 3 bytes.
            let row = 4099usize;
            let rows = (n / row).max(1);
            let src = bytes(2 * row * rows + 8, 7 + k as u64);
            let mut dst = vec![0u8; row * rows];
            let d = CopyDesc::new(
                &[rows as i64, row as i64],
                &[row as i64, 1],
                &[2 * row as i64, 1],
                1,
            );
            // SAFETY: the views lie in the buffers.
            unsafe { copy(&pool, d, dst.as_mut_ptr(), src.as_ptr().add(1)) };
            for r in 0..rows {
                assert_eq!(
                    &dst[r * row..(r + 1) * row],
                    &src[1 + 2 * r * row..1 + 2 * r * row + row],
                    "row {r} of {rows}"
                );
            }
        }
    }

    /// The two-pass parallel `masked_select` against the one-pass walk
    /// (`npu_masked_select_run`), at sizes that share the cores: 1-D and
    /// N-D walks, a mask broadcast along a dim or read with a stride, a
    /// transposed source, masks dense, sparse, empty and full, every
    /// specialised element size and an odd one; the count returned and
    /// every byte of the output (nothing written past the count).
    #[test]
    fn parallel_masked_select_packs_as_the_walk() {
        let pool = Cores::new(2).unwrap();
        let cases: &[(&[i64], &[i64], &[i64])] = &[
            // (shape, mask strides in bytes, src strides in elements)
            (&[300_000], &[1], &[1]),
            (&[700, 600], &[600, 1], &[600, 1]),
            (&[700, 600], &[0, 1], &[1, 700]),
            (&[600, 700], &[1, 0], &[700, 1]),
            (&[50, 60, 70], &[4200, 70, 1], &[1, 50, 3000]),
            (&[3, 200_000], &[0, 2], &[200_000, 1]),
        ];
        for (k, &(shape, ms, ss)) in cases.iter().enumerate() {
            for (es, density) in [(1usize, 2u8), (2, 7), (4, 1), (8, 0), (16, 255), (3, 128)] {
                let n: i64 = shape.iter().product();
                let reach = |st: &[i64]| -> usize {
                    shape
                        .iter()
                        .zip(st)
                        .map(|(&e, &s)| (e - 1) * s)
                        .sum::<i64>() as usize
                        + 1
                };
                let src = bytes(reach(ss) * es, k as u64 + es as u64);
                let mask: Vec<u8> = bytes(reach(ms), 99 + k as u64)
                    .into_iter()
                    .map(|b| match density {
                        0 => 0,
                        255 => 1,
                        d => u8::from(b < d.wrapping_mul(16)),
                    })
                    .collect();
                let d = CopyDesc::new(shape, ms, ss, es);
                let mut want = vec![0xabu8; n as usize * es];
                let mut got = want.clone();
                // SAFETY: the buffers hold every element the strides reach.
                let wn = unsafe {
                    npu_masked_select_run(
                        &d,
                        want.as_mut_ptr().cast(),
                        src.as_ptr().cast(),
                        mask.as_ptr().cast(),
                    )
                };
                // SAFETY: as above.
                let gn = unsafe {
                    masked_select(&pool, d, got.as_mut_ptr(), src.as_ptr(), mask.as_ptr())
                };
                assert_eq!(gn, wn, "{shape:?} es {es} density {density}");
                assert!(got == want, "{shape:?} es {es} density {density}");
            }
        }
    }

    /// `border` against a naive loop: ranks 1-4, boxes touching each side
    /// or none, empty boxes, every element size, tensors small and big
    /// enough for both cores; the box itself is never written.
    #[test]
    fn border_fills_exactly_outside_the_box() {
        let pool = Cores::new(2).unwrap();
        let cases: &[(&[i64], &[i64], &[i64])] = &[
            (&[10], &[3], &[4]),
            (&[10], &[0], &[10]),
            (&[10], &[0], &[0]),
            (&[5, 7], &[1, 2], &[3, 4]),
            (&[5, 7], &[0, 0], &[5, 3]),
            (&[5, 7], &[4, 6], &[1, 1]),
            (&[3, 4, 5, 6], &[1, 0, 2, 1], &[1, 4, 2, 5]),
            (&[512, 512], &[128, 128], &[384, 384]),
            (&[64, 33, 129], &[5, 0, 100], &[50, 33, 29]),
        ];
        for (k, &(shape, lo, ext)) in cases.iter().enumerate() {
            for es in [1usize, 2, 4, 8, 16] {
                let n: usize = shape.iter().product::<i64>() as usize;
                let value: Vec<u8> = (0..es as u8).map(|b| 0xa0 | b).collect();
                let mut got = bytes(n * es, k as u64);
                let mut want = got.clone();
                for i in 0..n {
                    let (mut q, mut inside) = (i as i64, true);
                    for d in (0..shape.len()).rev() {
                        let c = q % shape[d];
                        q /= shape[d];
                        inside &= c >= lo[d] && c < lo[d] + ext[d];
                    }
                    if !inside {
                        want[i * es..(i + 1) * es].copy_from_slice(&value);
                    }
                }
                let mut b = Border {
                    rank: shape.len(),
                    shape: [0; MAX_RANK],
                    lo: [0; MAX_RANK],
                    ext: [0; MAX_RANK],
                };
                b.shape[..shape.len()].copy_from_slice(shape);
                b.lo[..shape.len()].copy_from_slice(lo);
                b.ext[..shape.len()].copy_from_slice(ext);
                // SAFETY: `got` holds the whole tensor.
                unsafe { border(&pool, got.as_mut_ptr(), &b, &value) };
                assert!(got == want, "{shape:?} box {lo:?}+{ext:?} es {es}");
            }
        }
    }

    /// `copy_group` of pieces of one buffer into pieces of another, small
    /// (one thread) and big (shared), rows and contiguous runs, an empty
    /// piece: each piece exact, nothing else written.
    #[test]
    fn copy_groups_are_exact() {
        let pool = Cores::new(2).unwrap();
        for scale in [1i64, 700] {
            let (rows, cols) = (8 * scale, 1024i64);
            let src = bytes((rows * cols) as usize, scale as u64);
            let mut dst = vec![0xeeu8; (rows * cols + 64) as usize];
            // Left and right halves of the rows into two dense blocks, the
            // rest contiguous, and an empty piece.
            let half = rows * cols / 2;
            let items = [
                (
                    CopyDesc::new(&[rows / 2, cols / 2], &[cols / 2, 1], &[cols, 1], 1),
                    dst.as_mut_ptr(),
                    src.as_ptr(),
                ),
                (
                    CopyDesc::new(&[rows / 2, cols / 2], &[cols / 2, 1], &[cols, 1], 1),
                    // SAFETY (pointer arithmetic): inside the buffers.
                    unsafe { dst.as_mut_ptr().add((half / 2) as usize) },
                    unsafe { src.as_ptr().add((cols / 2) as usize) },
                ),
                (
                    CopyDesc::new(&[0, cols], &[cols, 1], &[cols, 1], 1),
                    dst.as_mut_ptr(),
                    src.as_ptr(),
                ),
                (
                    CopyDesc::new(&[half], &[1], &[1], 1),
                    unsafe { dst.as_mut_ptr().add(half as usize) },
                    unsafe { src.as_ptr().add(half as usize) },
                ),
            ];
            // SAFETY: the pieces lie in the buffers and write disjoint bytes.
            unsafe { copy_group(&pool, &items) };
            let c2 = (cols / 2) as usize;
            for r in 0..(rows / 2) as usize {
                let s = &src[r * cols as usize..];
                assert_eq!(&dst[r * c2..(r + 1) * c2], &s[..c2], "left {r}");
                let d = &dst[half as usize / 2 + r * c2..];
                assert_eq!(&d[..c2], &s[c2..2 * c2], "right {r}");
            }
            assert!(dst[half as usize..(2 * half) as usize] == src[half as usize..]);
            assert!(dst[(2 * half) as usize..].iter().all(|&b| b == 0xee));
        }
    }

    /// Gathers of every specialised width and of rows, small and past the
    /// streaming threshold, by outer rows and by index ranges, against a
    /// naive loop; repeated indices; the first bad index reported.
    #[test]
    fn gathers_of_every_width_are_exact() {
        let pool = Cores::new(2).unwrap();
        for inner in [1i64, 2, 4, 8, 16, 12, 2048, 4097] {
            // Rows past the streaming threshold: many outer rows of a
            // 9-row source.
            let rows_big = STREAM_BYTES as i64 / (9 * inner) + 1;
            let shapes: &[(i64, i64, i64)] = if inner >= 2048 {
                &[(3, 37, 100), (1, 5, 9), (rows_big, 9, 9)]
            } else {
                &[(3, 37, 1031), (1, 513, 9), (1, 64, 20_000)]
            };
            for &(outer, n_src, n_index) in shapes {
                let src = bytes((outer * n_src * inner) as usize, inner as u64);
                let idx: Vec<i64> = (0..n_index).map(|i| (i * 7 + i / 3) % n_src).collect();
                let mut dst = vec![0u8; (outer * n_index * inner) as usize];
                // SAFETY: buffers sized for the shapes.
                let bad = unsafe {
                    gather(
                        &pool,
                        dst.as_mut_ptr(),
                        src.as_ptr(),
                        outer,
                        n_src,
                        inner,
                        idx.as_ptr().cast(),
                        true,
                        n_index,
                    )
                };
                assert_eq!(bad, None);
                let ib = inner as usize;
                for o in 0..outer as usize {
                    for (i, &v) in idx.iter().enumerate() {
                        let at = (o * n_index as usize + i) * ib;
                        let from = (o * n_src as usize + v as usize) * ib;
                        assert_eq!(&dst[at..at + ib], &src[from..from + ib], "inner {inner}");
                    }
                }
                let mut bad_idx = idx.clone();
                let at = (n_index - 1) as usize;
                bad_idx[at] = n_src;
                // SAFETY: as above.
                let bad = unsafe {
                    gather(
                        &pool,
                        dst.as_mut_ptr(),
                        src.as_ptr(),
                        outer,
                        n_src,
                        inner,
                        bad_idx.as_ptr().cast(),
                        true,
                        n_index,
                    )
                };
                assert_eq!(bad, Some((at as i64, n_src)));
            }
        }
    }

    /// Work posted while the helper sleeps and not worth waking it runs
    /// on the caller alone; with `wake`, every block still runs once.
    #[test]
    fn every_block_runs_once_awake_or_not() {
        let pool = Cores::new(2).unwrap();
        for wake in [false, true, false] {
            let hits: Vec<std::sync::atomic::AtomicU32> = (0..1000)
                .map(|_| std::sync::atomic::AtomicU32::new(0))
                .collect();
            pool.run(1000, 16, wake, |lo, hi| {
                for h in &hits[lo as usize..hi as usize] {
                    h.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
            assert!(hits
                .iter()
                .all(|h| h.load(std::sync::atomic::Ordering::Relaxed) == 1));
        }
    }
}
