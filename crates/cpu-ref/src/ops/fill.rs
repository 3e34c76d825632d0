//! Fills — `aclnnInplaceFillScalar` / `aclnnInplaceZero` (ops.md section
//! 13): every element of `self` takes one value.
//!
//! The result is the new value of `self`, as a contiguous tensor of its
//! shape and dtype (the safe layer writes it through `self`'s view).

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::check_rank;
use crate::ops::elementwise::{alpha_value, can_cast, encode, is_int, Val};
use crate::product::{check_op_dtype, Op};
use crate::scalar::Scalar;
use crate::tensor::{checked_byte_len, Tensor};

/// The element `value` becomes in `dtype` (ops.md §13, "The value"), or
/// invalid (`fill_scalar`, `value`).
pub fn fill_value(value: Scalar, dtype: DType) -> Result<Vec<u8>, RefError> {
    let op = Op::FillScalar.name();
    let (vd, v) = alpha_value(op, value).map_err(|e| match e {
        RefError::InvalidArgument { reason, .. } => RefError::invalid(op, "value", reason),
        other => other,
    })?;
    let ok = if dtype == DType::Bool {
        vd == DType::Bool || is_int(vd)
    } else {
        can_cast(vd, dtype)
    };
    if !ok {
        return Err(RefError::invalid(
            op,
            "value",
            format!("{value} ({vd}) cannot be cast to self's dtype {dtype}"),
        ));
    }
    let mut out = Vec::with_capacity(dtype.size());
    let part = if dtype == DType::Complex64 {
        DType::Float32
    } else {
        DType::Float64
    };
    match v {
        // A NaN keeps its bits into its own dtype (DOUBLE into FLOAT64,
        // COMPLEX128 into COMPLEX128); elsewhere its sign, the quiet bit
        // and its top payload bits.
        Val::Real(x) if x.is_nan() && dtype.is_float() => {
            push_nan(&mut out, x, dtype, dtype == DType::Float64)
        }
        Val::Real(x) if x.is_nan() && dtype.is_complex() => {
            push_nan(&mut out, x, part, false);
            encode(Val::Real(0.0), part, &mut out);
        }
        Val::Complex(re, im) if (re.is_nan() || im.is_nan()) && dtype.is_complex() => {
            for x in [re, im] {
                if x.is_nan() {
                    push_nan(&mut out, x, part, dtype == DType::Complex128);
                } else {
                    encode(Val::Real(x), part, &mut out);
                }
            }
        }
        v => encode(v, dtype, &mut out),
    }
    Ok(out)
}

/// A NaN of f64 into the float type `d`: the same bits when `keep`;
/// otherwise the sign, the quiet bit and the top payload bits that fit.
fn push_nan(out: &mut Vec<u8>, x: f64, d: DType, keep: bool) {
    let bits = x.to_bits();
    if keep {
        out.extend_from_slice(&bits.to_le_bytes());
        return;
    }
    let (mant, exp) = match d {
        DType::Float64 => (52u32, 11u32),
        DType::Float32 => (23, 8),
        DType::Float16 => (10, 5),
        _ => (7, 8), // bfloat16
    };
    let sign = (bits >> 63) << (mant + exp);
    let inf = ((1u64 << exp) - 1) << mant;
    let payload = (bits & ((1u64 << 52) - 1)) >> (52 - mant);
    let r = sign | inf | (1u64 << (mant - 1)) | payload;
    let bytes = (mant + exp + 1) as usize / 8;
    out.extend_from_slice(&r.to_le_bytes()[..bytes]);
}

/// Whether two logical indices of `self` may share an element once its
/// stride-0 dims are taken at extent 1 (ops.md §13; the overlap test of
/// the `_into` forms on the remaining dims).
pub fn fill_target_overlaps(shape: &[usize], strides: &[usize]) -> bool {
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|&(&n, &s)| n > 1 && s != 0)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut span: u128 = 0;
    for (s, n) in dims {
        if s as u128 <= span {
            return true;
        }
        span += (n as u128 - 1) * s as u128;
    }
    false
}

fn target_rules(op: Op, x: &Tensor) -> Result<(), RefError> {
    check_rank(op.name(), x.rank(), 0)?;
    if fill_target_overlaps(x.shape(), x.strides()) {
        return Err(RefError::invalid(
            op.name(),
            "self",
            format!(
                "the view (shape {:?}, strides {:?}) writes one element twice",
                x.shape(),
                x.strides()
            ),
        ));
    }
    Ok(())
}

fn filled(x: &Tensor, elem: &[u8]) -> Result<Tensor, RefError> {
    let len = checked_byte_len(x.dtype(), x.shape())
        .ok_or_else(|| RefError::invalid("tensor", "shape", "the byte size overflows"))?;
    let mut bytes = Vec::with_capacity(len);
    for _ in 0..x.numel() {
        bytes.extend_from_slice(elem);
    }
    Tensor::from_bytes(x.dtype(), x.shape(), bytes)
}

/// `aclnnInplaceFillScalar`: the new value of `x`, every element `value`
/// converted to `x`'s dtype (ops.md §13).
pub fn fill_scalar(soc: &str, x: &Tensor, value: Scalar) -> Result<Tensor, RefError> {
    check_op_dtype(Op::FillScalar, soc, x.dtype())?;
    let elem = fill_value(value, x.dtype())?;
    target_rules(Op::FillScalar, x)?;
    filled(x, &elem)
}

/// `aclnnInplaceZero`: the new value of `x`, every element zero (all bytes
/// zero in every dtype: +0.0, false, (0, 0)).
pub fn zero(soc: &str, x: &Tensor) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Zero, soc, x.dtype())?;
    target_rules(Op::Zero, x)?;
    filled(x, &vec![0; x.dtype().size()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{arange_i32, transposed_2x3, zeros, A2_SOC};
    use half::{bf16, f16};

    #[test]
    fn fills_every_dtype_with_converted_values() {
        let x = arange_i32(&[2, 2]);
        let y = fill_scalar(A2_SOC, &x, Scalar::Int(-7)).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), [-7; 4]);
        // Integers wrap.
        let y = fill_scalar(A2_SOC, &zeros(DType::Int8, &[2]), Scalar::Int(300)).unwrap();
        assert_eq!(y.to_vec::<i8>().unwrap(), [44, 44]);
        // Rounds once to nearest even.
        let y = fill_scalar(A2_SOC, &zeros(DType::Float16, &[1]), Scalar::Float(0.1)).unwrap();
        assert_eq!(y.to_vec::<f16>().unwrap(), [f16::from_f64(0.1)]);
        let y = fill_scalar(A2_SOC, &zeros(DType::BFloat16, &[1]), Scalar::Int(257)).unwrap();
        assert_eq!(y.to_vec::<bf16>().unwrap(), [bf16::from_f32(256.0)]);
        let y = fill_scalar(A2_SOC, &zeros(DType::Float32, &[1]), Scalar::Float(1e300)).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [f32::INFINITY]);
        // Integers into BOOL: value != 0.
        let y = fill_scalar(A2_SOC, &zeros(DType::Bool, &[2]), Scalar::Int(-2)).unwrap();
        assert_eq!(y.to_vec::<bool>().unwrap(), [true, true]);
        // Into complex: imaginary part +0.
        let y = fill_scalar(A2_SOC, &zeros(DType::Complex64, &[1]), Scalar::Float(2.5)).unwrap();
        assert_eq!(
            y.contiguous_bytes(),
            [2.5f32.to_le_bytes(), 0f32.to_le_bytes()].concat()
        );
    }

    #[test]
    fn nan_keeps_sign_and_payload() {
        let nan = f64::from_bits(0xfff0_0000_0000_0001); // negative signalling
        let y = fill_scalar(A2_SOC, &zeros(DType::Float64, &[1]), Scalar::Float(nan)).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap()[0].to_bits(), nan.to_bits());
        let y = fill_scalar(A2_SOC, &zeros(DType::Float32, &[1]), Scalar::Float(nan)).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap()[0].to_bits(), 0xffc0_0000);
        let q = f64::from_bits(0x7ffc_0000_0000_0000);
        let y = fill_scalar(A2_SOC, &zeros(DType::Float16, &[1]), Scalar::Float(q)).unwrap();
        assert_eq!(y.to_vec::<f16>().unwrap()[0].to_bits(), 0x7f00);
    }

    #[test]
    fn values_that_do_not_cast_are_invalid() {
        let x = arange_i32(&[2]);
        for v in [Scalar::Float(1.0), Scalar::Complex(1.0, 0.0)] {
            let e = fill_scalar(A2_SOC, &x, v).unwrap_err();
            assert_eq!((e.kind(), e.param()), ("invalid_argument", Some("value")));
        }
        let e = fill_scalar(A2_SOC, &x, Scalar::UInt(u64::MAX)).unwrap_err();
        assert_eq!(e.param(), Some("value"));
        let b = zeros(DType::Bool, &[1]);
        assert!(fill_scalar(A2_SOC, &b, Scalar::Float(1.0)).is_err());
        let f = zeros(DType::Float32, &[1]);
        assert!(fill_scalar(A2_SOC, &f, Scalar::Complex(1.0, 0.0)).is_err());
    }

    #[test]
    fn products_dtypes_and_order() {
        let u16t = zeros(DType::UInt16, &[2]);
        let e = fill_scalar(A2_SOC, &u16t, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.kind(), "unsupported_dtype");
        assert_eq!(
            zero(A2_SOC, &u16t).unwrap().to_vec::<u16>().unwrap(),
            [0, 0]
        );
        let bf = zeros(DType::BFloat16, &[1]);
        assert_eq!(
            zero("Ascend910A", &bf).unwrap_err().kind(),
            "unsupported_dtype"
        );
        assert_eq!(zero("Ascend310P3", &u16t).unwrap().numel(), 2);
        let x = arange_i32(&[1]);
        assert_eq!(
            zero("Ascend310B1", &x).unwrap_err().kind(),
            "unsupported_op"
        );
        // The product before the value; the value before the rank.
        let e = fill_scalar("Ascend310B1", &x, Scalar::Float(1.0)).unwrap_err();
        assert_eq!(e.kind(), "unsupported_op");
        let big = zeros(DType::Int32, &[1; 9]);
        let e = fill_scalar(A2_SOC, &big, Scalar::Float(1.0)).unwrap_err();
        assert_eq!(e.param(), Some("value"));
        let e = fill_scalar(A2_SOC, &big, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        assert_eq!(zero(A2_SOC, &big).unwrap_err().param(), Some("self"));
    }

    #[test]
    fn views_empty_and_overlap() {
        let t = transposed_2x3();
        let y = zero(A2_SOC, &t).unwrap();
        assert_eq!(
            (y.shape(), y.to_vec::<i32>().unwrap()),
            (&[3, 2][..], vec![0; 6])
        );
        // Stride 0 is filled through one element; windows are refused.
        let b = arange_i32(&[3]).view(&[4, 3], &[0, 1], 0).unwrap();
        assert_eq!(
            fill_scalar(A2_SOC, &b, Scalar::Int(5))
                .unwrap()
                .to_vec::<i32>()
                .unwrap(),
            [5; 12]
        );
        let w = arange_i32(&[4]).view(&[2, 3], &[1, 1], 0).unwrap();
        assert_eq!(zero(A2_SOC, &w).unwrap_err().param(), Some("self"));
        let e = zeros(DType::Float32, &[0, 3]);
        assert_eq!(
            fill_scalar(A2_SOC, &e, Scalar::Int(1)).unwrap().shape(),
            &[0, 3]
        );
        // A 0-D tensor is one element.
        let s = Tensor::scalar(3i64);
        assert_eq!(zero(A2_SOC, &s).unwrap().to_vec::<i64>().unwrap(), [0]);
    }
}
