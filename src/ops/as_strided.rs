//! AsStrided (ATB `AsStridedOperation`, spec section 3), composed from
//! aclnn primitives: a strided view plus `aclnnInplaceCopy`, or
//! non-overlapping pieces or a gather over linear indices when the view
//! overlaps itself (InplaceCopy rejects such sources).

use super::{check_device, check_out, check_product};
use crate::error::Result;
use crate::layout::as_strided_params;
use crate::product::OpKind;
use crate::stream::Stream;
use crate::tensor::Tensor;

const OP: &str = "as_strided";

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
        let (sz, _, _) = as_strided_params(x.numel(), size, stride, &[offset])?;
        // The last rule: the output's element count and bytes fit 64 bits
        // and the device (`size [i64::MAX], stride [0]` reads one element,
        // so only this refuses it), named `size` whatever the overflow.
        Tensor::bytes_that_fit(self, OP, "size", x.dtype(), &sz)?;
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
        let (sz, st, off) = as_strided_params(x.numel(), size, stride, &[offset])?;
        check_out(OP, out, x.dtype(), &sz)?;
        if super::aliases(x, out) {
            let tmp = Tensor::empty_for(self, OP, "size", x.dtype(), &sz)?;
            self.as_strided_into(x, size, stride, offset, &tmp)?;
            return self.copy_into(OP, out, &tmp);
        }
        // flat(x) is a strided view only of a contiguous x. The window view
        // may overlap itself: copy_into splits or gathers it (never handing
        // InplaceCopy an overlapping source), within a bounded number of
        // launches on products without IndexSelect.
        if x.is_contiguous() {
            let view = x.view_as(OP, &sz, &st, x.offset() + off)?;
            // Windows that overlap themselves are one aclnnAsStrided launch
            // where the product has it and it is loaded (A2, ops.md §33:
            // measured on the simulator, sliding windows of 1 MiB 1371 ->
            // 23 us, small ones 3.6 -> 2.1 us; windows without overlap
            // gain nothing, so they keep InplaceCopy). §3's rules are
            // stricter than §33's, so every window valid here is valid there.
            if view.layout().may_overlap()
                && check_product(self, OpKind::AsStridedAclnn, x.dtype()).is_ok()
                && self.api().as_strided().is_ok()
            {
                return self.as_strided_aclnn_launch(x, size, stride, offset, out);
            }
            return self.copy_into(OP, out, &view);
        }
        // A non-contiguous x: when the windows read less than all of x (a
        // few elements of a huge broadcast), gather them where they lie
        // rather than materialise x first.
        let n = out.numel();
        if super::gather_ok(self, x.dtype()) && n < x.numel() / 2 {
            // flat index k of x -> its storage offset from x's (row-major
            // unravel); the index depends on both layouts, kept per pair.
            let (xs, xst) = (x.shape(), x.strides());
            let x0 = x.offset();
            let storage_of = move |mut k: usize| -> usize {
                let mut at = x0;
                for d in (0..xs.len()).rev() {
                    at += (k % xs[d]) * xst[d];
                    k /= xs[d];
                }
                at
            };
            let key = super::index_key(super::KEY_STRIDED, &[xs, xst, &sz, &st, &[off, x0]]);
            let units = || crate::layout::offsets(&sz, &st, off).map(storage_of);
            return self.gather_units(OP, out, x, n, 1, 0, &key, units);
        }
        let src = self.materialise(OP, x)?;
        let view = src.view_as(OP, &sz, &st, src.offset() + off)?;
        self.copy_into(OP, out, &view)
    }
}
