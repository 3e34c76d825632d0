//! Writing into existing tensors: host to device through page-locked
//! staging, device to device (same or another device), fills. Every write
//! is stream-ordered and asynchronous, like an operator launch: it returns
//! once enqueued, and the destination's readers wait for it.

use crate::dtype::{self, DType, Element};
use crate::error::{Error, Result};
use crate::fault::Write;
use crate::ops::check_device;
use crate::ops::write::addr;
use crate::pinned::{PinnedBuffer, Slot, Staging};
use crate::stream::Stream;
use crate::tensor::Tensor;
use cann_sys::aclrtMemcpyKind as Kind;
use std::sync::{Arc, Mutex};

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

    /// Copies a page-locked buffer the caller filled into `dst` (as
    /// [`Stream::upload_pinned`]) and gives the buffer back for reuse once
    /// the copy has run: [`PinnedCopy::wait`] (or `.await`, feature
    /// `async`) returns it. The host cannot touch the bytes meanwhile: the
    /// buffer is the stream's until then. A reused buffer makes a steady
    /// upload loop allocate no host memory.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, DType, PinnedBuffer};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let t = Tensor::empty(&s, DType::U8, &[4])?;
    /// let mut buf = PinnedBuffer::new(&rt, 4)?;
    /// for step in 0..3u8 {
    ///     buf.as_mut_slice().fill(step);
    ///     buf = s.upload_pinned_lend(&t, buf)?.wait()?; // back once copied
    ///     assert_eq!(t.to_vec::<u8>()?, [step; 4]);
    /// }
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn upload_pinned_lend(&self, dst: &Tensor, buf: PinnedBuffer) -> Result<PinnedCopy> {
        const OP: &str = "upload";
        if !Arc::ptr_eq(&buf.runtime().0, &self.runtime().0) {
            return Err(Error::invalid(
                OP,
                "buf",
                "the buffer belongs to another runtime",
            ));
        }
        self.check_write(OP, dst, buf.len())?;
        let n = buf.len();
        let (staging, slot) = buf.lend();
        let copy = PinnedCopy {
            stream: self.clone(),
            slot,
            seq: None,
            deps: Vec::new(),
            done: false,
            #[cfg(feature = "async")]
            event: None,
        };
        let target = self.contiguous_target(OP, dst)?;
        let (d, h) = (addr(&target), staging.addr());
        let seq = self.launch_raw(
            // SAFETY: `target` is a contiguous view of `n` bytes from `d`,
            // inside its storage (a checked layout) on this stream's device;
            // `staging` is the caller's page-locked block of `n` bytes
            // (`check_write` matched it to `dst`), the stream's alone (lent
            // by value) until the copy has run; `launch_raw` holds both
            // until then.
            |api, stream| unsafe { crate::ffi::memcpy_h2d_async(api, d, h, n, stream) },
            &[],
            &target,
            Some(staging),
        )?;
        self.finish_target(OP, dst, &target)?;
        let mut copy = copy;
        copy.seq = Some(seq);
        Ok(copy)
    }

    /// Copies `src` (any view of this stream's device) into `buf`, a
    /// page-locked buffer of exactly its bytes, ordered on this stream
    /// after the work queued so far (cudarc's `memcpy_dtoh`): returns once
    /// enqueued, without blocking the host. The bytes are readable only
    /// through the returned [`PinnedCopy`]: [`PinnedCopy::wait`] (or
    /// `.await`, feature `async`) gives the buffer back once the copy has
    /// run, or the fault of the work that produced `src` (or of the copy).
    /// Reuse the buffer for the next read: a steady read loop allocates no
    /// host memory.
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor, PinnedBuffer};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4])?;
    /// let y = s.slice(&x, 1, 1, 2, 1)?;             // queued
    /// let pending = s.download_pinned(&y, PinnedBuffer::new(&rt, 8)?)?;
    /// // ... the host is free meanwhile ...
    /// let buf = pending.wait()?;
    /// assert_eq!(buf.as_slice(), [2, 0, 0, 0, 4, 0, 0, 0]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn download_pinned(&self, src: &Tensor, buf: PinnedBuffer) -> Result<PinnedCopy> {
        const OP: &str = "download";
        if !Arc::ptr_eq(&buf.runtime().0, &self.runtime().0) {
            return Err(Error::invalid(
                OP,
                "buf",
                "the buffer belongs to another runtime",
            ));
        }
        check_device(self, OP, "src", src)?;
        let n = src.numel() * src.dtype().size();
        if buf.len() != n {
            return Err(Error::invalid(
                OP,
                "buf",
                format!(
                    "{} bytes for a source of shape {:?} ({}) that holds {n}",
                    buf.len(),
                    src.shape(),
                    src.dtype()
                ),
            ));
        }
        let src = if src.is_contiguous() {
            src.clone()
        } else {
            self.contiguous(src)?
        };
        let (staging, slot) = buf.lend();
        let (d, h) = (addr(&src), staging.addr());
        let record = self.launch_read(
            // SAFETY: `src` is a contiguous view of `n` bytes from `d`,
            // inside its storage (a checked layout) on this stream's device,
            // its writers ordered before the copy (`launch_read`); `staging`
            // is the caller's page-locked block of `n` bytes, the stream's
            // alone (lent by value: nothing reads or writes it) until the
            // copy has run; `launch_read` holds both until then.
            |api, stream| unsafe { crate::ffi::memcpy_d2h_async(api, h, d, n, stream) },
            &src,
            staging,
        );
        match record {
            Ok((seq, deps)) => Ok(PinnedCopy {
                stream: self.clone(),
                slot,
                seq: Some(seq),
                deps,
                done: false,
                #[cfg(feature = "async")]
                event: None,
            }),
            Err(e) => {
                crate::pinned::abandon(&slot);
                Err(e)
            }
        }
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

/// A queued copy between the device and a caller's [`PinnedBuffer`]
/// ([`Stream::download_pinned`], [`Stream::upload_pinned_lend`]): the only
/// way back to the buffer, so its bytes are never seen before the copy has
/// run, nor as `Ok` when the work that produced them faulted. Dropping it
/// drops the buffer once the copy has run. Under the `async` feature it is
/// a [`std::future::Future`] of the same result (works with any executor).
///
/// A request loop with one pair of reused buffers (no host allocation in
/// npu-ops per step):
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor, DType, PinnedBuffer};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// # let s = rt.stream()?;
/// let x = Tensor::empty(&s, DType::F32, &[4])?;
/// let (mut up, mut down) = (PinnedBuffer::new(&rt, 16)?, PinnedBuffer::new(&rt, 8)?);
/// for step in 0..3 {
///     up.as_mut_slice().copy_from_slice(&[step as u8; 16]);
///     let sent = s.upload_pinned_lend(&x, up)?; // queued; the buffer is the stream's
///     let y = s.slice(&x, 0, 0, 4, 2)?;
///     let read = s.download_pinned(&y, down)?; // queued after the slice
///     up = sent.wait()?; // back for the next step
///     down = read.wait()?; // the data, or the fault
///     assert_eq!(down.as_slice(), [step as u8; 8]);
/// }
/// # Ok::<(), npu_ops::Error>(())
/// ```
#[must_use = "the buffer comes back through wait() or .await"]
pub struct PinnedCopy {
    stream: Stream,
    slot: Arc<Mutex<Slot>>,
    /// The copy's launch on `stream` (`None`: not enqueued yet).
    seq: Option<u64>,
    /// Other streams' pending work its source came from.
    deps: Vec<Arc<Write>>,
    /// The outcome was handed out (a future polled after it completed).
    done: bool,
    #[cfg(feature = "async")]
    event: Option<crate::waiter::EventFuture>,
}

impl PinnedCopy {
    /// Waits (blocking the host) until the copy has run; the buffer, or
    /// the fault of the copy or of the work its source came from.
    pub fn wait(mut self) -> Result<PinnedBuffer> {
        self.finish()
    }

    /// Whether the copy has run (so [`PinnedCopy::wait`] returns without
    /// waiting for the device). Never blocks.
    pub fn is_complete(&self) -> bool {
        if self.has_buffer() {
            return true;
        }
        self.stream.release_finished();
        self.has_buffer()
    }

    fn has_buffer(&self) -> bool {
        crate::pinned::is_back(&self.slot)
    }

    fn finish(&mut self) -> Result<PinnedBuffer> {
        assert!(!self.done, "PinnedCopy polled after it completed");
        self.done = true;
        let outcome = match self.seq {
            Some(seq) => self.stream.outcome_of(seq),
            None => Ok(()),
        }
        .and_then(|()| self.deps.iter().try_for_each(|d| d.wait()));
        // The buffer is back once the stream let go of it: the copy has
        // run (even after a fault: skipped work is let go only then).
        let buf = loop {
            if let Some(b) = crate::pinned::take_back(&self.slot) {
                break b;
            }
            self.stream.release_finished();
            if let Some(b) = crate::pinned::take_back(&self.slot) {
                break b;
            }
            // Everything queued so far has run once this returns.
            self.stream.settle()?;
        };
        outcome.map(|()| buf)
    }
}

impl Drop for PinnedCopy {
    fn drop(&mut self) {
        crate::pinned::abandon(&self.slot);
    }
}

impl std::fmt::Debug for PinnedCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedCopy")
            .field("complete", &self.has_buffer())
            .finish()
    }
}

#[cfg(feature = "async")]
impl std::future::Future for PinnedCopy {
    type Output = Result<PinnedBuffer>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<PinnedBuffer>> {
        use std::task::Poll;
        let this = self.get_mut();
        if this.is_complete() {
            return Poll::Ready(this.finish());
        }
        if this.event.is_none() {
            // An event after the copy: the waiter thread polls it.
            match this.stream.record() {
                Ok(ev) => this.event = Some(ev.wait_async()),
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        let ev = this.event.as_mut().expect("set above");
        match std::pin::Pin::new(ev).poll(cx) {
            // The copy has run: `finish` waits for nothing more.
            Poll::Ready(()) => Poll::Ready(this.finish()),
            Poll::Pending => Poll::Pending,
        }
    }
}
