//! AsStrided (ATB `AsStridedOperation`, spec section 3), composed from
//! aclnn primitives: a strided view plus `aclnnInplaceCopy`, or
//! `aclnnIndexSelect` over linear indices when the view overlaps itself
//! (InplaceCopy rejects such sources).

use super::{check_device, check_out, check_product};
use crate::error::{Error, Result};
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::{Tensor, MAX_RANK};

const OP: &str = "as_strided";

/// The spec's rules; returns (size, stride, offset) as `usize`.
pub(crate) fn validate(
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    offset: &[i64],
) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    if size.is_empty() || size.len() > MAX_RANK {
        return Err(Error::invalid(
            OP,
            "size",
            format!("needs 1 to {MAX_RANK} entries, got {}", size.len()),
        ));
    }
    if let Some(v) = size.iter().find(|&&v| v <= 0) {
        return Err(Error::invalid(
            OP,
            "size",
            format!("entries must be > 0, got {v}"),
        ));
    }
    if stride.len() != size.len() {
        return Err(Error::invalid(
            OP,
            "stride",
            format!(
                "needs {} entries (one per size), got {}",
                size.len(),
                stride.len()
            ),
        ));
    }
    if let Some(v) = stride.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(
            OP,
            "stride",
            format!("entries must be >= 0, got {v}"),
        ));
    }
    let &[offset] = offset else {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("needs exactly one entry, got {}", offset.len()),
        ));
    };
    if offset < 0 {
        return Err(Error::invalid(
            OP,
            "offset",
            format!("must be >= 0, got {offset}"),
        ));
    }
    let last: i128 = offset as i128
        + size
            .iter()
            .zip(stride)
            .map(|(&n, &s)| (n as i128 - 1) * s as i128)
            .sum::<i128>();
    if last >= x.numel() as i128 {
        return Err(Error::invalid(
            OP,
            "offset",
            format!(
                "the largest index read, {last}, is not below numel(self) = {}",
                x.numel()
            ),
        ));
    }
    Ok((
        size.iter().map(|&v| v as usize).collect(),
        stride.iter().map(|&v| v as usize).collect(),
        offset as usize,
    ))
}

/// Whether two logical indices of the view may share an element.
pub(crate) fn overlaps(shape: &[usize], strides: &[usize]) -> bool {
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort();
    let mut span: u128 = 0;
    for (s, n) in dims {
        if (s as u128) <= span {
            return true;
        }
        span += (n as u128 - 1) * s as u128;
    }
    false
}

impl Stream {
    /// The materialising AsStrided: a new contiguous tensor with
    /// `out[i] = flat(x)[offset + sum(i_j * stride_j)]`, `flat(x)` being `x`
    /// in logical row-major order. Overlapping windows are allowed.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[3, 3], &[1i64, 2, 3, 4, 5, 6, 7, 8, 9])?;
    /// let y = s.as_strided(&x, &[2, 2], &[2, 3], 2)?;
    /// assert_eq!(y.to_vec::<i64>()?, [3, 6, 5, 8]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn as_strided(
        &self,
        x: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: i64,
    ) -> Result<Tensor> {
        check_product(self, OpKind::AsStrided, x.dtype())?;
        check_device(self, OP, "self", x)?;
        let (sz, _, _) = validate(x, size, stride, &[offset])?;
        let out = Tensor::empty_for(self, OP, "size", x.dtype(), &sz)?;
        self.as_strided_into(x, size, stride, offset, &out)?;
        Ok(out)
    }

    /// [`Stream::as_strided`] into a caller's tensor or view.
    pub fn as_strided_into(
        &self,
        x: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: i64,
        out: &Tensor,
    ) -> Result<()> {
        check_product(self, OpKind::AsStrided, x.dtype())?;
        check_device(self, OP, "self", x)?;
        check_device(self, OP, "out", out)?;
        let (sz, st, off) = validate(x, size, stride, &[offset])?;
        check_out(OP, out, x.dtype(), &sz)?;
        if super::aliases(x, out) {
            let tmp = Tensor::empty(self, x.dtype(), &sz)?;
            self.as_strided_into(x, size, stride, offset, &tmp)?;
            return self.copy_into(out, &tmp);
        }
        // flat(x) is a strided view only of a contiguous x.
        let src = self.contiguous(x)?;
        if !overlaps(&sz, &st) {
            let view = src.with_layout(sz, st, src.offset() + off);
            return self.copy_into(out, &view);
        }
        let gather_ok = self
            .runtime()
            .family()
            .is_none_or(|f| OpKind::IndexSelect.available(f));
        if gather_ok {
            // out = flat(x)[linear indices], then written through out's view.
            let n: usize = sz.iter().product();
            let mut idx = Vec::with_capacity(n);
            let mut pos = vec![0usize; sz.len()];
            for _ in 0..n {
                idx.push((off + pos.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>()) as i64);
                for d in (0..pos.len()).rev() {
                    pos[d] += 1;
                    if pos[d] < sz[d] {
                        break;
                    }
                    pos[d] = 0;
                }
            }
            let flat = src.with_layout(vec![src.numel()], vec![1], src.offset());
            let index = Tensor::from_slice(self, &[n], &idx)?;
            let dense_out = out.is_contiguous();
            let target = if dense_out {
                out.clone()
            } else {
                Tensor::empty(self, x.dtype(), &sz)?
            };
            let target_flat = target.with_layout(vec![n], vec![1], target.offset());
            self.index_select_into(&flat, 0, &index, &target_flat)?;
            if !dense_out {
                self.copy_into(out, &target)?;
            }
            return Ok(());
        }
        // No gather on this product: copy in pieces small enough not to
        // overlap themselves (outer dims one index at a time).
        let k = (0..=sz.len())
            .find(|&k| !overlaps(&sz[k..], &st[k..]))
            .unwrap_or(sz.len());
        let outer: usize = sz[..k].iter().product();
        let mut pos = vec![0usize; k];
        for _ in 0..outer {
            let o_src = off + pos.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>();
            let o_dst = out.offset()
                + pos
                    .iter()
                    .zip(out.strides())
                    .map(|(i, s)| i * s)
                    .sum::<usize>();
            let piece_src =
                src.with_layout(sz[k..].to_vec(), st[k..].to_vec(), src.offset() + o_src);
            let piece_dst = out.with_layout(sz[k..].to_vec(), out.strides()[k..].to_vec(), o_dst);
            self.copy_into(&piece_dst, &piece_src)?;
            for d in (0..k).rev() {
                pos[d] += 1;
                if pos[d] < sz[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
        Ok(())
    }
}
