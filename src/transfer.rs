//! Writing into existing tensors: host to device through page-locked
//! staging, device to device (same or another device), fills. Every write
//! is stream-ordered and asynchronous, like an operator launch: it returns
//! once enqueued, and the destination's readers wait for it.

use crate::dtype::{self, DType, Element};
use crate::error::{Error, Result};
use crate::ffi::DevicePtr;
use crate::ops::check_device;
use crate::pinned::{PinnedBuffer, Staging};
use crate::stream::Stream;
use crate::tensor::Tensor;
use cann_sys::aclrtMemcpyKind as Kind;
use std::sync::Arc;

impl Stream {
    /// Copies `data` (row-major) into `dst`, any view of this stream's
    /// device that does not overlap itself, asynchronously: `data` is
    /// copied once into a pooled page-locked buffer (no per-element
    /// conversion), and the device copy is ordered on this stream. Returns
    /// once enqueued; `data` may be reused at once.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let cache = Tensor::zeros(&s, DType::F32, &[2, 3])?;
    /// s.upload(&cache.narrow(0, 1, 1)?, &[7f32, 8., 9.])?; // row 1 only
    /// assert_eq!(cache.to_vec::<f32>()?, [0., 0., 0., 7., 8., 9.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn upload<T: Element>(&self, dst: &Tensor, data: &[T]) -> Result<()> {
        check_dtype("upload", "dst", dst, T::DTYPE)?;
        self.upload_bytes(dst, dtype::as_bytes(data))
    }

    /// [`Stream::upload`] from raw bytes (row-major, the dtype's
    /// little-endian layout).
    pub fn upload_bytes(&self, dst: &Tensor, bytes: &[u8]) -> Result<()> {
        self.check_write("upload", dst, bytes.len())?;
        if bytes.is_empty() {
            return Ok(());
        }
        let rt = self.runtime().clone();
        self.release_finished();
        let staging = Staging::with(&rt, bytes.len(), |b| b.copy_from_slice(bytes))?;
        self.write_staged("upload", dst, staging)
    }

    /// Copies a page-locked buffer the caller filled into `dst` (as
    /// [`Stream::upload_bytes`], without the host copy). The stream holds
    /// the buffer until the copy has run.
    pub fn upload_pinned(&self, dst: &Tensor, buf: PinnedBuffer) -> Result<()> {
        if !Arc::ptr_eq(&buf.runtime().0, &self.runtime().0) {
            return Err(Error::invalid(
                "upload",
                "buf",
                "the buffer belongs to another runtime",
            ));
        }
        self.check_write("upload", dst, buf.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        self.write_staged("upload", dst, Staging::own(buf))
    }

    /// Copies `src` into `dst` (same dtype and shape; any views; `src` may
    /// be on another device of the same runtime, `dst` must be on this
    /// stream's device and not overlap itself). Ordered on this stream
    /// after its earlier work; `src` written on another device is waited
    /// for first (on the host). Overlapping `dst` and `src` are handled.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let a = Tensor::from_slice(&s, &[2, 2], &[1i64, 2, 3, 4])?;
    /// let b = Tensor::zeros(&s, npu_ops::DType::I64, &[2, 2])?;
    /// s.copy(&b, &a.transpose(0, 1)?)?;
    /// assert_eq!(b.to_vec::<i64>()?, [1, 3, 2, 4]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn copy(&self, dst: &Tensor, src: &Tensor) -> Result<()> {
        const OP: &str = "copy";
        check_dtype(OP, "src", src, dst.dtype())?;
        if src.shape() != dst.shape() {
            return Err(Error::invalid(
                OP,
                "src",
                format!(
                    "shape {:?} differs from dst's {:?}",
                    src.shape(),
                    dst.shape()
                ),
            ));
        }
        self.check_write(OP, dst, dst.numel() * dst.dtype().size())?;
        if !Arc::ptr_eq(&src.runtime().0, &self.runtime().0) {
            return Err(Error::invalid(
                OP,
                "src",
                "the tensor lives on another runtime than the stream",
            ));
        }
        if dst.numel() == 0 {
            return Ok(());
        }
        let bytes = dst.numel() * dst.dtype().size();
        if src.storage_device() != self.device() as i32 {
            // Another device: ready and contiguous there, then one copy.
            let dev = self.runtime().device(src.storage_device() as u32)?;
            let src = if src.is_contiguous() {
                src.clone()
            } else {
                dev.stream()?.contiguous(src)?
            };
            src.wait()?;
            let target = self.contiguous_target(OP, dst)?;
            let (d, s) = (addr(&target), addr(&src));
            // `src` is a read of this launch: held until the copy has run,
            // and later writes to it (on its device) wait for the copy.
            self.launch_raw(
                // SAFETY: `target` and `src` are contiguous views of `bytes`
                // bytes (same shape and dtype) from `d` and `s`, inside their
                // storages (checked layouts), on this stream's device and on
                // `src`'s; `launch_raw` holds both until the copy has run.
                |api, stream| unsafe {
                    crate::ffi::memcpy_d2d_async(
                        api,
                        d,
                        s,
                        bytes,
                        Kind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
                        stream,
                    )
                },
                &[&src],
                &target,
                None,
            )?;
            return self.finish_target(OP, dst, &target);
        }
        check_device(self, OP, "src", src)?;
        let aliased = dst.shares_storage(src) && dst.layout().spans_meet(src.layout());
        if aliased {
            // Read all of src before any of dst is written.
            let tmp = Tensor::empty_for(self, OP, "src", src.dtype(), src.shape())?;
            self.copy_into(OP, &tmp, src)?;
            return self.copy(dst, &tmp);
        }
        if dst.is_contiguous() && src.is_contiguous() {
            let (d, s) = (addr(dst), addr(src));
            self.launch_raw(
                // SAFETY: `dst` and `src` are contiguous views of `bytes`
                // bytes (same shape and dtype) from `d` and `s`, inside their
                // storages (checked layouts) on this stream's device, not
                // overlapping (checked above); `launch_raw` holds both until
                // the copy has run.
                |api, stream| unsafe {
                    crate::ffi::memcpy_d2d_async(
                        api,
                        d,
                        s,
                        bytes,
                        Kind::ACL_MEMCPY_DEVICE_TO_DEVICE,
                        stream,
                    )
                },
                &[src],
                dst,
                None,
            )?;
            return Ok(());
        }
        self.copy_into(OP, dst, src)
    }

    /// Sets every element of `dst` (a view of this stream's device that
    /// does not overlap itself) to `value`, asynchronously.
    pub fn fill<T: Element>(&self, dst: &Tensor, value: T) -> Result<()> {
        check_dtype("fill", "dst", dst, T::DTYPE)?;
        self.fill_bytes(dst, dtype::as_bytes(std::slice::from_ref(&value)))
    }

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
    fn check_write(&self, op: &'static str, dst: &Tensor, bytes: usize) -> Result<()> {
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
    fn write_staged(&self, op: &'static str, dst: &Tensor, staging: Staging) -> Result<()> {
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
    fn contiguous_target(&self, op: &'static str, dst: &Tensor) -> Result<Tensor> {
        if dst.is_contiguous() {
            Ok(dst.clone())
        } else {
            Tensor::empty_for(self, op, "dst", dst.dtype(), dst.shape())
        }
    }

    /// Copies a temporary from `contiguous_target` into `dst`.
    fn finish_target(&self, op: &'static str, dst: &Tensor, target: &Tensor) -> Result<()> {
        if target.shares_storage(dst) {
            return Ok(());
        }
        self.copy_into(op, dst, target)
    }
}

impl Tensor {
    /// A tensor of zeros (filled on the stream, asynchronously).
    pub fn zeros(stream: &Stream, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        let t = Tensor::empty(stream, dtype, shape)?;
        let zero = [0u8; 16];
        stream.fill_bytes(&t, &zero[..dtype.size()])?;
        Ok(t)
    }

    /// A tensor with every element `value` (filled on the stream,
    /// asynchronously).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// # let s = rt.stream()?;
    /// let t = Tensor::full(&s, &[3], half::bf16::from_f32(1.5))?;
    /// assert_eq!(t.to_vec::<half::bf16>()?, [half::bf16::from_f32(1.5); 3]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn full<T: Element>(stream: &Stream, shape: &[usize], value: T) -> Result<Tensor> {
        let t = Tensor::empty(stream, T::DTYPE, shape)?;
        stream.fill(&t, value)?;
        Ok(t)
    }
}

/// The device address of a tensor's first element.
fn addr(t: &Tensor) -> DevicePtr {
    t.storage.ptr.byte_add(t.offset() * t.dtype().size())
}

fn check_dtype(op: &'static str, param: &'static str, t: &Tensor, want: DType) -> Result<()> {
    if t.dtype() != want {
        return Err(Error::invalid(
            op,
            param,
            format!("holds {}, not {want}", t.dtype()),
        ));
    }
    Ok(())
}
