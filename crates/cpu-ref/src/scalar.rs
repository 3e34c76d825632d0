//! [`Scalar`]: a fill value, converted exactly (or not at all) to a dtype.

use std::fmt;

use half::{bf16, f16};

use crate::dtype::DType;
use crate::element::Element;
use crate::error::RefError;

/// A single value, e.g. the FILL value of sampled_slice. The default is `Int(0)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A boolean; converts to 0 / 1 in numeric dtypes.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A real floating-point value (NaN and infinities allowed).
    Float(f64),
    /// A complex value `(re, im)`.
    Complex(f64, f64),
}

impl Default for Scalar {
    fn default() -> Self {
        Scalar::Int(0)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::UInt(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::Complex(re, im) => write!(f, "({re:?}, {im:?})"),
        }
    }
}

/// The value reduced to one of three kinds; integers are held in i128 so
/// that both i64 and u64 fit.
enum Value {
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

impl Scalar {
    /// The bytes of this value as one element of `dtype`, if the value is
    /// exactly representable there; otherwise
    /// `InvalidArgument { op: "tensor", param: "fill" }`.
    ///
    /// Rules: integers must be in range; a float converts to an integer dtype
    /// only if integral and in range; bool takes only 0, 1, `true`, `false`;
    /// floats must round-trip exactly (NaN and infinities are representable in
    /// every float dtype; a NaN becomes the target's default quiet NaN with
    /// its sign, except float64 which keeps the bits); a real value goes into
    /// a complex dtype with imaginary part 0; a complex value goes into a real
    /// dtype only if its imaginary part is 0.
    pub fn to_bytes(&self, dtype: DType) -> Result<Vec<u8>, RefError> {
        self.encode(dtype)
            .map_err(|reason| RefError::invalid("tensor", "fill", reason))
    }

    /// [`Scalar::to_bytes`] with the reason as a plain string.
    pub(crate) fn encode(&self, dtype: DType) -> Result<Vec<u8>, String> {
        let not_exact = || format!("{self} is not exactly representable as {dtype}");
        let value = match *self {
            Scalar::Bool(b) => Value::Int(i128::from(b)),
            Scalar::Int(v) => Value::Int(i128::from(v)),
            Scalar::UInt(v) => Value::Int(i128::from(v)),
            Scalar::Float(v) => Value::Float(v),
            Scalar::Complex(re, im) => Value::Complex(re, im),
        };
        let mut out = Vec::with_capacity(dtype.size());
        if dtype.is_complex() {
            let (re, im) = match value {
                Value::Int(v) => (int_to_f64(v).ok_or_else(not_exact)?, 0.0),
                Value::Float(v) => (v, 0.0),
                Value::Complex(re, im) => (re, im),
            };
            let part = if dtype == DType::Complex64 {
                DType::Float32
            } else {
                DType::Float64
            };
            out.extend(float_bytes(re, part).ok_or_else(not_exact)?);
            out.extend(float_bytes(im, part).ok_or_else(not_exact)?);
            return Ok(out);
        }
        // A real dtype: a complex value must have a zero imaginary part.
        let value = match value {
            Value::Complex(re, im) => {
                if im != 0.0 {
                    return Err(format!(
                        "{self} has a non-zero imaginary part; {dtype} is real"
                    ));
                }
                Value::Float(re)
            }
            other => other,
        };
        if dtype.is_float() {
            let v = match value {
                Value::Int(v) => int_to_f64(v).ok_or_else(not_exact)?,
                Value::Float(v) => v,
                Value::Complex(..) => unreachable!("complex values were reduced above"),
            };
            return float_bytes(v, dtype).ok_or_else(not_exact);
        }
        let v = match value {
            Value::Int(v) => v,
            Value::Float(v) => float_to_int(v).ok_or_else(not_exact)?,
            Value::Complex(..) => unreachable!("complex values were reduced above"),
        };
        int_bytes(v, dtype).ok_or_else(not_exact)
    }
}

/// `v` as f64 if exact.
fn int_to_f64(v: i128) -> Option<f64> {
    let f = v as f64;
    // |v| < 2^65, so the f64 is finite and `as i128` cannot saturate.
    (f as i128 == v).then_some(f)
}

/// `v` as an integer if it is finite, integral and within [-2^63, 2^64).
fn float_to_int(v: f64) -> Option<i128> {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    let in_range = (-TWO_POW_63..2.0 * TWO_POW_63).contains(&v);
    (in_range && v.trunc() == v).then_some(v as i128)
}

/// The bytes of `v` in the real float `dtype`, if exact (NaN always is).
fn float_bytes(v: f64, dtype: DType) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match dtype {
        DType::Float64 => v.append_bytes(&mut out),
        DType::Float32 => {
            let t = if v.is_nan() {
                if v.is_sign_negative() {
                    -f32::NAN
                } else {
                    f32::NAN
                }
            } else {
                let t = v as f32;
                if f64::from(t) != v {
                    return None;
                }
                t
            };
            t.append_bytes(&mut out);
        }
        DType::Float16 => {
            let t = if v.is_nan() {
                if v.is_sign_negative() {
                    -f16::NAN
                } else {
                    f16::NAN
                }
            } else {
                let t = f16::from_f64(v);
                if t.to_f64() != v {
                    return None;
                }
                t
            };
            t.append_bytes(&mut out);
        }
        DType::BFloat16 => {
            let t = if v.is_nan() {
                if v.is_sign_negative() {
                    -bf16::NAN
                } else {
                    bf16::NAN
                }
            } else {
                let t = bf16::from_f64(v);
                if t.to_f64() != v {
                    return None;
                }
                t
            };
            t.append_bytes(&mut out);
        }
        _ => unreachable!("float_bytes is only called with a real float dtype"),
    }
    Some(out)
}

/// The bytes of `v` in the integer (or bool) `dtype`, if in range.
fn int_bytes(v: i128, dtype: DType) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match dtype {
        DType::Bool => match v {
            0 => out.push(0),
            1 => out.push(1),
            _ => return None,
        },
        DType::Int8 => i8::try_from(v).ok()?.append_bytes(&mut out),
        DType::UInt8 => u8::try_from(v).ok()?.append_bytes(&mut out),
        DType::Int16 => i16::try_from(v).ok()?.append_bytes(&mut out),
        DType::UInt16 => u16::try_from(v).ok()?.append_bytes(&mut out),
        DType::Int32 => i32::try_from(v).ok()?.append_bytes(&mut out),
        DType::UInt32 => u32::try_from(v).ok()?.append_bytes(&mut out),
        DType::Int64 => i64::try_from(v).ok()?.append_bytes(&mut out),
        DType::UInt64 => u64::try_from(v).ok()?.append_bytes(&mut out),
        _ => unreachable!("int_bytes is only called with an integer or bool dtype"),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: Scalar, d: DType) -> Vec<u8> {
        s.to_bytes(d).unwrap_or_else(|e| panic!("{s} as {d}: {e}"))
    }

    fn rejected(s: Scalar, d: DType) {
        let e = s.to_bytes(d).unwrap_err();
        assert_eq!(
            (e.kind(), e.op(), e.param()),
            ("invalid_argument", "tensor", Some("fill")),
            "{s} as {d}"
        );
    }

    #[test]
    fn default_zero_is_zero_everywhere() {
        assert_eq!(Scalar::default(), Scalar::Int(0));
        for d in DType::ALL {
            assert_eq!(ok(Scalar::default(), d), vec![0; d.size()], "{d}");
        }
    }

    #[test]
    fn integer_ranges_both_sides() {
        let cases: [(DType, i128, i128); 8] = [
            (DType::Int8, -128, 127),
            (DType::UInt8, 0, 255),
            (DType::Int16, -32768, 32767),
            (DType::UInt16, 0, 65535),
            (DType::Int32, i32::MIN.into(), i32::MAX.into()),
            (DType::UInt32, 0, u32::MAX.into()),
            (DType::Int64, i64::MIN.into(), i64::MAX.into()),
            (DType::UInt64, 0, u64::MAX.into()),
        ];
        let scalar = |v: i128| {
            if v <= i64::MAX as i128 {
                Scalar::Int(v as i64)
            } else {
                Scalar::UInt(v as u64)
            }
        };
        for (d, lo, hi) in cases {
            let lo_bytes = ok(scalar(lo), d);
            assert_eq!(lo_bytes.len(), d.size());
            ok(scalar(hi), d);
            if lo > i64::MIN as i128 {
                rejected(scalar(lo - 1), d);
            }
            if hi < u64::MAX as i128 {
                rejected(scalar(hi + 1), d);
            }
        }
        assert_eq!(ok(Scalar::Int(-2), DType::Int16), (-2i16).to_ne_bytes());
        assert_eq!(
            ok(Scalar::UInt(u64::MAX), DType::UInt64),
            u64::MAX.to_ne_bytes()
        );
        rejected(Scalar::UInt(u64::MAX), DType::Int64);
        rejected(Scalar::Int(i64::MIN), DType::UInt64);
    }

    #[test]
    fn floats_to_integers_only_when_integral_and_in_range() {
        assert_eq!(ok(Scalar::Float(3.0), DType::Int32), 3i32.to_ne_bytes());
        assert_eq!(ok(Scalar::Float(-0.0), DType::Int8), [0]);
        assert_eq!(ok(Scalar::Float(255.0), DType::UInt8), [255]);
        rejected(Scalar::Float(256.0), DType::UInt8);
        rejected(Scalar::Float(-1.0), DType::UInt8);
        rejected(Scalar::Float(0.5), DType::Int32);
        rejected(Scalar::Float(f64::NAN), DType::Int32);
        rejected(Scalar::Float(f64::INFINITY), DType::Int64);
        rejected(Scalar::Float(f64::NEG_INFINITY), DType::Int64);
        assert_eq!(
            ok(Scalar::Float(-9_223_372_036_854_775_808.0), DType::Int64),
            i64::MIN.to_ne_bytes()
        );
        rejected(Scalar::Float(9_223_372_036_854_775_808.0), DType::Int64);
        assert_eq!(
            ok(Scalar::Float(9_223_372_036_854_775_808.0), DType::UInt64),
            (1u64 << 63).to_ne_bytes()
        );
        rejected(Scalar::Float(18_446_744_073_709_551_616.0), DType::UInt64);
    }

    #[test]
    fn bool_takes_only_0_1_true_false() {
        assert_eq!(ok(Scalar::Bool(true), DType::Bool), [1]);
        assert_eq!(ok(Scalar::Bool(false), DType::Bool), [0]);
        assert_eq!(ok(Scalar::Int(1), DType::Bool), [1]);
        assert_eq!(ok(Scalar::UInt(0), DType::Bool), [0]);
        assert_eq!(ok(Scalar::Float(1.0), DType::Bool), [1]);
        rejected(Scalar::Int(2), DType::Bool);
        rejected(Scalar::Int(-1), DType::Bool);
        rejected(Scalar::Float(0.5), DType::Bool);
        // A bool in a numeric dtype is 0 / 1.
        assert_eq!(ok(Scalar::Bool(true), DType::Int64), 1i64.to_ne_bytes());
        assert_eq!(ok(Scalar::Bool(true), DType::Float32), 1.0f32.to_ne_bytes());
    }

    #[test]
    fn floats_must_round_trip() {
        assert_eq!(ok(Scalar::Float(1.5), DType::Float32), 1.5f32.to_ne_bytes());
        rejected(Scalar::Float(0.1), DType::Float32);
        assert_eq!(ok(Scalar::Float(0.1), DType::Float64), 0.1f64.to_ne_bytes());
        assert_eq!(
            ok(Scalar::Float(65504.0), DType::Float16),
            0x7bffu16.to_ne_bytes()
        );
        rejected(Scalar::Float(65505.0), DType::Float16);
        rejected(Scalar::Float(1e6), DType::Float16);
        assert_eq!(
            ok(Scalar::Float(256.0), DType::BFloat16),
            0x4380u16.to_ne_bytes()
        );
        rejected(Scalar::Float(257.0), DType::BFloat16);
        rejected(Scalar::Float(f64::MAX), DType::Float32);
        // -0.0 keeps its sign.
        assert_eq!(
            ok(Scalar::Float(-0.0), DType::Float32),
            (-0.0f32).to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::Float(-0.0), DType::Float16),
            0x8000u16.to_ne_bytes()
        );
    }

    #[test]
    fn integers_to_floats_must_be_exact() {
        assert_eq!(
            ok(Scalar::Int(16_777_216), DType::Float32),
            16_777_216f32.to_ne_bytes()
        );
        rejected(Scalar::Int(16_777_217), DType::Float32);
        assert_eq!(
            ok(Scalar::Int(2048), DType::Float16),
            0x6800u16.to_ne_bytes()
        );
        rejected(Scalar::Int(2049), DType::Float16);
        rejected(Scalar::Int(i64::MAX), DType::Float64);
        assert_eq!(
            ok(Scalar::Int(i64::MIN), DType::Float64),
            (-(2f64.powi(63))).to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::UInt(1 << 63), DType::Float32),
            (2f32.powi(63)).to_ne_bytes()
        );
        rejected(Scalar::UInt(u64::MAX), DType::Float64);
    }

    #[test]
    fn specials_are_representable_in_every_float_dtype() {
        for d in [
            DType::Float16,
            DType::BFloat16,
            DType::Float32,
            DType::Float64,
        ] {
            ok(Scalar::Float(f64::INFINITY), d);
            ok(Scalar::Float(f64::NEG_INFINITY), d);
            ok(Scalar::Float(f64::NAN), d);
        }
        assert_eq!(
            ok(Scalar::Float(f64::NAN), DType::Float32),
            0x7fc0_0000u32.to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::Float(-f64::NAN), DType::Float32),
            0xffc0_0000u32.to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::Float(f64::NAN), DType::Float16),
            0x7e00u16.to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::Float(-f64::NAN), DType::BFloat16),
            0xffc0u16.to_ne_bytes()
        );
        let payload = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(
            ok(Scalar::Float(payload), DType::Float64),
            payload.to_bits().to_ne_bytes()
        );
        assert_eq!(
            ok(Scalar::Float(f64::INFINITY), DType::Float16),
            0x7c00u16.to_ne_bytes()
        );
    }

    #[test]
    fn complex_rules() {
        let mut want = Vec::new();
        [2.0f32, 0.0].append_bytes(&mut want);
        assert_eq!(ok(Scalar::Int(2), DType::Complex64), want);
        assert_eq!(ok(Scalar::Float(2.0), DType::Complex64), want);
        let mut want = Vec::new();
        [1.5f64, -2.5].append_bytes(&mut want);
        assert_eq!(ok(Scalar::Complex(1.5, -2.5), DType::Complex128), want);
        rejected(Scalar::Complex(0.1, 0.0), DType::Complex64);
        rejected(Scalar::Complex(0.0, 0.1), DType::Complex64);
        assert_eq!(
            ok(Scalar::Complex(3.0, 0.0), DType::Int32),
            3i32.to_ne_bytes()
        );
        rejected(Scalar::Complex(3.0, 1.0), DType::Int32);
        rejected(Scalar::Complex(3.0, f64::NAN), DType::Float32);
        rejected(Scalar::Int(16_777_217), DType::Complex64);
    }
}
