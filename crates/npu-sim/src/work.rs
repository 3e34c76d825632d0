//! Device work, as a stream runs it (by value: nothing here is boxed): an
//! operator launch (its memory regions, checked before any kernel runs,
//! and its kernel calls) and an asynchronous copy; and the [`Fault`] either
//! can end in. Built by the layers above (the executor's second phase, the
//! runtime's copies), run by [`crate::stream`].

use crate::kernels::{self, BinaryOp, CopyDesc, KDtype};
use crate::memory::Allocation;
use cann_sys::*;
use smallvec::SmallVec;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A failure inside a task; sticky on its stream until synchronisation.
#[derive(Clone, Debug)]
pub struct Fault {
    /// Runtime status code reported at synchronisation.
    pub code: i32,
    /// Explanation, returned by `aclGetRecentErrMsg`.
    pub message: String,
}

/// A memory region a launch touches.
pub struct Region {
    what: &'static str,
    addr: u64,
    len: u64,
    write: bool,
    /// The allocation holding `addr` when the work was enqueued.
    alloc: Option<Arc<Allocation>>,
}

/// A pointer into a region: device address `addr` inside region `region`.
#[derive(Clone, Copy, Debug)]
pub struct Ref {
    region: usize,
    addr: u64,
}

impl Ref {
    /// The pointer `bytes` further into the same region.
    pub fn offset(r: Ref, bytes: u64) -> Ref {
        Ref {
            region: r.region,
            addr: r.addr + bytes,
        }
    }
}

/// One kernel call of a launch.
pub enum Step {
    /// Strided copy.
    Copy(CopyDesc, Ref, Ref),
    /// Casting strided copy: (desc, dst type, dst, src type, src).
    Cast(CopyDesc, KDtype, Ref, KDtype, Ref),
    /// Contiguous fill of `count` elements with `value` (its first
    /// `len` bytes: one element).
    Fill(Ref, i64, [u8; 16], u8),
    /// Gather (each index checked as loaded): dst, src, outer, n_src,
    /// inner bytes, index, 64-bit, n_index.
    Gather(Ref, Ref, i64, i64, i64, Ref, bool, i64),
    /// Slices at coordinate tuples (GatherNd; each coordinate checked as
    /// loaded): dst, src, self's leading extents (k of them), inner bytes,
    /// indices, 64-bit, negative coordinates allowed, tuples.
    GatherNd(
        Ref,
        Ref,
        crate::executor::Strides,
        i64,
        Ref,
        bool,
        bool,
        i64,
    ),
    /// The elements where a mask is set, packed (MaskedSelect): desc (the
    /// broadcast shape, the mask's strides as `dst_stride`, `self`'s as
    /// `src_stride`), dst, src, mask.
    MaskedSelect(CopyDesc, Ref, Ref, Ref),
    /// Scatter of rows (IndexCopy; each index checked as loaded): dst,
    /// src, outer, n_dst, inner bytes, index, 64-bit, n_index.
    Scatter(Ref, Ref, i64, i64, i64, Ref, bool, i64),
    /// Element-wise gather (torch.gather; each index checked as loaded):
    /// desc (the index's shape, `out`'s and `self`'s strides), dim, n_src,
    /// dst, src, index (contiguous), 64-bit.
    GatherElements(CopyDesc, u8, i64, Ref, Ref, Ref, bool),
    /// Contiguous elementwise arithmetic of one dtype: op, dtype, dst, a,
    /// b, alpha (one element of the dtype; `None`: 1), count. dst may be a.
    Binary(BinaryOp, KDtype, Ref, Ref, Ref, Option<[u8; 16]>, i64),
    /// The coordinates of a mask's set elements in row-major order
    /// (PyTorch's `nonzero()`, for Index's BOOL members): desc (the mask's
    /// shape, its strides as `src_stride`, one byte each), mask, dst (INT64,
    /// `count` rows of `rank` coordinates), count. A mask with another
    /// number of set elements is a device fault (the output was sized for
    /// `count`).
    Nonzero(CopyDesc, Ref, Ref, i64),
    /// The cells of a contiguous tensor outside a box, set to `value` (its
    /// first `len` bytes: one element): ConstantPadNd's border, whose
    /// inside a copy writes.
    Border(Ref, kernels::Border, [u8; 16], u8),
    /// Triangle mask in place over contiguous matrices: data, [mats, rows,
    /// cols], diagonal, lower (Tril; else Triu), element size.
    Tri(Ref, [i64; 3], i64, bool, u8),
}

/// A repeatable executor's launch, kept to run again ([`Reuse::arm`]):
/// built for one set of addresses (the executor's inputs, outputs and
/// workspace) in one runtime, with the allocations its regions were found
/// in held weakly between runs (a kept launch never keeps freed memory
/// mapped).
pub struct Reuse {
    serial: u64,
    addrs: SmallVec<[u64; 4]>,
    /// The launch; its regions hold their allocations only while armed.
    pub launch: Launch,
    allocs: SmallVec<[std::sync::Weak<Allocation>; 4]>,
}

impl Reuse {
    /// The addresses a launch of `ex` is built for: its inputs', its
    /// outputs', then the workspace `ws`.
    pub fn addrs(ex: &crate::objects::Executor, ws: u64) -> SmallVec<[u64; 4]> {
        let mut a: SmallVec<[u64; 4]> = ex.inputs.iter().map(|t| t.data).collect();
        a.extend(ex.outputs.iter().map(|t| t.data));
        a.push(ws);
        a
    }

    /// Keeps `launch` (armed), built in runtime `serial` for `addrs`; gives
    /// it back when a region lies in no allocation (such a launch faults:
    /// it is built anew each time, as any other).
    pub fn keep(
        serial: u64,
        addrs: SmallVec<[u64; 4]>,
        launch: Launch,
    ) -> Result<Box<Reuse>, Box<Launch>> {
        let Some(allocs) = launch
            .regions
            .iter()
            .map(|r| r.alloc.as_ref().map(Arc::downgrade))
            .collect::<Option<_>>()
        else {
            return Err(Box::new(launch));
        };
        Ok(Box::new(Reuse {
            serial,
            addrs,
            launch,
            allocs,
        }))
    }

    /// Makes the kept launch ready to run again if it is the one a build
    /// for `ex` with workspace `ws` ([`Reuse::addrs`]) in runtime `serial`
    /// would make now: same runtime, same addresses, and every allocation
    /// it found still live ([`Allocation::upgrade_live`]). Building
    /// depends on nothing else (the executor's plan and views are fixed
    /// but for their addresses), and live allocations never overlap, so
    /// the live allocation that held an address still holds it: the lookup
    /// would find it again. The memory checker runs on it before its
    /// kernels, as on any launch.
    pub fn arm(&mut self, serial: u64, ex: &crate::objects::Executor, ws: u64) -> bool {
        let n = ex.inputs.len();
        let same = self.addrs.len() == n + ex.outputs.len() + 1
            && ex.inputs.iter().zip(&self.addrs).all(|(t, &a)| t.data == a)
            && ex
                .outputs
                .iter()
                .zip(&self.addrs[n..])
                .all(|(t, &a)| t.data == a)
            && self.addrs.last() == Some(&ws);
        if self.serial != serial || !same || self.launch.steps.is_empty() {
            return false;
        }
        for (r, w) in self.launch.regions.iter_mut().zip(&self.allocs) {
            r.alloc = Allocation::upgrade_live(w);
        }
        if self.launch.regions.iter().all(|r| r.alloc.is_some()) {
            return true;
        }
        self.launch.release();
        false
    }
}

/// The work of one second-phase call, built on the caller's thread and run
/// on the stream.
pub struct Launch {
    op: &'static str,
    regions: SmallVec<[Region; 4]>,
    /// Kernel calls, in order.
    pub steps: SmallVec<[Step; 2]>,
    /// Bytes the launch touches (its regions, summed).
    bytes: u64,
}

impl Launch {
    /// An empty launch for `op`.
    pub fn new(op: &'static str) -> Launch {
        Launch {
            op,
            regions: SmallVec::new(),
            steps: SmallVec::new(),
            bytes: 0,
        }
    }

    /// Declares a region holding `[addr, addr + len)`, found in `alloc`
    /// (the allocation holding `addr` at enqueue time, if any); returns a
    /// pointer to its start.
    pub(crate) fn push_region(
        &mut self,
        what: &'static str,
        addr: u64,
        len: u64,
        write: bool,
        alloc: Option<Arc<Allocation>>,
    ) -> Ref {
        self.bytes = self.bytes.saturating_add(len);
        self.regions.push(Region {
            what,
            addr,
            len,
            write,
            alloc,
        });
        Ref {
            region: self.regions.len() - 1,
            addr,
        }
    }

    /// Lets go of the allocations its regions hold (what a run needs
    /// them for is over); the launch can be armed again ([`Reuse::arm`]).
    pub(crate) fn release(&mut self) {
        for r in &mut self.regions {
            r.alloc = None;
        }
    }

    /// Bytes the launch touches (its regions, summed).
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The operator (its aclnn name) the launch runs.
    pub(crate) fn op(&self) -> &'static str {
        self.op
    }

    /// The memory checker: every region must lie inside the allocation that
    /// held it at enqueue time, which must still be live. Returns the host
    /// address of each region's start.
    fn check(&self) -> Result<SmallVec<[*mut u8; 4]>, Fault> {
        let mut hosts = SmallVec::new();
        for r in &self.regions {
            let access = if r.write { "writes" } else { "reads" };
            let end = r.addr.saturating_add(r.len);
            match &r.alloc {
                Some(a) if a.freed.load(Ordering::Acquire) => {
                    return Err(Fault {
                        code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
                        message: format!(
                            "npu-sim memcheck: {}: use after free: {} {access} [{:#x}, {end:#x}) in {a}, \
                             which was freed while the kernel was pending",
                            self.op, r.what, r.addr
                        ),
                    })
                }
                Some(a) if a.contains(r.addr, r.len) => hosts.push(a.host_ptr(r.addr)),
                Some(a)
                    if a.contains_padded(r.addr, r.len)
                        && crate::memory::padding_access(|| {
                            format!(
                                "{}: {} {access} [{:#x}, {end:#x}): it runs past the end of {a}",
                                self.op, r.what, r.addr
                            )
                        })
                        .is_ok() =>
                {
                    hosts.push(a.host_ptr(r.addr))
                }
                other => {
                    let code = if r.write {
                        ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW
                    } else {
                        ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW
                    };
                    let near = match other {
                        Some(a) if a.contains_padded(r.addr, r.len) => format!(
                            "it runs past the end of {a} (into the padding aclrtMalloc adds: \
                             refused, NPU_SIM_STRICT_MEMORY is on)"
                        ),
                        Some(a) => format!("it runs past the end of {a}"),
                        None => "no live allocation holds its start".to_string(),
                    };
                    return Err(Fault {
                        code,
                        message: format!(
                            "npu-sim memcheck: {}: {} {access} [{:#x}, {end:#x}) ({} bytes): {near}; no memory was touched",
                            self.op, r.what, r.addr, r.len
                        ),
                    });
                }
            }
        }
        Ok(hosts)
    }

    /// Runs the copies from step `first` together if two or more may
    /// ([`Launch::independent_copies`]): the end of the run, or `None`
    /// (nothing run). Out of line: most launches have one step, and the
    /// loop of [`Launch::run`] stays small for them.
    #[inline(never)]
    fn run_copy_group(
        &self,
        pool: &crate::cores::Cores,
        hosts: &[*mut u8],
        first: usize,
    ) -> Option<usize> {
        let end = self.independent_copies(first);
        if end - first < 2 {
            return None;
        }
        let items: SmallVec<[_; 8]> = self.steps[first..end]
            .iter()
            .filter_map(|s| match s {
                Step::Copy(d, dst, src) => Some((
                    *d,
                    self.host(hosts, *dst),
                    self.host(hosts, *src) as *const u8,
                )),
                _ => None,
            })
            .collect();
        // SAFETY: every pointer was derived from a region the memory
        // checker proved to lie in a live allocation, each region covers
        // every element its view addresses, and `independent_copies`
        // proved that no copy of the run writes bytes another one reads
        // or writes.
        unsafe { kernels::copy_group(pool, &items) };
        Some(end)
    }

    /// The end of the run of copies from step `first` (a copy) that may
    /// run together: each copy's written span meets no other copy's span
    /// in the run, read or written (device addresses; a span is the
    /// bytes from a view's lowest to its highest element).
    fn independent_copies(&self, first: usize) -> usize {
        self.independent_copies_over(first, kernels::PARALLEL_BYTES)
    }

    /// [`Launch::independent_copies`], analysed only when the launch and
    /// the copies from `first` touch at least `min_bytes`.
    fn independent_copies_over(&self, first: usize, min_bytes: u64) -> usize {
        // Copies that together stay small run on one thread whatever
        // their grouping (a pad's edge slabs after its interior).
        let together = self.steps[first..]
            .iter()
            .take(8)
            .map_while(|s| match s {
                Step::Copy(d, ..) => Some(d),
                _ => None,
            })
            .map(|d| kernels::numel(d).saturating_mul(d.elem_size as u64))
            .fold(0u64, u64::saturating_add);
        if self.bytes < min_bytes || together < min_bytes {
            return first + 1;
        }
        let mut taken: SmallVec<[(Side, Side); 8]> = SmallVec::new();
        while let Some(Step::Copy(d, dst, src)) = self.steps.get(first + taken.len()) {
            if taken.len() == 8 {
                break;
            }
            let (w, r) = (Side::of(d, dst.addr, true), Side::of(d, src.addr, false));
            if w.span.is_none()
                || r.span.is_none()
                || taken
                    .iter()
                    .any(|(w2, r2)| w.meets(w2) || w.meets(r2) || r.meets(w2))
            {
                break;
            }
            taken.push((w, r));
        }
        first + taken.len().max(1)
    }

    fn host(&self, hosts: &[*mut u8], r: Ref) -> *mut u8 {
        let reg = &self.regions[r.region];
        // SAFETY: `r.addr` is inside region `r.region` by construction, and
        // the region was checked to lie in its allocation.
        unsafe { hosts[r.region].add((r.addr - reg.addr) as usize) }
    }

    /// Runs the launch (on the stream's thread).
    pub fn run(&self, pool: &crate::cores::Cores) -> Result<(), Fault> {
        let hosts = self.check()?;
        let mut next = 0;
        while let Some(step) = self.steps.get(next) {
            next += 1;
            if matches!(step, Step::Copy(..))
                && matches!(self.steps.get(next), Some(Step::Copy(..)))
            {
                if let Some(end) = self.run_copy_group(pool, &hosts, next - 1) {
                    next = end;
                    continue;
                }
            }
            // SAFETY (all kernel calls): every pointer was derived from a
            // region the memory checker proved to lie in a live allocation,
            // and each region covers every element its view addresses.
            match step {
                Step::Copy(d, dst, src) => unsafe {
                    kernels::copy(pool, *d, self.host(&hosts, *dst), self.host(&hosts, *src))
                },
                Step::Cast(d, dt, dst, st, src) => {
                    let ok = unsafe {
                        kernels::cast(
                            pool,
                            *d,
                            *dt,
                            self.host(&hosts, *dst),
                            *st,
                            self.host(&hosts, *src),
                        )
                    };
                    if !ok {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: cast {st:?} -> {dt:?} is not supported",
                                self.op
                            ),
                        });
                    }
                }
                Step::Nonzero(d, mask, dst, count) => {
                    let found =
                        nonzero(d, self.host(&hosts, *mask), self.host(&hosts, *dst), *count);
                    if found != *count {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: a BOOL index mask has {found} set elements where the \
                                 output was sized for {count}; nothing past the first {count} \
                                 coordinates was written",
                                self.op
                            ),
                        });
                    }
                }
                Step::Fill(dst, count, value, len) => unsafe {
                    kernels::fill(
                        pool,
                        self.host(&hosts, *dst),
                        *count,
                        &value[..*len as usize],
                    )
                },
                Step::Border(dst, b, value, len) => unsafe {
                    kernels::border(pool, self.host(&hosts, *dst), b, &value[..*len as usize])
                },
                Step::Tri(data, [mats, rows, cols], diagonal, lower, es) => unsafe {
                    kernels::tri_zero(
                        pool,
                        self.host(&hosts, *data),
                        *mats,
                        *rows,
                        *cols,
                        *diagonal,
                        *lower,
                        *es as usize,
                    )
                },
                Step::Binary(op, t, dst, a, b, alpha, n) => {
                    let ok = unsafe {
                        kernels::binary(
                            pool,
                            *op,
                            *t,
                            self.host(&hosts, *dst),
                            self.host(&hosts, *a),
                            self.host(&hosts, *b),
                            alpha.as_ref(),
                            *n,
                        )
                    };
                    if !ok {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!("npu-sim: {}: no {op:?} kernel for {t:?}", self.op),
                        });
                    }
                }
                Step::GatherNd(dst, src, dims, inner, index, is64, negative, tuples) => {
                    let bad = unsafe {
                        kernels::gather_nd(
                            pool,
                            self.host(&hosts, *dst),
                            self.host(&hosts, *src),
                            dims,
                            *inner,
                            self.host(&hosts, *index),
                            *is64,
                            *negative,
                            *tuples,
                        )
                    };
                    if let Some((pos, val)) = bad {
                        let bound = dims
                            .get(pos as usize % dims.len().max(1))
                            .copied()
                            .unwrap_or(0);
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: index out of range: position {pos} value {val} bound {bound} \
                                 (valid coordinates are 0..{bound}); the kernel stopped at that index",
                                self.op
                            ),
                        });
                    }
                }
                Step::MaskedSelect(d, dst, src, mask) => unsafe {
                    kernels::masked_select(
                        pool,
                        *d,
                        self.host(&hosts, *dst),
                        self.host(&hosts, *src),
                        self.host(&hosts, *mask),
                    );
                },
                Step::Scatter(dst, src, outer, n_dst, inner, index, is64, n_index) => {
                    let bad = unsafe {
                        kernels::scatter(
                            pool,
                            self.host(&hosts, *dst),
                            self.host(&hosts, *src),
                            *outer,
                            *n_dst,
                            *inner,
                            self.host(&hosts, *index),
                            *is64,
                            *n_index,
                        )
                    };
                    if let Some((pos, val)) = bad {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: index out of range: position {pos} value {val} bound {n_dst} \
                                 (valid indices are 0..{n_dst}); the kernel stopped at that index",
                                self.op
                            ),
                        });
                    }
                }
                Step::GatherElements(d, dim, n_src, dst, src, index, is64) => {
                    let bad = unsafe {
                        kernels::gather_elements(
                            pool,
                            *d,
                            *dim as usize,
                            *n_src,
                            self.host(&hosts, *dst),
                            self.host(&hosts, *src),
                            self.host(&hosts, *index),
                            *is64,
                        )
                    };
                    if let Some((pos, val)) = bad {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: index out of range: position {pos} value {val} bound {n_src} \
                                 (valid indices are 0..{n_src}); the kernel stopped at that index",
                                self.op
                            ),
                        });
                    }
                }
                Step::Gather(dst, src, outer, n_src, inner, index, is64, n_index) => {
                    let bad = unsafe {
                        kernels::gather(
                            pool,
                            self.host(&hosts, *dst),
                            self.host(&hosts, *src),
                            *outer,
                            *n_src,
                            *inner,
                            self.host(&hosts, *index),
                            *is64,
                            *n_index,
                        )
                    };
                    if let Some((pos, val)) = bad {
                        return Err(Fault {
                            code: ACL_ERROR_RT_AICORE_EXCEPTION,
                            message: format!(
                                "npu-sim: {}: index out of range: position {pos} value {val} bound {n_src} \
                                 (valid indices are 0..{n_src}); the kernel stopped at that index",
                                self.op
                            ),
                        });
                    }
                }
            }
        }
        // Freed while the kernel ran: the data it produced is not trusted.
        for r in &self.regions {
            if let Some(a) = &r.alloc {
                if a.freed.load(Ordering::Acquire) {
                    return Err(Fault {
                        code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
                        message: format!(
                            "npu-sim memcheck: {}: use after free: {a} ({}) was freed while the kernel ran",
                            self.op, r.what
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

// SAFETY: a Launch holds addresses and Arcs of Sync allocations; its raw
// host pointers are only formed while running.
unsafe impl Send for Launch {}

/// A checked copy: both ends located, kinds matched.
pub(crate) struct Copy {
    /// Destination address, and the device allocation holding it (`None`:
    /// host memory).
    pub(crate) dst: (u64, Option<Arc<Allocation>>),
    /// Source address, and the device allocation holding it.
    pub(crate) src: (u64, Option<Arc<Allocation>>),
    /// Bytes to copy.
    pub(crate) count: usize,
    /// A copy of another shape (pitched, through device-resident base
    /// pointers, a 32-bit fill): `None` for `count` contiguous bytes.
    pub(crate) ext: Option<Box<crate::runtime::CopyExt>>,
}

fn host_ptr(end: &(u64, Option<Arc<Allocation>>)) -> *mut u8 {
    match &end.1 {
        Some(a) => a.host_ptr(end.0),
        None => end.0 as *mut u8,
    }
}

/// The fault of a copy or fill whose device end was freed while it was
/// pending, if it was.
pub(crate) fn freed_fault(api: &str, end: &(u64, Option<Arc<Allocation>>)) -> Option<Fault> {
    let a = end.1.as_ref()?;
    a.freed
        .load(std::sync::atomic::Ordering::Acquire)
        .then(|| Fault {
            code: ACL_ERROR_RT_DEVICE_MEM_ERROR,
            message: format!(
                "npu-sim: {api}: use after free: {a} was freed while the copy was pending"
            ),
        })
}

impl Copy {
    /// Copies (split across `cores` when large and the ends do not
    /// overlap); faults instead if device memory was freed in between.
    pub(crate) fn run(&self, api: &str, cores: Option<&crate::cores::Cores>) -> Result<(), Fault> {
        if let Some(f) = freed_fault(api, &self.dst).or_else(|| freed_fault(api, &self.src)) {
            return Err(f);
        }
        if let Some(e) = &self.ext {
            return crate::runtime::run_copy_ext(self, e);
        }
        let (src, dst) = (host_ptr(&self.src), host_ptr(&self.dst));
        let apart = (dst as usize).abs_diff(src as usize) >= self.count;
        match cores {
            Some(c) if apart && self.count >= 1 << 20 => {
                let d = kernels::CopyDesc::new(&[self.count as i64], &[1], &[1], 1);
                // SAFETY: as below, and the ends do not overlap.
                unsafe { kernels::copy(c, d, dst, src) }
            }
            // SAFETY: both ranges were located (host: caller's promise;
            // device: inside a live allocation, still live as just checked,
            // and kept mapped by the Arc). `copy` tolerates overlap.
            _ => unsafe { std::ptr::copy(src, dst, self.count) },
        }
        Ok(())
    }
}

/// A checked asynchronous copy, queued by value on its stream.
pub(crate) struct SendCopy(pub(crate) Copy);
// SAFETY: a Copy holds addresses (u64) and Arcs of Sync allocations.
unsafe impl Send for SendCopy {}

impl SendCopy {
    /// Runs the copy (on the stream's worker, or inline on an idle stream).
    pub(crate) fn run(&self, cores: &crate::cores::Cores) -> Result<(), Fault> {
        self.0.run("aclrtMemcpyAsync", Some(cores))
    }
}

/// A checked asynchronous fill (`aclrtMemsetAsync`), by value: `count`
/// bytes at `addr` (inside `alloc`, the allocation holding it when the
/// fill was enqueued; `None` for an empty fill) set to `value`'s low byte.
/// Plain data, so a captured fill can run again at every replay.
pub(crate) struct Memset {
    pub(crate) alloc: Option<Arc<Allocation>>,
    pub(crate) addr: u64,
    pub(crate) value: i32,
    pub(crate) count: usize,
}

impl Memset {
    /// Fills; faults instead if the memory was freed in between.
    pub(crate) fn run(&self, api: &str) -> Result<(), Fault> {
        let Some(a) = &self.alloc else { return Ok(()) };
        if let Some(f) = freed_fault(api, &(self.addr, Some(a.clone()))) {
            return Err(f);
        }
        // SAFETY: [addr, addr + count) lay in the allocation `a` when the
        // fill was planned, `a` is still live (just checked) and kept
        // mapped by the Arc.
        unsafe {
            a.host_ptr(self.addr)
                .write_bytes(self.value as u8, self.count)
        };
        Ok(())
    }
}

/// Writes the coordinates of the set bytes of the mask `d` describes (its
/// shape, its strides in `src_stride`), in row-major order, as INT64 rows
/// of `d.rank` coordinates at `dst`, at most `count` rows; returns the
/// number of set elements.
fn nonzero(d: &CopyDesc, mask: *mut u8, dst: *mut u8, count: i64) -> i64 {
    let rank = d.rank as usize;
    let shape = &d.shape[..rank];
    if shape.contains(&0) {
        return 0;
    }
    let mut idx = [0i64; crate::kernels::MAX_RANK];
    let mut found = 0i64;
    loop {
        let off: i64 = (0..rank).map(|k| idx[k] * d.src_stride[k]).sum();
        // SAFETY: `off` addresses an element of the mask's view, inside the
        // region the memory checker proved live (the launch declared it).
        if unsafe { *mask.offset(off as isize) } != 0 {
            if found < count {
                for (k, &c) in idx[..rank].iter().enumerate() {
                    // SAFETY: row `found` < `count` of `rank` INT64s lies in
                    // the region declared for `count * rank * 8` bytes.
                    unsafe {
                        dst.add(((found as usize) * rank + k) * 8)
                            .cast::<i64>()
                            .write_unaligned(c)
                    };
                }
            }
            found += 1;
        }
        let mut k = rank;
        loop {
            if k == 0 {
                return found;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// One side (destination or source) of a copy: its view and the device
/// bytes `[lo, hi)` from its lowest to its highest element (`None`: no
/// element, or past the address space).
struct Side<'a> {
    addr: u64,
    rank: usize,
    shape: &'a [i64; kernels::MAX_RANK],
    strides: &'a [i64; kernels::MAX_RANK],
    es: usize,
    span: Option<(u64, u64)>,
}

impl<'a> Side<'a> {
    fn of(d: &'a CopyDesc, addr: u64, dst: bool) -> Side<'a> {
        let rank = (d.rank.max(0) as usize).min(kernels::MAX_RANK);
        let strides = if dst { &d.dst_stride } else { &d.src_stride };
        Side {
            addr,
            rank,
            shape: &d.shape,
            strides,
            es: d.elem_size.max(1),
            span: span(rank, &d.shape, strides, d.elem_size.max(1), addr),
        }
    }

    /// Whether the two views may share a byte: not when their spans are
    /// apart, nor when both are boxes of one dense layout (same strides,
    /// each a whole multiple of the next, with room for both views'
    /// extents) whose index ranges miss each other on some dim (the
    /// quarters of a Roll, the halves of rows a Cat along the last dim
    /// writes); otherwise, conservatively, yes.
    fn meets(&self, o: &Side) -> bool {
        let (Some(a), Some(b)) = (self.span, o.span) else {
            return false;
        };
        if !(a.0 < b.1 && b.0 < a.1) {
            return false;
        }
        if self.es != o.es
            || self.rank != o.rank
            || self.strides[..self.rank] != o.strides[..o.rank]
        {
            return true;
        }
        // The dims either view extends along, by stride, largest first.
        let mut dims: SmallVec<[usize; 8]> = (0..self.rank)
            .filter(|&k| self.shape[k] > 1 || o.shape[k] > 1)
            .collect();
        dims.sort_by_key(|&k| std::cmp::Reverse(self.strides[k]));
        let Some(&last) = dims.last() else {
            return true; // one element each, spans met: the same bytes
        };
        let unit = self.strides[last];
        // A dense layout: each stride a whole multiple of the next, with
        // room for both views' extents.
        let dense = unit > 0
            && dims.windows(2).all(|w| {
                let (s_hi, s) = (self.strides[w[0]], self.strides[w[1]]);
                s_hi > s && s_hi % s == 0 && s_hi / s >= self.shape[w[1]].max(o.shape[w[1]])
            });
        if !dense {
            return true;
        }
        let delta = o.addr as i128 - self.addr as i128;
        let es = self.es as i128;
        if delta % es != 0 {
            return true;
        }
        let delta = delta / es;
        if delta % unit as i128 != 0 {
            // Every element of one lies between two of the other.
            return false;
        }
        // `o`'s box relative to `self`'s, in digits of the layout (and
        // the other way round if that one carries).
        let disjoint = |delta: i128, a: &Side, b: &Side| -> Option<bool> {
            let mut q = delta / unit as i128;
            let mut apart = false;
            for w in (0..dims.len()).rev() {
                let k = dims[w];
                let digit = if w == 0 {
                    q
                } else {
                    let m = (a.strides[dims[w - 1]] / a.strides[k]) as i128;
                    let digit = q.rem_euclid(m);
                    q = q.div_euclid(m);
                    if digit + b.shape[k] as i128 > m {
                        return None; // `b` carries into the next dim
                    }
                    digit
                };
                apart |= digit >= a.shape[k] as i128 || digit + (b.shape[k] as i128) <= 0;
            }
            Some(apart)
        };
        match disjoint(delta, self, o).or_else(|| disjoint(-delta, o, self)) {
            Some(apart) => !apart,
            None => true,
        }
    }
}

/// The device bytes `[lo, hi)` a view at `addr` spans (`None`: no
/// element, or past the address space).
fn span(
    rank: usize,
    shape: &[i64; kernels::MAX_RANK],
    strides: &[i64; kernels::MAX_RANK],
    es: usize,
    addr: u64,
) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&n, &stride) in shape[..rank].iter().zip(&strides[..rank]) {
        if n <= 0 {
            return None;
        }
        let reach = (n as i128 - 1) * stride as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let es = es as i128;
    let lo = addr as i128 + lo * es;
    let hi = addr as i128 + (hi + 1) * es;
    (lo >= 0 && hi <= u64::MAX as i128).then_some((lo as u64, hi as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(shape: &[i64], dst: (u64, &[i64]), src: (u64, &[i64])) -> Step {
        let at = |addr| Ref { region: 0, addr };
        Step::Copy(CopyDesc::new(shape, dst.1, src.1, 4), at(dst.0), at(src.0))
    }

    impl Launch {
        /// The grouping decision alone, whatever the sizes.
        fn independent_copies_over_0(&self, first: usize) -> usize {
            self.independent_copies_over(first, 0)
        }
    }

    fn launch(steps: Vec<Step>) -> Launch {
        let mut l = Launch::new("test");
        l.steps.extend(steps);
        l.bytes = 1 << 20; // big enough to share the cores
        l
    }

    #[test]
    fn spans_cover_lowest_to_highest_element() {
        let span = |d: &CopyDesc, addr, dst| Side::of(d, addr, dst).span;
        let d = CopyDesc::new(&[3, 4], &[8, 1], &[-4, 2], 4);
        assert_eq!(
            span(&d, 1000, true),
            Some((1000, 1000 + (2 * 8 + 3 + 1) * 4))
        );
        assert_eq!(
            span(&d, 1000, false),
            Some((1000 - 8 * 4, 1000 + (3 * 2 + 1) * 4))
        );
        let empty = CopyDesc::new(&[3, 0], &[8, 1], &[4, 1], 4);
        assert_eq!(span(&empty, 1000, true), None);
        let below = CopyDesc::new(&[3], &[1], &[-1], 4);
        assert_eq!(span(&below, 4, false), None);
    }

    /// `Side::meets` against every pair of elements: never "apart" when
    /// two elements share a byte (what running copies together relies
    /// on), and exact for boxes of one dense layout. Random views: boxes
    /// of dense layouts, transposed ones, odd strides, negative strides,
    /// unaligned addresses.
    #[test]
    fn meets_is_never_wrong_about_a_shared_byte() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut exact, mut boxes) = (0, 0);
        for _ in 0..20_000 {
            let rank = 1 + next(3) as usize;
            let es = [1usize, 2, 4][next(3) as usize];
            // A dense parent layout, its strides, maybe permuted.
            let parent: Vec<i64> = (0..rank).map(|_| 1 + next(5) as i64).collect();
            let mut strides = vec![1i64; rank];
            for k in (0..rank.saturating_sub(1)).rev() {
                strides[k] = strides[k + 1] * parent[k + 1];
            }
            let odd = next(4) == 0;
            if odd {
                for s in strides.iter_mut() {
                    *s = next(7) as i64 - 2;
                }
            } else if next(3) == 0 {
                strides.reverse();
            }
            let mut view = |strides: &[i64]| {
                let shape: Vec<i64> = parent.iter().map(|&p| 1 + next(p as u64) as i64).collect();
                let addr = 4096 + next(48) * if next(4) == 0 { 1 } else { es as u64 };
                (CopyDesc::new(&shape, strides, strides, es), addr)
            };
            let (da, aa) = view(&strides);
            let (db, ab) = view(&strides);
            let bytes = |d: &CopyDesc, addr: u64| -> Vec<u64> {
                let mut v = Vec::new();
                let n: i64 = d.shape[..rank].iter().product();
                for i in 0..n {
                    let (mut q, mut off) = (i, 0i64);
                    for k in (0..rank).rev() {
                        off += (q % d.shape[k]) * d.dst_stride[k];
                        q /= d.shape[k];
                    }
                    let at = (addr as i64 + off * es as i64) as u64;
                    v.extend(at..at + es as u64);
                }
                v
            };
            let (ba, bb) = (bytes(&da, aa), bytes(&db, ab));
            let shared = ba.iter().any(|b| bb.contains(b));
            let (a, b) = (Side::of(&da, aa, true), Side::of(&db, ab, true));
            let said = a.meets(&b);
            assert_eq!(said, b.meets(&a), "symmetric: {da:?} @{aa} {db:?} @{ab}");
            if shared {
                assert!(said, "apart but sharing a byte: {da:?} @{aa} {db:?} @{ab}");
            }
            if !odd {
                boxes += 1;
                exact += usize::from(said == shared);
            }
        }
        // Boxes of one dense layout are told apart exactly unless an
        // address is not a whole element off (the conservative answer).
        assert!(exact * 10 >= boxes * 9, "{exact} of {boxes} boxes exact");
    }

    #[test]
    fn only_independent_copies_run_together() {
        // A split: pieces read disjoint parts and write disjoint outputs.
        let l = launch(vec![
            copy(&[16], (0, &[1]), (1000, &[1])),
            copy(&[16], (100, &[1]), (1064, &[1])),
            copy(&[16], (200, &[1]), (1128, &[1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 3);
        // Interleaved halves of rows (Cat along the last dim): their spans
        // meet, but they are disjoint boxes of one dense layout.
        let l = launch(vec![
            copy(&[4, 2], (0, &[4, 1]), (1000, &[2, 1])),
            copy(&[4, 2], (8, &[4, 1]), (1000, &[2, 1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 2);
        // The same with overlapping columns: they meet.
        let l = launch(vec![
            copy(&[4, 3], (0, &[4, 1]), (1000, &[3, 1])),
            copy(&[4, 2], (8, &[4, 1]), (1000, &[2, 1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 1);
        // A base copy, then a window written over its output (ViewCopy):
        // the second writes what the first wrote.
        let l = launch(vec![
            copy(&[16], (0, &[1]), (1000, &[1])),
            copy(&[4], (16, &[1]), (2000, &[1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 1);
        // Staging: the second reads what the first wrote.
        let l = launch(vec![
            copy(&[16], (5000, &[1]), (1000, &[1])),
            copy(&[16], (0, &[1]), (5000, &[1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 1);
        // The second writes what the first reads.
        let l = launch(vec![
            copy(&[16], (0, &[1]), (1000, &[1])),
            copy(&[16], (1032, &[1]), (3000, &[1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 1);
        // Two copies reading the same bytes may run together (Stack).
        let l = launch(vec![
            copy(&[16], (0, &[1]), (1000, &[1])),
            copy(&[16], (64, &[1]), (1000, &[1])),
            Step::Fill(Ref { region: 0, addr: 0 }, 1, [0; 16], 4),
            copy(&[16], (128, &[1]), (1000, &[1])),
        ]);
        assert_eq!(l.independent_copies_over_0(0), 2);
        assert_eq!(l.independent_copies_over_0(3), 4);
        // Small copies are not analysed: one thread runs them anyway
        // (a small launch, or small copies in a big one).
        let mut l = launch(vec![
            copy(&[16], (0, &[1]), (1000, &[1])),
            copy(&[16], (100, &[1]), (1064, &[1])),
        ]);
        assert_eq!(l.independent_copies(0), 1);
        l.bytes = 256;
        assert_eq!(l.independent_copies_over(0, 1024), 1);
        assert_eq!(l.independent_copies_over(0, 128), 2);
    }
}
