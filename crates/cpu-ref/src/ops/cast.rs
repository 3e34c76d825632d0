//! Cast — `aclnnCast` (ops.md section 14): every element converted to
//! another dtype, by the project's conversion rules.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::check_rank;
use crate::ops::elementwise::{decode, encode, Val};
use crate::product::{check_op_dtype, supported_dtypes, Op};
use crate::tensor::{checked_byte_len, Tensor};

/// Mantissa and exponent bits of a float dtype (or of a complex one's
/// parts).
fn format(d: DType) -> (u32, u32) {
    match d {
        DType::Float16 => (10, 5),
        DType::BFloat16 => (7, 8),
        DType::Float32 | DType::Complex64 => (23, 8),
        _ => (52, 11),
    }
}

/// The bits of a float of `from`'s format, little-endian in `b`.
fn bits(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    v[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(v)
}

fn is_nan(b: &[u8], from: DType) -> bool {
    let (m, e) = format(from);
    let x = bits(b);
    let exp = (x >> m) & ((1 << e) - 1);
    exp == (1 << e) - 1 && x & ((1 << m) - 1) != 0
}

/// A NaN of `from`'s format as a NaN of `to`'s: its sign, the quiet bit,
/// and the payload's top bits that fit (left-aligned).
fn nan_to(b: &[u8], from: DType, to: DType, out: &mut Vec<u8>) {
    let ((fm, fe), (tm, te)) = (format(from), format(to));
    let x = bits(b);
    let sign = (x >> (fm + fe)) & 1;
    let m = x & ((1 << fm) - 1);
    let m = if tm >= fm {
        m << (tm - fm)
    } else {
        m >> (fm - tm)
    };
    let r = (sign << (tm + te)) | (((1 << te) - 1) << tm) | (1 << (tm - 1)) | m;
    out.extend_from_slice(&r.to_le_bytes()[..((tm + te + 1) / 8) as usize]);
}

/// The range of an integer dtype.
fn int_range(d: DType) -> (i128, i128) {
    let bits = 8 * d.size() as u32;
    match d {
        DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => (0, (1i128 << bits) - 1),
        _ => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
    }
}

/// One element of `from` (bytes `b`) converted to `to` (ops.md §14).
pub fn cast_element(from: DType, b: &[u8], to: DType) -> Vec<u8> {
    let mut out = Vec::with_capacity(to.size());
    if from == to {
        out.extend_from_slice(b);
        return out;
    }
    // A float part of the source: its dtype and bytes.
    let part = |k: usize| -> (DType, &[u8]) {
        match from {
            DType::Complex64 => (DType::Float32, &b[4 * k..4 * k + 4]),
            DType::Complex128 => (DType::Float64, &b[8 * k..8 * k + 8]),
            _ => (from, b),
        }
    };
    let float_src = from.is_float() || from.is_complex();
    if to.is_float() && float_src {
        let (pd, pb) = part(0);
        if is_nan(pb, pd) {
            nan_to(pb, pd, to, &mut out);
        } else {
            encode(decode(pd, pb), to, &mut out);
        }
        return out;
    }
    if to.is_complex() {
        let pt = if to == DType::Complex64 {
            DType::Float32
        } else {
            DType::Float64
        };
        if float_src {
            let parts: &[usize] = if from.is_complex() { &[0, 1] } else { &[0] };
            for &k in parts {
                let (pd, pb) = part(k);
                if is_nan(pb, pd) {
                    nan_to(pb, pd, pt, &mut out);
                } else {
                    encode(decode(pd, pb), pt, &mut out);
                }
            }
            if !from.is_complex() {
                encode(Val::Real(0.0), pt, &mut out);
            }
        } else {
            encode(decode(from, b), to, &mut out);
        }
        return out;
    }
    if to != DType::Bool && float_src {
        // Float to integer: truncate, NaN 0, saturate.
        let (pd, pb) = part(0);
        let x = match decode(pd, pb) {
            Val::Real(x) => x,
            _ => unreachable!("a float part decodes to a real"),
        };
        let (lo, hi) = int_range(to);
        let v = if x.is_nan() {
            0
        } else {
            (x.trunc() as i128).clamp(lo, hi)
        };
        out.extend_from_slice(&(v as u128).to_le_bytes()[..to.size()]);
        return out;
    }
    encode(decode(from, b), to, &mut out);
    out
}

/// `aclnnCast`: `x` converted to `dtype`, as a new contiguous tensor of
/// `x`'s shape (ops.md §14).
pub fn cast(soc: &str, x: &Tensor, dtype: DType) -> Result<Tensor, RefError> {
    let family = check_op_dtype(Op::Cast, soc, x.dtype())?;
    if !supported_dtypes(Op::Cast, family).contains(&dtype) {
        return Err(RefError::UnsupportedDtype {
            op: Op::Cast.name(),
            dtype,
            soc: soc.to_string(),
        });
    }
    check_rank(Op::Cast.name(), x.rank(), 0)?;
    let len = checked_byte_len(dtype, x.shape())
        .ok_or_else(|| RefError::invalid("cast", "self", "the byte size overflows"))?;
    let mut bytes = Vec::with_capacity(len);
    for k in 0..x.numel() {
        bytes.extend(cast_element(x.dtype(), x.flat_element_bytes(k), dtype));
    }
    Tensor::from_bytes(dtype, x.shape(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{transposed_2x3, A2_SOC};
    use half::{bf16, f16};

    fn t<T: crate::Element>(v: &[T]) -> Tensor {
        Tensor::from_slice(&[v.len()], v).unwrap()
    }

    #[test]
    fn floats_to_integers_truncate_saturate_and_nan_is_zero() {
        let x = t(&[2.9f32, -2.9, 1e10, -1e10, f32::NAN, f32::INFINITY]);
        let y = cast(A2_SOC, &x, DType::Int32).unwrap();
        assert_eq!(
            y.to_vec::<i32>().unwrap(),
            [2, -2, i32::MAX, i32::MIN, 0, i32::MAX]
        );
        let y = cast(A2_SOC, &x, DType::UInt8).unwrap();
        assert_eq!(y.to_vec::<u8>().unwrap(), [2, 0, 255, 0, 0, 255]);
    }

    #[test]
    fn integers_wrap_and_round_once() {
        let x = t(&[300i64, -1, (1 << 53) + 1]);
        assert_eq!(
            cast(A2_SOC, &x, DType::Int8)
                .unwrap()
                .to_vec::<i8>()
                .unwrap(),
            [44, -1, 1]
        );
        assert_eq!(
            cast(A2_SOC, &x, DType::UInt16)
                .unwrap()
                .to_vec::<u16>()
                .unwrap(),
            [300, 65535, 1]
        );
        let y = cast(A2_SOC, &t(&[65520i32, 2049]), DType::Float16).unwrap();
        assert_eq!(
            y.to_vec::<f16>().unwrap(),
            [f16::INFINITY, f16::from_f32(2048.0)]
        );
        let y = cast(A2_SOC, &t(&[257u16]), DType::BFloat16).unwrap();
        assert_eq!(y.to_vec::<bf16>().unwrap(), [bf16::from_f32(256.0)]);
    }

    #[test]
    fn nan_payloads_bools_and_complex() {
        let x = t(&[f32::from_bits(0xff80_0001), -0.0, 3.5]);
        let y = cast(A2_SOC, &x, DType::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(y[0].to_bits(), 0xfff8_0000_2000_0000);
        let b = cast(A2_SOC, &x, DType::Bool)
            .unwrap()
            .to_vec::<bool>()
            .unwrap();
        assert_eq!(b, [true, false, true]);
        let c = cast(A2_SOC, &x, DType::Complex64).unwrap();
        assert_eq!(
            &c.contiguous_bytes()[16..],
            [3.5f32.to_le_bytes(), 0f32.to_le_bytes()].concat()
        );
        let back = cast(A2_SOC, &c, DType::Int64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        assert_eq!(back, [0, 0, 3]);
        // Same dtype: bits copied.
        let s = cast(A2_SOC, &x, DType::Float32).unwrap();
        assert_eq!(s.contiguous_bytes(), x.contiguous_bytes());
    }

    #[test]
    fn products_and_rules() {
        let x = t(&[1u32, 2]);
        assert_eq!(cast("Ascend310P3", &x, DType::UInt64).unwrap().numel(), 2);
        let e = cast("Ascend910A", &x, DType::BFloat16).unwrap_err();
        assert_eq!((e.kind(), e.op()), ("unsupported_dtype", "cast"));
        assert_eq!(
            cast("Ascend310B1", &x, DType::Int8).unwrap_err().kind(),
            "unsupported_op"
        );
        let v = transposed_2x3();
        let y = cast(A2_SOC, &v, DType::Float32).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [0., 3., 1., 4., 2., 5.]);
        let big = Tensor::from_bytes(DType::Int8, &[1; 9], vec![0]).unwrap();
        assert_eq!(
            cast(A2_SOC, &big, DType::Int16).unwrap_err().param(),
            Some("self")
        );
    }
}
