//! Index (`aclnnIndex`, spec section 30): `out = self[indices]`, PyTorch's
//! advanced indexing by a list of integer index tensors (one per leading
//! dim; an empty member leaves its dim whole) and bool masks (read back to
//! the host and replaced by the coordinates of their true elements).

use super::{acl, aliases, check_device, check_out, check_product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ffi::First;
use crate::layout::MAX_RANK;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "index";

/// The shape two shapes broadcast to (aligned at their last dims), if any.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|k| {
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
            match (x, y) {
                (x, y) if x == y => Some(x),
                (1, y) => Some(y),
                (x, 1) => Some(x),
                _ => None,
            }
        })
        .collect()
}

impl Stream {
    /// The rules before `out`'s, in the contract's order; returns the
    /// output shape and the list with each bool mask replaced by the int64
    /// coordinates of its true elements (the mask read back).
    fn index_check(&self, x: &Tensor, indices: &[&Tensor]) -> Result<(Vec<usize>, Vec<Tensor>)> {
        check_product(self, OpKind::Index, x.dtype())?;
        check_device(self, OP, "self", x)?;
        for m in indices {
            check_device(self, OP, "indices", m)?;
        }
        for (i, m) in indices.iter().enumerate() {
            if m.numel() == 0 {
                continue;
            }
            match m.dtype() {
                DType::I32 | DType::I64 | DType::Bool => {}
                d => {
                    return Err(Error::invalid(
                        OP,
                        "indices",
                        format!("tensor {i} has dtype {d} (int32, int64 or bool)"),
                    ))
                }
            }
        }
        if x.rank() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "self",
                format!("rank must be in 0..={MAX_RANK}, got {}", x.rank()),
            ));
        }
        if indices.is_empty() {
            return Err(Error::invalid(
                OP,
                "indices",
                "the list must hold at least one tensor",
            ));
        }
        if let Some((i, m)) = indices
            .iter()
            .enumerate()
            .find(|(_, m)| m.rank() > MAX_RANK)
        {
            return Err(Error::invalid(
                OP,
                "indices",
                format!("tensor {i} has rank {} (at most {MAX_RANK})", m.rank()),
            ));
        }
        let (members, defined) = self.index_expand(x, indices)?;
        let indices: Vec<&Tensor> = members.iter().collect();
        if (x.rank() == 0 && indices.len() != 1) || indices.len() > x.rank().max(1) {
            return Err(Error::invalid(
                OP,
                "indices",
                format!(
                    "{} index tensors for a self of rank {} (at most one per dim; exactly one \
                     for a 0-D self)",
                    indices.len(),
                    x.rank()
                ),
            ));
        }
        let xs: Vec<usize> = if x.rank() == 0 {
            vec![1]
        } else {
            x.shape().to_vec()
        };
        let mut indexed = Vec::new();
        let mut b: Vec<usize> = Vec::new();
        for (i, m) in indices.iter().enumerate() {
            if !defined[i] {
                continue;
            }
            b = if indexed.is_empty() {
                m.shape().to_vec()
            } else {
                broadcast(&b, m.shape()).ok_or_else(|| {
                    Error::invalid(
                        OP,
                        "indices",
                        format!(
                            "tensor {i}'s shape {:?} does not broadcast with {b:?} (the shape \
                             of the ones before it)",
                            m.shape()
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
        let mut shape: Vec<usize> = rest[..at].iter().map(|&d| xs[d]).collect();
        if !indexed.is_empty() {
            shape.extend_from_slice(&b);
        }
        shape.extend(rest[at..].iter().map(|&d| xs[d]));
        if shape.len() > MAX_RANK {
            return Err(Error::invalid(
                OP,
                "indices",
                format!(
                    "the output would have rank {} (at most {MAX_RANK})",
                    shape.len()
                ),
            ));
        }
        Ok((shape, members))
    }

    /// The list with each non-empty bool mask replaced by one int64 member
    /// per dim it covers (the coordinates of its true elements, the mask
    /// read back to the host), and which members index their dim (the
    /// non-empty ones and every member a mask gives). A mask starting at
    /// dim `d` (the members before it, expanded) must have rank at least 1
    /// and the shape of `x`'s dims `d..d + rank`.
    fn index_expand(&self, x: &Tensor, indices: &[&Tensor]) -> Result<(Vec<Tensor>, Vec<bool>)> {
        let mut members = Vec::with_capacity(indices.len());
        let mut defined = Vec::with_capacity(indices.len());
        for (i, m) in indices.iter().enumerate() {
            if m.dtype() != DType::Bool || m.numel() == 0 {
                members.push((*m).clone());
                defined.push(m.numel() != 0);
                continue;
            }
            let (d, k) = (members.len(), m.rank());
            if k == 0 || d + k > x.rank() || m.shape() != &x.shape()[d..d + k] {
                return Err(Error::invalid(
                    OP,
                    "indices",
                    format!(
                        "tensor {i} is a bool mask of shape {:?}; it must have the shape of the \
                         dims it covers (from dim {d} of self's {:?})",
                        m.shape(),
                        x.shape()
                    ),
                ));
            }
            let bytes = m.to_bytes()?;
            let mut cols = vec![Vec::<i64>::new(); k];
            let mut pos = vec![0usize; k];
            for &b in &bytes {
                if b != 0 {
                    for (c, &p) in cols.iter_mut().zip(&pos) {
                        c.push(p as i64);
                    }
                }
                for j in (0..k).rev() {
                    pos[j] += 1;
                    if pos[j] < m.shape()[j] {
                        break;
                    }
                    pos[j] = 0;
                }
            }
            for col in cols {
                members.push(Tensor::from_slice(self, &[col.len()], &col)?);
                defined.push(true);
            }
        }
        Ok((members, defined))
    }

    /// The aclnn call into `out` (of the checked shape): with nothing to
    /// move, the values are still checked on the host.
    fn index_launch(&self, x: &Tensor, indices: &[Tensor], out: &Tensor) -> Result<()> {
        if out.numel() == 0 || x.numel() == 0 {
            for (d, m) in indices.iter().enumerate() {
                if m.numel() == 0 {
                    continue;
                }
                let s = if x.rank() == 0 { 1 } else { x.shape()[d] };
                let v = m.int_values().expect("int32 or int64, checked")?;
                for (p, &c) in v.iter().enumerate() {
                    let w = if c < 0 { c + s as i64 } else { c };
                    if w < 0 || w as u64 >= s as u64 {
                        return Err(Error::IndexOutOfRange {
                            op: OP,
                            position: p,
                            value: c,
                            bound: s,
                            device_code: None,
                        });
                    }
                }
            }
            return Ok(());
        }
        let x = self.unoverlapped(OP, x)?;
        let refs: Vec<&Tensor> = indices.iter().collect();
        let (members, list) = self.acl_list(OP, &refs)?;
        let (ax, ao) = (acl(self, &x)?, acl(self, out)?);
        let mut reads: Vec<&Tensor> = vec![&x];
        reads.extend(members.iter());
        // SAFETY: the descriptors are of `x` and the members (reads) and
        // `out` (the write).
        unsafe { self.launch(First::Index(&ax, &list, &ao), &reads, out) }.map(drop)
    }

    /// PyTorch's advanced indexing `x[indices]`: member `j` of `indices`
    /// (int32 or int64, any shape) indexes dim `j` of `x`; the non-empty
    /// members broadcast together to a shape `B`, and the output is a new
    /// contiguous tensor of `x`'s dtype whose indexed dims are replaced by
    /// `B` (in place when they are adjacent, at the front otherwise). An
    /// empty member leaves its dim whole (PyTorch's `:`); the dims after
    /// the list are kept whole; a negative value counts from the end
    /// (`aclnnIndex`, spec section 30). A value outside `[-s, s)` is
    /// `index_out_of_range` (reported by the device at the next
    /// synchronisation, as [`Stream::index_select`]'s). A bool member is a
    /// mask of the shape of the dims it covers (as many as its rank) and
    /// stands for the coordinates of its true elements (PyTorch): it is
    /// read back to the host (a synchronisation) and passed to aclnn as
    /// int64 members.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 4], &(1..=12).map(|v| v as f32).collect::<Vec<_>>())?;
    /// let rows = Tensor::from_slice(&s, &[1], &[0i64])?;
    /// let cols = Tensor::from_slice(&s, &[1], &[2i64])?;
    /// assert_eq!(s.index(&x, &[&rows, &cols])?.to_vec::<f32>()?, [3.]);
    /// let last = Tensor::from_slice(&s, &[2], &[-1i32, 0])?;
    /// let y = s.index(&x, &[&last])?;
    /// assert_eq!(y.shape(), &[2, 4]);
    /// assert_eq!(y.to_vec::<f32>()?, [9., 10., 11., 12., 1., 2., 3., 4.]);
    /// let mask = Tensor::from_slice(&s, &[3], &[true, false, true])?;
    /// assert_eq!(s.index(&x, &[&mask])?.shape(), &[2, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index(&self, x: &Tensor, indices: &[&Tensor]) -> Result<Tensor> {
        let (shape, members) = self.index_check(x, indices)?;
        let out = Tensor::empty_for(self, OP, "indices", x.dtype(), &shape)?;
        self.index_launch(x, &members, &out)?;
        Ok(out)
    }

    /// [`Stream::index`] into a caller's tensor or view of `x`'s dtype and
    /// the output shape; `out` may share memory with the inputs.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let all = Tensor::from_slice::<i64>(&s, &[0], &[])?; // an empty member: the whole dim
    /// let cols = Tensor::from_slice(&s, &[2], &[2i64, 0])?;
    /// let out = Tensor::zeros(&s, DType::I32, &[2, 2])?;
    /// s.index_into(&x, &[&all, &cols], &out)?;
    /// assert_eq!(out.to_vec::<i32>()?, [3, 1, 6, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn index_into(&self, x: &Tensor, indices: &[&Tensor], out: &Tensor) -> Result<()> {
        let (shape, members) = self.index_check(x, indices)?;
        check_device(self, OP, "out", out)?;
        check_out(OP, out, x.dtype(), &shape)?;
        if out.numel() > 0 && (aliases(x, out) || members.iter().any(|m| aliases(m, out))) {
            let tmp = Tensor::empty_for(self, OP, "out", out.dtype(), &shape)?;
            self.index_launch(x, &members, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        self.index_launch(x, &members, out)
    }
}
