//! Writes into any view of a stream's device: an element's bytes
//! everywhere (a memset, or one element on the device broadcast by a
//! copy), and a page-locked staging block copied in (straight into a
//! contiguous view, else through a contiguous temporary). Under the
//! public uploads and fills of `transfer`, and sampled slice's FILL.

use super::check_device;
use crate::error::{Error, Result};
use crate::ffi::DevicePtr;
use crate::pinned::Staging;
use crate::stream::Stream;
use crate::tensor::Tensor;

impl Stream {
    /// [`Stream::fill`] with one element's bytes.
    pub(crate) fn fill_bytes(&self, dst: &Tensor, elem: &[u8]) -> Result<()> {
        const OP: &str = "fill";
        self.check_write(OP, dst, dst.numel() * dst.dtype().size())?;
        if dst.numel() == 0 {
            return Ok(());
        }
        let uniform = elem.iter().all(|&b| b == elem[0]);
        if uniform && dst.is_contiguous() {
            let (d, n, v) = (addr(dst), dst.numel() * dst.dtype().size(), elem[0]);
            self.launch_raw(
                // SAFETY: `dst` is a contiguous view of `n` bytes from `d`,
                // inside its storage (a checked layout) on this stream's
                // device; `launch_raw` holds it until the fill has run.
                |api, stream| unsafe { crate::ffi::memset_async(api, d, v, n, stream) },
                &[],
                dst,
                None,
            )?;
            return Ok(());
        }
        // One element on the device, broadcast by the copy.
        let one = Tensor::empty_for(self, OP, "value", dst.dtype(), &[1])?;
        let rt = self.runtime().clone();
        let staging = Staging::with(&rt, elem.len(), |b| b.copy_from_slice(elem))?;
        self.write_staged(OP, &one, staging)?;
        let zeros = [0usize; crate::MAX_RANK];
        let src = one.view_as(OP, dst.shape(), &zeros[..dst.rank()], 0)?;
        self.copy_into(OP, dst, &src)
    }

    /// `dst` is a writable destination of `bytes` bytes on this stream.
    pub(crate) fn check_write(&self, op: &'static str, dst: &Tensor, bytes: usize) -> Result<()> {
        check_device(self, op, "dst", dst)?;
        let need = dst.numel() * dst.dtype().size();
        if bytes != need {
            return Err(Error::invalid(
                op,
                "data",
                format!(
                    "{bytes} bytes for a destination of shape {:?} ({}) that holds {need}",
                    dst.shape(),
                    dst.dtype()
                ),
            ));
        }
        if dst.layout().may_overlap() {
            return Err(Error::invalid(
                op,
                "dst",
                "the destination overlaps itself (two elements share memory)",
            ));
        }
        Ok(())
    }

    /// Copies a staging block into `dst` (checked by `check_write`).
    pub(crate) fn write_staged(
        &self,
        op: &'static str,
        dst: &Tensor,
        staging: Staging,
    ) -> Result<()> {
        let target = self.contiguous_target(op, dst)?;
        let (d, s, n) = (
            addr(&target),
            staging.addr(),
            target.numel() * target.dtype().size(),
        );
        self.launch_raw(
            // SAFETY: `target` is a contiguous view of `n` bytes from `d`,
            // inside its storage (a checked layout) on this stream's device;
            // `staging` is a page-locked block of at least `n` bytes
            // (`check_write` matched its length to `dst`'s bytes), written
            // no more; `launch_raw` holds both until the copy has run.
            |api, stream| unsafe { crate::ffi::memcpy_h2d_async(api, d, s, n, stream) },
            &[],
            &target,
            Some(staging),
        )?;
        self.finish_target(op, dst, &target)
    }

    /// `dst` itself if contiguous, else a contiguous temporary of its shape.
    pub(crate) fn contiguous_target(&self, op: &'static str, dst: &Tensor) -> Result<Tensor> {
        if dst.is_contiguous() {
            Ok(dst.clone())
        } else {
            Tensor::empty_for(self, op, "dst", dst.dtype(), dst.shape())
        }
    }

    /// Copies a temporary from `contiguous_target` into `dst`.
    pub(crate) fn finish_target(
        &self,
        op: &'static str,
        dst: &Tensor,
        target: &Tensor,
    ) -> Result<()> {
        if target.shares_storage(dst) {
            return Ok(());
        }
        self.copy_into(op, dst, target)
    }
}

/// The device address of a tensor's first element.
pub(crate) fn addr(t: &Tensor) -> DevicePtr {
    t.storage.ptr.byte_add(t.offset() * t.dtype().size())
}
