//! One random operator call (the data-movement operators, and Add and Mul
//! with a second operand that broadcasts or not) on random views, run on the device through the
//! safe layer and on cpu-ref, compared bit for bit (or error kind for kind).
//! Shared (through `#[path]`) by the stress test (`examples/stress.rs`,
//! `tests/stress.rs`) and the `ops` fuzz target, which differ only in where
//! the random choices come from ([`Source`]).
//!
//! Every form is exercised: plain calls, `_into` calls whose output is a
//! fresh tensor, a strided view, or a view of the input's own storage
//! (aliasing), and prepared operators run twice, also with aliasing
//! outputs. Inputs are any view: gaps, broadcasts, sliding windows,
//! interleaved strides, zero extents, and sizes that overflow.
#![allow(dead_code)]

use cpu_ref::DType as R;
use npu_ops::{DType, Error, SampleMode, SampledSlice, Scalar, Stream, Tensor, Window};

/// Where the random choices come from.
pub trait Source {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// In `[0, n)` (0 when `n == 0`).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// In `[lo, hi]`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1).clamp(1, u64::MAX as i128) as u64;
        (lo as i128 + self.below(span) as i128) as i64
    }

    /// True `num` times in `den`.
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// One of `xs`.
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// An i64 parameter: mostly small, sometimes at the ends of i64.
    fn param(&mut self) -> i64 {
        match self.below(12) {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => i64::MIN + 1,
            3 => i64::MAX - 1,
            _ => self.range(-6, 8),
        }
    }
}

/// A xorshift generator (the stress test's source).
pub struct Rng(pub u64);

impl Source for Rng {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0 | 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Bytes as a source (the fuzzer's): each choice consumes eight bytes;
/// past the end every choice is 0.
pub struct Bytes<'a>(pub &'a [u8]);

impl Source for Bytes<'_> {
    fn next_u64(&mut self) -> u64 {
        let n = self.0.len().min(8);
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        u64::from_le_bytes(b)
    }
}

/// What a case found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Same bits (`data`), or the same error kind.
    Agree {
        /// Whether data was compared (else an error kind).
        data: bool,
    },
    /// A difference: what, and both sides.
    Mismatch(String),
}

fn dtype(d: R) -> DType {
    DType::from_name(d.name()).expect("same dtype names")
}

fn element_bytes(src: &mut impl Source, d: R, n: usize) -> Vec<u8> {
    let mut v: Vec<u8> = (0..n * d.size()).map(|_| src.next_u64() as u8).collect();
    if d == R::Bool {
        v.iter_mut().for_each(|b| *b &= 1);
    }
    v
}

/// A random view: shape, strides, offset and the storage it lives in.
struct ViewSpec {
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    storage: usize,
}

fn gen_view(src: &mut impl Source) -> ViewSpec {
    let rank = if src.chance(1, 10) {
        src.range(5, 8) as usize
    } else {
        src.range(0, 4) as usize
    };
    let max = if rank > 4 { 2 } else { 4 };
    let shape: Vec<usize> = (0..rank)
        .map(|_| {
            if src.chance(1, 12) {
                0
            } else {
                src.range(1, max) as usize
            }
        })
        .collect();
    // Hostile: sizes that overflow (both sides must reject them).
    if src.chance(1, 40) {
        let huge = [
            1usize << 61,
            (1 << 62) + 1,
            usize::MAX / 2,
            i64::MAX as usize,
        ];
        let shape = vec![src.pick(&huge), src.range(1, 8) as usize];
        let strides = vec![0, src.range(0, 1) as usize];
        return ViewSpec {
            shape,
            strides,
            offset: 0,
            storage: 4,
        };
    }
    let mut strides = vec![0usize; rank];
    let mut acc = 1usize;
    for i in (0..rank).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1);
    }
    match src.below(6) {
        0 | 1 => {}
        2 => {
            // A permutation (transpose-like).
            for i in (1..rank).rev() {
                let j = src.below(i as u64 + 1) as usize;
                strides.swap(i, j);
            }
        }
        3 => {
            // Broadcast dims.
            for s in strides.iter_mut() {
                if src.chance(1, 3) {
                    *s = 0;
                }
            }
        }
        4 => {
            // Sliding windows / interleaving: any small strides.
            for s in strides.iter_mut() {
                *s = src.range(0, 5) as usize;
            }
        }
        _ => {
            // Gaps.
            for s in strides.iter_mut() {
                *s *= src.range(1, 3) as usize;
            }
        }
    }
    let offset = src.range(0, 3) as usize;
    let span = if shape.contains(&0) {
        0
    } else {
        offset
            + shape
                .iter()
                .zip(&strides)
                .map(|(&n, &s)| (n - 1) * s)
                .sum::<usize>()
            + 1
    };
    let storage = span + src.range(0, 3) as usize;
    ViewSpec {
        shape,
        strides,
        offset,
        storage,
    }
}

/// The operator to call.
#[derive(Clone, Debug)]
enum Call {
    Slice(i64, i64, i64, i64),
    /// dim, indices, int64?, 0 device / 1 host-checked / 2 device-checked.
    IndexSelect(i64, Vec<i64>, bool, u8),
    AsStrided(Vec<i64>, Vec<i64>, i64),
    Sampled(SampledSlice, bool),
    Subtensor(Vec<i64>, i64),
    Contiguous,
    /// `x + alpha * other`.
    Add(Other, AlphaSpec),
    /// `x * other`.
    Mul(Other),
    /// Cat of `[x, others...]` along dim.
    Cat(Vec<Other>, i64),
    /// Stack of `[x, others...]` along a new dim.
    Stack(Vec<Other>, i64),
    /// `fill_scalar_inplace(x, value)` (`None`: `zero_inplace(x)`); the
    /// result is `x` read back through its view.
    Fill(Option<AlphaSpec>),
    /// `cast(x, dtype)`.
    Cast(R),
    /// `permute(x, dims)`: a permutation of x's dims, now and then broken
    /// (a wrong length, an entry out of range, a repeat).
    Permute(Vec<i64>),
    /// `flip(x, dims)`: a subset of x's dims, now and then out of range or
    /// repeated.
    Flip(Vec<i64>),
    /// `roll(x, shifts, dims)`: pairs (repeats allowed) or a flat roll,
    /// now and then of bad lengths or dims.
    Roll(Vec<i64>, Vec<i64>),
    /// `expand(x, size)`: leading dims and x's extent-1 dims grown, now
    /// and then a bad entry.
    Expand(Vec<i64>),
    /// `repeat(x, repeats)`: small repeats (leading ones sometimes), now
    /// and then a bad entry.
    Repeat(Vec<i64>),
    /// A reflection, replication or circular pad of `x` (spec §16, §17).
    Pad(cpu_ref::Op, Vec<i64>),
    /// `tril(x, diagonal)` (`true`) or `triu`; in place (the result is `x`
    /// read back through its view) when the last is set.
    Tri(bool, i64, bool),
    /// `split_tensor(x, sections, dim)` (`Some`) or `split_with_size(x,
    /// sizes, dim)`, the `_into` form into new tensors when the last is
    /// set; the pieces compared as one flat tensor of their bytes, in order.
    Split(Option<u64>, Vec<i64>, i64, bool),
    /// `embedding(x, indices)` (x the weight): indices, int64?
    Embedding(Vec<i64>, bool),
    /// `gather_v2(x, dim, index)`: dim, the index's shape and values,
    /// int64?
    GatherV2(i64, Vec<usize>, Vec<i64>, bool),
    /// `gather(x, dim, index)`: dim, the index's shape and values, int64?
    Gather(i64, Vec<usize>, Vec<i64>, bool),
    /// `take(x, index)`: the index's shape and values, int64?
    Take(Vec<usize>, Vec<i64>, bool),
    /// `index_copy(x, dim, index, source)` (in place when the last is
    /// set): dim, the index values, the source.
    IndexCopy(i64, Vec<i64>, Other, bool),
    /// `gather_nd(x, indices, negative)`: the indices' shape and values.
    GatherNd(Vec<usize>, Vec<i64>, bool),
    /// `masked_select(x, mask)`: the mask's shape and bytes, uint8?
    MaskedSelect(Vec<usize>, Vec<u8>, bool),
    /// `index(x, indices)`: each member's shape and values, int64?
    Index(Vec<(Vec<usize>, Vec<i64>, bool)>),
    /// `slice_v2(x, starts, ends, axes, steps)`: distinct axes with any
    /// bounds and steps, now and then a bad axis, length or step.
    SliceV2([Vec<i64>; 4]),
    /// `slice_v3(x, begin, size)`: a box inside x, now and then a bad
    /// length or entry.
    SliceV3(Vec<i64>, Vec<i64>),
    /// `as_strided_aclnn(x, size, stride, offset)`: small windows, now and
    /// then a bad entry.
    AsStridedAclnn(Vec<i64>, Vec<i64>, i64),
    /// `view_copy(x, dst window, src, src window)`: `src`, then `[dst_size,
    /// dst_stride, src_size, src_stride]` and the two offsets; small
    /// windows, now and then a bad entry.
    ViewCopy(Other, [Vec<i64>; 4], [i64; 2]),
    /// `strided_slice_assign_v2(x, value, begin, end, strides, axes)`, in
    /// place (x's new value compared): leading axes, now and then a bad
    /// stride or axis.
    SliceAssign(Other, [Vec<i64>; 3], Option<Vec<i64>>),
}

/// The second operand of Add and Mul: a contiguous tensor of its own
/// dtype whose shape broadcasts against `x`'s (or, sometimes, does not).
#[derive(Clone, Debug)]
struct Other {
    dtype: R,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

/// Add's `alpha`, as both sides spell it.
#[derive(Clone, Copy, Debug)]
enum AlphaSpec {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl AlphaSpec {
    fn ours(self) -> Scalar {
        match self {
            AlphaSpec::Bool(b) => Scalar::Bool(b),
            AlphaSpec::Int(v) => Scalar::Int(v),
            AlphaSpec::Float(v) => Scalar::Float(v),
        }
    }

    fn reference(self) -> cpu_ref::Scalar {
        match self {
            AlphaSpec::Bool(b) => cpu_ref::Scalar::Bool(b),
            AlphaSpec::Int(v) => cpu_ref::Scalar::Int(v),
            AlphaSpec::Float(v) => cpu_ref::Scalar::Float(v),
        }
    }
}

fn gen_other(src: &mut impl Source, d: R, shape: &[usize]) -> Other {
    let dtype = if src.chance(2, 3) {
        d
    } else {
        src.pick(&R::ALL)
    };
    // Right-aligned broadcast: drop leading dims, set some to 1; now and
    // then an extent that does not broadcast, or an extra leading dim.
    let keep = shape.len() - src.below(shape.len() as u64 + 1) as usize;
    let mut other: Vec<usize> = shape[shape.len() - keep..]
        .iter()
        .map(|&e| {
            if src.chance(1, 4) {
                1
            } else if src.chance(1, 24) {
                e + 1
            } else {
                e
            }
        })
        .collect();
    if other.len() < 8 && src.chance(1, 8) {
        other.insert(0, src.range(1, 2) as usize);
    }
    // A zero in `x`'s shape replaced by 1 can make the product overflow.
    let full = other.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
    let n = full.map_or(1 << 12, |f| f.min(1 << 12));
    let bytes = element_bytes(src, dtype, n);
    if Some(n) != full {
        other = vec![n];
    }
    Other {
        dtype,
        shape: other,
        bytes,
    }
}

fn gen_dim(src: &mut impl Source, rank: usize) -> i64 {
    if src.chance(1, 16) {
        src.param()
    } else {
        let r = rank.max(1) as i64;
        src.range(-r - 1, r)
    }
}

/// Cat's other members: `x`'s shape with another extent along `dim` (when
/// it is in range), mostly `x`'s dtype; now and then a 1-D empty member
/// (dropped), another rank or extent, or another dtype.
fn gen_cat(src: &mut impl Source, d: R, shape: &[usize]) -> Call {
    let rank = shape.len();
    let dim = gen_dim(src, rank);
    let k = (rank > 0 && (-(rank as i64)..rank as i64).contains(&dim))
        .then(|| dim.rem_euclid(rank as i64) as usize);
    let count = src.below(4) as usize;
    let others = (0..count)
        .map(|_| {
            let dtype = if src.chance(1, 12) {
                src.pick(&R::ALL)
            } else {
                d
            };
            let mut sh = shape.to_vec();
            if let Some(k) = k {
                sh[k] = src.range(0, 3) as usize;
            }
            if src.chance(1, 12) {
                sh = vec![0];
            } else if src.chance(1, 16) && !sh.is_empty() {
                sh[0] += 1;
            }
            // `x`'s shape may hold huge extents beside a zero; with that
            // zero replaced the product can overflow.
            let full = sh.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
            let n = full.map_or(1 << 12, |f| f.min(1 << 12));
            if Some(n) != full {
                sh = vec![n];
            }
            Other {
                dtype,
                bytes: element_bytes(src, dtype, n),
                shape: sh,
            }
        })
        .collect();
    Call::Cat(others, dim)
}

/// Stack's other members: `x`'s shape (now and then another), mostly
/// `x`'s dtype; `dim` over the output's rank.
fn gen_stack(src: &mut impl Source, d: R, shape: &[usize]) -> Call {
    let dim = gen_dim(src, shape.len() + 1);
    let count = src.below(4) as usize;
    let others = (0..count)
        .map(|_| {
            let dtype = if src.chance(1, 12) {
                src.pick(&R::ALL)
            } else {
                d
            };
            let mut sh = shape.to_vec();
            // Another rank, within 8 (a rank-9 member cannot be made).
            if src.chance(1, 16) && sh.len() < 8 {
                sh.push(1);
            }
            // `x`'s shape may hold huge extents beside a zero; with that
            // zero replaced the product can overflow.
            let full = sh.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
            let n = full.map_or(1 << 12, |f| f.min(1 << 12));
            if Some(n) != full {
                sh = vec![n];
            }
            Other {
                dtype,
                bytes: element_bytes(src, dtype, n),
                shape: sh,
            }
        })
        .collect();
    Call::Stack(others, dim)
}

/// The element count of `shape`, saturating: a broadcast view's extents
/// may multiply past `usize` (the fuzzer found a generator that
/// overflowed on one).
fn sat_count(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |a, &e| a.saturating_mul(e))
}

fn gen_call(src: &mut impl Source, d: R, shape: &[usize], faults: bool) -> Call {
    let rank = shape.len();
    match src.below(7) {
        6 if src.chance(1, 2) => gen_stack(src, d, shape),
        6 => gen_cat(src, d, shape),
        0 => {
            let step = if src.chance(1, 10) {
                src.param()
            } else {
                src.range(1, 3)
            };
            Call::Slice(gen_dim(src, rank), src.param(), src.param(), step)
        }
        1 => {
            let dim = gen_dim(src, rank);
            let n = if rank == 0 {
                1
            } else {
                shape[dim.rem_euclid(rank as i64) as usize] as i64
            };
            let k = src.range(0, 5);
            let idx = (0..k)
                .map(|_| {
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, n - 1)
                    } else {
                        src.pick(&[-1, n, i64::MAX, i64::MIN, i32::MAX as i64])
                    }
                })
                .collect();
            Call::IndexSelect(dim, idx, src.chance(1, 2), src.below(3) as u8)
        }
        2 => {
            let lo = if src.chance(1, 20) { 0 } else { 1 };
            let r = src.range(lo, 4) as usize;
            let size = (0..r)
                .map(|_| {
                    if src.chance(1, 20) {
                        src.param()
                    } else {
                        src.range(1, 4)
                    }
                })
                .collect();
            let stride = (0..r + src.chance(1, 20) as usize)
                .map(|_| {
                    if src.chance(1, 20) {
                        src.param()
                    } else {
                        src.range(0, 3)
                    }
                })
                .collect();
            let offset = if src.chance(1, 20) {
                src.param()
            } else {
                src.range(0, 2)
            };
            Call::AsStrided(size, stride, offset)
        }
        3 => {
            let with_axes = rank > 0 && src.chance(1, 3);
            let n = if with_axes {
                src.range(0, rank as i64) as usize
            } else {
                rank
            };
            let mut p = SampledSlice::new(
                &(0..n).map(|_| src.param()).collect::<Vec<_>>(),
                &(0..n).map(|_| src.range(0, 4)).collect::<Vec<_>>(),
                &(0..n)
                    .map(|_| {
                        if src.chance(1, 8) {
                            src.param()
                        } else {
                            src.range(-3, 3)
                        }
                    })
                    .collect::<Vec<_>>(),
                src.pick(&[
                    SampleMode::StrictBounds,
                    SampleMode::Wrap,
                    SampleMode::Clamp,
                    SampleMode::Fill,
                    SampleMode::Reflect,
                ]),
            );
            if with_axes {
                p = p.with_axes(
                    &(0..n)
                        .map(|_| src.range(-(rank as i64), rank as i64 - 1))
                        .collect::<Vec<_>>(),
                );
            }
            if p.mode == SampleMode::Fill && src.chance(3, 4) || src.chance(1, 12) {
                p = p.with_fill(Scalar::Int(src.range(0, 1)));
            }
            Call::Sampled(p, src.chance(1, 4))
        }
        4 => {
            let k = src.range(0, rank as i64) as usize;
            let coords = (0..k)
                .map(|j| {
                    if src.chance(1, 10) {
                        src.param()
                    } else {
                        src.range(0, shape[j].max(1) as i64)
                    }
                })
                .collect();
            Call::Subtensor(coords, src.range(0, 3))
        }
        // Zero bytes (an exhausted fuzz input) keep meaning Contiguous.
        _ if src.chance(1, 3) => Call::Contiguous,
        _ if src.chance(1, 5) => Call::Cast(src.pick(&R::ALL)),
        _ if src.chance(1, 5) => {
            let mut dims: Vec<i64> = (0..rank as i64).collect();
            for i in (1..rank).rev() {
                dims.swap(i, src.range(0, i as i64) as usize);
            }
            for v in dims.iter_mut() {
                if src.chance(1, 3) {
                    *v -= rank as i64;
                }
            }
            match src.below(10) {
                0 => {
                    dims.pop();
                }
                1 => dims.push(src.range(-3, 3)),
                2 if rank > 0 => dims[0] = src.param(),
                3 if rank > 1 => dims[1] = dims[0],
                _ => {}
            }
            Call::Permute(dims)
        }
        _ if src.chance(1, 5) => {
            let r = rank.max(1) as i64;
            let mut dims = Vec::new();
            for d in 0..r {
                if src.chance(1, 2) {
                    dims.push(if src.chance(1, 3) { d - r } else { d });
                }
            }
            match src.below(10) {
                0 => dims.push(src.param()),
                1 if !dims.is_empty() => dims.push(dims[0]),
                _ => {}
            }
            Call::Flip(dims)
        }
        _ if src.chance(1, 5) => {
            let n = if rank == 0 || src.chance(1, 4) {
                0
            } else {
                src.range(1, 3) as usize
            };
            let mut dims = Vec::new();
            let mut shifts = Vec::new();
            for _ in 0..n {
                dims.push(src.range(-(rank as i64), rank as i64 - 1));
                shifts.push(src.param());
            }
            if n == 0 {
                shifts.push(src.param());
            }
            match src.below(10) {
                0 => shifts.push(1),
                1 => {
                    dims.push(src.param());
                    shifts.push(1);
                }
                _ => {}
            }
            Call::Roll(shifts, dims)
        }
        _ if src.chance(1, 5) => {
            let mut size: Vec<i64> = (0..src.range(0, 2)).map(|_| src.range(0, 2)).collect();
            for &n in shape {
                size.push(if n == 1 { src.range(0, 3) } else { n as i64 });
            }
            size.truncate(8);
            if src.chance(1, 8) && !size.is_empty() {
                let k = src.range(0, size.len() as i64 - 1) as usize;
                size[k] = src.param();
            }
            Call::Expand(size)
        }
        _ if src.chance(1, 5) => {
            let n = (rank + src.range(0, 1) as usize).min(8);
            let mut reps: Vec<i64> = (0..n).map(|_| src.range(0, 2)).collect();
            if src.chance(1, 8) && !reps.is_empty() {
                let k = src.range(0, reps.len() as i64 - 1) as usize;
                reps[k] = src.param();
            }
            Call::Repeat(reps)
        }
        _ if src.chance(1, 6) => Call::Tri(src.chance(1, 2), src.param(), src.chance(1, 3)),
        _ if src.chance(1, 6) => gen_split(src, shape),
        _ if src.chance(1, 6) => {
            let rows = shape.first().copied().unwrap_or(0) as i64;
            let k = src.range(0, 5);
            let idx = (0..k)
                .map(|_| {
                    if rows > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, rows - 1)
                    } else {
                        src.pick(&[-1, rows, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            Call::Embedding(idx, src.chance(1, 2))
        }
        _ if src.chance(1, 4) => Call::Fill(match src.below(4) {
            0 => None,
            1 => Some(AlphaSpec::Bool(src.chance(1, 2))),
            2 => Some(AlphaSpec::Float(src.pick(&[0.5, -2.0, 1.0e300, f64::NAN]))),
            _ => Some(AlphaSpec::Int(src.range(-300, 300))),
        }),
        _ if src.chance(1, 4) => {
            let op = src.pick(&[
                cpu_ref::Op::ReflectionPad1d,
                cpu_ref::Op::ReflectionPad2d,
                cpu_ref::Op::ReflectionPad3d,
                cpu_ref::Op::ReplicationPad1d,
                cpu_ref::Op::ReplicationPad2d,
                cpu_ref::Op::ReplicationPad3d,
                cpu_ref::Op::CircularPad2d,
                cpu_ref::Op::CircularPad3d,
            ]);
            let k = cpu_ref::pad_kind(op).map_or(1, |(_, k)| k);
            let len = if src.chance(1, 10) {
                src.range(0, 7) as usize
            } else {
                2 * k
            };
            let padding = (0..len)
                .map(|_| {
                    if src.chance(1, 12) {
                        src.param()
                    } else {
                        src.range(0, 4)
                    }
                })
                .collect();
            Call::Pad(op, padding)
        }
        // SliceV2 in the last fallback: it shifts only what went there.
        _ if src.chance(1, 6) => {
            let r = shape.len() as i64;
            let mut a: [Vec<i64>; 4] = Default::default();
            for d in 0..r {
                if src.chance(1, 2) {
                    a[2].push(if src.chance(1, 3) { d - r } else { d });
                    a[0].push(if src.chance(1, 8) {
                        src.param()
                    } else {
                        src.range(-3, 4)
                    });
                    a[1].push(if src.chance(1, 8) {
                        src.param()
                    } else {
                        src.range(-3, 5)
                    });
                    a[3].push(if src.chance(1, 10) {
                        src.param()
                    } else {
                        src.range(1, 3)
                    });
                }
            }
            if src.chance(1, 8) {
                let k = src.pick(&[0usize, 1, 2, 3]);
                a[k].push(src.param());
            }
            if src.chance(1, 3) {
                // SliceV3 shares SliceV2's slot (the stream of every other
                // call stays as it was).
                let mut begin = Vec::new();
                let mut size = Vec::new();
                for &n in shape {
                    let b = src.range(0, n as i64);
                    begin.push(b);
                    size.push(src.range(0, n as i64 - b));
                }
                if src.chance(1, 8) {
                    let v = src.param();
                    if src.chance(1, 2) {
                        begin.push(v)
                    } else {
                        size.push(v)
                    }
                }
                return Call::SliceV3(begin, size);
            }
            if src.chance(1, 3) {
                // The aclnn AsStrided shares the slot too.
                let k = src.range(1, 3) as usize;
                let mut size: Vec<i64> = (0..k).map(|_| src.range(0, 3)).collect();
                let stride: Vec<i64> = (0..k).map(|_| src.range(0, 3)).collect();
                let mut offset = src.range(0, 3);
                if src.chance(1, 8) {
                    if src.chance(1, 2) {
                        size[0] = src.param();
                    } else {
                        offset = src.param();
                    }
                }
                return Call::AsStridedAclnn(size, stride, offset);
            }
            if src.chance(1, 4) {
                // ViewCopy shares the slot too: src of x's dtype (or,
                // rarely, another), windows of one size.
                let k = src.range(1, 3) as usize;
                let size: Vec<i64> = (0..k).map(|_| src.range(0, 3)).collect();
                let dst_stride: Vec<i64> = (0..k).map(|_| src.range(0, 4)).collect();
                let src_stride: Vec<i64> = (0..k).map(|_| src.range(0, 3)).collect();
                let mut src_size = size.clone();
                let mut offs = [src.range(0, 3), src.range(0, 3)];
                if src.chance(1, 8) {
                    match src.range(0, 3) {
                        0 => src_size[0] = src.param(),
                        1 => offs[0] = src.param(),
                        _ => offs[1] = src.param(),
                    }
                }
                let sd = if src.chance(1, 16) { R::Int32 } else { d };
                let sshape: Vec<usize> = (0..src.range(1, 3))
                    .map(|_| src.range(1, 4) as usize)
                    .collect();
                let n: usize = sshape.iter().product();
                let other = Other {
                    dtype: sd,
                    shape: sshape,
                    bytes: element_bytes(src, sd, n),
                };
                return Call::ViewCopy(other, [size, dst_stride, src_size, src_stride], offs);
            }
            if src.chance(1, 3) {
                // StridedSliceAssignV2 shares the slot as well.
                let r = shape.len();
                let k = src.range(0, r as i64) as usize;
                let b: Vec<i64> = (0..k).map(|_| src.range(-2, 4)).collect();
                let e: Vec<i64> = (0..k).map(|_| src.range(-2, 5)).collect();
                let mut st: Vec<i64> = (0..k)
                    .map(|i| if i + 1 == r { 1 } else { src.range(1, 3) })
                    .collect();
                let mut axes = None;
                if src.chance(1, 8) {
                    if !st.is_empty() && src.chance(1, 2) {
                        st[0] = src.param();
                    } else {
                        axes = Some(vec![src.param(); k]);
                    }
                }
                let mut vshape =
                    cpu_ref::strided_slice_assign_ranges(shape, &b, &e, &st, axes.as_deref())
                        .map_or_else(|_| vec![1], |v| v.iter().map(|t| t.2).collect());
                // A range of a huge extent (beside a zero in `x`): a value
                // of another shape (refused alike), of bytes one can hold.
                let n = sat_count(&vshape).min(4096);
                if n != sat_count(&vshape) {
                    vshape = vec![n];
                }
                let value = Other {
                    dtype: d,
                    shape: vshape,
                    bytes: element_bytes(src, d, n),
                };
                return Call::SliceAssign(value, [b, e, st], axes);
            }
            Call::SliceV2(a)
        }
        _ if src.chance(1, 8) => {
            let dim = gen_dim(src, rank);
            let r = rank.max(1) as i64;
            let n = match (rank, (-r..r).contains(&dim)) {
                (0, _) => 1,
                (_, true) => shape[dim.rem_euclid(r) as usize] as i64,
                _ => 0,
            };
            let k = src.range(0, 3) as usize;
            let ishape: Vec<usize> = (0..k).map(|_| src.range(0, 3) as usize).collect();
            let cnt: usize = ishape.iter().product();
            let idx = (0..cnt)
                .map(|_| {
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, n - 1)
                    } else {
                        src.pick(&[-1, n, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            Call::GatherV2(dim, ishape, idx, src.chance(1, 2))
        }
        _ if src.chance(1, 8) => {
            let dim = gen_dim(src, rank);
            let r = rank.max(1) as i64;
            let xs: Vec<usize> = if rank == 0 { vec![1] } else { shape.to_vec() };
            let n = if (-r..r).contains(&dim) {
                xs[dim.rem_euclid(r) as usize] as i64
            } else {
                0
            };
            let mut ishape: Vec<usize> = xs
                .iter()
                .map(|&e| {
                    if src.chance(1, 10) {
                        e + 1
                    } else {
                        src.range(0, e as i64) as usize
                    }
                })
                .collect();
            if src.chance(1, 12) && ishape.len() < 8 {
                ishape.push(1);
            }
            while sat_count(&ishape) > 4096 {
                let k = (0..ishape.len()).max_by_key(|&k| ishape[k]).unwrap_or(0);
                ishape[k] /= 2;
            }
            let cnt: usize = sat_count(&ishape);
            let idx = (0..cnt)
                .map(|_| {
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, n - 1)
                    } else {
                        src.pick(&[-1, n, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            Call::Gather(dim, ishape, idx, src.chance(1, 2))
        }
        _ if src.chance(1, 8) => {
            let n = sat_count(shape).min(i64::MAX as usize) as i64;
            let k = src.range(0, 3) as usize;
            let ishape: Vec<usize> = (0..k).map(|_| src.range(0, 3) as usize).collect();
            let cnt: usize = ishape.iter().product();
            let idx = (0..cnt)
                .map(|_| {
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, n - 1)
                    } else {
                        src.pick(&[-1, n, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            Call::Take(ishape, idx, src.chance(1, 2))
        }
        _ if src.chance(1, 8) => {
            let dim = gen_dim(src, rank);
            let r = rank.max(1) as i64;
            let xs: Vec<usize> = if rank == 0 { vec![1] } else { shape.to_vec() };
            let ok = (-r..r).contains(&dim);
            let n = if ok {
                xs[dim.rem_euclid(r) as usize] as i64
            } else {
                0
            };
            let k = src.range(0, 3) as usize;
            let idx: Vec<i64> = (0..k)
                .map(|_| {
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        src.range(0, n - 1)
                    } else {
                        src.pick(&[-1, n, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            let mut ss = xs.clone();
            if ok {
                ss[dim.rem_euclid(r) as usize] = k;
            }
            if src.chance(1, 12) {
                ss[0] += 1;
            }
            let dtype = if src.chance(1, 12) {
                src.pick(&R::ALL)
            } else {
                d
            };
            let full = ss.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
            let count = full.map_or(1 << 12, |f| f.min(1 << 12));
            if Some(count) != full {
                ss = vec![count];
            }
            let bytes = element_bytes(src, dtype, count);
            let source = Other {
                dtype,
                shape: ss,
                bytes,
            };
            Call::IndexCopy(dim, idx, source, src.chance(1, 2))
        }
        _ if src.chance(1, 8) => {
            let k = src.range(0, rank as i64 + 1) as usize;
            let lead = src.range(0, 2) as usize;
            let mut ishape: Vec<usize> = (0..lead).map(|_| src.range(0, 3) as usize).collect();
            ishape.push(k);
            let cnt: usize = ishape.iter().product();
            let negative = src.chance(1, 2);
            let idx = (0..cnt)
                .map(|p| {
                    let n = shape.get(p % k.max(1)).copied().unwrap_or(0) as i64;
                    if n > 0 && (!faults || !src.chance(1, 12)) {
                        let v = src.range(0, n - 1);
                        if negative && src.chance(1, 3) {
                            v - n
                        } else {
                            v
                        }
                    } else {
                        src.pick(&[-1, n, i64::MAX, i32::MAX as i64])
                    }
                })
                .collect();
            Call::GatherNd(ishape, idx, negative)
        }
        _ if src.chance(1, 8) => {
            let keep = src.range(0, rank as i64) as usize;
            let mut ms: Vec<usize> = shape[rank - keep..]
                .iter()
                .map(|&e| if src.chance(1, 3) { 1 } else { e })
                .collect();
            if !ms.is_empty() && src.chance(1, 12) {
                ms[0] += 1;
            }
            let n = sat_count(&ms).min(4096);
            if n != sat_count(&ms) {
                ms = vec![n];
            }
            let bytes = (0..n).map(|_| src.chance(1, 2) as u8).collect();
            Call::MaskedSelect(ms, bytes, src.chance(1, 2))
        }
        _ if src.chance(1, 8) => {
            // 0 to rank + 1 members, each empty (its dim kept whole) or of
            // a shape that mostly broadcasts, values mostly in range.
            let n = src.range(0, rank as i64 + 1) as usize;
            let shapes: [&[usize]; 5] = [&[2], &[1], &[], &[2, 1], &[3]];
            let members = (0..n)
                .map(|j| {
                    let ext = if rank == 0 {
                        1
                    } else {
                        shape.get(j).copied().unwrap_or(1) as i64
                    };
                    let ms: Vec<usize> = if src.chance(1, 5) {
                        vec![0]
                    } else {
                        shapes[src.range(0, 4) as usize].to_vec()
                    };
                    let cnt: usize = ms.iter().product();
                    let vals = (0..cnt)
                        .map(|_| {
                            if ext > 0 && (!faults || !src.chance(1, 12)) {
                                src.range(-ext, ext - 1)
                            } else {
                                src.pick(&[-1 - ext, ext, i64::MAX, i32::MIN as i64])
                            }
                        })
                        .collect();
                    (ms, vals, src.chance(1, 2))
                })
                .collect();
            Call::Index(members)
        }
        _ => {
            let other = gen_other(src, d, shape);
            if src.chance(1, 2) {
                Call::Mul(other)
            } else {
                let alpha = match src.below(4) {
                    0 => AlphaSpec::Bool(src.chance(1, 2)),
                    1 => AlphaSpec::Float(src.pick(&[0.5, -2.0, 1.0e-3, f64::INFINITY])),
                    _ => AlphaSpec::Int(src.range(-3, 3)),
                };
                Call::Add(other, alpha)
            }
        }
    }
}

fn gen_split(src: &mut impl Source, shape: &[usize]) -> Call {
    let dim = gen_dim(src, shape.len());
    let r = shape.len() as i64;
    let n = if (-r..r).contains(&dim) {
        shape[dim.rem_euclid(r) as usize] as i64
    } else {
        0
    };
    let into = src.chance(1, 3);
    if src.chance(1, 2) {
        let sections = if src.chance(1, 8) {
            src.param() as u64
        } else {
            src.range(0, 4) as u64
        };
        return Call::Split(Some(sections), Vec::new(), dim, into);
    }
    // Sizes that sum to `n`, now and then one past what is left (a bad
    // sum); `n` may be a huge extent beside a zero, so saturate.
    let mut sizes = Vec::new();
    let mut left = n;
    while left > 0 && sizes.len() < 4 {
        let k = src.range(0, left.saturating_add(1));
        sizes.push(k);
        left -= k;
    }
    sizes.push(left);
    if src.chance(1, 8) {
        sizes.push(src.param());
    }
    Call::Split(None, sizes, dim, into)
}

/// The pieces of a split as one flat tensor of their bytes, in order.
fn ref_flat(
    d: R,
    pieces: Result<Vec<cpu_ref::Tensor>, cpu_ref::RefError>,
) -> Result<cpu_ref::Tensor, cpu_ref::RefError> {
    let bytes: Vec<u8> = pieces?.iter().flat_map(|t| t.contiguous_bytes()).collect();
    cpu_ref::Tensor::from_bytes(d, &[bytes.len() / d.size()], bytes)
}

fn ref_call(
    soc: &str,
    x: &cpu_ref::Tensor,
    call: &Call,
) -> Result<cpu_ref::Tensor, cpu_ref::RefError> {
    match call {
        Call::Slice(d, a, b, st) => cpu_ref::slice(soc, x, *d, *a, *b, *st),
        Call::IndexSelect(d, idx, wide, _) => {
            let index = if *wide {
                cpu_ref::Tensor::from_slice(&[idx.len()], idx)?
            } else {
                let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
                cpu_ref::Tensor::from_slice(&[v.len()], &v)?
            };
            cpu_ref::index_select(soc, x, *d, &index)
        }
        Call::AsStrided(size, stride, off) => cpu_ref::as_strided(soc, x, size, stride, &[*off]),
        Call::Sampled(p, _) => {
            let fill = p.fill.map(|f| match f {
                Scalar::Int(v) => cpu_ref::Scalar::Int(v),
                _ => unreachable!("the generator only makes integer fills"),
            });
            let name = match p.mode {
                SampleMode::StrictBounds => "strict_bounds",
                SampleMode::Wrap => "wrap",
                SampleMode::Clamp => "clamp",
                SampleMode::Fill => "fill",
                SampleMode::Reflect => "reflect",
                _ => unreachable!("the generator makes only these five modes"),
            };
            let params = |mode| {
                let rp = cpu_ref::SampledSliceParams::new(&p.start, &p.size, &p.stride, mode);
                match &p.axes {
                    Some(a) => rp.with_axes(a),
                    None => rp,
                }
            };
            match cpu_ref::SampleMode::from_name(name, fill) {
                Ok(mode) => cpu_ref::sampled_slice(soc, x, &params(mode)),
                // cpu-ref takes the fill inside the mode, so it refuses a
                // fill outside FILL mode before it sees the call; the
                // contract checks the product and the earlier parameter
                // rules first: the call without the fill says which.
                Err(e) => {
                    let bare = cpu_ref::SampleMode::from_name(name, None)?;
                    cpu_ref::sampled_slice(soc, x, &params(bare)).and(Err(e))
                }
            }
        }
        Call::Subtensor(c, n) => cpu_ref::subtensor(soc, x, c, *n),
        Call::Contiguous => Ok(x.to_contiguous()),
        Call::Add(o, alpha) => cpu_ref::add(soc, x, &ref_other(o)?, alpha.reference()),
        Call::Mul(o) => cpu_ref::mul(soc, x, &ref_other(o)?),
        Call::Cat(others, dim) => {
            let ts = others
                .iter()
                .map(ref_other)
                .collect::<Result<Vec<_>, _>>()?;
            let mut list = vec![x];
            list.extend(ts.iter());
            cpu_ref::cat(soc, &list, *dim)
        }
        Call::Stack(others, dim) => {
            let ts = others
                .iter()
                .map(ref_other)
                .collect::<Result<Vec<_>, _>>()?;
            let mut list = vec![x];
            list.extend(ts.iter());
            cpu_ref::stack(soc, &list, *dim)
        }
        Call::Fill(Some(v)) => cpu_ref::fill_scalar(soc, x, v.reference()),
        Call::Fill(None) => cpu_ref::zero(soc, x),
        Call::Cast(d) => cpu_ref::cast(soc, x, *d),
        Call::Permute(dims) => cpu_ref::permute(soc, x, dims),
        Call::Flip(dims) => cpu_ref::flip(soc, x, dims),
        Call::Roll(sh, dims) => cpu_ref::roll(soc, x, sh, dims),
        Call::Expand(size) => cpu_ref::expand(soc, x, size),
        Call::Repeat(reps) => cpu_ref::repeat(soc, x, reps),
        Call::SliceV2(a) => cpu_ref::slice_v2(soc, x, &a[0], &a[1], &a[2], &a[3]),
        Call::SliceV3(b, z) => cpu_ref::slice_v3(soc, x, b, z),
        Call::AsStridedAclnn(z, st, off) => cpu_ref::as_strided_aclnn(soc, x, z, st, *off),
        Call::ViewCopy(v, [dz, ds, sz, ss], [doff, soff]) => cpu_ref::view_copy(
            soc,
            x,
            cpu_ref::Window {
                size: dz,
                stride: ds,
                offset: *doff,
            },
            &ref_other(v)?,
            cpu_ref::Window {
                size: sz,
                stride: ss,
                offset: *soff,
            },
        ),
        Call::SliceAssign(v, [b, e, st], axes) => {
            cpu_ref::strided_slice_assign_v2(soc, x, &ref_other(v)?, b, e, st, axes.as_deref())
        }
        Call::Pad(op, p) => cpu_ref::pad(*op, soc, x, p),
        Call::Tri(lower, diagonal, inplace) => {
            let (op, r) = if *lower {
                ("tril", cpu_ref::tril(soc, x, *diagonal))
            } else {
                ("triu", cpu_ref::triu(soc, x, *diagonal))
            };
            // The in-place forms refuse a target that writes one element
            // twice (a stride-0 dim of extent 2 or more, or interleaving
            // strides), after the rank (ops.md §15).
            let twice = x.numel() > 0
                && (x
                    .shape()
                    .iter()
                    .zip(x.strides())
                    .any(|(&n, &st)| n > 1 && st == 0)
                    || cpu_ref::fill_target_overlaps(x.shape(), x.strides()));
            match r {
                Ok(_) if *inplace && twice => Err(cpu_ref::RefError::InvalidArgument {
                    op,
                    param: "self",
                    reason: "the view writes one element twice".into(),
                }),
                r => r,
            }
        }
        Call::Split(Some(n), _, dim, _) => {
            ref_flat(x.dtype(), cpu_ref::split_tensor(soc, x, *n, *dim))
        }
        Call::Split(None, sizes, dim, _) => {
            ref_flat(x.dtype(), cpu_ref::split_with_size(soc, x, sizes, *dim))
        }
        Call::Embedding(idx, wide) => {
            let index = if *wide {
                cpu_ref::Tensor::from_slice(&[idx.len()], idx)?
            } else {
                let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
                cpu_ref::Tensor::from_slice(&[v.len()], &v)?
            };
            cpu_ref::embedding(soc, x, &index)
        }
        Call::GatherV2(dim, ishape, idx, wide) => {
            let index = if *wide {
                cpu_ref::Tensor::from_slice(ishape, idx)?
            } else {
                let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
                cpu_ref::Tensor::from_slice(ishape, &v)?
            };
            cpu_ref::gather_v2(soc, x, *dim, &index)
        }
        Call::Gather(dim, ishape, idx, wide) => {
            let index = if *wide {
                cpu_ref::Tensor::from_slice(ishape, idx)?
            } else {
                let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
                cpu_ref::Tensor::from_slice(ishape, &v)?
            };
            cpu_ref::gather(soc, x, *dim, &index)
        }
        Call::Take(ishape, idx, wide) => {
            let index = if *wide {
                cpu_ref::Tensor::from_slice(ishape, idx)?
            } else {
                let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
                cpu_ref::Tensor::from_slice(ishape, &v)?
            };
            cpu_ref::take(soc, x, &index)
        }
        Call::MaskedSelect(ms, bytes, uint8) => {
            let dt = if *uint8 { R::UInt8 } else { R::Bool };
            let mask = cpu_ref::Tensor::from_bytes(dt, ms, bytes.clone())?;
            cpu_ref::masked_select(soc, x, &mask)
        }
        Call::GatherNd(ishape, idx, negative) => {
            let index = cpu_ref::Tensor::from_slice(ishape, idx)?;
            cpu_ref::gather_nd(soc, x, &index, *negative)
        }
        Call::Index(members) => {
            let ms = members
                .iter()
                .map(|(sh, v, wide)| {
                    if *wide {
                        cpu_ref::Tensor::from_slice(sh, v)
                    } else {
                        let v: Vec<i32> = v.iter().map(|&i| i as i32).collect();
                        cpu_ref::Tensor::from_slice(sh, &v)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&cpu_ref::Tensor> = ms.iter().collect();
            cpu_ref::index(soc, x, &refs)
        }
        Call::IndexCopy(dim, idx, source, inplace) => {
            let index = cpu_ref::Tensor::from_slice(&[idx.len()], idx)?;
            let r = cpu_ref::index_copy(soc, x, *dim, &index, &ref_other(source)?);
            // In place (ops.md §27): `self`, when not empty, does not write
            // one element twice (the overlap test of the fills, with
            // stride-0 dims counting), checked after the parameters and
            // before the index values.
            let twice = x.numel() > 0
                && (x
                    .shape()
                    .iter()
                    .zip(x.strides())
                    .any(|(&n, &st)| n > 1 && st == 0)
                    || cpu_ref::fill_target_overlaps(x.shape(), x.strides()));
            match r {
                Ok(_) | Err(cpu_ref::RefError::IndexOutOfRange { .. }) if *inplace && twice => {
                    Err(cpu_ref::RefError::InvalidArgument {
                        op: "index_copy",
                        param: "self",
                        reason: "the view writes one element twice".into(),
                    })
                }
                r => r,
            }
        }
    }
}

fn ref_other(o: &Other) -> Result<cpu_ref::Tensor, cpu_ref::RefError> {
    cpu_ref::Tensor::from_bytes(o.dtype, &o.shape, o.bytes.clone())
}

fn our_other(s: &Stream, o: &Other) -> npu_ops::Result<Tensor> {
    Tensor::from_bytes(s, dtype(o.dtype), &o.shape, &o.bytes)
}

fn index_tensor(s: &Stream, idx: &[i64], wide: bool) -> npu_ops::Result<Tensor> {
    if wide {
        Tensor::from_slice(s, &[idx.len()], idx)
    } else {
        let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
        Tensor::from_slice(s, &[v.len()], &v)
    }
}

fn shaped_index(s: &Stream, shape: &[usize], idx: &[i64], wide: bool) -> npu_ops::Result<Tensor> {
    if wide {
        Tensor::from_slice(s, shape, idx)
    } else {
        let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
        Tensor::from_slice(s, shape, &v)
    }
}

fn our_call(s: &Stream, x: &Tensor, call: &Call) -> npu_ops::Result<Tensor> {
    match call {
        Call::Slice(d, a, b, st) => s.slice(x, *d, *a, *b, *st),
        Call::IndexSelect(d, idx, wide, how) => {
            let narrow: Vec<i64> = idx
                .iter()
                .map(|&i| if *wide { i } else { i as i32 as i64 })
                .collect();
            match how {
                0 => s.index_select(x, *d, &index_tensor(s, idx, *wide)?),
                1 => s.index_select_host(x, *d, &narrow),
                _ => s.index_select_checked(x, *d, &index_tensor(s, idx, *wide)?),
            }
        }
        Call::AsStrided(size, stride, off) => s.as_strided(x, size, stride, *off),
        Call::Sampled(p, false) => s.sampled_slice(x, p),
        Call::Sampled(p, true) => {
            let t = |v: &[i64]| Tensor::from_slice(s, &[v.len()], v);
            let axes = p.axes.as_deref().map(t).transpose()?;
            s.sampled_slice_dynamic(
                x,
                &t(&p.start)?,
                &t(&p.size)?,
                &t(&p.stride)?,
                axes.as_ref(),
                p.mode,
                p.fill,
            )
        }
        Call::Subtensor(c, n) => x.subtensor(c, *n),
        Call::Contiguous => s.contiguous(x),
        Call::Add(o, alpha) => s.add(x, &our_other(s, o)?, alpha.ours()),
        Call::Mul(o) => s.mul(x, &our_other(s, o)?),
        Call::Cat(others, dim) => {
            let ts = others
                .iter()
                .map(|o| our_other(s, o))
                .collect::<npu_ops::Result<Vec<_>>>()?;
            let mut list = vec![x];
            list.extend(ts.iter());
            s.cat(&list, *dim)
        }
        Call::Stack(others, dim) => {
            let ts = others
                .iter()
                .map(|o| our_other(s, o))
                .collect::<npu_ops::Result<Vec<_>>>()?;
            let mut list = vec![x];
            list.extend(ts.iter());
            s.stack(&list, *dim)
        }
        Call::Fill(Some(v)) => s.fill_scalar_inplace(x, v.ours()).map(|()| x.clone()),
        Call::Fill(None) => s.zero_inplace(x).map(|()| x.clone()),
        Call::Cast(d) => s.cast(x, dtype(*d)),
        Call::Permute(dims) => s.permute(x, dims),
        Call::Flip(dims) => s.flip(x, dims),
        Call::Roll(sh, dims) => s.roll(x, sh, dims),
        Call::Expand(size) => s.expand(x, size),
        Call::Repeat(reps) => s.repeat(x, reps),
        Call::SliceV2(a) => s.slice_v2(x, &a[0], &a[1], &a[2], &a[3]),
        Call::SliceV3(b, z) => s.slice_v3(x, b, z),
        Call::AsStridedAclnn(z, st, off) => s.as_strided_aclnn(x, z, st, *off),
        Call::ViewCopy(v, [dz, ds, sz, ss], [doff, soff]) => our_other(s, v).and_then(|v| {
            s.view_copy(
                x,
                Window::new(dz, ds, *doff),
                &v,
                Window::new(sz, ss, *soff),
            )
        }),
        Call::SliceAssign(v, [b, e, st], axes) => our_other(s, v).and_then(|v| {
            s.strided_slice_assign_v2(x, &v, b, e, st, axes.as_deref())
                .map(|()| x.clone())
        }),
        Call::Pad(op, p) => our_pad(s, *op, x, p, None),
        Call::Tri(true, d, false) => s.tril(x, *d),
        Call::Tri(false, d, false) => s.triu(x, *d),
        Call::Tri(true, d, true) => s.tril_inplace(x, *d).map(|()| x.clone()),
        Call::Tri(false, d, true) => s.triu_inplace(x, *d).map(|()| x.clone()),
        Call::Embedding(idx, wide) => s.embedding(x, &index_tensor(s, idx, *wide)?),
        Call::GatherV2(dim, ishape, idx, wide) => {
            s.gather_v2(x, *dim, &shaped_index(s, ishape, idx, *wide)?)
        }
        Call::Gather(dim, ishape, idx, wide) => {
            s.gather(x, *dim, &shaped_index(s, ishape, idx, *wide)?)
        }
        Call::Take(ishape, idx, wide) => s.take(x, &shaped_index(s, ishape, idx, *wide)?),
        Call::MaskedSelect(ms, bytes, uint8) => {
            let dt = if *uint8 { DType::U8 } else { DType::Bool };
            let mask = Tensor::from_bytes(s, dt, ms, bytes)?;
            s.masked_select(x, &mask)
        }
        Call::GatherNd(ishape, idx, negative) => {
            s.gather_nd(x, &Tensor::from_slice(s, ishape, idx)?, *negative)
        }
        Call::Index(members) => {
            let ms = members
                .iter()
                .map(|(sh, v, wide)| shaped_index(s, sh, v, *wide))
                .collect::<npu_ops::Result<Vec<_>>>()?;
            let refs: Vec<&Tensor> = ms.iter().collect();
            s.index(x, &refs)
        }
        Call::IndexCopy(dim, idx, source, inplace) => {
            let i = Tensor::from_slice(s, &[idx.len()], idx)?;
            let so = our_other(s, source)?;
            if *inplace {
                s.index_copy_inplace(x, *dim, &i, &so).map(|()| x.clone())
            } else {
                s.index_copy(x, *dim, &i, &so)
            }
        }
        Call::Split(sections, sizes, dim, into) => {
            let plain = || match sections {
                Some(n) => s.split_tensor(x, *n, *dim),
                None => s.split_with_size(x, sizes, *dim),
            };
            let pieces = if *into {
                plain().and_then(|ps| {
                    let outs = ps
                        .iter()
                        .map(|t| Tensor::zeros(s, t.dtype(), t.shape()))
                        .collect::<npu_ops::Result<Vec<_>>>()?;
                    match sections {
                        Some(n) => s.split_tensor_into(x, *n, *dim, &outs)?,
                        None => s.split_with_size_into(x, sizes, *dim, &outs)?,
                    }
                    Ok(outs)
                })
            } else {
                plain()
            }?;
            let mut bytes = Vec::new();
            for t in &pieces {
                bytes.extend(t.to_bytes()?);
            }
            let n = bytes.len() / x.dtype().size();
            Tensor::from_bytes(s, x.dtype(), &[n], &bytes)
        }
    }
}

/// The safe-layer pad method of `op` (its `_into` form when `out` is given).
fn our_pad(
    s: &Stream,
    op: cpu_ref::Op,
    x: &Tensor,
    p: &[i64],
    out: Option<&Tensor>,
) -> npu_ops::Result<Tensor> {
    use cpu_ref::Op as O;
    let Some(out) = out else {
        return match op {
            O::ReflectionPad1d => s.reflection_pad1d(x, p),
            O::ReflectionPad2d => s.reflection_pad2d(x, p),
            O::ReflectionPad3d => s.reflection_pad3d(x, p),
            O::ReplicationPad1d => s.replication_pad1d(x, p),
            O::ReplicationPad2d => s.replication_pad2d(x, p),
            O::ReplicationPad3d => s.replication_pad3d(x, p),
            O::CircularPad2d => s.circular_pad2d(x, p),
            _ => s.circular_pad3d(x, p),
        };
    };
    match op {
        O::ReflectionPad1d => s.reflection_pad1d_into(x, p, out),
        O::ReflectionPad2d => s.reflection_pad2d_into(x, p, out),
        O::ReflectionPad3d => s.reflection_pad3d_into(x, p, out),
        O::ReplicationPad1d => s.replication_pad1d_into(x, p, out),
        O::ReplicationPad2d => s.replication_pad2d_into(x, p, out),
        O::ReplicationPad3d => s.replication_pad3d_into(x, p, out),
        O::CircularPad2d => s.circular_pad2d_into(x, p, out),
        _ => s.circular_pad3d_into(x, p, out),
    }
    .map(|()| out.clone())
}

/// The `_into` (or prepared) form of `call` writing `out`, if it has one.
fn our_into(
    s: &Stream,
    x: &Tensor,
    call: &Call,
    out: &Tensor,
    prepared: bool,
) -> Option<npu_ops::Result<()>> {
    Some(match call {
        Call::Slice(d, a, b, st) if prepared => s
            .prepare_slice(x, *d, *a, *b, *st, out)
            .and_then(|p| p.run(x, out)),
        Call::Slice(d, a, b, st) => s.slice_into(x, *d, *a, *b, *st, out),
        Call::IndexSelect(d, idx, wide, _) => {
            let index = match index_tensor(s, idx, *wide) {
                Ok(i) => i,
                Err(e) => return Some(Err(e)),
            };
            if prepared {
                s.prepare_index_select(x, *d, &index, out)
                    .and_then(|p| p.run(x, &index, out))
            } else {
                s.index_select_into(x, *d, &index, out)
            }
        }
        Call::AsStrided(size, stride, off) if !prepared => {
            s.as_strided_into(x, size, stride, *off, out)
        }
        Call::Sampled(p, false) if !prepared => s.sampled_slice_into(x, p, out),
        Call::Add(o, alpha) if prepared => our_other(s, o).and_then(|y| {
            s.prepare_add(x, &y, alpha.ours(), out)
                .and_then(|p| p.run(x, &y, out))
        }),
        Call::Add(o, alpha) => our_other(s, o).and_then(|y| s.add_into(x, &y, alpha.ours(), out)),
        Call::Mul(o) if prepared => {
            our_other(s, o).and_then(|y| s.prepare_mul(x, &y, out).and_then(|p| p.run(x, &y, out)))
        }
        Call::Mul(o) => our_other(s, o).and_then(|y| s.mul_into(x, &y, out)),
        Call::Cat(others, dim) => others
            .iter()
            .map(|o| our_other(s, o))
            .collect::<npu_ops::Result<Vec<_>>>()
            .and_then(|ts| {
                let mut list = vec![x];
                list.extend(ts.iter());
                if prepared {
                    s.prepare_cat(&list, *dim, out)
                        .and_then(|p| p.run(&list, out))
                } else {
                    s.cat_into(&list, *dim, out)
                }
            }),
        Call::Stack(others, dim) if !prepared => others
            .iter()
            .map(|o| our_other(s, o))
            .collect::<npu_ops::Result<Vec<_>>>()
            .and_then(|ts| {
                let mut list = vec![x];
                list.extend(ts.iter());
                s.stack_into(&list, *dim, out)
            }),
        Call::Cast(_) if !prepared => s.cast_into(x, out),
        Call::Permute(dims) if !prepared => s.permute_into(x, dims, out),
        Call::Flip(dims) if !prepared => s.flip_into(x, dims, out),
        Call::Roll(sh, dims) if !prepared => s.roll_into(x, sh, dims, out),
        Call::Expand(size) if !prepared => s.expand_into(x, size, out),
        Call::Repeat(reps) if !prepared => s.repeat_into(x, reps, out),
        Call::SliceV2(a) if !prepared => s.slice_v2_into(x, &a[0], &a[1], &a[2], &a[3], out),
        Call::SliceV3(b, z) if !prepared => s.slice_v3_into(x, b, z, out),
        Call::AsStridedAclnn(z, st, off) if !prepared => {
            s.as_strided_aclnn_into(x, z, st, *off, out)
        }
        Call::ViewCopy(v, [dz, ds, sz, ss], [doff, soff]) if !prepared => {
            our_other(s, v).and_then(|v| {
                s.view_copy_into(
                    x,
                    Window::new(dz, ds, *doff),
                    &v,
                    Window::new(sz, ss, *soff),
                    out,
                )
            })
        }
        Call::Pad(op, p) if !prepared => our_pad(s, *op, x, p, Some(out)).map(drop),
        Call::Tri(true, d, false) if !prepared => s.tril_into(x, *d, out),
        Call::Tri(false, d, false) if !prepared => s.triu_into(x, *d, out),
        Call::Embedding(idx, wide) => match index_tensor(s, idx, *wide) {
            Ok(i) if prepared => s
                .prepare_embedding(x, &i, out)
                .and_then(|p| p.run(x, &i, out)),
            Ok(i) => s.embedding_into(x, &i, out),
            Err(e) => Err(e),
        },
        Call::GatherV2(dim, ishape, idx, wide) if !prepared => {
            match shaped_index(s, ishape, idx, *wide) {
                Ok(i) => s.gather_v2_into(x, *dim, &i, out),
                Err(e) => Err(e),
            }
        }
        Call::Gather(dim, ishape, idx, wide) if !prepared => {
            match shaped_index(s, ishape, idx, *wide) {
                Ok(i) => s.gather_into(x, *dim, &i, out),
                Err(e) => Err(e),
            }
        }
        Call::Take(ishape, idx, wide) if !prepared => match shaped_index(s, ishape, idx, *wide) {
            Ok(i) => s.take_into(x, &i, out),
            Err(e) => Err(e),
        },
        _ => return None,
    })
}

/// The storage bytes after writing `value` (row-major) through a view.
fn write_through(
    storage: &mut [u8],
    es: usize,
    shape: &[usize],
    strides: &[usize],
    offset: usize,
    value: &[u8],
) {
    let n: usize = shape.iter().product();
    let mut idx = vec![0usize; shape.len()];
    for k in 0..n {
        let at = offset + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>();
        storage[at * es..(at + 1) * es].copy_from_slice(&value[k * es..(k + 1) * es]);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Compares what the device gave with the reference. On a stream other
/// threads share (`shared`), a device fault agrees with any reference
/// outcome: it may be another thread's, which spoils this case's work too
/// (the runtime does not say whose). Ok with wrong bytes, Ok where the
/// reference refuses, or any other error never agrees.
fn compare(
    what: &str,
    got: npu_ops::Result<Vec<u8>>,
    want: Result<Vec<u8>, cpu_ref::RefError>,
    shared: bool,
) -> Verdict {
    match (got, want) {
        (Err(g), _) if shared && g.is_device_fault() => Verdict::Agree { data: false },
        (Ok(g), Ok(w)) if g == w => Verdict::Agree { data: true },
        (Err(g), Err(w)) if g.kind() == w.kind() => Verdict::Agree { data: false },
        (Ok(g), Ok(w)) => Verdict::Mismatch(format!("{what}: data differs: got {g:?}, want {w:?}")),
        (Err(g), Err(w)) => Verdict::Mismatch(format!("{what}: got error {g}, reference: {w}")),
        (Ok(_), Err(w)) => Verdict::Mismatch(format!("{what}: got a result, reference: {w}")),
        (Err(g), Ok(_)) => {
            Verdict::Mismatch(format!("{what}: got error {g}, reference has a result"))
        }
    }
}

/// Generates one case from `src` and runs it on `s` (the runtime's SoC is
/// the reference's). Device faults of the case are reported by its own
/// reads; the stream is synchronised at the end, so nothing carries over.
/// Without `faults`, no index is out of range (for streams other threads
/// share: a fault there would spoil their work too, by design).
pub fn run_case(src: &mut impl Source, s: &Stream, faults: bool) -> Verdict {
    run_case_on(src, s, faults, false)
}

/// [`run_case`] on a stream other threads share and fault on at will: a
/// device fault ([`Error::is_device_fault`]) may spoil this case's work, so
/// it agrees with any reference outcome (see `compare`): a fault never
/// reads as `Ok`, and never hides a wrong answer.
pub fn run_case_shared(src: &mut impl Source, s: &Stream) -> Verdict {
    run_case_on(src, s, true, true)
}

fn run_case_on(src: &mut impl Source, s: &Stream, faults: bool, shared: bool) -> Verdict {
    let soc = s.runtime().soc().to_string();
    let d = src.pick(&R::ALL);
    let es = d.size();
    let v = gen_view(src);
    let bytes = element_bytes(src, d, v.storage);
    let what = format!(
        "{d} view {:?}/{:?}@{} over {}",
        v.shape, v.strides, v.offset, v.storage
    );
    let rx = cpu_ref::Tensor::from_bytes(d, &[v.storage], bytes.clone())
        .and_then(|b| b.view(&v.shape, &v.strides, v.offset));
    let base = match Tensor::from_bytes(s, dtype(d), &[v.storage], &bytes) {
        Ok(b) => b,
        Err(e) => return Verdict::Mismatch(format!("{what}: upload failed: {e}")),
    };
    let x = base.view(&v.shape, &v.strides, v.offset);
    let (x, rx) = match (x, rx) {
        (Ok(x), Ok(rx)) => (x, rx),
        (Err(a), Err(b)) if a.kind() == b.kind() => return Verdict::Agree { data: false },
        (a, b) => {
            return Verdict::Mismatch(format!(
                "{what}: view: got {:?}, reference {:?}",
                a.err(),
                b.err()
            ))
        }
    };
    let call = gen_call(src, d, &v.shape, faults);
    let what = format!("{what}: {call:?}");
    if x.numel() > 1 << 16 {
        // A legal view too large to materialise on the host (a broadcast
        // of 2^62 elements): the reference cannot run it, the device must
        // refuse or answer without crashing; small results are read back.
        if let Ok(t) = our_call(s, &x, &call) {
            if t.numel() <= 1 << 16 {
                let _ = t.to_bytes();
            }
        }
        let _ = s.synchronize();
        return Verdict::Agree { data: false };
    }
    let want = ref_call(&soc, &rx, &call);
    let form = src.below(4);
    let verdict = match (&want, form) {
        (Ok(w), 1..=3) => into_case(
            src,
            s,
            &base,
            &x,
            &bytes,
            es,
            &call,
            w,
            form == 3,
            &what,
            shared,
        ),
        _ => None,
    };
    let verdict = verdict.unwrap_or_else(|| {
        let got = our_call(s, &x, &call).and_then(|t| {
            if t.dtype() != dtype(want.as_ref().map_or(d, |w| w.dtype())) {
                return Err(Error::InvalidArgument {
                    op: "oracle",
                    param: "dtype",
                    reason: format!("result dtype {}", t.dtype()),
                });
            }
            if let Ok(w) = &want {
                if t.shape() != w.shape() {
                    return Err(Error::InvalidArgument {
                        op: "oracle",
                        param: "shape",
                        reason: format!("result shape {:?}, want {:?}", t.shape(), w.shape()),
                    });
                }
            }
            t.to_bytes()
        });
        compare(
            &what,
            got,
            want.as_ref()
                .map(|w| w.contiguous_bytes())
                .map_err(Clone::clone),
            shared,
        )
    });
    let verdict = match (verdict, &want) {
        // Not on a shared stream: another thread's fault would read as
        // this call's error.
        (Verdict::Agree { data }, Err(w)) if !shared => {
            error_forms(s, &x, &call, w, &what).unwrap_or(Verdict::Agree { data })
        }
        (v, _) => v,
    };
    let _ = s.synchronize();
    verdict
}

/// When the reference refuses a call, every other form of it must refuse
/// it with the same error kind (the contract checks every form in one
/// order: the product, the devices, the parameters, the index values):
/// the `_into` and prepared forms, into a fresh `out` of the shape the
/// parameters give where the call has one (else `x`'s: the parameters are
/// checked before `out`'s shape), and the host-index form with other
/// integer types. The first disagreement, if any.
fn error_forms(
    s: &Stream,
    x: &Tensor,
    call: &Call,
    want: &cpu_ref::RefError,
    what: &str,
) -> Option<Verdict> {
    // Whatever the plain call left pending is reported here, not below.
    let _ = s.synchronize();
    let check = |form: &str, got: npu_ops::Result<()>| -> Option<Verdict> {
        match got {
            Err(g) if g.kind() == want.kind() => None,
            Err(g) => Some(Verdict::Mismatch(format!(
                "{what}: {form}: got error {g}, reference: {want}"
            ))),
            Ok(()) => Some(Verdict::Mismatch(format!(
                "{what}: {form}: got a result, reference: {want}"
            ))),
        }
    };
    if let Call::IndexSelect(d, idx, wide, _) = call {
        let narrow: Vec<i64> = idx
            .iter()
            .map(|&i| if *wide { i } else { i as i32 as i64 })
            .collect();
        // A negative value stays out of range as a huge u64.
        let unsigned: Vec<u64> = narrow.iter().map(|&i| i as u64).collect();
        let sized: Vec<isize> = narrow.iter().map(|&i| i as isize).collect();
        let host = [
            (
                "index_select_host (i64)",
                s.index_select_host(x, *d, &narrow),
            ),
            (
                "index_select_host (u64)",
                s.index_select_host(x, *d, &unsigned),
            ),
            (
                "index_select_host (isize)",
                s.index_select_host(x, *d, &sized),
            ),
        ];
        for (form, got) in host {
            if let Some(v) = check(form, got.and_then(|t| t.to_bytes().map(drop))) {
                return Some(v);
            }
        }
        let index = index_tensor(s, idx, *wide).ok()?;
        if let Some(v) = check(
            "index_select_checked",
            s.index_select_checked(x, *d, &index)
                .and_then(|t| t.to_bytes().map(drop)),
        ) {
            return Some(v);
        }
    }
    let shape = match call {
        Call::IndexSelect(..) if x.rank() == 0 => vec![],
        Call::IndexSelect(d, idx, _, _) => {
            let r = x.rank() as i64;
            let mut sh = x.shape().to_vec();
            if (-r..r).contains(d) {
                sh[d.rem_euclid(r) as usize] = idx.len();
            }
            sh
        }
        // Add and Mul: `out`'s dtype and shape come from both operands
        // (promotion, broadcasting); their own tests check the forms.
        // Cat: `out`'s shape comes from every member.
        Call::Subtensor(..)
        | Call::Contiguous
        | Call::Add(..)
        | Call::Mul(..)
        | Call::Cat(..)
        | Call::Stack(..)
        | Call::Fill(..)
        | Call::SliceAssign(..)
        | Call::Cast(..)
        | Call::Split(..)
        | Call::Embedding(..)
        | Call::GatherV2(..)
        | Call::Gather(..)
        | Call::Take(..)
        | Call::IndexCopy(..)
        | Call::GatherNd(..)
        | Call::MaskedSelect(..)
        | Call::Index(..)
        | Call::Permute(..)
        | Call::Expand(..)
        | Call::Repeat(..) => return None,
        Call::Pad(op, p) => cpu_ref::pad_out_shape(*op, x.shape(), p).ok()?,
        Call::SliceV2(a) => {
            cpu_ref::slice_v2_out_shape(x.shape(), &a[0], &a[1], &a[2], &a[3]).ok()?
        }
        Call::SliceV3(b, z) => cpu_ref::slice_v3_out_shape(x.shape(), b, z).ok()?,
        Call::AsStridedAclnn(z, st, off) => {
            cpu_ref::as_strided_aclnn_out_shape(x.numel(), z, st, *off).ok()?
        }
        _ => x.shape().to_vec(),
    };
    for prepared in [false, true] {
        let out = Tensor::zeros(s, x.dtype(), &shape).ok()?;
        let Some(got) = our_into(s, x, call, &out, prepared) else {
            continue;
        };
        let form = if prepared {
            "prepared form"
        } else {
            "_into form"
        };
        if let Some(v) = check(form, got.and_then(|_| out.to_bytes().map(drop))) {
            return Some(v);
        }
        let _ = s.synchronize();
    }
    None
}

/// The `_into` / prepared form: out is a fresh tensor, a strided view, or a
/// view of the input's own storage. `None` when the call has no such form.
#[allow(clippy::too_many_arguments)]
fn into_case(
    src: &mut impl Source,
    s: &Stream,
    base: &Tensor,
    x: &Tensor,
    bytes: &[u8],
    es: usize,
    call: &Call,
    want: &cpu_ref::Tensor,
    prepared: bool,
    what: &str,
    shared: bool,
) -> Option<Verdict> {
    if dtype(want.dtype()) != x.dtype() {
        // A promoted result (Add, Mul): the plain form checks it.
        return None;
    }
    let shape = want.shape().to_vec();
    let n: usize = shape.iter().product();
    let mut strides = vec![0usize; shape.len()];
    let mut acc = 1usize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1);
    }
    // Reverse the dims' order in memory sometimes (a transposed out).
    if src.chance(1, 3) && shape.len() >= 2 {
        let mut acc = 1usize;
        for i in 0..shape.len() {
            strides[i] = acc;
            acc *= shape[i].max(1);
        }
    }
    let alias = src.chance(1, 2) && n <= base.numel() && base.numel() > 0;
    let (storage, offset, initial) = if alias {
        let span = if n == 0 {
            0
        } else {
            shape
                .iter()
                .zip(&strides)
                .map(|(&a, &b)| (a - 1) * b)
                .sum::<usize>()
                + 1
        };
        if span > base.numel() {
            return None;
        }
        let off = src.below((base.numel() - span + 1) as u64) as usize;
        (base.clone(), off, bytes.to_vec())
    } else {
        let extra = src.range(0, 3) as usize;
        let init: Vec<u8> = (0..(n + extra) * es)
            .map(|_| src.next_u64() as u8 & if want.dtype() == R::Bool { 1 } else { 0xff })
            .collect();
        match Tensor::from_bytes(s, x.dtype(), &[n + extra], &init) {
            Ok(t) => (t, src.below(extra as u64 + 1) as usize, init),
            Err(e) => return Some(Verdict::Mismatch(format!("{what}: out upload: {e}"))),
        }
    };
    let out = match storage.view(&shape, &strides, offset) {
        Ok(o) => o,
        Err(_) => return None,
    };
    let r = our_into(s, x, call, &out, prepared)?;
    let mut expect = initial;
    write_through(
        &mut expect,
        es,
        &shape,
        &strides,
        offset,
        &want.contiguous_bytes(),
    );
    let all = storage
        .view(&[storage.numel()], &[1], 0)
        .expect("whole storage");
    let got = r.and_then(|_| all.to_bytes());
    Some(compare(
        &format!("{what} into {shape:?}/{strides:?}@{offset} (alias {alias}, prepared {prepared})"),
        got,
        Ok(expect),
        shared,
    ))
}
