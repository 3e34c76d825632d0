//! SliceV2 (`aclnnSliceV2`, spec section 31): Slice along several axes at
//! once (`starts, ends, axes, steps`, CANN's order), and SliceV3
//! (`aclnnSliceV3`, same section): the box `begin .. begin + size`, into
//! new contiguous tensors.

use super::{acl, aliases, check_device, check_out, check_product, check_rank};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "slice_v2";
const OP_V3: &str = "slice_v3";

/// One axis of §1's normalisation: the number of elements `start', start'
/// + step, ..` below `end'` on an extent `n` (`step > 0`; any `start`,
/// `end`; computed in i128, so nothing overflows).
fn axis_len(n: usize, start: i64, end: i64, step: i64) -> usize {
    if n == 0 {
        return 0;
    }
    let (n, start, end, step) = (n as i128, start as i128, end as i128, step as i128);
    let s = if start < -n {
        0
    } else if start >= n {
        n
    } else {
        (start + n) % n
    };
    let e = if end >= n {
        n
    } else if (end + n) % n < s {
        s
    } else {
        (end + n) % n
    };
    ((e - s + step - 1) / step) as usize
}

/// The output shape, after the spec's rules in order: the rank of `x`,
/// `axes`' range and repeats, the lengths of `starts`, `ends` and `steps`
/// against `axes`', the sign of the steps.
fn sliced_shape(
    x: &Tensor,
    starts: &[i64],
    ends: &[i64],
    axes: &[i64],
    steps: &[i64],
) -> Result<Vec<usize>> {
    check_rank(OP, "self", x, 0)?;
    let rank = x.rank() as i128;
    let mut seen = [false; MAX_RANK];
    let mut dims = Vec::with_capacity(axes.len());
    for &a in axes {
        let v = i128::from(a);
        if v < -rank || v >= rank {
            return Err(Error::invalid(
                OP,
                "axes",
                format!("entry {a} is outside [-{rank}, {}]", rank - 1),
            ));
        }
        let d = if v < 0 { v + rank } else { v } as usize;
        if std::mem::replace(&mut seen[d], true) {
            return Err(Error::invalid(OP, "axes", format!("names axis {d} twice")));
        }
        dims.push(d);
    }
    for (param, len) in [
        ("starts", starts.len()),
        ("ends", ends.len()),
        ("steps", steps.len()),
    ] {
        if len != axes.len() {
            return Err(Error::invalid(
                OP,
                param,
                format!("has {len} entries, axes {}", axes.len()),
            ));
        }
    }
    if let Some(s) = steps.iter().find(|&&s| s <= 0) {
        return Err(Error::invalid(
            OP,
            "steps",
            format!("entries must be at least 1, got {s}"),
        ));
    }
    let mut shape = x.shape().to_vec();
    for (i, &d) in dims.iter().enumerate() {
        shape[d] = axis_len(shape[d], starts[i], ends[i], steps[i]);
    }
    Ok(shape)
}

/// SliceV3's output shape (`size`), after the spec's rules in order: the
/// rank of `x` (1 to 8), `begin`'s then `size`'s length, then dim by dim
/// the box inside `x`.
fn box_shape(x: &Tensor, begin: &[i64], size: &[i64]) -> Result<Vec<usize>> {
    check_rank(OP_V3, "self", x, 1)?;
    let rank = x.rank();
    for (param, len) in [("begin", begin.len()), ("size", size.len())] {
        if len != rank {
            return Err(Error::invalid(
                OP_V3,
                param,
                format!("has {len} entries for a rank-{rank} self"),
            ));
        }
    }
    for (d, &n) in x.shape().iter().enumerate() {
        let (b, z, n) = (i128::from(begin[d]), i128::from(size[d]), n as i128);
        if b < 0 || b > n {
            return Err(Error::invalid(
                OP_V3,
                "begin",
                format!("entry {b} of dim {d} lies outside [0, {n}]"),
            ));
        }
        if z < 0 || b + z > n {
            return Err(Error::invalid(
                OP_V3,
                "size",
                format!("entry {z} of dim {d} is negative or passes its extent {n} from {b}"),
            ));
        }
    }
    Ok(size.iter().map(|&z| z as usize).collect())
}

impl Stream {
    /// `x` (any view) cut along each of `axes` to `starts[i], starts[i] +
    /// steps[i], ..` below `ends[i]` (each normalised as
    /// [`Stream::slice`]'s), the other axes whole, as a new contiguous
    /// tensor (spec section 31; the arrays in CANN's order).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[4, 2], &[0f32, 1., 2., 3., 4., 5., 6., 7.])?;
    /// // CANN's sample: rows 1..3, column 1..2.
    /// let y = s.slice_v2(&x, &[1, 1], &[3, 2], &[0, 1], &[1, 1])?;
    /// assert_eq!((y.shape(), y.to_vec::<f32>()?), (&[2usize, 1][..], vec![3., 5.]));
    /// // Every other row from the last, whatever the bounds.
    /// let y = s.slice_v2(&x, &[-3], &[i64::MAX], &[0], &[2])?;
    /// assert_eq!(y.to_vec::<f32>()?, [2., 3., 6., 7.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn slice_v2(
        &self,
        x: &Tensor,
        starts: &[i64],
        ends: &[i64],
        axes: &[i64],
        steps: &[i64],
    ) -> Result<Tensor> {
        check_product(self, OpKind::SliceV2, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let shape = sliced_shape(x, starts, ends, axes, steps)?;
        let out = Tensor::empty_for(self, OP, "out", x.dtype(), &shape)?;
        self.slice_v2_launch(x, [starts, ends, axes, steps], &out)?;
        Ok(out)
    }

    /// [`Stream::slice_v2`] into a caller's tensor or view of the sliced
    /// shape and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[2, 2])?;
    /// s.slice_v2_into(&x, &[0], &[3], &[-1], &[2], &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [1, 3, 4, 6]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn slice_v2_into(
        &self,
        x: &Tensor,
        starts: &[i64],
        ends: &[i64],
        axes: &[i64],
        steps: &[i64],
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::SliceV2, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let shape = sliced_shape(x, starts, ends, axes, steps)?;
        check_out(OP, out, x.dtype(), &shape)?;
        let arrays = [starts, ends, axes, steps];
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), out.shape())?;
            self.slice_v2_launch(x, arrays, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.slice_v2_launch(x, arrays, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself.
    fn slice_v2_launch(&self, x: &Tensor, arrays: [&[i64]; 4], out: &Tensor) -> Result<()> {
        if x.numel() == 0 || out.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let api = self.api();
        let [st, en, axs, sp] = [
            AclIntArray::new(api, arrays[0])?,
            AclIntArray::new(api, arrays[1])?,
            AclIntArray::new(api, arrays[2])?,
            AclIntArray::new(api, arrays[3])?,
        ];
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); the arrays live for the call.
        unsafe { self.launch(First::SliceV2(&ax, [&st, &en, &axs, &sp], &ao), &[&xs], out) }
            .map(drop)
    }

    /// The box of `x` (any view, rank 1 to 8) from `begin` with extents
    /// `size` (one entry per dim each; the box must lie inside `x`), as a
    /// new contiguous tensor (spec section 31; `aclnnSliceV3`, on A2).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// // CANN's sample: a [4, 3] tensor, begin [1, 0], size [2, 2].
    /// let x = Tensor::from_slice(&s, &[4, 3], &(0..12).collect::<Vec<i32>>())?;
    /// let y = s.slice_v3(&x, &[1, 0], &[2, 2])?;
    /// assert_eq!(y.to_vec::<i32>()?, [3, 4, 6, 7]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn slice_v3(&self, x: &Tensor, begin: &[i64], size: &[i64]) -> Result<Tensor> {
        check_product(self, OpKind::SliceV3, x.dtype())?;
        check_device(self, OP_V3, "self", x)?;
        let shape = box_shape(x, begin, size)?;
        let out = Tensor::empty_for(self, OP_V3, "size", x.dtype(), &shape)?;
        self.slice_v3_launch(x, begin, size, &out)?;
        Ok(out)
    }

    /// [`Stream::slice_v3`] into a caller's tensor or view of shape `size`
    /// and `x`'s dtype. `out` may share memory with `x`.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    /// let out = Tensor::zeros(&s, DType::F32, &[1, 2])?;
    /// s.slice_v3_into(&x, &[1, 1], &[1, 2], &out)?;
    /// assert_eq!(out.to_vec::<f32>()?, [5., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn slice_v3_into(
        &self,
        x: &Tensor,
        begin: &[i64],
        size: &[i64],
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::SliceV3, x.dtype())?;
        check_device(self, OP_V3, "self", x)?;
        check_device(self, OP_V3, "out", out)?;
        let shape = box_shape(x, begin, size)?;
        check_out(OP_V3, out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP_V3, "out", out.dtype(), out.shape())?;
            self.slice_v3_launch(x, begin, size, &tmp)?;
            return self.copy_into(OP_V3, out, &tmp);
        }
        self.slice_v3_launch(x, begin, size, out)
    }

    /// SliceV3's aclnn call, `x` materialised first if it overlaps itself.
    fn slice_v3_launch(&self, x: &Tensor, begin: &[i64], size: &[i64], out: &Tensor) -> Result<()> {
        if x.numel() == 0 || out.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(OP_V3, x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let (b, z) = (
            AclIntArray::new(self.api(), begin)?,
            AclIntArray::new(self.api(), size)?,
        );
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); the arrays live for the call.
        unsafe { self.launch(First::SliceV3(&ax, &b, &z, &ao), &[&xs], out) }.map(drop)
    }
}
