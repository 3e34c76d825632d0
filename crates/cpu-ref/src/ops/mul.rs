//! Mul — `aclnnMul` / `aclnnInplaceMul` (ops.md section 9):
//! `out = self * other`, broadcast and promoted.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::add::inplace_rules;
use crate::ops::elementwise::{self, Binary};
use crate::product::Op;
use crate::tensor::Tensor;

const OP: &str = "mul";

/// `x * y` in the promoted dtype, as a new contiguous tensor of the
/// broadcast shape (ops.md §9).
pub fn mul(soc: &str, x: &Tensor, y: &Tensor) -> Result<Tensor, RefError> {
    let (c, _) = elementwise::check(Op::Mul, soc, x, y, None)?;
    let p = c.promoted;
    elementwise::run(OP, &Binary::Mul, &c, x, y, p)
}

/// [`mul`] cast to `out_dtype` (the `_into` form; see [`crate::add_cast`]).
pub fn mul_cast(soc: &str, x: &Tensor, y: &Tensor, out_dtype: DType) -> Result<Tensor, RefError> {
    let (c, _) = elementwise::check(Op::Mul, soc, x, y, None)?;
    elementwise::check_out_dtype(Op::Mul, soc, "out", c.promoted, out_dtype)?;
    elementwise::run(OP, &Binary::Mul, &c, x, y, out_dtype)
}

/// The in-place form (`aclnnInplaceMul`): the new value of `x` (see
/// [`crate::add_inplace`] for the rules).
pub fn mul_inplace(soc: &str, x: &Tensor, y: &Tensor) -> Result<Tensor, RefError> {
    let (c, _) = elementwise::check(Op::Mul, soc, x, y, None)?;
    inplace_rules(Op::Mul, soc, x, &c)?;
    elementwise::run(OP, &Binary::Mul, &c, x, y, x.dtype())
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
    fn multiplies_with_broadcast() {
        let x = t(&[2, 1], &[2i64, -3]);
        let y = t(&[3], &[1i32, 2, i32::MAX]);
        let z = mul(A2_SOC, &x, &y).unwrap();
        assert_eq!(z.dtype(), DType::Int64);
        let m = i64::from(i32::MAX);
        assert_eq!(z.to_vec::<i64>().unwrap(), [2, 4, 2 * m, -3, -6, -3 * m]);
    }

    #[test]
    fn wraps_and_bool_is_and() {
        let x = t(&[2], &[100i8, -128]);
        let z = mul(A2_SOC, &x, &x).unwrap();
        assert_eq!(z.to_vec::<i8>().unwrap(), [16, 0]);
        let b = t(&[4], &[false, true, false, true]);
        let c = t(&[4], &[false, false, true, true]);
        assert_eq!(
            mul(A2_SOC, &b, &c).unwrap().to_vec::<bool>().unwrap(),
            [false, false, false, true]
        );
    }

    #[test]
    fn halves_round_once() {
        let x = t(&[1], &[f16::from_f32(1.0 + 2f32.powi(-10))]);
        // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: rounds to 1 + 2^-9.
        let z = mul(A2_SOC, &x, &x).unwrap();
        assert_eq!(
            z.to_vec::<f16>().unwrap()[0],
            f16::from_f32(1.0 + 2f32.powi(-9))
        );
        let b = t(&[1], &[bf16::from_f32(3.0)]);
        let z = mul(A2_SOC, &b, &t(&[1], &[2i64])).unwrap();
        assert_eq!(z.to_vec::<bf16>().unwrap(), [bf16::from_f32(6.0)]);
    }

    #[test]
    fn complex_product() {
        let x = t(&[1], &[[1f64, 2.]]);
        let y = t(&[1], &[[3f64, -1.]]);
        assert_eq!(
            mul(A2_SOC, &x, &y).unwrap().to_vec::<[f64; 2]>().unwrap(),
            [[5., 5.]]
        );
        let f = t(&[1], &[2f32]);
        let z = mul(A2_SOC, &f, &t(&[1], &[[1f32, 1.]])).unwrap();
        assert_eq!(z.to_vec::<[f32; 2]>().unwrap(), [[2., 2.]]);
    }

    #[test]
    fn products_rules_and_forms() {
        let x = t(&[2], &[1f32, 2.]);
        assert!(mul("Ascend310P3", &x, &x).is_ok());
        assert_eq!(
            mul("Ascend310B1", &x, &x).unwrap_err().kind(),
            "unsupported_op"
        );
        let z = mul_cast(A2_SOC, &x, &x, DType::Float64).unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), [1., 4.]);
        assert_eq!(
            mul_cast(A2_SOC, &x, &x, DType::Int32).unwrap_err().param(),
            Some("out")
        );
        let i = t(&[2], &[3i32, 4]);
        assert_eq!(
            mul_inplace(A2_SOC, &i, &x).unwrap_err().param(),
            Some("self")
        );
        assert_eq!(
            mul_inplace(A2_SOC, &x, &i)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            [3., 8.]
        );
    }
}
