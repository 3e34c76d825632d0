//! The `sim_abi` fuzz target's body (shared with the regression replay in
//! `crates/npu-ops-cli/tests/fuzz_regressions.rs`): the simulator's C ABI driven by arbitrary
//! call sequences: arbitrary
//! sizes, shapes, strides, offsets, dtypes and parameters; null pointers;
//! handles it never issued, handles already destroyed, and live handles of
//! the wrong kind; init and finalize in between. Pointers the C contract
//! requires to be valid host memory (out-pointers, host copy ends, arrays
//! with their counts) are valid; everything the simulator must check is
//! arbitrary. Every call must return (no crash, no panic: internal_errors
//! stays 0), and after cleaning up nothing may be live.
use cann_sys::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(npu_sim::api)
}

/// The input as choices (0 past the end).
struct In<'a>(&'a [u8]);

impl In<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u64(&mut self) -> u64 {
        let mut v = 0u64;
        for i in 0..8 {
            v |= (self.u8() as u64) << (8 * i);
        }
        v
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.u64() % n
        }
    }
    /// True one time in `n`.
    fn one_in(&mut self, n: u8) -> bool {
        self.u8().is_multiple_of(n)
    }
    fn done(&self) -> bool {
        self.0.is_empty()
    }
    /// An i64: small, at the ends, or anything.
    fn i64(&mut self) -> i64 {
        match self.u8() % 8 {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => self.u64() as i64,
            3 => -(self.u8() as i64),
            _ => (self.u8() % 16) as i64,
        }
    }
    fn size(&mut self) -> usize {
        match self.u8() % 8 {
            0 => usize::MAX,
            1 => self.u64() as usize,
            2 => 0,
            _ => self.below(4096) as usize,
        }
    }
}

/// Host memory the fuzzer owns (valid for any count it passes).
const HOST: usize = 1 << 16;

struct St {
    host: Vec<u8>,
    pinned: Vec<*mut c_void>,
    bufs: Vec<(*mut c_void, usize)>,
    tensors: Vec<*mut aclTensor>,
    arrays: Vec<*mut aclIntArray>,
    scalars: Vec<*mut aclScalar>,
    execs: Vec<(*mut aclOpExecutor, u64, u8)>,
    streams: Vec<aclrtStream>,
    events: Vec<aclrtEvent>,
    /// Destroyed or freed handles and pointers (never valid again).
    dead: Vec<usize>,
}

impl St {
    /// A handle value: live of the right kind, live of another kind, dead,
    /// never issued, or null.
    fn any(&self, i: &mut In, live: &[usize]) -> usize {
        match i.u8() % 8 {
            0 => 0,
            1 => i.u64() as usize,
            2 if !self.dead.is_empty() => self.dead[i.below(self.dead.len() as u64) as usize],
            3 => {
                let all: Vec<usize> = self
                    .tensors
                    .iter()
                    .map(|p| *p as usize)
                    .chain(self.streams.iter().map(|p| *p as usize))
                    .chain(self.events.iter().map(|p| *p as usize))
                    .chain(self.bufs.iter().map(|b| b.0 as usize))
                    .collect();
                if all.is_empty() {
                    0
                } else {
                    all[i.below(all.len() as u64) as usize]
                }
            }
            _ if !live.is_empty() => live[i.below(live.len() as u64) as usize],
            _ => i.u64() as usize,
        }
    }

    fn stream(&self, i: &mut In) -> aclrtStream {
        let live: Vec<usize> = self.streams.iter().map(|p| *p as usize).collect();
        self.any(i, &live) as aclrtStream
    }

    fn tensor(&self, i: &mut In) -> *mut aclTensor {
        let live: Vec<usize> = self.tensors.iter().map(|p| *p as usize).collect();
        self.any(i, &live) as *mut aclTensor
    }

    /// A device address: inside a buffer, just past it, or anything.
    fn device(&self, i: &mut In) -> *mut c_void {
        if self.bufs.is_empty() || i.one_in(4) {
            return self.any(i, &[]) as *mut c_void;
        }
        let (p, n) = self.bufs[i.below(self.bufs.len() as u64) as usize];
        let off = match i.u8() % 4 {
            0 => n as u64,
            1 => i.u64() % (n as u64 + 64),
            _ => 0,
        };
        (p as u64).wrapping_add(off) as *mut c_void
    }

    fn host_ptr(&mut self, i: &mut In, count: usize) -> *mut c_void {
        let off = i.below((HOST - count.min(HOST)) as u64 + 1) as usize;
        self.host[off..].as_mut_ptr().cast()
    }
}

fn dtype(i: &mut In) -> aclDataType {
    match i.u8() % 20 {
        19 => aclDataType(i.u64() as i32 as _),
        k => aclDataType(k as _),
    }
}

fn memcpy_kind(i: &mut In) -> aclrtMemcpyKind {
    match i.u8() % 9 {
        8 => aclrtMemcpyKind(i.u64() as _),
        k => aclrtMemcpyKind(k as _),
    }
}

/// One call. Host ends of copies are the fuzzer's buffer; the copy kind
/// decides which end is host, so a host end is never arbitrary.
unsafe fn step(st: &mut St, i: &mut In) {
    let a = api();
    match i.u8() % 40 {
        0 | 1 => {
            let mut p = null_mut();
            let n = i.size();
            if (a.aclrtMalloc)(&mut p, n, aclrtMemMallocPolicy(0)) == 0 {
                st.bufs.push((p, n));
            }
        }
        2 => {
            if !st.bufs.is_empty() && i.one_in(2) {
                let (p, _) = st.bufs.swap_remove(i.below(st.bufs.len() as u64) as usize);
                (a.aclrtFree)(p);
                st.dead.push(p as usize);
            } else {
                (a.aclrtFree)(st.device(i));
            }
        }
        3..=5 => {
            // Synchronous copies: the host end (if any) is valid memory.
            let kind = memcpy_kind(i);
            let count = i.below(HOST as u64 + 16) as usize;
            let dest_max = if i.one_in(4) { i.size() } else { count };
            let (dst, src) = match kind.0 {
                1 => (st.device(i), st.host_ptr(i, count) as *const c_void),
                2 => (st.host_ptr(i, count), st.device(i) as *const c_void),
                3 | 6 | 7 => (st.device(i), st.device(i) as *const c_void),
                _ => return, // host-to-host or "default": both ends may be host
            };
            if count <= HOST {
                (a.aclrtMemcpy)(dst, dest_max, src, count, kind);
            }
        }
        6 => {
            let kind = memcpy_kind(i);
            let count = i.below(HOST as u64) as usize;
            let (dst, src) = match kind.0 {
                1 => (st.device(i), st.host_ptr(i, count) as *const c_void),
                2 => (st.host_ptr(i, count), st.device(i) as *const c_void),
                3 => (st.device(i), st.device(i) as *const c_void),
                _ => return,
            };
            let s = st.stream(i);
            (a.aclrtMemcpyAsync)(dst, count, src, count, kind, s);
        }
        7 => {
            let (p, max, v, n) = (st.device(i), i.size(), i.u64() as i32, i.size());
            if i.one_in(2) {
                (a.aclrtMemset)(p, max, v, n);
            } else {
                let s = st.stream(i);
                (a.aclrtMemsetAsync)(p, max, v, n, s);
            }
        }
        8..=11 => {
            let n = match i.u8() % 8 {
                0 => i.below(70),
                _ => i.below(5),
            } as usize;
            let dims: Vec<i64> = (0..n.max(1)).map(|_| i.i64()).collect();
            let strides: Vec<i64> = (0..n.max(1)).map(|_| i.i64()).collect();
            let sdims: Vec<i64> = (0..2).map(|_| i.i64()).collect();
            let (off, dt) = (i.i64(), dtype(i));
            let data = st.device(i);
            let dims_p = if i.one_in(16) { null() } else { dims.as_ptr() };
            let strides_p = if i.one_in(8) {
                null()
            } else {
                strides.as_ptr()
            };
            let t = (a.aclCreateTensor)(
                dims_p,
                n as u64,
                dt,
                strides_p,
                off,
                aclFormat(i.u8() as _),
                sdims.as_ptr(),
                (i.u8() % 3) as u64,
                data,
            );
            if !t.is_null() {
                st.tensors.push(t);
            }
        }
        12 => {
            let t = if !st.tensors.is_empty() && i.one_in(2) {
                let t = st
                    .tensors
                    .swap_remove(i.below(st.tensors.len() as u64) as usize);
                st.dead.push(t as usize);
                t
            } else {
                st.tensor(i)
            };
            (a.aclDestroyTensor)(t);
        }
        13 => {
            let n = i.below(10);
            let v: Vec<i64> = (0..n).map(|_| i.i64()).collect();
            let p = if i.one_in(8) { null() } else { v.as_ptr() };
            let arr = (a.aclCreateIntArray)(p, n);
            if !arr.is_null() {
                st.arrays.push(arr);
            }
        }
        14 => {
            let dt = dtype(i);
            let p = if i.one_in(8) {
                null_mut()
            } else {
                st.host_ptr(i, 16)
            };
            let s = (a.aclCreateScalar)(p, dt);
            if !s.is_null() {
                st.scalars.push(s);
            }
        }
        15 => {
            if let Some(arr) = st.arrays.pop() {
                (a.aclDestroyIntArray)(arr);
                st.dead.push(arr as usize);
            }
            if let Some(s) = st.scalars.pop() {
                (a.aclDestroyScalar)(s);
                st.dead.push(s as usize);
            }
            (a.aclDestroyIntArray)(st.any(i, &[]) as *const aclIntArray);
            (a.aclDestroyScalar)(st.any(i, &[]) as *const aclScalar);
        }
        16..=21 => {
            // A first phase with arbitrary arguments.
            let which = i.u8() % 43;
            let (mut ws, mut ex) = (0u64, null_mut());
            let wsp: *mut u64 = if i.one_in(16) { null_mut() } else { &mut ws };
            let exp: *mut *mut aclOpExecutor = if i.one_in(16) { null_mut() } else { &mut ex };
            let (t0, t1, t2) = (st.tensor(i), st.tensor(i), st.tensor(i));
            let pad_arr =
                st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize) as *const aclIntArray;
            let code = match which {
                0 => (a.aclnnSliceGetWorkspaceSize.unwrap())(
                    t0,
                    i.i64(),
                    i.i64(),
                    i.i64(),
                    i.i64(),
                    t1,
                    wsp,
                    exp,
                ),
                1 => (a.aclnnIndexSelectGetWorkspaceSize.unwrap())(t0, i.i64(), t1, t2, wsp, exp),
                2 => (a.aclnnInplaceCopyGetWorkspaceSize.unwrap())(t0, t1, wsp, exp),
                // Cat with an arbitrary handle as its list (null, dead, a
                // tensor's, or anything): never a live list here.
                4 => (a.aclnnCatGetWorkspaceSize.unwrap())(
                    st.any(i, &[]) as *const aclTensorList,
                    i.i64(),
                    t1,
                    wsp,
                    exp,
                ),
                5 => (a.aclnnStackGetWorkspaceSize.unwrap())(
                    st.any(i, &[]) as *const aclTensorList,
                    i.i64(),
                    t1,
                    wsp,
                    exp,
                ),
                6 => {
                    let sc = st.scalars.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnInplaceFillScalarGetWorkspaceSize.unwrap())(
                        t0,
                        sc as *const aclScalar,
                        wsp,
                        exp,
                    )
                }
                7 => (a.aclnnInplaceZeroGetWorkspaceSize.unwrap())(t0, wsp, exp),
                8 => (a.aclnnCastGetWorkspaceSize.unwrap())(
                    t0,
                    aclDataType(i32::from(i.u8() % 40)),
                    t1,
                    wsp,
                    exp,
                ),
                9 => (a.aclnnTrilGetWorkspaceSize.unwrap())(t0, i.i64(), t1, wsp, exp),
                10 => (a.aclnnInplaceTrilGetWorkspaceSize.unwrap())(t0, i.i64(), wsp, exp),
                11 => (a.aclnnTriuGetWorkspaceSize.unwrap())(t0, i.i64(), t1, wsp, exp),
                12 => (a.aclnnInplaceTriuGetWorkspaceSize.unwrap())(t0, i.i64(), wsp, exp),
                // The output list an arbitrary handle, as Cat's input list.
                13 => (a.aclnnSplitTensorGetWorkspaceSize.unwrap())(
                    t0,
                    i.u64(),
                    i.i64(),
                    st.any(i, &[]) as *mut aclTensorList,
                    wsp,
                    exp,
                ),
                14 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnSplitWithSizeGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        i.i64(),
                        st.any(i, &[]) as *mut aclTensorList,
                        wsp,
                        exp,
                    )
                }
                // The pads: the last int array (or anything) as padding.
                15 => (a.aclnnReflectionPad1dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                16 => (a.aclnnReflectionPad2dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                17 => (a.aclnnReflectionPad3dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                18 => (a.aclnnReplicationPad1dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                19 => (a.aclnnReplicationPad2dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                20 => (a.aclnnReplicationPad3dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                21 => (a.aclnnCircularPad2dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                22 => (a.aclnnCircularPad3dGetWorkspaceSize.unwrap())(t0, pad_arr, t1, wsp, exp),
                28 => (a.aclnnEmbeddingGetWorkspaceSize.unwrap())(t0, t1, t2, wsp, exp),
                29 => {
                    // Four fuzzed arrays (the same one, or arbitrary handles).
                    let mut arr = || {
                        st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize)
                            as *const aclIntArray
                    };
                    let (p0, p1, p2, p3) = (arr(), arr(), arr(), arr());
                    (a.aclnnSliceV2GetWorkspaceSize.unwrap())(t0, p0, p1, p2, p3, t1, wsp, exp)
                }
                32 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    let arr2 = st.arrays.first().map_or(st.any(i, &[]), |p| *p as usize);
                    // axesOptional: null (the default) or a fuzzed handle.
                    let axes = if i.one_in(2) { 0 } else { st.any(i, &[]) };
                    (a.aclnnStridedSliceAssignV2GetWorkspaceSize.unwrap())(
                        t0,
                        t1,
                        arr as *const aclIntArray,
                        arr2 as *const aclIntArray,
                        arr as *const aclIntArray,
                        axes as *const aclIntArray,
                        wsp,
                        exp,
                    )
                }
                31 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    let arr2 = st.arrays.first().map_or(st.any(i, &[]), |p| *p as usize);
                    let arr3 = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnAsStridedGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        arr2 as *const aclIntArray,
                        arr3 as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                30 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    let arr2 = st.arrays.first().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnSliceV3GetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        arr2 as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                33 => (a.aclnnGatherV2GetWorkspaceSize.unwrap())(t0, i.i64(), t1, t2, wsp, exp),
                34 => (a.aclnnGatherGetWorkspaceSize.unwrap())(t0, i.i64(), t1, t2, wsp, exp),
                35 => (a.aclnnTakeGetWorkspaceSize.unwrap())(t0, t1, t2, wsp, exp),
                36 => {
                    let t3 = st.tensor(i);
                    (a.aclnnIndexCopyGetWorkspaceSize.unwrap())(t0, i.i64(), t1, t2, t3, wsp, exp)
                }
                37 => (a.aclnnInplaceIndexCopyGetWorkspaceSize.unwrap())(
                    t0,
                    i.i64(),
                    t1,
                    t2,
                    wsp,
                    exp,
                ),
                38 => (a.aclnnGatherNdGetWorkspaceSize.unwrap())(t0, t1, i.one_in(2), t2, wsp, exp),
                39 => (a.aclnnMaskedSelectGetWorkspaceSize.unwrap())(t0, t1, t2, wsp, exp),
                41 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnStridedSliceGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        arr as *const aclIntArray,
                        arr as *const aclIntArray,
                        i.i64(),
                        i.i64(),
                        i.i64(),
                        i.i64(),
                        i.i64(),
                        t1,
                        wsp,
                        exp,
                    )
                }
                40 => {
                    // ViewCopy: any six tensors as the metadata (read by the
                    // first phase through the checked aclrtMemcpy).
                    let m: Vec<*mut aclTensor> = (0..6).map(|_| st.tensor(i)).collect();
                    (a.aclnnViewCopyGetWorkspaceSize.unwrap())(
                        t0, m[0], m[1], m[2], t1, m[3], m[4], m[5], t2, wsp, exp,
                    )
                }
                // Index with an arbitrary handle as its list (as Cat's).
                42 => (a.aclnnIndexGetWorkspaceSize.unwrap())(
                    t0,
                    st.any(i, &[]) as *const aclTensorList,
                    t2,
                    wsp,
                    exp,
                ),
                27 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnRepeatGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                26 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnExpandGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                25 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    let arr2 = st.arrays.first().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnRollGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        arr2 as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                24 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnFlipGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                23 => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnPermuteGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        t1,
                        wsp,
                        exp,
                    )
                }
                _ => {
                    let arr = st.arrays.last().map_or(st.any(i, &[]), |p| *p as usize);
                    let sc = st.scalars.last().map_or(st.any(i, &[]), |p| *p as usize);
                    (a.aclnnConstantPadNdGetWorkspaceSize.unwrap())(
                        t0,
                        arr as *const aclIntArray,
                        sc as *const aclScalar,
                        t1,
                        wsp,
                        exp,
                    )
                }
            };
            if code == 0 {
                assert!(
                    !ex.is_null(),
                    "a successful first phase writes the executor"
                );
                st.execs.push((ex, ws, which));
            } else {
                assert!(
                    ex.is_null(),
                    "a failed first phase must not write the executor"
                );
            }
        }
        22..=25 => {
            // A second phase: workspace of the asked size, or anything.
            let Some(k) = (!st.execs.is_empty()).then(|| i.below(st.execs.len() as u64) as usize)
            else {
                return;
            };
            let (ex, ws_size, which) = st.execs[k];
            let mut ws = (null_mut(), 0u64);
            let mut owned = None;
            match i.u8() % 4 {
                0 => ws = (st.device(i), i.u64()),
                1 => ws = (null_mut(), ws_size),
                _ if ws_size > 0 => {
                    let mut p = null_mut();
                    if (a.aclrtMalloc)(&mut p, ws_size as usize, aclrtMemMallocPolicy(0)) == 0 {
                        ws = (p, ws_size);
                        owned = Some(p);
                    }
                }
                _ => {}
            }
            let s = st.stream(i);
            let run = [
                a.aclnnSlice,
                a.aclnnIndexSelect,
                a.aclnnInplaceCopy,
                a.aclnnConstantPadNd,
                a.aclnnCat,
                a.aclnnStack,
                a.aclnnInplaceFillScalar,
                a.aclnnInplaceZero,
                a.aclnnCast,
                a.aclnnTril,
                a.aclnnInplaceTril,
                a.aclnnTriu,
                a.aclnnInplaceTriu,
                a.aclnnSplitTensor,
                a.aclnnSplitWithSize,
                a.aclnnReflectionPad1d,
                a.aclnnReflectionPad2d,
                a.aclnnReflectionPad3d,
                a.aclnnReplicationPad1d,
                a.aclnnReplicationPad2d,
                a.aclnnReplicationPad3d,
                a.aclnnCircularPad2d,
                a.aclnnCircularPad3d,
                a.aclnnPermute,
                a.aclnnFlip,
                a.aclnnRoll,
                a.aclnnExpand,
                a.aclnnRepeat,
                a.aclnnEmbedding,
                a.aclnnSliceV2,
                a.aclnnSliceV3,
                a.aclnnAsStrided,
                a.aclnnStridedSliceAssignV2,
                a.aclnnGatherV2,
                a.aclnnGather,
                a.aclnnTake,
                a.aclnnIndexCopy,
                a.aclnnInplaceIndexCopy,
                a.aclnnGatherNd,
                a.aclnnMaskedSelect,
                a.aclnnViewCopy,
                a.aclnnStridedSlice,
                a.aclnnIndex,
            ][(if i.one_in(8) { i.u8() % 43 } else { which }) as usize]
                .unwrap();
            run(ws.0, ws.1, ex, s);
            // A one-shot executor is consumed whatever the outcome; a
            // repeatable one stays (destroyed at the end either way).
            if let Some(p) = owned {
                // The workspace must outlive the kernel.
                (a.aclrtSynchronizeDevice)();
                (a.aclrtSynchronizeStream)(s);
                (a.aclrtFree)(p);
            }
        }
        26 => {
            if let Some(&(ex, _, _)) = st.execs.last() {
                (a.aclSetAclOpExecutorRepeatable.unwrap())(ex);
            }
            (a.aclSetAclOpExecutorRepeatable.unwrap())(st.any(i, &[]) as *mut aclOpExecutor);
        }
        27 => {
            let ex = st.execs.last().map_or(st.any(i, &[]), |e| e.0 as usize) as *mut aclOpExecutor;
            let (idx, t, addr) = (i.size(), st.tensor(i), st.device(i));
            if i.one_in(2) {
                (a.aclSetInputTensorAddr.unwrap())(ex, idx, t, addr);
            } else {
                (a.aclSetOutputTensorAddr.unwrap())(ex, idx, t, addr);
            }
        }
        28 => {
            if !st.execs.is_empty() {
                let (ex, _, _) = st
                    .execs
                    .swap_remove(i.below(st.execs.len() as u64) as usize);
                (a.aclDestroyAclOpExecutor.unwrap())(ex);
                st.dead.push(ex as usize);
            }
        }
        29 => {
            let mut s = null_mut();
            if (a.aclrtCreateStream)(&mut s) == 0 {
                st.streams.push(s);
            }
        }
        30 => {
            if !st.streams.is_empty() && i.one_in(2) {
                let s = st
                    .streams
                    .swap_remove(i.below(st.streams.len() as u64) as usize);
                (a.aclrtDestroyStream)(s);
                st.dead.push(s as usize);
            } else {
                (a.aclrtDestroyStream)(st.stream(i));
            }
        }
        31 => {
            let s = st.stream(i);
            (a.aclrtSynchronizeStream)(s);
            let mut status = aclrtStreamStatus(0);
            (a.aclrtStreamQuery)(st.stream(i), &mut status);
        }
        32 => {
            let mut e = null_mut();
            if (a.aclrtCreateEvent)(&mut e) == 0 {
                st.events.push(e);
            }
        }
        33 => {
            let live: Vec<usize> = st.events.iter().map(|p| *p as usize).collect();
            let e = st.any(i, &live) as aclrtEvent;
            match i.u8() % 5 {
                0 => {
                    (a.aclrtRecordEvent)(e, st.stream(i));
                }
                1 => {
                    (a.aclrtStreamWaitEvent)(st.stream(i), e);
                }
                2 => {
                    let mut s = aclrtEventRecordedStatus(0);
                    (a.aclrtQueryEventStatus)(e, &mut s);
                }
                3 => {
                    (a.aclrtSynchronizeEvent)(e);
                }
                _ => {
                    if let Some(k) = st.events.iter().position(|p| std::ptr::eq(*p, e)) {
                        st.events.swap_remove(k);
                        st.dead.push(e as usize);
                    }
                    (a.aclrtDestroyEvent)(e);
                }
            }
        }
        34 => {
            let d = match i.u8() % 4 {
                0 => i.u64() as i32,
                _ => (i.u8() % 3) as i32 - 1,
            };
            (a.aclrtSetDevice)(d);
            let mut dev = 0;
            (a.aclrtGetDevice)(&mut dev);
            let mut n = 0u32;
            (a.aclrtGetDeviceCount)(&mut n);
            let (mut f, mut t) = (0usize, 0usize);
            (a.aclrtGetMemInfo)(aclrtMemAttr(i.u8() as _), &mut f, &mut t);
            (a.aclrtGetSocName)();
            (a.aclGetRecentErrMsg)();
        }
        35 => {
            (a.aclrtSynchronizeDevice)();
        }
        36 => {
            if i.one_in(2) {
                (a.aclrtResetDevice)(i.u64() as i32);
            } else {
                (a.aclrtResetDevice)(0);
                (a.aclrtSetDevice)(0);
            }
        }
        37 => {
            let mut p = null_mut();
            let n = i.size();
            if (a.aclrtMallocHost)(&mut p, n.min(1 << 20)) == 0 {
                st.pinned.push(p);
            }
            if let Some(p) = st.pinned.pop() {
                (a.aclrtFreeHost)(p);
                st.dead.push(p as usize);
            }
            (a.aclrtFreeHost)(st.any(i, &[]) as *mut c_void);
        }
        38 => {
            // Finalize and init again (everything live stays a handle; its
            // memory is gone with the runtime).
            if i.one_in(8) {
                (a.aclFinalize)();
                (a.aclnnFinalize)();
                (a.aclInit)(null());
                (a.aclrtSetDevice)(0);
            }
        }
        _ => {
            (a.aclnnInit)(null());
            (a.aclInit)(null());
        }
    }
}

/// Releases everything the input created.
unsafe fn cleanup(st: &mut St) {
    let a = api();
    (a.aclInit)(null());
    (a.aclrtSetDevice)(0);
    for s in st.streams.drain(..) {
        (a.aclrtSynchronizeStream)(s);
        (a.aclrtDestroyStream)(s);
    }
    (a.aclrtSynchronizeDevice)();
    for e in st.events.drain(..) {
        (a.aclrtDestroyEvent)(e);
    }
    for (ex, _, _) in st.execs.drain(..) {
        // Live executors: never-run one-shot ones, or repeatable ones;
        // already consumed ones answer "not live", which is fine.
        (a.aclDestroyAclOpExecutor.unwrap())(ex);
    }
    for t in st.tensors.drain(..) {
        (a.aclDestroyTensor)(t);
    }
    for x in st.arrays.drain(..) {
        (a.aclDestroyIntArray)(x);
    }
    for x in st.scalars.drain(..) {
        (a.aclDestroyScalar)(x);
    }
    for (p, _) in st.bufs.drain(..) {
        (a.aclrtFree)(p);
    }
    for p in st.pinned.drain(..) {
        (a.aclrtFreeHost)(p);
    }
}

/// Runs the call sequence `data` describes; panics on a finding.
pub fn run(data: &[u8]) {
    let a = api();
    let mut st = St {
        host: vec![0u8; HOST],
        pinned: Vec::new(),
        bufs: Vec::new(),
        tensors: Vec::new(),
        arrays: Vec::new(),
        scalars: Vec::new(),
        execs: Vec::new(),
        streams: Vec::new(),
        events: Vec::new(),
        dead: Vec::new(),
    };
    let mut i = In(data);
    // SAFETY: every pointer argument the C contract requires to be valid
    // (out-pointers, arrays with their counts, host copy ends) is valid;
    // the rest is what the simulator must check.
    unsafe {
        (a.aclInit)(null());
        (a.aclrtSetDevice)(0);
        let mut n = 0;
        while !i.done() && n < 64 {
            step(&mut st, &mut i);
            n += 1;
        }
        cleanup(&mut st);
    }
    let s = npu_sim::stats();
    assert_eq!(
        s.internal_errors, 0,
        "a panic was caught inside the simulator"
    );
    assert!(
        s.tensors == 0
            && s.int_arrays == 0
            && s.scalars == 0
            && s.executors == 0
            && s.streams == 0
            && s.events == 0
            && s.host_allocations == 0,
        "leak after cleanup: {s:?}"
    );
}
