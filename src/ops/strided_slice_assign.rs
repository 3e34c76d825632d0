//! StridedSliceAssignV2 (`aclnnStridedSliceAssignV2`, spec section 35):
//! `var[begin:end:strides along axes] = value`, in place.

use super::{acl, aliases, check_device, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "strided_slice_assign_v2";

/// The sliced shape of `var` (what `value` must be), after the spec's
/// rules on the arrays in order: lengths, axes, strides.
fn sliced_shape(
    var: &Tensor,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    axes: Option<&[i64]>,
) -> Result<Vec<usize>> {
    let rank = var.rank();
    if begin.len() > rank {
        return Err(Error::invalid(
            OP,
            "begin",
            format!("has {} entries for a rank-{rank} self", begin.len()),
        ));
    }
    for (param, len) in [("end", end.len()), ("strides", strides.len())] {
        if len != begin.len() {
            return Err(Error::invalid(
                OP,
                param,
                format!("has {len} entries, begin {}", begin.len()),
            ));
        }
    }
    let k = begin.len();
    let dims: Vec<usize> = match axes {
        None => (0..k).collect(),
        Some(axes) => {
            if axes.len() != k {
                return Err(Error::invalid(
                    OP,
                    "axes",
                    format!("has {} entries, begin {k}", axes.len()),
                ));
            }
            let r = rank as i128;
            let mut seen = [false; MAX_RANK];
            let mut dims = Vec::with_capacity(k);
            for &a in axes {
                let v = i128::from(a);
                if v < -r || v >= r {
                    return Err(Error::invalid(
                        OP,
                        "axes",
                        format!("entry {a} is outside [-{rank}, {}]", r - 1),
                    ));
                }
                let d = if v < 0 { v + r } else { v } as usize;
                if std::mem::replace(&mut seen[d], true) {
                    return Err(Error::invalid(OP, "axes", format!("names axis {d} twice")));
                }
                dims.push(d);
            }
            dims
        }
    };
    for (i, &s) in strides.iter().enumerate() {
        if s < 1 || (dims[i] == rank - 1 && s != 1) {
            return Err(Error::invalid(
                OP,
                "strides",
                format!(
                    "entry {s} for axis {}: at least 1, and 1 on the last axis",
                    dims[i]
                ),
            ));
        }
    }
    let mut shape = var.shape().to_vec();
    for (i, &d) in dims.iter().enumerate() {
        let n = shape[d] as i128;
        let norm = |v: i64| -> i128 {
            let v = i128::from(v);
            (if v < 0 { v + n } else { v }).clamp(0, n)
        };
        let (b, e, s) = (norm(begin[i]), norm(end[i]), i128::from(strides[i]));
        shape[d] = if e > b {
            ((e - b + s - 1) / s) as usize
        } else {
            0
        };
    }
    Ok(shape)
}

impl Stream {
    /// In place: the elements of `var` (any view that does not overlap
    /// itself) at `begin + i * strides` along `axes` (`None`: `0, 1, ..`)
    /// become `value`'s (any view of the sliced shape and `var`'s dtype;
    /// it may share memory with `var`). `begin` and `end` are normalised
    /// (a negative value plus the extent, then clamped); strides are at
    /// least 1, and 1 on `var`'s last axis (spec section 35;
    /// `aclnnStridedSliceAssignV2`, on A2 and A3).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// // CANN's sample: rows 1 and 3, columns 0 and 1 of a [4, 3].
    /// let var = Tensor::from_slice(&s, &[4, 3], &(0..12).map(|v| v as f32).collect::<Vec<_>>())?;
    /// let value = Tensor::from_slice(&s, &[2, 2], &[-1f32, -2., -3., -4.])?;
    /// s.strided_slice_assign_v2(&var, &value, &[1, 0], &[4, 2], &[2, 1], Some(&[0, 1]))?;
    /// assert_eq!(
    ///     var.to_vec::<f32>()?,
    ///     [0., 1., 2., -1., -2., 5., 6., 7., 8., -3., -4., 11.]
    /// );
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn strided_slice_assign_v2(
        &self,
        var: &Tensor,
        value: &Tensor,
        begin: &[i64],
        end: &[i64],
        strides: &[i64],
        axes: Option<&[i64]>,
    ) -> Result<()> {
        check_product(self, OpKind::StridedSliceAssignV2, var.dtype())?;
        check_device(self, OP, "self", var)?;
        check_device(self, OP, "value", value)?;
        check_rank(OP, "self", var, 1)?;
        if value.dtype() != var.dtype() {
            return Err(Error::invalid(
                OP,
                "value",
                format!(
                    "dtype {:?} differs from self's {:?}",
                    value.dtype(),
                    var.dtype()
                ),
            ));
        }
        let shape = sliced_shape(var, begin, end, strides, axes)?;
        if value.shape() != &shape[..] {
            return Err(Error::invalid(
                OP,
                "value",
                format!(
                    "shape {:?} must be the sliced shape {shape:?}",
                    value.shape()
                ),
            ));
        }
        if var.numel() > 0 && var.layout().may_overlap() {
            return Err(Error::invalid(
                OP,
                "self",
                "the view addresses one element twice (an in-place target must not)".to_string(),
            ));
        }
        if value.numel() == 0 {
            return Ok(());
        }
        // A value that overlaps itself is materialised (CANN's Contiguous
        // may refuse it); one that shares memory with var is read into a
        // temporary first, so the result is as if it had been read first.
        let vs = if value.layout().may_overlap() || aliases(value, var) {
            let tmp = Tensor::empty_for(self, OP, "value", value.dtype(), value.shape())?;
            self.copy_into(OP, &tmp, value)?;
            std::borrow::Cow::Owned(tmp)
        } else {
            std::borrow::Cow::Borrowed(value)
        };
        let (av, avar) = (acl(self, &vs)?, acl(self, var)?);
        let api = self.api();
        let (b, e, st) = (
            AclIntArray::new(api, begin)?,
            AclIntArray::new(api, end)?,
            AclIntArray::new(api, strides)?,
        );
        let ax = axes.map(|a| AclIntArray::new(api, a)).transpose()?;
        // SAFETY: the descriptors are `vs`'s (the read) and `var`'s (the
        // write, in place); the arrays live for the call.
        unsafe {
            self.launch(
                First::StridedSliceAssignV2(&avar, &av, [&b, &e, &st], ax.as_ref()),
                &[&vs],
                var,
            )
        }
        .map(drop)
    }
}
