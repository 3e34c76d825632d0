//! Sampled slice (TensorRT `ISliceLayer`, spec section 4), composed from
//! aclnn primitives so it runs on a real NPU unchanged. Each axis is first
//! cropped (a zero-copy view) to the input range it reads; FILL pads that
//! region with one cell on each side (ConstantPadNd) and maps out-of-range
//! coordinates onto the padding. Then per axis: nothing when the crop is
//! the whole answer, Slice for an ascending arithmetic run, else
//! IndexSelect over the axis's source indices (computed on the host, one
//! per output coordinate of that axis).

use super::{acl, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, AclScalar, First};
use crate::layout::{self, SliceArgs};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "sampled_slice";

/// A fill value, converted exactly to the tensor's dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Scalar {
    /// `true`/`false`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A real number (NaN and infinities allowed for float dtypes).
    Float(f64),
    /// A complex number (re, im).
    Complex(f64, f64),
}

fn f32_exact(v: f64) -> Option<f32> {
    if v.is_nan() {
        return Some(f32::from_bits(
            0x7fc0_0000 | ((v.is_sign_negative() as u32) << 31),
        ));
    }
    let f = v as f32;
    (f as f64 == v).then_some(f)
}

fn int_exact(v: f64) -> Option<i128> {
    (v.is_finite() && v.fract() == 0.0 && v.abs() < 2f64.powi(100)).then_some(v as i128)
}

impl Scalar {
    /// The value's bytes in `dtype`, if it is exactly representable there
    /// (NaN becomes the dtype's default quiet NaN, keeping its sign).
    pub fn to_bytes(self, dtype: DType) -> Result<Vec<u8>> {
        let bad = || {
            Error::invalid(
                OP,
                "fill",
                format!("{self:?} is not exactly representable in {dtype}"),
            )
        };
        let (re, im): (Option<f64>, f64) = match self {
            Scalar::Bool(b) => (Some(b as u8 as f64), 0.0),
            Scalar::Float(f) => (Some(f), 0.0),
            Scalar::Complex(r, i) => (Some(r), i),
            Scalar::Int(_) | Scalar::UInt(_) => (None, 0.0),
        };
        let as_int: Option<i128> = match self {
            Scalar::Int(v) => Some(v as i128),
            Scalar::UInt(v) => Some(v as i128),
            _ if im == 0.0 => re.and_then(int_exact),
            _ => None,
        };
        let real = || -> Option<f64> {
            match self {
                Scalar::Int(v) => ((v as f64) as i128 == v as i128).then_some(v as f64),
                Scalar::UInt(v) => ((v as f64) as i128 == v as i128).then_some(v as f64),
                _ => re,
            }
        };
        macro_rules! int {
            ($t:ty) => {
                as_int
                    .and_then(|v| <$t>::try_from(v).ok())
                    .map(|v| v.to_le_bytes().to_vec())
                    .ok_or_else(bad)
            };
        }
        match dtype {
            DType::Bool => match as_int {
                Some(v @ 0..=1) => Ok(vec![v as u8]),
                _ => Err(bad()),
            },
            DType::I8 => int!(i8),
            DType::U8 => int!(u8),
            DType::I16 => int!(i16),
            DType::U16 => int!(u16),
            DType::I32 => int!(i32),
            DType::U32 => int!(u32),
            DType::I64 => int!(i64),
            DType::U64 => int!(u64),
            _ if im != 0.0 && !matches!(dtype, DType::C64 | DType::C128) => Err(bad()),
            DType::F64 => real().map(|v| v.to_le_bytes().to_vec()).ok_or_else(bad),
            DType::F32 => real()
                .and_then(f32_exact)
                .map(|v| v.to_le_bytes().to_vec())
                .ok_or_else(bad),
            DType::F16 => real()
                .and_then(|v| {
                    if v.is_nan() {
                        return Some(0x7e00 | ((v.is_sign_negative() as u16) << 15));
                    }
                    let h = half::f16::from_f64(v);
                    (h.to_f64() == v).then_some(h.to_bits())
                })
                .map(|b| b.to_le_bytes().to_vec())
                .ok_or_else(bad),
            DType::BF16 => real()
                .and_then(|v| {
                    if v.is_nan() {
                        return Some(0x7fc0 | ((v.is_sign_negative() as u16) << 15));
                    }
                    let h = half::bf16::from_f64(v);
                    (h.to_f64() == v).then_some(h.to_bits())
                })
                .map(|b| b.to_le_bytes().to_vec())
                .ok_or_else(bad),
            DType::C64 => {
                let (r, i) = (
                    real().and_then(f32_exact).ok_or_else(bad)?,
                    f32_exact(im).ok_or_else(bad)?,
                );
                Ok([r.to_le_bytes(), i.to_le_bytes()].concat())
            }
            DType::C128 => {
                let r = real().ok_or_else(bad)?;
                Ok([r.to_le_bytes(), im.to_le_bytes()].concat())
            }
        }
    }
}

/// What to do with coordinates outside the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SampleMode {
    /// Out-of-range coordinates are an error (checked before launch).
    StrictBounds,
    /// Coordinates wrap around (non-negative remainder).
    Wrap,
    /// Coordinates clamp to `[0, d - 1]`.
    Clamp,
    /// Out-of-range elements take the fill value ([`SampledSlice::fill`],
    /// default 0).
    Fill,
    /// Coordinates reflect at the edges (`z = 0` when `d == 1`).
    Reflect,
}

/// Parameters of [`Stream::sampled_slice`]: `x_i = y_i * stride_i +
/// start_i` for output coordinate `y_i`. With `axes`, the lists give one
/// entry per listed axis (negative axes count from the end); unlisted axes
/// take start 0, size `d`, stride 1.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledSlice {
    /// First coordinate per axis.
    pub start: Vec<i64>,
    /// Output extent per axis.
    pub size: Vec<i64>,
    /// Step per axis (negative and zero allowed).
    pub stride: Vec<i64>,
    /// The axes the lists apply to (all, in order, when `None`).
    pub axes: Option<Vec<i64>>,
    /// Out-of-range handling.
    pub mode: SampleMode,
    /// The fill value of [`SampleMode::Fill`] (0 when `None`); given with
    /// any other mode it is an invalid argument, as in TensorRT.
    pub fill: Option<Scalar>,
}

impl SampledSlice {
    /// Parameters over every axis.
    pub fn new(start: &[i64], size: &[i64], stride: &[i64], mode: SampleMode) -> SampledSlice {
        SampledSlice {
            start: start.to_vec(),
            size: size.to_vec(),
            stride: stride.to_vec(),
            axes: None,
            mode,
            fill: None,
        }
    }

    /// The same, applied to `axes` only.
    pub fn with_axes(mut self, axes: &[i64]) -> SampledSlice {
        self.axes = Some(axes.to_vec());
        self
    }

    /// The same, with a fill value (valid in [`SampleMode::Fill`] only).
    pub fn with_fill(mut self, value: Scalar) -> SampledSlice {
        self.fill = Some(value);
        self
    }
}

/// One axis after expansion and validation.
#[derive(Clone, Copy, Debug)]
struct Axis {
    d: usize,
    start: i128,
    stride: i128,
    size: usize,
}

impl Axis {
    fn ends(&self) -> (i128, i128) {
        (
            self.start,
            self.start + (self.size as i128 - 1) * self.stride,
        )
    }

    fn in_bounds(&self) -> bool {
        let (a, b) = self.ends();
        self.size == 0 || (0..self.d as i128).contains(&a) && (0..self.d as i128).contains(&b)
    }
}

fn expand(x: &Tensor, p: &SampledSlice) -> Result<(Vec<Axis>, Vec<u8>)> {
    let rank = x.rank() as i64;
    let n = p.start.len();
    if p.size.len() != n {
        return Err(Error::invalid(
            OP,
            "size",
            format!("has {} entries, start has {n}", p.size.len()),
        ));
    }
    if p.stride.len() != n {
        return Err(Error::invalid(
            OP,
            "stride",
            format!("has {} entries, start has {n}", p.stride.len()),
        ));
    }
    let axes: Vec<usize> = match &p.axes {
        None => {
            if n as i64 != rank {
                return Err(Error::invalid(
                    OP,
                    "start",
                    format!("needs one entry per axis ({rank}), got {n}"),
                ));
            }
            (0..n).collect()
        }
        Some(a) => {
            if a.len() != n {
                return Err(Error::invalid(
                    OP,
                    "axes",
                    format!("has {} entries, start has {n}", a.len()),
                ));
            }
            let mut out = Vec::with_capacity(n);
            for &ax in a {
                if ax < -rank || ax >= rank {
                    return Err(Error::invalid(
                        OP,
                        "axes",
                        format!("{ax} is outside [{}, {}]", -rank, rank - 1),
                    ));
                }
                let ax = if ax < 0 { ax + rank } else { ax } as usize;
                if out.contains(&ax) {
                    return Err(Error::invalid(
                        OP,
                        "axes",
                        format!("axis {ax} is listed twice"),
                    ));
                }
                out.push(ax);
            }
            out
        }
    };
    let mut plan: Vec<Axis> = x
        .shape()
        .iter()
        .map(|&d| Axis {
            d,
            start: 0,
            stride: 1,
            size: d,
        })
        .collect();
    for (k, &ax) in axes.iter().enumerate() {
        if p.size[k] < 0 {
            return Err(Error::invalid(
                OP,
                "size",
                format!("entry {k} is {}, must be >= 0", p.size[k]),
            ));
        }
        plan[ax] = Axis {
            d: x.shape()[ax],
            start: p.start[k] as i128,
            stride: p.stride[k] as i128,
            size: p.size[k] as usize,
        };
    }
    let fill = match (p.mode, p.fill) {
        (SampleMode::Fill, v) => v.unwrap_or(Scalar::Int(0)).to_bytes(x.dtype())?,
        (mode, Some(v)) => {
            return Err(Error::invalid(
                OP,
                "fill",
                format!("a fill value ({v:?}) is only valid in FILL mode, not {mode:?}"),
            ))
        }
        (_, None) => Vec::new(),
    };
    for (i, a) in plan.iter().enumerate() {
        if a.size == 0 {
            continue;
        }
        if a.d == 0 && p.mode != SampleMode::Fill {
            return Err(Error::invalid(
                OP,
                "self",
                format!("axis {i} has extent 0; only FILL (or size 0) can sample it"),
            ));
        }
        if p.mode == SampleMode::StrictBounds {
            let (first, last) = a.ends();
            if !(0..a.d as i128).contains(&first) {
                return Err(Error::invalid(
                    OP,
                    "start",
                    format!("axis {i}: first coordinate {first} is outside [0, {})", a.d),
                ));
            }
            if !(0..a.d as i128).contains(&last) {
                return Err(Error::invalid(
                    OP,
                    "size",
                    format!("axis {i}: last coordinate {last} is outside [0, {})", a.d),
                ));
            }
        }
    }
    let shape: Vec<usize> = plan.iter().map(|a| a.size).collect();
    let n = layout::numel(OP, "size", &shape)?;
    layout::bytes(OP, "size", n, x.dtype().size())?;
    Ok((plan, fill))
}

/// Source coordinate of output coordinate `y` on an axis (for STRICT_BOUNDS
/// and FILL the raw coordinate, possibly outside `[0, d)`; i128 so that no
/// i64 start and stride overflow).
fn source(mode: &SampleMode, a: &Axis, y: usize) -> i128 {
    let x = a.start + y as i128 * a.stride;
    let d = a.d as i128;
    match mode {
        SampleMode::StrictBounds | SampleMode::Fill => x,
        SampleMode::Wrap => x.rem_euclid(d),
        SampleMode::Clamp => x.clamp(0, d - 1),
        SampleMode::Reflect if d == 1 => 0,
        SampleMode::Reflect => {
            let c = x.abs().rem_euclid(2 * d - 2);
            if c >= d {
                2 * d - 2 - c
            } else {
                c
            }
        }
    }
}

/// A run of output coordinates on one axis that reads an arithmetic run
/// of input coordinates (`z0 + k * step`, `step >= 0`), or, for FILL, lies
/// wholly outside the input.
#[derive(Clone, Copy, Debug)]
struct Run {
    y0: usize,
    len: usize,
    z0: usize,
    step: usize,
    fill: bool,
}

/// Blocks beyond this many go through the general path (index lists).
const MAX_BLOCKS: usize = 16;

/// Each axis's runs, if every axis splits into runs and the combinations
/// are at most [`MAX_BLOCKS`] (a descending run, as REFLECT and negative
/// strides make, needs the general path).
fn block_runs(mode: &SampleMode, plan: &[Axis]) -> Option<Vec<Vec<Run>>> {
    let mut all = Vec::with_capacity(plan.len());
    let mut blocks = 1usize;
    for a in plan {
        let d = a.d as i128;
        let inside = |z: i128| (0..d).contains(&z);
        let mut runs: Vec<Run> = Vec::new();
        let mut y = 0;
        while y < a.size {
            let z = source(mode, a, y);
            let fill = !inside(z);
            let mut len = 1;
            let mut step = 0i128;
            if !fill && y + 1 < a.size {
                let z1 = source(mode, a, y + 1);
                if inside(z1) && z1 >= z {
                    step = z1 - z;
                }
            }
            while y + len < a.size {
                let z2 = source(mode, a, y + len);
                let ok = if fill {
                    !inside(z2)
                } else {
                    inside(z2) && z2 == z + len as i128 * step
                };
                if !ok {
                    break;
                }
                len += 1;
            }
            runs.push(Run {
                y0: y,
                len,
                z0: if fill { 0 } else { z as usize },
                step: step as usize,
                fill,
            });
            if runs.len() > MAX_BLOCKS {
                return None;
            }
            y += len;
        }
        blocks = blocks.checked_mul(runs.len())?;
        if blocks > MAX_BLOCKS {
            return None;
        }
        all.push(runs);
    }
    Some(all)
}

/// Host bytes the general path's index lists take per output coordinate
/// of each axis, at most: the source coordinates (`i128`), the kept ones
/// (`i128`), and the `i64` lists derived from them.
const LIST_BYTES: usize = 64;

/// FILL windows with unit steps of at most this many bytes are one
/// ConstantPadNd of the crop; larger ones copy blocks (as fast or faster at
/// 256 MiB, where the pad's single pass gains nothing; docs/architecture.md,
/// "Composite plans").
const PAD_MAX_BYTES: usize = 1 << 20;

/// A window's single-launch plan.
enum OneLaunch {
    /// FILL with unit steps: the crop of `x` the window reads (per axis,
    /// start and length, none empty), padded with the fill value by one
    /// ConstantPadNd (`pads`: aclnn's order, last axis first).
    Pad(Vec<(usize, usize)>, Vec<i64>),
    /// One IndexSelect over `x`'s storage, through an index kept per
    /// window (`index_cache`).
    Gather,
}

/// A window one pad operator computes in one launch (spec §16, §17):
/// CLAMP (replication), REFLECT (reflection) or WRAP (circular) with unit
/// steps whose window reaches outside the input on some axis and reads it
/// on every axis. The crop of `x` the window reads is padded: clamping,
/// reflecting or wrapping at the crop's edges is the mode's mapping when
/// the crop reaches the input's edge on each padded side (always for
/// CLAMP; for REFLECT each pad must be below the crop's extent; for WRAP
/// the crop must be the whole axis and each pad below it).
struct PadPlan {
    /// The pad operator.
    op: OpKind,
    /// Per axis of `x`: the crop's start and length (none empty).
    crops: Vec<(usize, usize)>,
    /// The operator's padding (its `k` dims, last first).
    pads: Vec<i64>,
    /// Extent-1 dims put before the crop so that its rank is `k + 1`.
    lead: usize,
}

/// The [`PadPlan`] of a window, if it has one and the product has the
/// operator for the dtype (else the composition runs, as before).
fn pad_plan(s: &Stream, mode: &SampleMode, plan: &[Axis], dtype: DType) -> Option<PadPlan> {
    let (min_k, ops) = match mode {
        SampleMode::Clamp => (
            1,
            [
                OpKind::ReplicationPad1d,
                OpKind::ReplicationPad2d,
                OpKind::ReplicationPad3d,
            ],
        ),
        SampleMode::Reflect => (
            1,
            [
                OpKind::ReflectionPad1d,
                OpKind::ReflectionPad2d,
                OpKind::ReflectionPad3d,
            ],
        ),
        SampleMode::Wrap => (
            2,
            [
                OpKind::CircularPad2d,
                OpKind::CircularPad2d,
                OpKind::CircularPad3d,
            ],
        ),
        _ => return None,
    };
    let rank = plan.len();
    if rank == 0 || rank > 5 || plan.iter().all(Axis::in_bounds) {
        return None;
    }
    let mut crops = Vec::with_capacity(rank);
    let mut sides = Vec::with_capacity(rank);
    for a in plan {
        if a.stride != 1 && a.size > 1 {
            return None;
        }
        let (s0, n, d) = (a.start, a.size as i128, a.d as i128);
        let (lo, hi) = (s0.max(0), d.min(s0 + n));
        if hi <= lo {
            return None; // the window misses the input on this axis
        }
        let len = hi - lo;
        let (before, after) = (lo - s0, s0 + n - hi);
        let fits = match mode {
            SampleMode::Reflect => before < len && after < len,
            SampleMode::Wrap => {
                (before == 0 && after == 0) || (len == d && before < d && after < d)
            }
            _ => true,
        };
        if !fits {
            return None;
        }
        crops.push((lo as usize, len as usize));
        sides.push((i64::try_from(before).ok()?, i64::try_from(after).ok()?));
    }
    // The pad's k dims are the last k of the crop (seen with `lead`
    // extent-1 dims in front when it has fewer); the others are not padded.
    let k = rank.max(min_k).min(3);
    let lead = (k + 1).saturating_sub(rank);
    let first = rank.saturating_sub(k);
    if sides[..first].iter().any(|&p| p != (0, 0)) {
        return None;
    }
    let op = ops[k - 1];
    let fam = s.runtime().family()?;
    if !op.available(fam) || !op.supports(fam, dtype) {
        return None;
    }
    let mut pads: Vec<i64> = sides[first..]
        .iter()
        .rev()
        .flat_map(|&(b, a)| [b, a])
        .collect();
    pads.resize(2 * k, 0);
    Some(PadPlan {
        op,
        crops,
        pads,
        lead,
    })
}

/// A WRAP window that takes every extent whole with unit steps is a
/// rotation of `x`: one Roll launch (shifts and dims), where the general
/// plan copies up to 2^rank blocks in as many launches. `None` for other
/// windows, for the identity, and where the product lacks Roll for the
/// dtype.
fn roll_plan(
    s: &Stream,
    mode: &SampleMode,
    plan: &[Axis],
    dtype: DType,
) -> Option<(Vec<i64>, Vec<i64>)> {
    if *mode != SampleMode::Wrap {
        return None;
    }
    let (mut shifts, mut dims) = (Vec::new(), Vec::new());
    for (i, a) in plan.iter().enumerate() {
        if a.size != a.d || (a.stride != 1 && a.size > 1) {
            return None;
        }
        // out[y] = x[(start + y) mod d]: Roll by -start.
        let k = (-a.start).rem_euclid(a.d.max(1) as i128);
        if k != 0 {
            shifts.push(i64::try_from(k).ok()?);
            dims.push(i as i64);
        }
    }
    let fam = s.runtime().family()?;
    (!dims.is_empty() && OpKind::Roll.available(fam) && OpKind::Roll.supports(fam, dtype))
        .then_some((shifts, dims))
}

/// The single-launch plan for a window, if there is one and it beats the
/// general plans (measured: docs/architecture.md, "Composite plans"):
/// FILL with unit steps up to [`PAD_MAX_BYTES`] (a crop and one pad), other windows of
/// at most [`super::ONE_LAUNCH_ELEMS`] elements (one gather). `None` when
/// the window is one block already (one copy), for FILL with other steps
/// (the fill value needs a pass of its own: the general plan), and for
/// larger gathers.
fn one_launch(mode: &SampleMode, plan: &[Axis], dtype: DType) -> Option<OneLaunch> {
    if plan.is_empty() {
        return None;
    }
    let n = plan.iter().try_fold(1usize, |n, a| n.checked_mul(a.size));
    if *mode == SampleMode::Fill {
        let unit = plan.iter().all(|a| a.stride == 1 || a.size <= 1);
        let bytes = n.and_then(|n| n.checked_mul(dtype.size()));
        if !unit || plan.iter().all(Axis::in_bounds) || bytes.is_none_or(|b| b > PAD_MAX_BYTES) {
            return None;
        }
        let mut crops = Vec::with_capacity(plan.len());
        let mut pads = Vec::with_capacity(2 * plan.len());
        for a in plan {
            let (s, n, d) = (a.start, a.size as i128, a.d as i128);
            let before = (-s).clamp(0, n);
            let (lo, hi) = (s.max(0), d.min(s + n));
            if hi <= lo {
                return None; // all fill: one broadcast block
            }
            let len = hi - lo;
            crops.push((lo as usize, len as usize));
            pads.push((before as i64, (n - before - len) as i64));
        }
        let pads = pads.iter().rev().flat_map(|&(b, a)| [b, a]).collect();
        return Some(OneLaunch::Pad(crops, pads));
    }
    // In bounds with non-negative steps: one block (one copy) already.
    if plan.iter().all(|a| a.in_bounds() && a.stride >= 0)
        || n.is_none_or(|n| n > super::ONE_LAUNCH_ELEMS)
    {
        return None;
    }
    Some(OneLaunch::Gather)
}

impl Stream {
    /// The sampled slice: output shape `size` (after `axes` expansion),
    /// `out[y] = x[z(y)]` per [`SampleMode`].
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, SampledSlice, SampleMode, Scalar};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[0f32; 4])?;
    /// let p = SampledSlice::new(&[0, 0], &[3, 3], &[1, 1], SampleMode::Fill)
    ///     .with_fill(Scalar::Float(1.0));
    /// let y = s.sampled_slice(&x, &p)?;
    /// assert_eq!(y.to_vec::<f32>()?, [0., 0., 1., 0., 0., 1., 1., 1., 1.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn sampled_slice(&self, x: &Tensor, p: &SampledSlice) -> Result<Tensor> {
        check_product(self, OpKind::SampledSlice, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let (plan, fill) = expand(x, p)?;
        let shape: Vec<usize> = plan.iter().map(|a| a.size).collect();
        // Refuse an output that can never fit before any pass runs.
        Tensor::bytes_that_fit(self, OP, "size", x.dtype(), &shape)?;
        if shape.contains(&0) {
            return Tensor::empty(self, x.dtype(), &shape);
        }
        if let Some(pp) = pad_plan(self, &p.mode, &plan, x.dtype()) {
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
            self.run_pad_plan(x, &plan, &pp, &out)?;
            return Ok(out);
        }
        if let Some((shifts, dims)) = roll_plan(self, &p.mode, &plan, x.dtype()) {
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
            self.roll_into(x, &shifts, &dims, &out)?;
            return Ok(out);
        }
        if let Some(how) = one_launch(&p.mode, &plan, x.dtype()) {
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
            self.run_one_launch(x, p, &plan, &fill, how, &out)?;
            return Ok(out);
        }
        if let Some(runs) = block_runs(&p.mode, &plan) {
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
            self.copy_blocks(x, &runs, &fill, &out)?;
            return Ok(out);
        }
        self.run_sampled(x, p, &plan, &fill)
    }

    /// The host memory [`Stream::sampled_slice`] takes for its index lists
    /// (an upper bound, in bytes; `None` if it does not fit `usize`): none
    /// when the call is refused, its output is empty or cannot fit the
    /// device, or the window runs as blocks; else 64 bytes per output
    /// coordinate of each axis. For callers that bound the host memory of
    /// one call (the conformance runner's `--case-memory`).
    pub fn sampled_list_bytes(&self, x: &Tensor, p: &SampledSlice) -> Option<usize> {
        if check_product(self, OpKind::SampledSlice, x.dtype()).is_err()
            || check_device(self, OP, "self", x).is_err()
        {
            return Some(0);
        }
        let Ok((plan, _)) = expand(x, p) else {
            return Some(0);
        };
        let shape: Vec<usize> = plan.iter().map(|a| a.size).collect();
        if shape.contains(&0)
            || Tensor::bytes_that_fit(self, OP, "size", x.dtype(), &shape).is_err()
            || block_runs(&p.mode, &plan).is_some()
            || pad_plan(self, &p.mode, &plan, x.dtype()).is_some()
            || roll_plan(self, &p.mode, &plan, x.dtype()).is_some()
        {
            return Some(0);
        }
        shape
            .iter()
            .try_fold(0usize, |a, &n| a.checked_add(n))?
            .checked_mul(LIST_BYTES)
    }

    /// [`Stream::sampled_slice`] into a caller's tensor or view.
    pub fn sampled_slice_into(&self, x: &Tensor, p: &SampledSlice, out: &Tensor) -> Result<()> {
        check_product(self, OpKind::SampledSlice, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let (plan, fill) = expand(x, p)?;
        let shape: Vec<usize> = plan.iter().map(|a| a.size).collect();
        check_out(OP, out, x.dtype(), &shape)?;
        if shape.contains(&0) {
            return Ok(());
        }
        if !super::aliases(x, out) {
            if let Some(pp) = pad_plan(self, &p.mode, &plan, x.dtype()) {
                return self.run_pad_plan(x, &plan, &pp, out);
            }
            if let Some((shifts, dims)) = roll_plan(self, &p.mode, &plan, x.dtype()) {
                return self.roll_into(x, &shifts, &dims, out);
            }
            if let Some(how) = one_launch(&p.mode, &plan, x.dtype()) {
                return self.run_one_launch(x, p, &plan, &fill, how, out);
            }
            if let Some(runs) = block_runs(&p.mode, &plan) {
                return self.copy_blocks(x, &runs, &fill, out);
            }
        }
        let r = self.run_sampled(x, p, &plan, &fill)?;
        self.copy_into(OP, out, &r)
    }

    /// A window one pad operator computes (see [`PadPlan`]), into `out`
    /// (which does not alias `x`): the crop, seen with `lead` extent-1 dims
    /// in front, padded into `out` seen likewise.
    fn run_pad_plan(&self, x: &Tensor, plan: &[Axis], pp: &PadPlan, out: &Tensor) -> Result<()> {
        let mut cur = x.clone();
        for (i, &(lo, len)) in pp.crops.iter().enumerate() {
            if len != plan[i].d {
                cur = cur.narrow(i as i64, lo, len)?;
            }
        }
        let lead = |t: &Tensor| -> Result<Tensor> {
            let mut sh = vec![1; pp.lead];
            sh.extend_from_slice(t.shape());
            let mut st = vec![1; pp.lead];
            st.extend_from_slice(t.strides());
            t.view(&sh, &st, t.offset())
        };
        let (cx, co) = (lead(&cur)?, lead(out)?);
        self.pad_launch(pp.op, &cx, &pp.pads, &co)
    }

    /// A small window in one launch (see [`OneLaunch`]), into `out` (which
    /// does not alias `x`; through a temporary when it is not contiguous).
    fn run_one_launch(
        &self,
        x: &Tensor,
        p: &SampledSlice,
        plan: &[Axis],
        fill: &[u8],
        how: OneLaunch,
        out: &Tensor,
    ) -> Result<()> {
        if !out.is_contiguous() {
            let tmp = Tensor::empty_for(self, OP, "size", x.dtype(), out.shape())?;
            self.run_one_launch(x, p, plan, fill, how, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        match how {
            OneLaunch::Pad(crops, pads) => {
                let mut cur = x.clone();
                for (i, &(lo, len)) in crops.iter().enumerate() {
                    if len != plan[i].d {
                        cur = cur.narrow(i as i64, lo, len)?;
                    }
                }
                let (ax, ao) = (acl(self, &cur)?, acl(self, out)?);
                let arr = AclIntArray::new(self.api(), &pads)?;
                let val = AclScalar::new(self.api(), x.dtype().acl(), fill)?;
                // SAFETY: the descriptors are of `cur` (a read) and `out`
                // (the write); the array and the scalar hold values, no
                // address.
                unsafe { self.launch(First::ConstantPadNd(&ax, &arr, &val, &ao), &[&cur], out) }
                    .map(drop)
            }
            OneLaunch::Gather => {
                let x0 = x.offset();
                let mut key = vec![super::KEY_SAMPLED, p.mode as u64, x0 as u64];
                for (a, &st) in plan.iter().zip(x.strides()) {
                    key.extend([a.d as u64, a.start as u64, a.stride as u64]);
                    key.extend([a.size as u64, st as u64]);
                }
                let n = out.numel();
                // Built on a miss only: per axis, the storage offset (from
                // x's) of each output coordinate's source (in [0, d):
                // `source` wraps, clamps or reflects, STRICT_BOUNDS was
                // checked); an element's is their sum.
                let units = || {
                    let parts: Vec<Vec<usize>> = plan
                        .iter()
                        .zip(x.strides())
                        .map(|(a, &st)| {
                            (0..a.size)
                                .map(|y| source(&p.mode, a, y) as usize * st)
                                .collect()
                        })
                        .collect();
                    let sh = out.shape();
                    let mut pos = [0usize; crate::MAX_RANK];
                    (0..n).map(move |_| {
                        let at = x0
                            + pos[..sh.len()]
                                .iter()
                                .zip(&parts)
                                .map(|(&y, part)| part[y])
                                .sum::<usize>();
                        for d in (0..sh.len()).rev() {
                            pos[d] += 1;
                            if pos[d] < sh[d] {
                                break;
                            }
                            pos[d] = 0;
                        }
                        at
                    })
                };
                self.gather_units(OP, out, x, n, 1, 0, &key, units)
            }
        }
    }

    /// The window as blocks (one per combination of the axes' runs): each
    /// a strided (or broadcast) copy of a view of `x`, or, for FILL
    /// outside the input, a broadcast of the fill value. No index lists:
    /// a few copies at memory speed.
    fn copy_blocks(&self, x: &Tensor, runs: &[Vec<Run>], fill: &[u8], out: &Tensor) -> Result<()> {
        let rank = runs.len();
        let any_fill = runs.iter().flatten().any(|r| r.fill);
        // The fill element on the device, once (broadcast into each block).
        let one = if any_fill {
            let one = Tensor::empty_for(self, OP, "fill", x.dtype(), &[1])?;
            self.fill_bytes(&one, fill)?;
            Some(one)
        } else {
            None
        };
        let mut pick = vec![0usize; rank];
        let reads: &[&Tensor] = match &one {
            Some(one) => &[x, one],
            None => &[x],
        };
        // The blocks rewrite all of `out`: one record for it.
        self.rewrite_whole(out, reads, || loop {
            let mut shape = [0usize; crate::MAX_RANK];
            let mut strides = [0usize; crate::MAX_RANK];
            let (mut dst, mut offset, mut filled) = (out.clone(), x.offset(), false);
            for i in 0..rank {
                let r = &runs[i][pick[i]];
                shape[i] = r.len;
                dst = dst.narrow(i as i64, r.y0, r.len)?;
                if r.fill {
                    filled = true;
                } else {
                    // In range: z0 + (len - 1) * step < extent, so it fits.
                    offset += r.z0 * x.strides()[i];
                    strides[i] = r.step * x.strides()[i];
                }
            }
            if filled {
                let src = one.as_ref().expect("made when any run fills").view_as(
                    OP,
                    &shape[..rank],
                    &[0; crate::MAX_RANK][..rank],
                    0,
                )?;
                self.copy_into(OP, &dst, &src)?;
            } else {
                let src = x.view_as(OP, &shape[..rank], &strides[..rank], offset)?;
                self.copy_into(OP, &dst, &src)?;
            }
            // Next combination.
            let mut k = rank;
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                pick[k] += 1;
                if pick[k] < runs[k].len() {
                    break;
                }
                pick[k] = 0;
            }
        })
    }

    /// The "dynamic" form: start/size/stride (and axes) given as small
    /// rank-1 int32/int64 device tensors; the result equals the static form.
    #[allow(clippy::too_many_arguments)]
    pub fn sampled_slice_dynamic(
        &self,
        x: &Tensor,
        start: &Tensor,
        size: &Tensor,
        stride: &Tensor,
        axes: Option<&Tensor>,
        mode: SampleMode,
        fill: Option<Scalar>,
    ) -> Result<Tensor> {
        // The contract's order: the product, then every tensor's device,
        // then the parameters (read back only once all of that holds).
        check_product(self, OpKind::SampledSlice, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let params = [(start, "start"), (size, "size"), (stride, "stride")];
        for (t, param) in params.into_iter().chain(axes.map(|a| (a, "axes"))) {
            check_device(self, OP, param, t)?;
        }
        let read = |t: &Tensor, param: &'static str| -> Result<Vec<i64>> {
            if t.rank() != 1 {
                return Err(Error::invalid(
                    OP,
                    param,
                    format!("must be a rank-1 tensor, got rank {}", t.rank()),
                ));
            }
            t.int_values().unwrap_or_else(|| {
                Err(Error::invalid(
                    OP,
                    param,
                    format!("dtype must be int32 or int64, got {}", t.dtype()),
                ))
            })
        };
        let p = SampledSlice {
            start: read(start, "start")?,
            size: read(size, "size")?,
            stride: read(stride, "stride")?,
            axes: axes.map(|a| read(a, "axes")).transpose()?,
            mode,
            fill,
        };
        self.sampled_slice(x, &p)
    }

    fn run_sampled(
        &self,
        x: &Tensor,
        p: &SampledSlice,
        plan: &[Axis],
        fill: &[u8],
    ) -> Result<Tensor> {
        let fam = self.runtime().family();
        let slice_ok =
            fam.is_none_or(|f| OpKind::Slice.available(f) && OpKind::Slice.supports(f, x.dtype()));
        let is_fill = p.mode == SampleMode::Fill;
        // Per axis: the source index of each output coordinate, the input
        // range [lo, lo + len) those reads stay in, and whether FILL pads.
        let mut cuts = Vec::with_capacity(plan.len());
        for a in plan {
            let padded = is_fill && !a.in_bounds();
            let src: Vec<i128> = (0..a.size).map(|y| source(&p.mode, a, y)).collect();
            let inside = src
                .iter()
                .copied()
                .filter(|&z| (0..a.d as i128).contains(&z));
            let (lo, hi) = inside.fold((i128::MAX, i128::MIN), |(l, h), z| (l.min(z), h.max(z)));
            let (lo, len) = if lo > hi {
                (0, 0)
            } else {
                (lo as usize, (hi - lo + 1) as usize)
            };
            cuts.push((src, lo, len, padded));
        }
        // Crop: read only what the window reads (zero-copy).
        let mut cur = x.clone();
        for (i, (_, lo, len, _)) in cuts.iter().enumerate() {
            if *len != plan[i].d {
                cur = cur.narrow(i as i64, *lo, *len)?;
            }
        }
        // FILL: on each padded axis, the distinct in-range coordinates the
        // window reads, in order; a sparse set (a large stride) is selected
        // before padding, so the pad copies only what is read.
        let mut kept: Vec<Option<Vec<i128>>> = vec![None; cuts.len()];
        for (i, (src, lo, len, padded)) in cuts.iter().enumerate() {
            if !padded {
                continue;
            }
            let d = plan[i].d as i128;
            let mut keep: Vec<i128> = src.iter().copied().filter(|z| (0..d).contains(z)).collect();
            keep.sort_unstable();
            keep.dedup();
            if keep.len() < *len {
                let rel: Vec<i64> = keep.iter().map(|&z| (z - *lo as i128) as i64).collect();
                cur = self.select_axis(&cur, i, &rel, slice_ok)?;
            }
            kept[i] = Some(keep);
        }
        let any_pad = cuts.iter().any(|c| c.3);
        if any_pad {
            let shape: Vec<usize> = cur
                .shape()
                .iter()
                .zip(&cuts)
                .map(|(&n, c)| n + 2 * c.3 as usize)
                .collect();
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
            let pads: Vec<i64> = cuts
                .iter()
                .rev()
                .flat_map(|c| [c.3 as i64, c.3 as i64])
                .collect();
            let (ax, ao) = (acl(self, &cur)?, acl(self, &out)?);
            let arr = AclIntArray::new(self.api(), &pads)?;
            let val = AclScalar::new(self.api(), x.dtype().acl(), fill)?;
            // SAFETY: the descriptors are of `cur` (a read) and `out` (the
            // write); the array and the scalar hold values, no address.
            unsafe { self.launch(First::ConstantPadNd(&ax, &arr, &val, &ao), &[&cur], &out) }?;
            drop((ax, ao)); // they borrow `cur` and `out`
            cur = out;
        }
        // Source indices in the cropped (selected, padded) input.
        let mut passes: Vec<(usize, Vec<i64>)> = Vec::new();
        for (i, (src, lo, len, _)) in cuts.into_iter().enumerate() {
            // Every value is in [0, extent): it fits i64.
            let (idx, extent): (Vec<i64>, usize) = match &kept[i] {
                Some(keep) => (
                    src.iter()
                        .map(|z| match keep.binary_search(z) {
                            Ok(k) => k as i64 + 1,
                            Err(_) if *z < 0 => 0,
                            Err(_) => keep.len() as i64 + 1,
                        })
                        .collect(),
                    keep.len() + 2,
                ),
                None => (src.iter().map(|&z| (z - lo as i128) as i64).collect(), len),
            };
            let identity =
                idx.len() == extent && idx.iter().enumerate().all(|(k, &z)| z == k as i64);
            if !identity {
                passes.push((i, idx));
            }
        }
        if passes.is_empty() {
            // The crop is the answer: still a new tensor.
            if any_pad {
                return Ok(cur);
            }
            let out = Tensor::empty_for(self, OP, "size", x.dtype(), cur.shape())?;
            self.copy_into(OP, &out, &cur)?;
            return Ok(out);
        }
        // Axes that shrink the tensor most go first.
        passes.sort_by(|(a, ia), (b, ib)| {
            let r = |i: usize, n: usize| n as f64 / cur.shape()[i].max(1) as f64;
            r(*a, ia.len()).total_cmp(&r(*b, ib.len()))
        });
        for (i, idx) in passes {
            let next = self.select_axis(&cur, i, &idx, slice_ok)?;
            cur = next;
        }
        Ok(cur)
    }

    /// `x` with axis `i` reduced to the positions `idx` (in order): a Slice
    /// for an ascending arithmetic run (where the product has Slice for the
    /// dtype), else an IndexSelect.
    fn select_axis(&self, x: &Tensor, i: usize, idx: &[i64], slice_ok: bool) -> Result<Tensor> {
        let mut shape = x.shape().to_vec();
        shape[i] = idx.len();
        let next = Tensor::empty_for(self, OP, "size", x.dtype(), &shape)?;
        if next.numel() == 0 {
            return Ok(next);
        }
        let step = if idx.len() > 1 { idx[1] - idx[0] } else { 1 };
        let arithmetic = step >= 1 && idx.windows(2).all(|w| w[1] - w[0] == step);
        if arithmetic && slice_ok {
            let start = idx[0];
            let end = idx[idx.len() - 1] + 1;
            // Product's dtype list: the caller checked it.
            super::slice::launch(self, x, SliceArgs::new(i as i64, start, end, step), &next)?;
        } else {
            let index = Tensor::from_slice(self, &[idx.len()], idx)?;
            self.index_select_into(x, i as i64, &index, &next)?;
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_values_must_be_exact() {
        assert_eq!(Scalar::Int(7).to_bytes(DType::I8).unwrap(), vec![7]);
        assert!(Scalar::Int(300).to_bytes(DType::I8).is_err());
        assert!(Scalar::Float(1.5).to_bytes(DType::I32).is_err());
        assert_eq!(
            Scalar::Float(1.5).to_bytes(DType::F16).unwrap(),
            half::f16::from_f32(1.5).to_bits().to_le_bytes()
        );
        assert!(Scalar::Float(0.1).to_bytes(DType::F32).is_err());
        assert_eq!(
            Scalar::Float(f64::NAN).to_bytes(DType::F32).unwrap(),
            0x7fc0_0000u32.to_le_bytes()
        );
        assert_eq!(
            Scalar::Bool(true).to_bytes(DType::F64).unwrap(),
            1f64.to_le_bytes()
        );
        assert!(Scalar::Int(2).to_bytes(DType::Bool).is_err());
        assert!(Scalar::Complex(1.0, 2.0).to_bytes(DType::F32).is_err());
        assert_eq!(
            Scalar::UInt(u64::MAX).to_bytes(DType::U64).unwrap(),
            u64::MAX.to_le_bytes()
        );
        assert!(
            Scalar::Int(i64::MAX).to_bytes(DType::F64).is_err(),
            "2^63-1 is not a double"
        );
    }

    #[test]
    fn reflect_and_wrap_indices() {
        let a = Axis {
            d: 3,
            start: -4,
            stride: 1,
            size: 9,
        };
        let r: Vec<i128> = (0..9)
            .map(|y| source(&SampleMode::Reflect, &a, y))
            .collect();
        assert_eq!(r, [0, 1, 2, 1, 0, 1, 2, 1, 0]);
        let w: Vec<i128> = (0..9).map(|y| source(&SampleMode::Wrap, &a, y)).collect();
        assert_eq!(w, [2, 0, 1, 2, 0, 1, 2, 0, 1]);
        let huge = Axis {
            d: 3,
            start: i64::MAX as i128,
            stride: i64::MAX as i128,
            size: 3,
        };
        let f: Vec<i128> = (0..3)
            .map(|y| source(&SampleMode::Fill, &huge, y))
            .collect();
        assert_eq!(f[2], 3 * i64::MAX as i128, "no wrap-around into range");
    }
}
