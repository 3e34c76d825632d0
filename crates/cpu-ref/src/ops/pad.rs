//! The reflection, replication and circular pads — `aclnnReflectionPad1d/2d/3d`,
//! `aclnnReplicationPad1d/2d/3d`, `aclnnCircularPad2d/3d` (ops.md sections 16
//! and 17): the last `k` dims of `self` padded with a per-dim index mapping.

use crate::error::RefError;
use crate::ops::{new_output, output_byte_len};
use crate::product::{check_op_dtype, Op};
use crate::tensor::Tensor;

/// How a padded dim maps an out index to a `self` index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PadMode {
    /// `-i` before the dim, `2(N-1) - i` after it (the edge is not repeated).
    Reflect,
    /// `clamp(i, 0, N-1)` (the edge is repeated).
    Replicate,
    /// `i mod N` (the dim wraps around).
    Circular,
}

impl PadMode {
    /// The `self` index read for the shifted out index `i = o - before` of a
    /// dim of extent `n > 0` (within the range the rules allow).
    pub fn source(self, i: i64, n: i64) -> i64 {
        match self {
            PadMode::Reflect if i < 0 => -i,
            PadMode::Reflect if i >= n => 2 * (n - 1) - i,
            PadMode::Reflect => i,
            PadMode::Replicate => i.clamp(0, n - 1),
            PadMode::Circular => i.rem_euclid(n),
        }
    }

    /// Whether each padding value must stay below the extent it pads.
    pub fn bounded(self) -> bool {
        self != PadMode::Replicate
    }
}

/// The mode and the number `k` of padded dims of a pad operator, or `None`
/// for any other operator.
pub fn pad_kind(op: Op) -> Option<(PadMode, usize)> {
    Some(match op {
        Op::ReflectionPad1d => (PadMode::Reflect, 1),
        Op::ReflectionPad2d => (PadMode::Reflect, 2),
        Op::ReflectionPad3d => (PadMode::Reflect, 3),
        Op::ReplicationPad1d => (PadMode::Replicate, 1),
        Op::ReplicationPad2d => (PadMode::Replicate, 2),
        Op::ReplicationPad3d => (PadMode::Replicate, 3),
        Op::CircularPad2d => (PadMode::Circular, 2),
        Op::CircularPad3d => (PadMode::Circular, 3),
        _ => return None,
    })
}

/// The shape-only rules of the pad operator `op` (ops.md §16's table from
/// the rank to the zero-extent rule) and the padded shape. `op` must be a
/// pad operator ([`pad_kind`]), else `InvalidArgument { op, param: "op" }`.
pub fn pad_out_shape(op: Op, shape: &[usize], padding: &[i64]) -> Result<Vec<usize>, RefError> {
    let name = op.name();
    let Some((mode, k)) = pad_kind(op) else {
        return Err(RefError::invalid(name, "op", "not a pad operator"));
    };
    let rank = shape.len();
    if rank != k + 1 && rank != k + 2 {
        return Err(RefError::invalid(
            name,
            "self",
            format!("rank must be {} or {}, got {rank}", k + 1, k + 2),
        ));
    }
    if padding.len() != 2 * k {
        return Err(RefError::invalid(
            name,
            "padding",
            format!("must hold {} values, got {}", 2 * k, padding.len()),
        ));
    }
    if let Some(v) = padding.iter().find(|v| **v < 0) {
        return Err(RefError::invalid(
            name,
            "padding",
            format!("values must be >= 0, got {v}"),
        ));
    }
    let mut out = shape.to_vec();
    for (j, pair) in padding.chunks(2).enumerate() {
        let d = rank - 1 - j;
        let n = shape[d];
        if mode.bounded() {
            if let Some(v) = pair.iter().find(|v| **v as u64 >= n as u64) {
                return Err(RefError::invalid(
                    name,
                    "padding",
                    format!("{v} must be below the extent {n} of dim {d}"),
                ));
            }
        }
        let e = (n as i128) + i128::from(pair[0]) + i128::from(pair[1]);
        out[d] = i64::try_from(e)
            .ok()
            .and_then(|e| usize::try_from(e).ok())
            .ok_or_else(|| {
                RefError::invalid(name, "padding", format!("dim {d}'s extent overflows"))
            })?;
    }
    let first = if rank == k + 2 { 1 } else { 0 };
    if let Some(d) = (first..rank).find(|&d| shape[d] == 0) {
        return Err(RefError::invalid(
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

/// The pad operator `op` of `x`, as a new contiguous tensor.
pub fn pad(op: Op, soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    let name = op.name();
    let Some((mode, k)) = pad_kind(op) else {
        return Err(RefError::invalid(name, "op", "not a pad operator"));
    };
    check_op_dtype(op, soc, x.dtype())?;
    let out_shape = pad_out_shape(op, x.shape(), padding)?;
    let len = output_byte_len(name, "padding", x.dtype(), &out_shape)?;
    let mut bytes = new_output(name, "padding", len)?;
    let rank = out_shape.len();
    let n_out: usize = out_shape.iter().product();
    let mut o = vec![0usize; rank];
    let mut src = vec![0usize; rank];
    for _ in 0..n_out {
        for d in 0..rank {
            let j = rank - 1 - d;
            src[d] = if j < k {
                let before = padding[2 * j];
                let n = x.shape()[d] as i64;
                mode.source(o[d] as i64 - before, n) as usize
            } else {
                o[d]
            };
        }
        bytes.extend_from_slice(x.element_bytes(&src));
        for d in (0..rank).rev() {
            o[d] += 1;
            if o[d] < out_shape[d] {
                break;
            }
            o[d] = 0;
        }
    }
    Tensor::from_bytes(x.dtype(), &out_shape, bytes)
}

/// `aclnnReflectionPad1d`: padding `[left, right]` of the last dim (§16).
pub fn reflection_pad1d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReflectionPad1d, soc, x, padding)
}

/// `aclnnReflectionPad2d`: padding `[left, right, top, bottom]` (§16).
pub fn reflection_pad2d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReflectionPad2d, soc, x, padding)
}

/// `aclnnReflectionPad3d`: padding `[left, right, top, bottom, front, back]` (§16).
pub fn reflection_pad3d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReflectionPad3d, soc, x, padding)
}

/// `aclnnReplicationPad1d` (§16).
pub fn replication_pad1d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReplicationPad1d, soc, x, padding)
}

/// `aclnnReplicationPad2d` (§16).
pub fn replication_pad2d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReplicationPad2d, soc, x, padding)
}

/// `aclnnReplicationPad3d` (§16).
pub fn replication_pad3d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::ReplicationPad3d, soc, x, padding)
}

/// `aclnnCircularPad2d` (§17).
pub fn circular_pad2d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::CircularPad2d, soc, x, padding)
}

/// `aclnnCircularPad3d` (§17).
pub fn circular_pad3d(soc: &str, x: &Tensor, padding: &[i64]) -> Result<Tensor, RefError> {
    pad(Op::CircularPad3d, soc, x, padding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::test_util::{arange_i32, ints, transposed_2x3, A2_SOC};

    #[test]
    fn canns_examples() {
        let x = arange_i32(&[1, 1, 3, 3]);
        let p = [2, 2, 2, 2];
        let r = reflection_pad2d(A2_SOC, &x, &p).unwrap();
        assert_eq!(r.shape(), &[1, 1, 7, 7]);
        assert_eq!(&ints(&r)[..14], [8, 7, 6, 7, 8, 7, 6, 5, 4, 3, 4, 5, 4, 3]);
        assert_eq!(&ints(&r)[42..], [2, 1, 0, 1, 2, 1, 0]);
        let r = replication_pad2d(A2_SOC, &x, &p).unwrap();
        assert_eq!(&ints(&r)[..7], [0, 0, 0, 1, 2, 2, 2]);
        assert_eq!(&ints(&r)[21..28], [3, 3, 3, 4, 5, 5, 5]);
        assert_eq!(&ints(&r)[42..], [6, 6, 6, 7, 8, 8, 8]);
        let r = circular_pad2d(A2_SOC, &x, &p).unwrap();
        assert_eq!(&ints(&r)[..14], [4, 5, 3, 4, 5, 3, 4, 7, 8, 6, 7, 8, 6, 7]);
        assert_eq!(&ints(&r)[14..21], [1, 2, 0, 1, 2, 0, 1]);
    }

    #[test]
    fn one_and_three_dims() {
        let x = arange_i32(&[1, 4]);
        assert_eq!(
            ints(&reflection_pad1d(A2_SOC, &x, &[3, 1]).unwrap()),
            [3, 2, 1, 0, 1, 2, 3, 2]
        );
        assert_eq!(
            ints(&replication_pad1d(A2_SOC, &x, &[2, 5]).unwrap()),
            [0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3]
        );
        let x = arange_i32(&[1, 2, 1, 2]);
        let y = reflection_pad3d(A2_SOC, &x, &[1, 0, 0, 0, 1, 1]).unwrap();
        assert_eq!(y.shape(), &[1, 4, 1, 3]);
        assert_eq!(ints(&y), [3, 2, 3, 1, 0, 1, 3, 2, 3, 1, 0, 1]);
        let y = circular_pad3d(A2_SOC, &x, &[0, 1, 0, 0, 1, 0]).unwrap();
        assert_eq!(ints(&y), [2, 3, 2, 0, 1, 0, 2, 3, 2]);
        let y = replication_pad3d(A2_SOC, &arange_i32(&[1, 1, 1, 1]), &[1; 6]).unwrap();
        assert_eq!(y.shape(), &[1, 3, 3, 3]);
        assert_eq!(ints(&y), [0; 27]);
    }

    #[test]
    fn views_batches_and_rules() {
        let v = transposed_2x3(); // [[0,3],[1,4],[2,5]]
        assert_eq!(
            ints(&reflection_pad1d(A2_SOC, &v, &[1, 1]).unwrap()),
            [3, 0, 3, 0, 4, 1, 4, 1, 5, 2, 5, 2]
        );
        let e = |r: Result<Tensor, RefError>| {
            let e = r.unwrap_err();
            (e.kind(), e.param())
        };
        let bad = Some("padding");
        assert_eq!(
            e(reflection_pad1d(A2_SOC, &v, &[2, 0])),
            ("invalid_argument", bad)
        );
        assert_eq!(
            e(reflection_pad1d(A2_SOC, &v, &[-1, 0])),
            ("invalid_argument", bad)
        );
        assert_eq!(
            e(reflection_pad1d(A2_SOC, &v, &[1])),
            ("invalid_argument", bad)
        );
        assert_eq!(
            e(circular_pad2d(
                A2_SOC,
                &arange_i32(&[1, 2, 2]),
                &[0, 0, 2, 0]
            ))
            .1,
            bad
        );
        assert!(replication_pad1d(A2_SOC, &v, &[9, 0]).is_ok());
        let s = Some("self");
        assert_eq!(e(reflection_pad2d(A2_SOC, &v, &[0; 4])).1, s);
        assert_eq!(
            e(reflection_pad1d(
                A2_SOC,
                &arange_i32(&[1, 1, 1, 2]),
                &[0; 2]
            ))
            .1,
            s
        );
        // A zero batch is empty; a zero elsewhere is not allowed.
        let y = replication_pad2d(A2_SOC, &arange_i32(&[0, 2, 2]), &[1; 4]);
        assert_eq!(e(y).1, s);
        let y = replication_pad2d(A2_SOC, &arange_i32(&[0, 1, 2, 2]), &[1; 4]).unwrap();
        assert_eq!(y.shape(), &[0, 1, 4, 4]);
        assert_eq!(
            e(replication_pad2d(
                A2_SOC,
                &arange_i32(&[1, 0, 2, 2]),
                &[1; 4]
            ))
            .1,
            s
        );
        assert_eq!(
            e(replication_pad1d(A2_SOC, &v, &[i64::MAX, 1])),
            ("invalid_argument", bad)
        );
        // Products and dtypes.
        let b = Tensor::from_bytes(DType::Bool, &[1, 2], vec![0; 2]).unwrap();
        assert!(reflection_pad1d("Ascend910A", &b, &[1, 1]).is_ok());
        assert_eq!(
            e(replication_pad1d(A2_SOC, &b, &[1, 1])).0,
            "unsupported_dtype"
        );
        let c = Tensor::from_bytes(DType::Complex64, &[1, 2], vec![0; 16]).unwrap();
        assert!(reflection_pad1d(A2_SOC, &c, &[1, 1]).is_ok());
        assert_eq!(
            e(reflection_pad1d("Ascend910A", &c, &[1, 1])).0,
            "unsupported_dtype"
        );
        assert_eq!(
            e(reflection_pad1d("Ascend310B1", &c, &[1, 1])).0,
            "unsupported_op"
        );
        let x = arange_i32(&[1, 2, 2]);
        assert_eq!(
            e(circular_pad2d("Ascend310P3", &x, &[1; 4])).0,
            "unsupported_op"
        );
        assert!(circular_pad2d("Ascend910_9391", &x, &[1; 4]).is_ok());
    }

    #[test]
    fn mapping() {
        assert_eq!(PadMode::Reflect.source(-2, 3), 2);
        assert_eq!(PadMode::Reflect.source(4, 3), 0);
        assert_eq!(PadMode::Replicate.source(-9, 3), 0);
        assert_eq!(PadMode::Replicate.source(9, 3), 2);
        assert_eq!(PadMode::Circular.source(-1, 3), 2);
        assert_eq!(PadMode::Circular.source(3, 3), 0);
        assert_eq!(pad_kind(Op::Slice), None);
        assert!(pad_out_shape(Op::Slice, &[1, 2], &[0, 0]).is_err());
    }
}
