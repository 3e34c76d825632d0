//! Index — `aclnnIndex` (ops.md section 30): `out = self[indices]`,
//! PyTorch's advanced indexing by a list of integer index tensors, one per
//! leading dim of `self`, and bool masks (one per dim they cover); an empty
//! member leaves its dim whole (PyTorch's `None`/`:`), the dims after the
//! list are kept whole.

use crate::dtype::DType;
use crate::error::RefError;
use crate::ops::{new_output, output_byte_len, read_index_tensor};
use crate::product::{check_op_dtype, Op};
use crate::tensor::{row_major, Tensor, MAX_RANK};

const OP: &str = "index";

/// How `index` lays out its output (from shapes alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexLayout {
    /// The dims of `self` (seen as `[1]` when 0-D) that an index tensor
    /// indexes, ascending.
    pub indexed: Vec<usize>,
    /// The index tensors' broadcast shape.
    pub broadcast: Vec<usize>,
    /// Where the broadcast dims go in the output: at the first indexed
    /// dim when the indexed dims are adjacent, else at the front (PyTorch).
    pub at: usize,
    /// The output shape.
    pub out_shape: Vec<usize>,
}

fn bad(param: &'static str, why: String) -> RefError {
    RefError::invalid(OP, param, why)
}

/// The shape two shapes broadcast to (aligned at their last dims), if any.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (k, o) in out.iter_mut().enumerate() {
        let x = if k + a.len() >= n {
            a[k + a.len() - n]
        } else {
            1
        };
        let y = if k + b.len() >= n {
            b[k + b.len() - n]
        } else {
            1
        };
        *o = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// The output layout of `index` from `self`'s shape and the index tensors'
/// shapes (a member with no elements indexes nothing). Rules (param
/// `indices` unless said): `self` of rank 0 to 8 (`self`); at least one
/// member; every member of rank at most 8; at most `rank(self)` members
/// (exactly one for a 0-D `self`); the non-empty members broadcast
/// together; the output's rank at most 8.
pub fn index_out_shape(
    self_shape: &[usize],
    indices: &[&[usize]],
) -> Result<IndexLayout, RefError> {
    let defined: Vec<bool> = indices
        .iter()
        .map(|s| s.iter().product::<usize>() != 0)
        .collect();
    index_layout(self_shape, indices, &defined)
}

/// [`index_out_shape`] with the members that index their dim named by
/// `defined` (the members a BOOL mask expands to index theirs even when
/// the mask has no true element).
pub fn index_layout(
    self_shape: &[usize],
    indices: &[&[usize]],
    defined: &[bool],
) -> Result<IndexLayout, RefError> {
    if self_shape.len() > MAX_RANK {
        return Err(bad(
            "self",
            format!("rank must be in 0..={MAX_RANK}, got {}", self_shape.len()),
        ));
    }
    if indices.is_empty() {
        return Err(bad(
            "indices",
            "the list must hold at least one tensor".into(),
        ));
    }
    if let Some((i, s)) = indices.iter().enumerate().find(|(_, s)| s.len() > MAX_RANK) {
        return Err(bad(
            "indices",
            format!("tensor {i} has rank {} (at most {MAX_RANK})", s.len()),
        ));
    }
    let xs: Vec<usize> = if self_shape.is_empty() {
        if indices.len() != 1 {
            return Err(bad(
                "indices",
                format!(
                    "a 0-D self takes exactly one index tensor, got {}",
                    indices.len()
                ),
            ));
        }
        vec![1]
    } else {
        if indices.len() > self_shape.len() {
            return Err(bad(
                "indices",
                format!(
                    "{} index tensors for a self of rank {} (at most one per dim)",
                    indices.len(),
                    self_shape.len()
                ),
            ));
        }
        self_shape.to_vec()
    };
    let mut indexed = Vec::new();
    let mut broadcast: Vec<usize> = Vec::new();
    for (i, s) in indices.iter().enumerate() {
        if !defined[i] {
            continue;
        }
        broadcast = if indexed.is_empty() {
            s.to_vec()
        } else {
            broadcast_shapes(&broadcast, s).ok_or_else(|| {
                bad(
                    "indices",
                    format!(
                        "tensor {i}'s shape {s:?} does not broadcast with {broadcast:?} \
                         (the shape of the ones before it)"
                    ),
                )
            })?
        };
        indexed.push(i);
    }
    let adjacent = indexed.windows(2).all(|w| w[1] == w[0] + 1);
    let at = if adjacent {
        indexed.first().copied().unwrap_or(0)
    } else {
        0
    };
    let rest: Vec<usize> = (0..xs.len()).filter(|d| !indexed.contains(d)).collect();
    let mut out_shape: Vec<usize> = rest[..at].iter().map(|&d| xs[d]).collect();
    if !indexed.is_empty() {
        out_shape.extend_from_slice(&broadcast);
    }
    out_shape.extend(rest[at..].iter().map(|&d| xs[d]));
    if out_shape.len() > MAX_RANK {
        return Err(bad(
            "indices",
            format!(
                "the output would have rank {} (at most {MAX_RANK})",
                out_shape.len()
            ),
        ));
    }
    Ok(IndexLayout {
        indexed,
        broadcast,
        at,
        out_shape,
    })
}

/// A BOOL member's row-major bytes (`mask`, of shape `shape`) as the
/// coordinates of its true (non-zero) elements: one list per dim, each of
/// the true count (PyTorch's `nonzero()`, in row-major order).
pub fn mask_coordinates(shape: &[usize], mask: &[u8]) -> Vec<Vec<i64>> {
    let mut cols = vec![Vec::new(); shape.len()];
    for (pos, &b) in row_major(shape).zip(mask) {
        if b != 0 {
            for (c, &p) in cols.iter_mut().zip(&pos) {
                c.push(p as i64);
            }
        }
    }
    cols
}

/// The list with each non-empty BOOL member replaced by the int64 members
/// of its true elements' coordinates (one per dim it covers). A BOOL
/// member that starts at dim `d` (the count of members before it, after
/// expansion) must have rank at least 1 and exactly the shape
/// `self_shape[d..d + rank]` (param `indices`). Returns the expanded list
/// and which of its members index their dim (the non-empty ones, and every
/// member a mask expands to, even with no true element).
pub fn expand_bool_members(
    self_shape: &[usize],
    indices: &[&Tensor],
) -> Result<(Vec<Tensor>, Vec<bool>), RefError> {
    let mut out = Vec::with_capacity(indices.len());
    let mut defined = Vec::with_capacity(indices.len());
    for (i, t) in indices.iter().enumerate() {
        if t.dtype() != DType::Bool || t.numel() == 0 {
            out.push((*t).clone());
            defined.push(t.numel() != 0);
            continue;
        }
        let d = out.len();
        let k = t.rank();
        if k == 0 || d + k > self_shape.len() || t.shape() != &self_shape[d..d + k] {
            let lo = d.min(self_shape.len());
            let hi = (d + k.max(1)).min(self_shape.len());
            return Err(bad(
                "indices",
                format!(
                    "tensor {i} is a bool mask of shape {:?}; it must have the shape of the dims \
                     it covers, {:?}",
                    t.shape(),
                    &self_shape[lo..hi]
                ),
            ));
        }
        for col in mask_coordinates(t.shape(), &t.contiguous_bytes()) {
            out.push(Tensor::from_slice(&[col.len()], &col)?);
            defined.push(true);
        }
    }
    Ok((out, defined))
}

/// The row-major position in a tensor of `shape` of the element that the
/// broadcast position `b` (of a shape of `rank` dims) reads.
fn broadcast_flat(shape: &[usize], b: &[usize]) -> usize {
    let lead = b.len() - shape.len();
    shape.iter().enumerate().fold(0, |acc, (k, &d)| {
        acc * d + if d == 1 { 0 } else { b[lead + k] }
    })
}

/// `out = x[indices]` as a new contiguous tensor of `x`'s dtype and
/// [`index_out_shape`]'s shape. Each non-empty member indexes the dim at
/// its position in the list; its values lie in `[-s, s)` (`s` that dim's
/// extent, 1 for a 0-D `x`), a negative one counting from the end.
///
/// A non-empty BOOL member covers as many dims as its rank and stands for
/// the coordinates of its true elements ([`expand_bool_members`]).
///
/// Checks, in order: the product and `x`'s dtype; each non-empty member's
/// dtype (INT32, INT64 or BOOL: `indices`); `x`'s rank (`self`); a
/// non-empty list, members of rank at most 8; each BOOL member's shape
/// ([`expand_bool_members`]); [`index_out_shape`] on the expanded list;
/// then every value of every non-empty integer member, in list order, each
/// read flat (the first bad one gives `IndexOutOfRange` with its position
/// in its member; checked even when the output is empty).
pub fn index(soc: &str, x: &Tensor, indices: &[&Tensor]) -> Result<Tensor, RefError> {
    check_op_dtype(Op::Index, soc, x.dtype())?;
    for (i, t) in indices.iter().enumerate() {
        if t.numel() == 0 {
            continue;
        }
        match t.dtype() {
            DType::Int32 | DType::Int64 | DType::Bool => {}
            other => {
                return Err(bad(
                    "indices",
                    format!("tensor {i} has dtype {other} (int32, int64 or bool)"),
                ))
            }
        }
    }
    // The shape rules that come before the masks' (index_out_shape checks
    // them again on the expanded list).
    let plain: Vec<&[usize]> = indices.iter().map(|t| t.shape()).collect();
    if x.rank() > MAX_RANK || indices.is_empty() || plain.iter().any(|s| s.len() > MAX_RANK) {
        index_out_shape(x.shape(), &plain)?;
    }
    let (expanded, defined) = expand_bool_members(x.shape(), indices)?;
    let indices: Vec<&Tensor> = expanded.iter().collect();
    let shapes: Vec<&[usize]> = indices.iter().map(|t| t.shape()).collect();
    let layout = index_layout(x.shape(), &shapes, &defined)?;
    let xs: Vec<usize> = if x.rank() == 0 {
        vec![1]
    } else {
        x.shape().to_vec()
    };
    let bytes = output_byte_len(OP, "indices", x.dtype(), &layout.out_shape)?;
    let mut values = Vec::with_capacity(layout.indexed.len());
    for &d in &layout.indexed {
        let v = read_index_tensor(OP, "indices", indices[d])?;
        let s = xs[d];
        let mut norm = Vec::with_capacity(v.len());
        for (position, &value) in v.iter().enumerate() {
            let c = if value < 0 { value + s as i64 } else { value };
            if c < 0 || c as u64 >= s as u64 {
                return Err(RefError::IndexOutOfRange {
                    op: OP,
                    position,
                    value,
                    bound: s,
                });
            }
            norm.push(c as usize);
        }
        values.push(norm);
    }
    let mut out = new_output(OP, "indices", bytes)?;
    let nb = layout.broadcast.len();
    let at = layout.at;
    let rest: Vec<usize> = (0..xs.len())
        .filter(|d| !layout.indexed.contains(d))
        .collect();
    for pos in row_major(&layout.out_shape) {
        // The output position: rest[..at], then the broadcast dims, then
        // rest[at..] (no broadcast dims when nothing is indexed).
        let nb_here = if layout.indexed.is_empty() { 0 } else { nb };
        let b = &pos[at..at + nb_here];
        let mut src = vec![0usize; xs.len()];
        for (k, &d) in rest.iter().enumerate() {
            src[d] = if k < at { pos[k] } else { pos[k + nb_here] };
        }
        for (j, &d) in layout.indexed.iter().enumerate() {
            src[d] = values[j][broadcast_flat(indices[d].shape(), b)];
        }
        let at_src: &[usize] = if x.rank() == 0 { &[] } else { &src };
        out.extend_from_slice(x.element_bytes(at_src));
    }
    Ok(Tensor::from_parts_contiguous(
        x.dtype(),
        layout.out_shape,
        out,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;

    fn i64s(shape: &[usize], v: &[i64]) -> Tensor {
        Tensor::from_slice(shape, v).unwrap()
    }

    #[test]
    fn the_pages_sample() {
        let x =
            Tensor::from_slice(&[3, 4], &(1..=12).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let y = index(A2_SOC, &x, &[&idx64(&[0]), &idx64(&[2])]).unwrap();
        assert_eq!(y.shape(), &[1]);
        assert_eq!(y.to_vec::<f32>().unwrap(), [3.0]);
    }

    #[test]
    fn pytorch_semantics() {
        let x = arange_i32(&[3, 4]);
        // One index: rows.
        let y = index(A2_SOC, &x, &[&idx64(&[2, 0])]).unwrap();
        assert_eq!(
            (y.shape(), ints(&y)),
            (&[2, 4][..], vec![8, 9, 10, 11, 0, 1, 2, 3])
        );
        // Broadcast [2,1] with [3]; negative values.
        let y = index(A2_SOC, &x, &[&i64s(&[2, 1], &[0, -1]), &idx64(&[0, 1, -1])]).unwrap();
        assert_eq!(
            (y.shape(), ints(&y)),
            (&[2, 3][..], vec![0, 1, 3, 8, 9, 11])
        );
        // An empty member leaves its dim whole; adjacency keeps the place.
        let x3 = arange_i32(&[2, 3, 4]);
        let none = i64s(&[0], &[]);
        let y = index(A2_SOC, &x3, &[&none, &idx64(&[2, 0])]).unwrap();
        assert_eq!(y.shape(), &[2, 2, 4]);
        assert_eq!(&ints(&y)[..8], &[8, 9, 10, 11, 0, 1, 2, 3]);
        // Not adjacent: the broadcast dims go first.
        let y = index(A2_SOC, &x3, &[&idx64(&[1, 0]), &none, &idx64(&[3, 0])]).unwrap();
        assert_eq!(
            (y.shape(), ints(&y)),
            (&[2, 3][..], vec![15, 19, 23, 0, 4, 8])
        );
        // A 0-D index drops its dim; a transposed self.
        let y = index(A2_SOC, &transposed_2x3(), &[&Tensor::scalar(1i64)]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2][..], vec![1, 4]));
        // 0-D self: seen as [1].
        let y = index(A2_SOC, &Tensor::scalar(7i32), &[&idx64(&[0, -1, 0])]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[3][..], vec![7, 7, 7]));
        // Nothing indexed: a copy.
        let y = index(A2_SOC, &x, &[&none]).unwrap();
        assert_eq!(ints(&y), ints(&x));
    }

    #[test]
    fn bool_masks() {
        let x = arange_i32(&[2, 3]);
        let m =
            |shape: &[usize], v: &[u8]| Tensor::from_bytes(DType::Bool, shape, v.to_vec()).unwrap();
        // A 2-D mask covers both dims: the selected elements.
        let y = index(A2_SOC, &x, &[&m(&[2, 3], &[1, 0, 1, 0, 0, 1])]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[3][..], vec![0, 2, 5]));
        // A 1-D mask on dim 0 keeps the rows; then an int member on dim 1.
        let y = index(A2_SOC, &x, &[&m(&[2], &[0, 1])]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[1, 3][..], vec![3, 4, 5]));
        let y = index(A2_SOC, &x, &[&m(&[2], &[1, 1]), &idx64(&[2, 0])]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2][..], vec![2, 3]));
        // A mask after an empty member; a mask with no true element.
        let none = i64s(&[0], &[]);
        let y = index(A2_SOC, &x, &[&none, &m(&[3], &[0, 0, 1])]).unwrap();
        assert_eq!((y.shape(), ints(&y)), (&[2, 1][..], vec![2, 5]));
        let y = index(A2_SOC, &x, &[&m(&[2], &[0, 0])]).unwrap();
        assert_eq!(y.shape(), &[0, 3]);
        // A mask past self's dims, a 0-D mask.
        let e = index(A2_SOC, &x, &[&idx64(&[0]), &m(&[3, 1], &[1, 1, 1])]).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
        let e = index(A2_SOC, &x, &[&Tensor::scalar(true)]).unwrap_err();
        assert_eq!(e.param(), Some("indices"));
    }

    #[test]
    fn rules_in_order() {
        let x = arange_i32(&[2, 3]);
        let p = |e: RefError| e.param();
        assert_eq!(
            index(A2_SOC, &zeros(DType::Complex64, &[2]), &[&idx64(&[0])])
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            index("Ascend910A", &zeros(DType::BFloat16, &[2]), &[&idx64(&[0])])
                .unwrap_err()
                .kind(),
            "unsupported_dtype"
        );
        assert_eq!(
            p(index(A2_SOC, &x, &[&zeros(DType::Float32, &[1])]).unwrap_err()),
            Some("indices")
        );
        assert_eq!(
            p(index(A2_SOC, &x, &[&zeros(DType::Bool, &[3])]).unwrap_err()),
            Some("indices")
        );
        assert_eq!(p(index(A2_SOC, &x, &[]).unwrap_err()), Some("indices"));
        let i = idx64(&[0]);
        assert_eq!(
            p(index(A2_SOC, &x, &[&i, &i, &i]).unwrap_err()),
            Some("indices")
        );
        assert_eq!(
            p(index(A2_SOC, &Tensor::scalar(1i32), &[&i, &i]).unwrap_err()),
            Some("indices")
        );
        assert_eq!(
            p(index(A2_SOC, &x, &[&idx64(&[0, 1]), &idx64(&[0, 1, 2])]).unwrap_err()),
            Some("indices")
        );
        let i7 = Tensor::from_slice(&[1, 1, 1, 1, 1, 1, 1, 1], &[0i64]).unwrap();
        assert_eq!(index(A2_SOC, &arange_i32(&[2]), &[&i7]).unwrap().rank(), 8);
        assert_eq!(p(index(A2_SOC, &x, &[&i7]).unwrap_err()), Some("indices"));
        let e = index(A2_SOC, &x, &[&idx64(&[0]), &idx64(&[1, 3])]).unwrap_err();
        assert_eq!(
            e,
            RefError::IndexOutOfRange {
                op: OP,
                position: 1,
                value: 3,
                bound: 3
            }
        );
        assert_eq!(
            index(A2_SOC, &x, &[&idx64(&[-3])]).unwrap_err().kind(),
            "index_out_of_range"
        );
        // Checked even when the output is empty (an extent 0 kept whole).
        let x0 = arange_i32(&[2, 0]);
        assert_eq!(
            index(A2_SOC, &x0, &[&idx64(&[1])]).unwrap().shape(),
            &[1, 0]
        );
        assert_eq!(
            index(A2_SOC, &x0, &[&idx64(&[2])]).unwrap_err().kind(),
            "index_out_of_range"
        );
    }
}
