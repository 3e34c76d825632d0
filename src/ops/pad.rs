//! The reflection, replication and circular pads (`aclnnReflectionPad1d/2d/3d`,
//! `aclnnReplicationPad1d/2d/3d`, `aclnnCircularPad2d/3d`; spec sections 16
//! and 17): the last `k` dims of `self` padded by mapping each out index
//! to a `self` index (reflect, clamp or wrap).

use super::{acl, aliases, check_device, check_out, check_product};
use crate::error::{Error, Result};
use crate::ffi::{AclIntArray, First};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

/// The number of padded dims of a pad operator, and whether each padding
/// value must stay below the extent it pads (reflection, circular).
fn pad_kind(op: OpKind) -> Option<(usize, bool)> {
    Some(match op {
        OpKind::ReflectionPad1d => (1, true),
        OpKind::ReflectionPad2d => (2, true),
        OpKind::ReflectionPad3d => (3, true),
        OpKind::ReplicationPad1d => (1, false),
        OpKind::ReplicationPad2d => (2, false),
        OpKind::ReplicationPad3d => (3, false),
        OpKind::CircularPad2d => (2, true),
        OpKind::CircularPad3d => (3, true),
        _ => return None,
    })
}

/// The rules of spec section 16 from the rank to the zero-extent rule, in
/// its order; the padded shape.
fn padded_shape(op: OpKind, shape: &[usize], padding: &[i64]) -> Result<Vec<usize>> {
    let name = op.name();
    let Some((k, bounded)) = pad_kind(op) else {
        return Err(Error::invalid(name, "op", "not a pad operator"));
    };
    let rank = shape.len();
    if rank != k + 1 && rank != k + 2 {
        return Err(Error::invalid(
            name,
            "self",
            format!("rank must be {} or {}, got {rank}", k + 1, k + 2),
        ));
    }
    if padding.len() != 2 * k {
        return Err(Error::invalid(
            name,
            "padding",
            format!("must hold {} values, got {}", 2 * k, padding.len()),
        ));
    }
    if let Some(v) = padding.iter().find(|v| **v < 0) {
        return Err(Error::invalid(
            name,
            "padding",
            format!("values must be >= 0, got {v}"),
        ));
    }
    let mut out = shape.to_vec();
    for (j, pair) in padding.chunks(2).enumerate() {
        let d = rank - 1 - j;
        let n = shape[d];
        if bounded {
            if let Some(v) = pair.iter().find(|v| **v as u64 >= n as u64) {
                return Err(Error::invalid(
                    name,
                    "padding",
                    format!("{v} must be below the extent {n} of dim {d}"),
                ));
            }
        }
        let e = n as i128 + i128::from(pair[0]) + i128::from(pair[1]);
        out[d] = i64::try_from(e)
            .ok()
            .and_then(|e| usize::try_from(e).ok())
            .ok_or_else(|| {
                Error::invalid(name, "padding", format!("dim {d}'s extent overflows"))
            })?;
    }
    let first = usize::from(rank == k + 2);
    if let Some(d) = (first..rank).find(|&d| shape[d] == 0) {
        return Err(Error::invalid(
            name,
            "self",
            format!(
                "dim {d} is empty; only a batch dim (dim 0 of rank {}) may be",
                k + 2
            ),
        ));
    }
    Ok(out)
}

/// A pad method and its `_into` form.
macro_rules! pad_methods {
    ($kind:ident, $name:ident, $into:ident, $what:literal, $padding:literal, $example:literal) => {
        #[doc = concat!(
            "`aclnn", stringify!($kind), "`: ", $what, ", as a new contiguous tensor. ",
            "`padding` is `", $padding, "` (pairs from the last dim; spec sections 16 and 17: ",
            "values `>= 0`, and below the padded extent for reflection and circular; ",
            "`self` of rank `k+1` or `k+2`, only a batch dim may be empty). `x` may be any view.\n\n",
            "```\n",
            "# use npu_ops::{Backend, Runtime, Tensor};\n",
            "# let rt = Runtime::new(Backend::Simulator)?;\n",
            "let s = rt.stream()?;\n",
            $example, "\n",
            "# Ok::<(), npu_ops::Error>(())\n",
            "```"
        )]
        pub fn $name(&self, x: &Tensor, padding: &[i64]) -> Result<Tensor> {
            self.pad_new(OpKind::$kind, x, padding)
        }

        #[doc = concat!(
            "[`Stream::", stringify!($name), "`] into a caller's tensor or view of the padded ",
            "shape and `x`'s dtype; `out` may share memory with `x`."
        )]
        pub fn $into(&self, x: &Tensor, padding: &[i64], out: &Tensor) -> Result<()> {
            self.pad_into(OpKind::$kind, x, padding, out)
        }
    };
}

impl Stream {
    pad_methods!(
        ReflectionPad1d,
        reflection_pad1d,
        reflection_pad1d_into,
        "the last dim of `x` padded with its reflection (the edge not repeated)",
        "[left, right]",
        "let x = Tensor::from_slice(&s, &[1, 4], &[0i32, 1, 2, 3])?;\nassert_eq!(s.reflection_pad1d(&x, &[2, 1])?.to_vec::<i32>()?, [2, 1, 0, 1, 2, 3, 2]);"
    );
    pad_methods!(
        ReflectionPad2d,
        reflection_pad2d,
        reflection_pad2d_into,
        "the last two dims of `x` padded with their reflection",
        "[left, right, top, bottom]",
        "let x = Tensor::from_slice(&s, &[1, 2, 2], &[1.0f32, 2.0, 3.0, 4.0])?;\nlet y = s.reflection_pad2d(&x, &[1, 0, 0, 1])?;\nassert_eq!(y.shape(), &[1, 3, 3]);\nassert_eq!(y.to_vec::<f32>()?, [2., 1., 2., 4., 3., 4., 2., 1., 2.]);\nlet out = Tensor::zeros(&s, npu_ops::DType::F32, &[1, 3, 3])?;\ns.reflection_pad2d_into(&x, &[1, 0, 0, 1], &out.transpose(1, 2)?)?;\nassert_eq!(out.to_vec::<f32>()?, [2., 4., 2., 1., 3., 1., 2., 4., 2.]);"
    );
    pad_methods!(
        ReflectionPad3d,
        reflection_pad3d,
        reflection_pad3d_into,
        "the last three dims of `x` padded with their reflection",
        "[left, right, top, bottom, front, back]",
        "let x = Tensor::from_slice(&s, &[1, 2, 1, 2], &[0i8, 1, 2, 3])?;\nlet y = s.reflection_pad3d(&x, &[0, 1, 0, 0, 1, 0])?;\nassert_eq!(y.to_vec::<i8>()?, [2, 3, 2, 0, 1, 0, 2, 3, 2]);"
    );
    pad_methods!(
        ReplicationPad1d,
        replication_pad1d,
        replication_pad1d_into,
        "the last dim of `x` padded with its edge elements",
        "[left, right]",
        "let x = Tensor::from_slice(&s, &[1, 2], &[5i64, 6])?;\nassert_eq!(s.replication_pad1d(&x, &[3, 1])?.to_vec::<i64>()?, [5, 5, 5, 5, 6, 6]);"
    );
    pad_methods!(
        ReplicationPad2d,
        replication_pad2d,
        replication_pad2d_into,
        "the last two dims of `x` padded with their edge elements",
        "[left, right, top, bottom]",
        "let x = Tensor::from_slice(&s, &[1, 1, 2], &[1.0f32, 2.0])?;\nlet y = s.replication_pad2d(&x, &[1, 1, 1, 0])?;\nassert_eq!(y.to_vec::<f32>()?, [1., 1., 2., 2., 1., 1., 2., 2.]);"
    );
    pad_methods!(
        ReplicationPad3d,
        replication_pad3d,
        replication_pad3d_into,
        "the last three dims of `x` padded with their edge elements",
        "[left, right, top, bottom, front, back]",
        "let x = Tensor::from_slice(&s, &[1, 1, 1, 1], &[7i32])?;\nassert_eq!(s.replication_pad3d(&x, &[1; 6])?.to_vec::<i32>()?, [7; 27]);"
    );
    pad_methods!(
        CircularPad2d,
        circular_pad2d,
        circular_pad2d_into,
        "the last two dims of `x` padded by wrapping around (A2 and A3 only)",
        "[left, right, top, bottom]",
        "let x = Tensor::from_slice(&s, &[1, 1, 3], &[0i32, 1, 2])?;\nassert_eq!(s.circular_pad2d(&x, &[2, 1, 0, 0])?.to_vec::<i32>()?, [1, 2, 0, 1, 2, 0]);"
    );
    pad_methods!(
        CircularPad3d,
        circular_pad3d,
        circular_pad3d_into,
        "the last three dims of `x` padded by wrapping around (A2 and A3 only)",
        "[left, right, top, bottom, front, back]",
        "let x = Tensor::from_slice(&s, &[1, 2, 1, 1], &[3.0f32, 4.0])?;\nassert_eq!(s.circular_pad3d(&x, &[0, 0, 0, 0, 1, 1])?.to_vec::<f32>()?, [4., 3., 4., 3.]);"
    );

    /// The shared checks of both forms, in the spec's order.
    fn pad_checks(&self, op: OpKind, x: &Tensor, padding: &[i64]) -> Result<Vec<usize>> {
        check_product(self, op, x.dtype())?;
        check_device(self, op.name(), "self", x)?;
        padded_shape(op, x.shape(), padding)
    }

    fn pad_new(&self, op: OpKind, x: &Tensor, padding: &[i64]) -> Result<Tensor> {
        let shape = self.pad_checks(op, x, padding)?;
        let out = Tensor::empty_for(self, op.name(), "padding", x.dtype(), &shape)?;
        self.pad_launch(op, x, padding, &out)?;
        Ok(out)
    }

    fn pad_into(&self, op: OpKind, x: &Tensor, padding: &[i64], out: &Tensor) -> Result<()> {
        check_product(self, op, x.dtype())?;
        check_device(self, op.name(), "self", x)?;
        check_device(self, op.name(), "out", out)?;
        let shape = padded_shape(op, x.shape(), padding)?;
        check_out(op.name(), out, x.dtype(), &shape)?;
        if aliases(x, out) {
            let tmp = Tensor::empty_for(self, op.name(), "out", out.dtype(), out.shape())?;
            self.pad_launch(op, x, padding, &tmp)?;
            return self.copy_into(op.name(), out, &tmp);
        }
        self.pad_launch(op, x, padding, out)
    }

    /// The aclnn call, `x` materialised first if it overlaps itself (the
    /// rules checked by the caller; also the sampled slice's pad plan).
    pub(super) fn pad_launch(
        &self,
        op: OpKind,
        x: &Tensor,
        padding: &[i64],
        out: &Tensor,
    ) -> Result<()> {
        if out.numel() == 0 {
            return Ok(());
        }
        let xs = self.unoverlapped(op.name(), x)?;
        let (ax, ao) = (acl(self, &xs)?, acl(self, out)?);
        let arr = AclIntArray::new(self.api(), padding)?;
        // SAFETY: the descriptors are `xs`'s (the read) and `out`'s (the
        // write); the padding array is copied by the first phase.
        unsafe { self.launch(First::Pad(op, &ax, &arr, &ao), &[&xs], out) }.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_rules_in_order() {
        let p = |op, shape: &[usize], pad: &[i64]| {
            padded_shape(op, shape, pad).map_err(|e| e.to_string())
        };
        assert_eq!(
            p(OpKind::ReflectionPad2d, &[1, 3, 3], &[2, 2, 1, 0]),
            Ok(vec![1, 4, 7])
        );
        assert!(p(OpKind::ReflectionPad2d, &[3, 3], &[0; 4]).is_err());
        assert!(p(OpKind::ReflectionPad1d, &[1, 3], &[3, 0]).is_err());
        assert!(p(OpKind::ReplicationPad1d, &[1, 3], &[30, 0]).is_ok());
        assert!(p(OpKind::ReplicationPad1d, &[1, 3], &[-1, 0]).is_err());
        assert!(p(OpKind::ReplicationPad1d, &[1, 3], &[1]).is_err());
        assert!(p(OpKind::ReplicationPad1d, &[0, 2, 3], &[1, 1]).is_ok());
        assert!(p(OpKind::ReplicationPad1d, &[1, 0, 3], &[1, 1]).is_err());
        assert!(p(OpKind::ReplicationPad1d, &[1, 3], &[i64::MAX, 1]).is_err());
        assert!(p(OpKind::Cast, &[1, 3], &[1, 1]).is_err());
    }
}
