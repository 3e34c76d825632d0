//! Small helpers for the unit tests.

use crate::dtype::DType;
use crate::tensor::Tensor;

/// An Atlas A2 SoC (the default one).
pub const A2_SOC: &str = "Ascend910B3";

/// int32 tensor of `shape` holding 0, 1, 2, .. in row-major order.
pub fn arange_i32(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let data: Vec<i32> = (0..n as i32).collect();
    Tensor::from_slice(shape, &data).unwrap()
}

/// The int32 elements of `t` in logical order.
pub fn ints(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

/// A zero-filled contiguous tensor of any dtype.
pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(dtype, shape, vec![0; n * dtype.size()]).unwrap()
}

/// The transpose of arange 2x3, a non-contiguous 3x2 view: [[0,3],[1,4],[2,5]].
pub fn transposed_2x3() -> Tensor {
    let t = arange_i32(&[2, 3]).view(&[3, 2], &[1, 3], 0).unwrap();
    assert!(!t.is_contiguous());
    t
}

/// An int64 1-D index tensor.
pub fn idx64(values: &[i64]) -> Tensor {
    Tensor::from_slice(&[values.len()], values).unwrap()
}
