//! The MLI sub-tensor view (spec section 5): pointer arithmetic only.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

const OP: &str = "subtensor";

/// `x[c_0]..[c_{k-1} : c_{k-1} + first_out_dim_size]`, sharing storage.
pub(crate) fn subtensor(
    x: &Tensor,
    start_coord: &[i64],
    first_out_dim_size: i64,
) -> Result<Tensor> {
    let k = start_coord.len();
    if k < 1 || k >= x.rank() {
        return Err(Error::invalid(
            OP,
            "start_coord",
            format!(
                "needs 1 to rank-1 = {} coordinates, got {k}",
                x.rank().saturating_sub(1)
            ),
        ));
    }
    for (j, &c) in start_coord.iter().enumerate() {
        if c < 0 || c as u64 >= x.shape()[j] as u64 {
            return Err(Error::invalid(
                OP,
                "start_coord",
                format!("coordinate {j} is {c}, outside [0, {})", x.shape()[j]),
            ));
        }
    }
    let last = start_coord[k - 1] as i128;
    if first_out_dim_size < 1 || last + first_out_dim_size as i128 > x.shape()[k - 1] as i128 {
        return Err(Error::invalid(
            OP,
            "first_out_dim_size",
            format!(
                "must be >= 1 with start_coord[{}] + size <= {}, got {first_out_dim_size}",
                k - 1,
                x.shape()[k - 1]
            ),
        ));
    }
    let offset = start_coord
        .iter()
        .zip(x.strides())
        .try_fold(x.offset(), |acc, (&c, &s)| {
            (c as usize).checked_mul(s).and_then(|v| v.checked_add(acc))
        })
        .ok_or_else(|| Error::invalid(OP, "start_coord", "the sub-tensor's offset overflows"))?;
    let mut shape = vec![first_out_dim_size as usize];
    shape.extend_from_slice(&x.shape()[k..]);
    let mut strides = vec![x.strides()[k - 1]];
    strides.extend_from_slice(&x.strides()[k..]);
    x.view(&shape, &strides, offset).map_err(|_| {
        Error::invalid(
            OP,
            "start_coord",
            "the sub-tensor lies outside the input's storage",
        )
    })
}
