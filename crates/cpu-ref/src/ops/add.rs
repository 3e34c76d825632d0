//! Add — `aclnnAdd` / `aclnnInplaceAdd` (ops.md section 8):
//! `out = self + alpha * other`, broadcast and promoted.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::elementwise::{self, Binary};
use crate::product::Op;
use crate::scalar::Scalar;
use crate::tensor::Tensor;

const OP: &str = "add";

/// `x + alpha * y` in the promoted dtype, as a new contiguous tensor of the
/// broadcast shape. Validates in the order of ops.md §8's table; alpha's
/// aclScalar dtype follows its variant (`Int` is INT64, `Float` DOUBLE,
/// ...).
pub fn add(soc: &str, x: &Tensor, y: &Tensor, alpha: Scalar) -> Result<Tensor, RefError> {
    let (c, al) = elementwise::check(Op::Add, soc, x, y, Some(alpha))?;
    let p = c.promoted;
    elementwise::run(OP, &Binary::Add(al.expect("alpha given")), &c, x, y, p)
}

/// [`add`] into an output of dtype `out_dtype` (the `_into` form): the
/// promoted result cast to it. `out_dtype` must be in Add's list and
/// reachable from the promoted dtype (invalid (`add`, `out`)). The caller
/// checks the output's shape ([`crate::check_out_shape`]) against
/// [`add_out_shape`].
pub fn add_cast(
    soc: &str,
    x: &Tensor,
    y: &Tensor,
    alpha: Scalar,
    out_dtype: DType,
) -> Result<Tensor, RefError> {
    let (c, al) = elementwise::check(Op::Add, soc, x, y, Some(alpha))?;
    elementwise::check_out_dtype(Op::Add, soc, "out", c.promoted, out_dtype)?;
    elementwise::run(
        OP,
        &Binary::Add(al.expect("alpha given")),
        &c,
        x,
        y,
        out_dtype,
    )
}

/// The in-place form (`aclnnInplaceAdd`): the new value of `x`, which keeps
/// `x`'s dtype and shape. The broadcast shape must be `x`'s (invalid
/// (`add`, `other`)) and the promoted dtype must cast to `x`'s (invalid
/// (`add`, `self`)).
pub fn add_inplace(soc: &str, x: &Tensor, y: &Tensor, alpha: Scalar) -> Result<Tensor, RefError> {
    let (c, al) = elementwise::check(Op::Add, soc, x, y, Some(alpha))?;
    inplace_rules(Op::Add, soc, x, &c)?;
    elementwise::run(
        OP,
        &Binary::Add(al.expect("alpha given")),
        &c,
        x,
        y,
        x.dtype(),
    )
}

/// The in-place rules shared with Mul.
pub(crate) fn inplace_rules(
    op: Op,
    soc: &str,
    x: &Tensor,
    c: &elementwise::Checked,
) -> Result<(), RefError> {
    if c.shape != x.shape() {
        return Err(RefError::invalid(
            op.name(),
            "other",
            format!(
                "the broadcast shape {:?} must be self's {:?} in place",
                c.shape,
                x.shape()
            ),
        ));
    }
    elementwise::check_out_dtype(op, soc, "self", c.promoted, x.dtype())
}

/// The output shape of Add (and Mul): the broadcast shape of `x` and `y`
/// (invalid (`add`, `other`) when they do not broadcast).
pub fn add_out_shape(x: &[usize], y: &[usize]) -> Result<Vec<usize>, RefError> {
    elementwise::broadcast_shape(x, y).ok_or_else(|| {
        RefError::invalid(
            OP,
            "other",
            format!("shape {y:?} does not broadcast with self's {x:?}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::A2_SOC;
    use half::{bf16, f16};

    fn t<T: crate::Element>(shape: &[usize], v: &[T]) -> Tensor {
        Tensor::from_slice(shape, v).unwrap()
    }

    #[test]
    fn seed_example_with_alpha() {
        // CANN's sample: alpha 1.2 over float32.
        let x = t(&[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.]);
        let y = t(&[4, 2], &[1f32, 1., 1., 2., 2., 2., 3., 3.]);
        let z = add(A2_SOC, &x, &y, Scalar::Float(1.2)).unwrap();
        let a = 1.2f64 as f32;
        let want: Vec<f32> = [0f32, 1., 2., 3., 4., 5., 6., 7.]
            .iter()
            .zip([1f32, 1., 1., 2., 2., 2., 3., 3.])
            .map(|(s, o)| s + a * o)
            .collect();
        assert_eq!(z.to_vec::<f32>().unwrap(), want);
        assert_eq!(z.dtype(), DType::Float32);
    }

    #[test]
    fn broadcast_and_promote() {
        let x = t(&[2, 1], &[1i8, -2]);
        let y = t(&[3], &[10u8, 20, 250]);
        let z = add(A2_SOC, &x, &y, Scalar::Int(1)).unwrap();
        assert_eq!(z.dtype(), DType::Int16);
        assert_eq!(z.shape(), &[2, 3]);
        assert_eq!(z.to_vec::<i16>().unwrap(), [11, 21, 251, 8, 18, 248]);
    }

    #[test]
    fn integers_wrap() {
        let x = t(&[2], &[i32::MAX, i32::MIN]);
        let y = t(&[2], &[1i32, 1]);
        let z = add(A2_SOC, &x, &y, Scalar::Int(-3)).unwrap();
        assert_eq!(
            z.to_vec::<i32>().unwrap(),
            [i32::MAX - 3, i32::MIN.wrapping_sub(3)]
        );
        // alpha wraps into the promoted dtype: 257 is 1 in uint8.
        let x = t(&[1], &[5u8]);
        let z = add(A2_SOC, &x, &x, Scalar::Int(257)).unwrap();
        assert_eq!(z.to_vec::<u8>().unwrap(), [10]);
    }

    #[test]
    fn bool_is_or_and() {
        let x = t(&[4], &[false, false, true, true]);
        let y = t(&[4], &[false, true, false, true]);
        let z = add(A2_SOC, &x, &y, Scalar::Bool(true)).unwrap();
        assert_eq!(z.to_vec::<bool>().unwrap(), [false, true, true, true]);
        let z = add(A2_SOC, &x, &y, Scalar::Int(0)).unwrap();
        assert_eq!(z.to_vec::<bool>().unwrap(), [false, false, true, true]);
        // A float alpha cannot be cast to BOOL.
        let e = add(A2_SOC, &x, &y, Scalar::Float(1.0)).unwrap_err();
        assert_eq!((e.op(), e.param()), ("add", Some("alpha")));
        // Into an int32 out: 0/1.
        let z = add_cast(A2_SOC, &x, &y, Scalar::Bool(true), DType::Int32).unwrap();
        assert_eq!(z.to_vec::<i32>().unwrap(), [0, 1, 1, 1]);
    }

    #[test]
    fn half_types_round_once_from_f32() {
        let x = t(&[1], &[f16::from_f32(1.0)]);
        let y = t(&[1], &[f16::from_f32(2f32.powi(-11))]);
        // 1 + 2^-11 is a tie in f16: to even.
        let z = add(A2_SOC, &x, &y, Scalar::Int(1)).unwrap();
        assert_eq!(z.to_vec::<f16>().unwrap()[0].to_bits(), 0x3c00);
        // alpha 3: 1 + 3 * 2^-11 = 1 + 1.5 ulp -> 1 + 2 ulp.
        let z = add(A2_SOC, &x, &y, Scalar::Int(3)).unwrap();
        assert_eq!(z.to_vec::<f16>().unwrap()[0].to_bits(), 0x3c02);
        let b = t(&[1], &[bf16::from_f32(1.5)]);
        let z = add(A2_SOC, &b, &x, Scalar::Int(1)).unwrap();
        assert_eq!(z.dtype(), DType::Float32); // bf16 with f16
        assert_eq!(z.to_vec::<f32>().unwrap(), [2.5]);
    }

    #[test]
    fn nan_is_canonical() {
        let x = t(&[2], &[f32::from_bits(0xffc0_1234), 1.0]);
        let y = t(&[2], &[1f32, f32::from_bits(0x7f80_0001)]);
        let z = add(A2_SOC, &x, &y, Scalar::Float(2.0)).unwrap();
        let bits: Vec<u32> = z
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(bits, [0x7fc0_0000, 0x7fc0_0000]);
        let inf = t(&[1], &[f32::INFINITY]);
        let ninf = t(&[1], &[f32::NEG_INFINITY]);
        let z = add_cast(A2_SOC, &inf, &ninf, Scalar::Int(1), DType::Float16).unwrap();
        assert_eq!(z.to_vec::<f16>().unwrap()[0].to_bits(), 0x7e00);
    }

    #[test]
    fn complex_alpha_one_skips_the_multiply() {
        let x = t(&[1], &[[1f32, 0.]]);
        let y = t(&[1], &[[f32::INFINITY, 0.]]);
        let z = add(A2_SOC, &x, &y, Scalar::Int(1)).unwrap();
        assert_eq!(z.to_vec::<[f32; 2]>().unwrap(), [[f32::INFINITY, 0.]]);
        let z = add(A2_SOC, &x, &y, Scalar::Complex(0., 1.)).unwrap();
        // (0+1i)(inf+0i) = (0*inf - 1*0, 0*0 + 1*inf) = (NaN, inf)
        let v = z.to_vec::<[f32; 2]>().unwrap()[0];
        assert_eq!(v[0].to_bits(), 0x7fc0_0000);
        assert_eq!(v[1], f32::INFINITY);
    }

    #[test]
    fn alpha_rules() {
        let x = t(&[1], &[1i32]);
        for bad in [
            Scalar::Float(1.0),
            Scalar::Complex(1., 0.),
            Scalar::UInt(u64::MAX),
        ] {
            let e = add(A2_SOC, &x, &x, bad).unwrap_err();
            assert_eq!((e.op(), e.param()), ("add", Some("alpha")), "{bad}");
        }
        assert!(add(A2_SOC, &x, &x, Scalar::UInt(7)).is_ok());
        let f = t(&[1], &[1f32]);
        assert!(add(A2_SOC, &f, &f, Scalar::Complex(1., 0.)).is_err());
        assert!(add(A2_SOC, &f, &f, Scalar::Bool(true)).is_ok());
    }

    #[test]
    fn out_dtype_rules() {
        let x = t(&[2], &[1f32, 2.]);
        let z = add_cast(A2_SOC, &x, &x, Scalar::Int(1), DType::Float16).unwrap();
        assert_eq!(
            z.to_vec::<f16>().unwrap(),
            [f16::from_f32(2.), f16::from_f32(4.)]
        );
        for bad in [DType::Int32, DType::Bool, DType::UInt16] {
            let e = add_cast(A2_SOC, &x, &x, Scalar::Int(1), bad).unwrap_err();
            assert_eq!(e.param(), Some("out"), "{bad}");
        }
        let i = t(&[1], &[300i32]);
        let z = add_cast(A2_SOC, &i, &i, Scalar::Int(0), DType::Int8).unwrap();
        assert_eq!(z.to_vec::<i8>().unwrap(), [44]);
        let e = add_cast("Ascend910A", &x, &x, Scalar::Int(1), DType::BFloat16).unwrap_err();
        assert_eq!(e.param(), Some("out"));
    }

    #[test]
    fn inplace_rules_hold() {
        let x = t(&[2, 1], &[1f32, 2.]);
        let y = t(&[3], &[1f32, 2., 3.]);
        let e = add_inplace(A2_SOC, &x, &y, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("other"));
        let i = t(&[3], &[1i32, 2, 3]);
        let e = add_inplace(A2_SOC, &i, &y, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let z = add_inplace(A2_SOC, &y, &x.view(&[1], &[1], 1).unwrap(), Scalar::Int(2)).unwrap();
        assert_eq!(z.to_vec::<f32>().unwrap(), [5., 6., 7.]);
    }

    #[test]
    fn shapes_and_views() {
        let x = crate::test_util::transposed_2x3(); // [[0,3],[1,4],[2,5]]
        let y = t(&[1], &[10i32]).view(&[3, 2], &[0, 0], 0).unwrap();
        let z = add(A2_SOC, &x, &y, Scalar::Int(1)).unwrap();
        assert_eq!(z.to_vec::<i32>().unwrap(), [10, 13, 11, 14, 12, 15]);
        let e = add(A2_SOC, &x, &t(&[4], &[1i32; 4]), Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("other"));
        // Empty: 0 with 1.
        let empty = crate::test_util::zeros(DType::Int32, &[0, 2]);
        let z = add(A2_SOC, &empty, &t(&[1], &[1i32]), Scalar::Int(1)).unwrap();
        assert_eq!(z.shape(), &[0, 2]);
        assert_eq!(add_out_shape(&[0, 2], &[1]).unwrap(), [0, 2]);
        // Rank 9.
        let big = crate::test_util::zeros(DType::Int32, &[1; 9]);
        let e = add(A2_SOC, &big, &t(&[1], &[1i32]), Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("self"));
        let e = add(A2_SOC, &t(&[1], &[1i32]), &big, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("other"));
    }

    #[test]
    fn merging_limit_for_double() {
        let a = crate::test_util::zeros(DType::Float64, &[5, 1, 5, 1, 5, 1]);
        let b = crate::test_util::zeros(DType::Float64, &[5, 5, 5, 5, 5, 5]);
        let e = add(A2_SOC, &a, &b, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.param(), Some("other"));
        let f = crate::test_util::zeros(DType::Float32, &[5, 1, 5, 1, 5, 1]);
        let g = crate::test_util::zeros(DType::Float32, &[5, 5, 5, 5, 5, 5]);
        assert!(add(A2_SOC, &f, &g, Scalar::Int(1)).is_ok());
        let a = crate::test_util::zeros(DType::Float64, &[5, 1, 5, 5, 1, 1]);
        assert!(add(A2_SOC, &a, &b, Scalar::Int(1)).is_ok());
    }

    #[test]
    fn products_and_order() {
        let x = t(&[1], &[1f32]);
        let e = add("Ascend310P3", &x, &x, Scalar::Int(1)).unwrap_err();
        assert_eq!(e.kind(), "unsupported_op");
        let b = t(&[1], &[bf16::ONE]);
        let e = add("Ascend910A", &x, &b, Scalar::Int(1)).unwrap_err();
        assert_eq!(
            e,
            RefError::UnsupportedDtype {
                op: "add",
                dtype: DType::BFloat16,
                soc: "Ascend910A".into()
            }
        );
        let u = t(&[1], &[1u16]);
        assert_eq!(
            add(A2_SOC, &u, &x, Scalar::Int(1)).unwrap_err().kind(),
            "unsupported_dtype"
        );
        // alpha before shapes.
        let i = t(&[2], &[1i32, 2]);
        let e = add(A2_SOC, &i, &t(&[3], &[1i32, 2, 3]), Scalar::Float(0.5)).unwrap_err();
        assert_eq!(e.param(), Some("alpha"));
    }
}
