//! What Add and Mul share (ops.md sections 8 and 9): broadcasting, dtype
//! promotion, casts, the merging limit, and the exact arithmetic.
//!
//! Values are decoded into `Val`, which holds every element of every
//! dtype exactly (integers as `i128`, real floats as `f64`), and encoded
//! with one rounding from that exact value.

use half::{bf16, f16};

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::new_output;
use crate::product::{check_op_dtype, supported_dtypes, Family, Op};
use crate::scalar::Scalar;
use crate::tensor::{row_major, Tensor, MAX_RANK};

/// The operation of a binary elementwise operator.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Binary {
    /// `a + alpha * b`, `alpha` already converted to the promoted dtype
    /// (its bytes).
    Add(Vec<u8>),
    /// `a * b`.
    Mul,
}

/// Whether `d` is one of the integer dtypes (not BOOL).
pub(crate) fn is_int(d: DType) -> bool {
    matches!(
        d,
        DType::Int8
            | DType::UInt8
            | DType::Int16
            | DType::UInt16
            | DType::Int32
            | DType::UInt32
            | DType::Int64
            | DType::UInt64
    )
}

/// The promoted dtype of two dtypes of the elementwise list (CANN's
/// "deduction relationship" table), or `None` for a × cell.
pub fn promote(a: DType, b: DType) -> Option<DType> {
    use DType::*;
    if a == b {
        return Some(a);
    }
    let unsigned_wide = |d: DType| matches!(d, UInt16 | UInt32 | UInt64);
    if unsigned_wide(a) || unsigned_wide(b) {
        return None;
    }
    if a == Bool {
        return Some(b);
    }
    if b == Bool {
        return Some(a);
    }
    // Complex with anything.
    if a.is_complex() || b.is_complex() {
        let wide = a == Complex128 || b == Complex128 || a == Float64 || b == Float64;
        return Some(if wide { Complex128 } else { Complex64 });
    }
    match (a.is_float(), b.is_float()) {
        (true, false) => Some(a),
        (false, true) => Some(b),
        (true, true) => {
            let rank = |d: DType| match d {
                Float16 | BFloat16 => 0,
                Float32 => 1,
                _ => 2,
            };
            Some(match rank(a).max(rank(b)) {
                0 => Float32, // FLOAT16 with BFLOAT16
                1 => Float32,
                _ => Float64,
            })
        }
        (false, false) => {
            // Two integers of int8, uint8, int16, int32, int64.
            if matches!((a, b), (Int8, UInt8) | (UInt8, Int8)) {
                return Some(Int16);
            }
            let width = |d: DType| d.size();
            if width(a) == width(b) {
                // Only int8/uint8 share a width here, handled above.
                return Some(a);
            }
            Some(if width(a) > width(b) { a } else { b })
        }
    }
}

/// Whether a value of dtype `from` casts to `to` (CANN's "conversion
/// relationship").
pub fn can_cast(from: DType, to: DType) -> bool {
    if from == to || from == DType::Bool {
        return true;
    }
    if is_int(from) {
        return to != DType::Bool;
    }
    if from.is_float() {
        return to.is_float() || to.is_complex();
    }
    // Complex.
    to.is_complex()
}

/// The broadcast shape of two shapes, or `None` when they do not broadcast.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let at = |s: &[usize], k: usize| {
        let lead = r - s.len();
        if k < lead {
            1
        } else {
            s[k - lead]
        }
    };
    (0..r)
        .map(|k| {
            let (x, y) = (at(a, k), at(b, k));
            if x == y || y == 1 {
                Some(x)
            } else if x == 1 {
                Some(y)
            } else {
                None
            }
        })
        .collect()
}

/// The number of dim groups of the merging limit (ops.md §8): output dims
/// of extent 1 dropped, each other dim labelled by which inputs broadcast
/// along it, adjacent equal labels merged.
pub fn merged_groups(a: &[usize], b: &[usize], out: &[usize]) -> usize {
    let r = out.len();
    let ext = |s: &[usize], k: usize| {
        let lead = r - s.len();
        if k < lead {
            1
        } else {
            s[k - lead]
        }
    };
    let mut groups = 0;
    let mut last = None;
    for (k, &n) in out.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let label = (ext(a, k) == 1, ext(b, k) == 1);
        if last != Some(label) {
            groups += 1;
            last = Some(label);
        }
    }
    groups
}

/// The dtypes the merging limit applies to.
fn limited(d: DType) -> bool {
    matches!(
        d,
        DType::Complex64 | DType::Complex128 | DType::Float64 | DType::Int16
    )
}

/// An exactly held value of any dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Val {
    Bool(bool),
    Int(i128),
    Real(f64),
    Complex(f64, f64),
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().expect("element size")
}

/// Decodes one element of `d` (exactly: f16/bf16/f32 widen to f64 without
/// rounding).
pub(crate) fn decode(d: DType, b: &[u8]) -> Val {
    use DType::*;
    match d {
        Bool => Val::Bool(b[0] != 0),
        Int8 => Val::Int(i128::from(b[0] as i8)),
        UInt8 => Val::Int(i128::from(b[0])),
        Int16 => Val::Int(i128::from(i16::from_le_bytes(le(b)))),
        UInt16 => Val::Int(i128::from(u16::from_le_bytes(le(b)))),
        Int32 => Val::Int(i128::from(i32::from_le_bytes(le(b)))),
        UInt32 => Val::Int(i128::from(u32::from_le_bytes(le(b)))),
        Int64 => Val::Int(i128::from(i64::from_le_bytes(le(b)))),
        UInt64 => Val::Int(i128::from(u64::from_le_bytes(le(b)))),
        Float16 => Val::Real(f16::from_bits(u16::from_le_bytes(le(b))).to_f64()),
        BFloat16 => Val::Real(bf16::from_bits(u16::from_le_bytes(le(b))).to_f64()),
        Float32 => Val::Real(f64::from(f32::from_le_bytes(le(b)))),
        Float64 => Val::Real(f64::from_le_bytes(le(b))),
        Complex64 => Val::Complex(
            f64::from(f32::from_le_bytes(le(&b[..4]))),
            f64::from(f32::from_le_bytes(le(&b[4..]))),
        ),
        Complex128 => Val::Complex(
            f64::from_le_bytes(le(&b[..8])),
            f64::from_le_bytes(le(&b[8..])),
        ),
    }
}

/// A binary floating-point format: stored mantissa bits and exponent bits.
#[derive(Clone, Copy)]
struct Format {
    mant: u32,
    exp: u32,
}

const F16: Format = Format { mant: 10, exp: 5 };
const BF16: Format = Format { mant: 7, exp: 8 };
const F32: Format = Format { mant: 23, exp: 8 };
const F64: Format = Format { mant: 52, exp: 11 };

impl Format {
    fn bias(self) -> i64 {
        (1i64 << (self.exp - 1)) - 1
    }
    fn inf(self, neg: bool) -> u64 {
        (u64::from(neg) << (self.mant + self.exp)) | (((1u64 << self.exp) - 1) << self.mant)
    }
    /// The canonical quiet NaN: sign +, quiet bit, payload 0.
    fn nan(self) -> u64 {
        self.inf(false) | (1u64 << (self.mant - 1))
    }
}

/// `(-1)^neg * m * 2^e` rounded once (to nearest, ties to even) into `f`:
/// its bits. Subnormals are kept; overflow gives infinity.
fn round_to(f: Format, neg: bool, m: u128, e: i64) -> u64 {
    let sign = u64::from(neg) << (f.mant + f.exp);
    if m == 0 {
        return sign;
    }
    let p = i64::from(f.mant) + 1; // precision
    let emin = 1 - f.bias();
    let n = 128 - i64::from(m.leading_zeros()); // bit length
    let top = e + n - 1; // exponent of the leading bit
                         // The quantum: 2^(top - p + 1) for normals, fixed below the normal range.
    let q = (top - p + 1).max(emin - i64::from(f.mant));
    let shift = q - e;
    let r: u128 = if shift <= 0 {
        m << (-shift) as u32
    } else if shift > 127 {
        0 // far below half a quantum
    } else {
        let s = shift as u32;
        let kept = m >> s;
        let rem = m & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        if rem > half || (rem == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if r == 0 {
        return sign;
    }
    let hidden = 1u128 << f.mant;
    let (r, q) = if r >= hidden << 1 {
        (r >> 1, q + 1)
    } else {
        (r, q)
    };
    if r < hidden {
        // Subnormal (q is the subnormal quantum): biased exponent 0.
        return sign | r as u64;
    }
    let exponent = q + i64::from(f.mant); // of the leading bit
    if exponent > f.bias() {
        return f.inf(neg);
    }
    let biased = (exponent + f.bias()) as u64;
    sign | (biased << f.mant) | (r - hidden) as u64
}

/// An exact real (finite, infinite or NaN) rounded into `f`; a NaN gives
/// the canonical NaN.
fn real_to(f: Format, x: f64) -> u64 {
    if x.is_nan() {
        return f.nan();
    }
    if x.is_infinite() {
        return f.inf(x < 0.0);
    }
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = u128::from(bits & ((1u64 << 52) - 1));
    let (m, e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u128 << 52), biased - 1075)
    };
    round_to(f, neg, m, e)
}

fn int_to(f: Format, v: i128) -> u64 {
    round_to(f, v < 0, v.unsigned_abs(), 0)
}

fn format_of(d: DType) -> Format {
    match d {
        DType::Float16 => F16,
        DType::BFloat16 => BF16,
        DType::Float32 | DType::Complex64 => F32,
        _ => F64,
    }
}

/// Appends the bits of a real part into `out` in `f`'s width.
fn push_bits(out: &mut Vec<u8>, f: Format, bits: u64) {
    let bytes = (f.mant + f.exp + 1) as usize / 8;
    out.extend_from_slice(&bits.to_le_bytes()[..bytes]);
}

fn real_of(v: Val) -> f64 {
    match v {
        Val::Bool(b) => f64::from(u8::from(b)),
        // Only used on values that are not integers.
        Val::Int(_) => unreachable!("integers are rounded by int_to"),
        Val::Real(x) | Val::Complex(x, _) => x,
    }
}

/// Encodes `v` as one element of `d` (ops.md §8, "Casts"; to BOOL:
/// `v != 0`, used for alpha).
pub(crate) fn encode(v: Val, d: DType, out: &mut Vec<u8>) {
    use DType::*;
    let part = |v: Val| -> Val {
        match v {
            Val::Complex(re, _) => Val::Real(re),
            other => other,
        }
    };
    match d {
        Bool => out.push(u8::from(match v {
            Val::Bool(b) => b,
            Val::Int(i) => i != 0,
            Val::Real(x) => x != 0.0,
            Val::Complex(re, im) => re != 0.0 || im != 0.0,
        })),
        Int8 | UInt8 | Int16 | UInt16 | Int32 | UInt32 | Int64 | UInt64 => {
            let i: i128 = match part(v) {
                Val::Bool(b) => i128::from(b),
                Val::Int(i) => i,
                // Not a cast the rules allow; truncation, saturating.
                Val::Real(x) => {
                    if x.is_nan() {
                        0
                    } else {
                        x as i128
                    }
                }
                Val::Complex(..) => unreachable!(),
            };
            // Modulo 2^bits: the low bytes of the two's complement.
            out.extend_from_slice(&(i as u128).to_le_bytes()[..d.size()]);
        }
        Float16 | BFloat16 | Float32 | Float64 => {
            let f = format_of(d);
            let bits = match part(v) {
                Val::Int(i) => int_to(f, i),
                other => real_to(f, real_of(other)),
            };
            push_bits(out, f, bits);
        }
        Complex64 | Complex128 => {
            let f = format_of(d);
            let (re, im) = match v {
                Val::Int(i) => (int_to(f, i), real_to(f, 0.0)),
                Val::Complex(re, im) => (real_to(f, re), real_to(f, im)),
                other => (real_to(f, real_of(other)), real_to(f, 0.0)),
            };
            push_bits(out, f, re);
            push_bits(out, f, im);
        }
    }
}

/// `v` (a value of dtype `from`) as bytes of `to`.
pub(crate) fn cast_bytes(from: DType, b: &[u8], to: DType) -> Vec<u8> {
    let mut out = Vec::with_capacity(to.size());
    encode(decode(from, b), to, &mut out);
    out
}

/// alpha as aclnn sees it: its aclScalar dtype and exact value (ops.md §8:
/// `Bool` → BOOL, `Int`/`UInt` → INT64, `Float` → DOUBLE, `Complex` →
/// COMPLEX128).
pub(crate) fn alpha_value(op: &'static str, alpha: Scalar) -> Result<(DType, Val), RefError> {
    Ok(match alpha {
        Scalar::Bool(b) => (DType::Bool, Val::Bool(b)),
        Scalar::Int(v) => (DType::Int64, Val::Int(i128::from(v))),
        Scalar::UInt(v) => {
            let v = i64::try_from(v).map_err(|_| {
                RefError::invalid(
                    op,
                    "alpha",
                    format!("{v} does not fit INT64, alpha's dtype"),
                )
            })?;
            (DType::Int64, Val::Int(i128::from(v)))
        }
        Scalar::Float(v) => (DType::Float64, Val::Real(v)),
        Scalar::Complex(re, im) => (DType::Complex128, Val::Complex(re, im)),
    })
}

/// What a binary elementwise call checked: the promoted dtype and the
/// broadcast shape.
pub(crate) struct Checked {
    pub(crate) promoted: DType,
    pub(crate) shape: Vec<usize>,
}

/// The checks of ops.md §8's table up to (not including) `out`'s rules:
/// the product, alpha (when given), ranks, the broadcast, the merging limit.
pub(crate) fn check(
    op: Op,
    soc: &str,
    x: &Tensor,
    y: &Tensor,
    alpha: Option<Scalar>,
) -> Result<(Checked, Option<Vec<u8>>), RefError> {
    let name = op.name();
    let family: Family = check_op_dtype(op, soc, x.dtype())?;
    if !supported_dtypes(op, family).contains(&y.dtype()) {
        return Err(RefError::UnsupportedDtype {
            op: name,
            dtype: y.dtype(),
            soc: soc.to_string(),
        });
    }
    let promoted = promote(x.dtype(), y.dtype()).ok_or_else(|| {
        RefError::invalid(
            name,
            "other",
            format!("{} and {} do not promote", x.dtype(), y.dtype()),
        )
    })?;
    let alpha = match alpha {
        None => None,
        Some(a) => {
            let (ad, av) = alpha_value(name, a)?;
            let ok = if promoted == DType::Bool {
                ad == DType::Bool || is_int(ad)
            } else {
                can_cast(ad, promoted)
            };
            if !ok {
                return Err(RefError::invalid(
                    name,
                    "alpha",
                    format!("alpha {a} ({ad}) cannot be cast to the promoted dtype {promoted}"),
                ));
            }
            let mut b = Vec::new();
            encode(av, promoted, &mut b);
            Some(b)
        }
    };
    for (t, param) in [(x, "self"), (y, "other")] {
        if t.rank() > MAX_RANK {
            return Err(RefError::invalid(
                name,
                param,
                format!("rank must be at most {MAX_RANK}, got {}", t.rank()),
            ));
        }
    }
    let shape = broadcast_shape(x.shape(), y.shape()).ok_or_else(|| {
        RefError::invalid(
            name,
            "other",
            format!(
                "shape {:?} does not broadcast with self's {:?}",
                y.shape(),
                x.shape()
            ),
        )
    })?;
    if [x.dtype(), y.dtype(), promoted].into_iter().any(limited) {
        let g = merged_groups(x.shape(), y.shape(), &shape);
        if g > 5 {
            return Err(RefError::invalid(
                name,
                "other",
                format!(
                    "{} and {} broadcast to {shape:?} in {g} merged dim groups; \
                     {promoted} takes at most 5",
                    x.dtype(),
                    y.dtype()
                ),
            ));
        }
    }
    Ok((Checked { promoted, shape }, alpha))
}

/// `out`'s dtype rule: in the operator's list (on this product) and
/// reachable from the promoted dtype.
pub(crate) fn check_out_dtype(
    op: Op,
    soc: &str,
    param: &'static str,
    promoted: DType,
    out: DType,
) -> Result<(), RefError> {
    let family = Family::from_soc_checked(op.name(), soc)?;
    if !supported_dtypes(op, family).contains(&out) || !can_cast(promoted, out) {
        return Err(RefError::invalid(
            op.name(),
            param,
            format!("the result ({promoted}) cannot be cast to {out}"),
        ));
    }
    Ok(())
}

/// Replaces a NaN by the canonical quiet NaN.
fn canon32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        x
    }
}

fn canon64(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else {
        x
    }
}

/// One element of the arithmetic (ops.md §8/§9), all operands already in
/// the promoted dtype `p`; returns its bytes in `p`.
fn compute(op: &Binary, p: DType, a: &[u8], b: &[u8]) -> Vec<u8> {
    let (va, vb) = (decode(p, a), decode(p, b));
    let alpha = match op {
        Binary::Add(al) => Some(decode(p, al)),
        Binary::Mul => None,
    };
    let mut out = Vec::with_capacity(p.size());
    match p {
        DType::Bool => {
            let (Val::Bool(x), Val::Bool(y)) = (va, vb) else {
                unreachable!()
            };
            let r = match alpha {
                Some(Val::Bool(al)) => x | (al & y),
                Some(_) => unreachable!(),
                None => x & y,
            };
            out.push(u8::from(r));
        }
        d if is_int(d) => {
            let (Val::Int(x), Val::Int(y)) = (va, vb) else {
                unreachable!()
            };
            let (x, y) = (x as i64, y as i64);
            let r = match alpha {
                Some(Val::Int(al)) => x.wrapping_add((al as i64).wrapping_mul(y)),
                Some(_) => unreachable!(),
                None => x.wrapping_mul(y),
            };
            encode(Val::Int(i128::from(r)), p, &mut out);
        }
        DType::Float64 => {
            let (x, y) = (real_of(va), real_of(vb));
            let r = match alpha {
                Some(al) => {
                    let al = real_of(al);
                    if al == 1.0 {
                        x + y
                    } else {
                        x + al * y
                    }
                }
                None => x * y,
            };
            out.extend_from_slice(&canon64(r).to_bits().to_le_bytes());
        }
        DType::Float32 | DType::Float16 | DType::BFloat16 => {
            // Exact widening to f32 (every value of these is an f32).
            let (x, y) = (real_of(va) as f32, real_of(vb) as f32);
            let r = match alpha {
                Some(al) => {
                    let al = real_of(al) as f32;
                    if al == 1.0 {
                        x + y
                    } else {
                        x + al * y
                    }
                }
                None => x * y,
            };
            encode(Val::Real(f64::from(canon32(r))), p, &mut out);
        }
        DType::Complex64 => {
            let parts = |v: Val| match v {
                Val::Complex(re, im) => (re as f32, im as f32),
                _ => unreachable!(),
            };
            let (x, y) = (parts(va), parts(vb));
            let mulc =
                |a: (f32, f32), b: (f32, f32)| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
            let r = match alpha {
                Some(al) => {
                    let al = parts(al);
                    if al.0 == 1.0 && al.1 == 0.0 {
                        (x.0 + y.0, x.1 + y.1)
                    } else {
                        let t = mulc(al, y);
                        (x.0 + t.0, x.1 + t.1)
                    }
                }
                None => mulc(x, y),
            };
            out.extend_from_slice(&canon32(r.0).to_le_bytes());
            out.extend_from_slice(&canon32(r.1).to_le_bytes());
        }
        DType::Complex128 => {
            let parts = |v: Val| match v {
                Val::Complex(re, im) => (re, im),
                _ => unreachable!(),
            };
            let (x, y) = (parts(va), parts(vb));
            let mulc =
                |a: (f64, f64), b: (f64, f64)| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
            let r = match alpha {
                Some(al) => {
                    let al = parts(al);
                    if al.0 == 1.0 && al.1 == 0.0 {
                        (x.0 + y.0, x.1 + y.1)
                    } else {
                        let t = mulc(al, y);
                        (x.0 + t.0, x.1 + t.1)
                    }
                }
                None => mulc(x, y),
            };
            out.extend_from_slice(&canon64(r.0).to_le_bytes());
            out.extend_from_slice(&canon64(r.1).to_le_bytes());
        }
        _ => unreachable!("promotion never gives {p}"),
    }
    out
}

/// The index into an input of shape `s` (right-aligned, extent-1 dims
/// broadcast) of output index `idx`.
fn source_index(s: &[usize], idx: &[usize]) -> Vec<usize> {
    let lead = idx.len() - s.len();
    s.iter()
        .enumerate()
        .map(|(k, &n)| if n == 1 { 0 } else { idx[lead + k] })
        .collect()
}

/// The result of a checked call, computed in `c.promoted` and cast to
/// `out_dtype`, as a new contiguous tensor of the broadcast shape.
pub(crate) fn run(
    op: &'static str,
    binary: &Binary,
    c: &Checked,
    x: &Tensor,
    y: &Tensor,
    out_dtype: DType,
) -> Result<Tensor, RefError> {
    let p = c.promoted;
    let bytes = crate::ops::output_byte_len(op, "out", out_dtype, &c.shape)?;
    let mut out = new_output(op, "out", bytes)?;
    for idx in row_major(&c.shape) {
        let a = cast_bytes(
            x.dtype(),
            x.element_bytes(&source_index(x.shape(), &idx)),
            p,
        );
        let b = cast_bytes(
            y.dtype(),
            y.element_bytes(&source_index(y.shape(), &idx)),
            p,
        );
        let r = compute(binary, p, &a, &b);
        out.extend(cast_bytes(p, &r, out_dtype));
    }
    Tensor::from_bytes(out_dtype, &c.shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r16(x: f64) -> u16 {
        real_to(F16, x) as u16
    }

    #[test]
    fn promotion_table_samples() {
        use DType::*;
        let cases = [
            (Int8, UInt8, Int16),
            (UInt8, Int16, Int16),
            (Int32, Int64, Int64),
            (Bool, Int8, Int8),
            (Bool, Bool, Bool),
            (Float16, BFloat16, Float32),
            (Int64, Float16, Float16),
            (BFloat16, Int32, BFloat16),
            (Float32, Float64, Float64),
            (Complex64, Float64, Complex128),
            (Complex64, Float32, Complex64),
            (Complex64, Int64, Complex64),
            (Complex64, Complex128, Complex128),
            (Float16, Complex64, Complex64),
        ];
        for (a, b, p) in cases {
            assert_eq!(promote(a, b), Some(p), "{a} {b}");
            assert_eq!(promote(b, a), Some(p), "{b} {a}");
        }
        assert_eq!(promote(UInt16, Int8), None);
        assert_eq!(promote(UInt32, UInt32), Some(UInt32));
    }

    #[test]
    fn cast_rules() {
        use DType::*;
        assert!(can_cast(Bool, Int8) && can_cast(Bool, Complex64));
        assert!(can_cast(Int64, Float16) && can_cast(Int8, Complex128));
        assert!(!can_cast(Int8, Bool) && !can_cast(Float32, Bool));
        assert!(!can_cast(Float32, Int32) && can_cast(Float32, Complex64));
        assert!(!can_cast(Complex64, Float64) && can_cast(Complex128, Complex64));
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 1]), Some(vec![2, 4, 3]));
        assert_eq!(broadcast_shape(&[], &[3]), Some(vec![3]));
        assert_eq!(broadcast_shape(&[0], &[1]), Some(vec![0]));
        assert_eq!(broadcast_shape(&[0], &[5]), None);
        assert_eq!(broadcast_shape(&[2, 3], &[3, 3]), None);
    }

    #[test]
    fn merging_groups_follow_cann_examples() {
        let full = [5, 5, 5, 5, 5, 5];
        assert_eq!(merged_groups(&[5, 1, 5, 1, 5, 1], &full, &full), 6);
        assert_eq!(merged_groups(&[5, 1, 5, 5, 1, 1], &full, &full), 4);
        assert_eq!(merged_groups(&full, &full, &full), 1);
        assert_eq!(merged_groups(&[1, 3], &[1, 3], &[1, 3]), 1);
    }

    #[test]
    fn rounding_is_single_and_exact() {
        // f16: 1 + 2^-11 is a tie, to even (1.0); a hair above goes up.
        assert_eq!(r16(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(r16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        assert_eq!(r16(65504.0), 0x7bff);
        assert_eq!(r16(65520.0), 0x7c00);
        assert_eq!(r16(-65519.99), 0xfbff);
        assert_eq!(r16(2f64.powi(-24)), 0x0001);
        assert_eq!(r16(2f64.powi(-25)), 0x0000); // tie to even (0)
        assert_eq!(r16(2f64.powi(-25) * 1.5), 0x0001);
        assert_eq!(r16(-0.0), 0x8000);
        assert_eq!(r16(f64::NAN), 0x7e00);
        // bf16 from a large integer: one rounding (2^63 + 2^55 + 1 is above
        // the tie between 2^63 and 2^63 + 2^56).
        let v = (1i128 << 63) + (1 << 55) + 1;
        assert_eq!(int_to(BF16, v), 0x5f01);
        assert_eq!(int_to(BF16, (1i128 << 63) + (1 << 55)), 0x5f00);
        // f32 agrees with Rust's conversions.
        for x in [0.1f64, 1e-40, 3.4e38, 3.5e38, -7.25, 1e-46] {
            assert_eq!(real_to(F32, x) as u32, (x as f32).to_bits(), "{x}");
        }
        for i in [i64::MAX, i64::MIN, 16_777_217, -3] {
            assert_eq!(int_to(F32, i128::from(i)) as u32, (i as f32).to_bits());
            assert_eq!(int_to(F64, i128::from(i)), (i as f64).to_bits());
        }
        assert_eq!(real_to(F64, 0.1), 0.1f64.to_bits());
    }

    #[test]
    fn integer_casts_wrap() {
        assert_eq!(
            cast_bytes(DType::Int32, &300i32.to_le_bytes(), DType::Int8),
            [44]
        );
        assert_eq!(
            cast_bytes(DType::Int8, &[0xff], DType::Int64),
            (-1i64).to_le_bytes()
        );
        assert_eq!(
            cast_bytes(DType::Bool, &[1], DType::Float32),
            1f32.to_le_bytes()
        );
        assert_eq!(
            cast_bytes(DType::Float32, &1.5f32.to_le_bytes(), DType::Complex64),
            [1.5f32.to_le_bytes(), 0f32.to_le_bytes()].concat()
        );
    }
}
