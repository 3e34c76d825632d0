//! Events (`aclrtEvent`): the public [`Event`] a caller records and
//! waits on, and the completion events streams record after their work
//! ([`RawEvent`]). Both hold the runtime, not a stream.

use crate::error::{Error, Result};
use crate::ffi::{self, EventHandle};
use crate::runtime::Runtime;
use std::sync::Arc;

/// An event a stream records after its work (its completion event);
/// destroyed on drop.
pub(crate) struct RawEvent {
    rt: Runtime,
    device: i32,
    /// Created by `create_event` of `rt`; owned (destroyed by the drop).
    raw: EventHandle,
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        self.rt.on_device(self.device, || {
            // SAFETY: this event's own handle, destroyed once; the last
            // `Arc` is gone, so no queued wait holds it (waits keep theirs
            // until they have passed).
            unsafe { ffi::destroy_event(&self.rt.0.api, self.raw) }
        });
    }
}

impl RawEvent {
    /// A new event of `rt` on `device` (bound on the calling thread).
    pub(crate) fn create(rt: &Runtime, device: i32) -> Result<RawEvent> {
        Ok(RawEvent {
            rt: rt.clone(),
            device,
            raw: ffi::create_event(&rt.0.api)?,
        })
    }

    /// Its handle, live while it is.
    pub(crate) fn raw(&self) -> EventHandle {
        self.raw
    }
}

/// An event handle; holds the runtime (not the stream, so a stream that
/// waits on its own event forms no reference cycle).
pub(crate) struct EventInner {
    rt: Runtime,
    device: i32,
    /// Created by `create_event` of `rt`; owned (destroyed by the drop).
    raw: EventHandle,
}

impl Drop for EventInner {
    fn drop(&mut self) {
        self.rt.on_device(self.device, || {
            // SAFETY: this event's own handle, destroyed once; the last
            // `Arc` is gone, so no queued wait holds it (waits keep theirs
            // until they have passed).
            unsafe { ffi::destroy_event(&self.rt.0.api, self.raw) }
        });
    }
}

/// A point in a stream's queue (`aclrtEvent`): other streams can wait for
/// it ([`Stream::wait_event`](crate::Stream::wait_event)) and the host can wait or poll. `Send + Sync`.
///
/// ```
/// # use npu_ops::{Backend, Runtime, Tensor};
/// # let rt = Runtime::new(Backend::Simulator)?;
/// let (a, b) = (rt.stream()?, rt.stream()?);
/// let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4])?;
/// let y = a.slice(&x, 0, 1, 4, 2)?;
/// let done = a.record()?;
/// b.wait_event(&done)?;          // b's later work sees y
/// let z = b.slice(&y, 0, 1, 2, 1)?;
/// done.synchronize()?;
/// assert!(done.is_complete());
/// assert_eq!(z.to_vec::<i32>()?, [4]);
/// # Ok::<(), npu_ops::Error>(())
/// ```
#[derive(Clone)]
pub struct Event {
    pub(crate) inner: Arc<EventInner>,
}

impl Event {
    /// A new event of `rt` on `device` (bound on the calling thread), not
    /// yet recorded.
    pub(crate) fn create(rt: &Runtime, device: i32) -> Result<Event> {
        let raw = ffi::create_event(&rt.0.api)?;
        Ok(Event {
            inner: Arc::new(EventInner {
                rt: rt.clone(),
                device,
                raw,
            }),
        })
    }

    /// Its handle, live while it is.
    pub(crate) fn raw(&self) -> EventHandle {
        self.inner.raw
    }

    /// Blocks the host until the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.rt.bind(self.inner.device)?;
        // SAFETY: `self.inner`'s own event, live while it is.
        unsafe { ffi::synchronize_event(&self.inner.rt.0.api, self.inner.raw) }
    }

    /// Whether the event has completed.
    pub fn is_complete(&self) -> bool {
        // An unbindable device completes nothing: report it complete, so
        // that pollers let go; the next read reports the error.
        self.inner
            .rt
            .on_device(self.inner.device, || {
                // SAFETY: `self.inner`'s own event, live while it is.
                unsafe { ffi::event_complete(&self.inner.rt.0.api, self.inner.raw) }
            })
            .unwrap_or(true)
    }

    /// The device time from this event to `end` (both recorded and
    /// completed; `aclrtEventElapsedTime`).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::zeros(&s, npu_ops::DType::F32, &[1 << 20])?;
    /// let start = s.record()?;
    /// let _y = s.slice(&x, 0, 0, 1 << 20, 2)?;
    /// let end = s.record()?;
    /// end.synchronize()?;
    /// let took = start.elapsed(&end)?;
    /// assert!(took < std::time::Duration::from_secs(60));
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn elapsed(&self, end: &Event) -> Result<std::time::Duration> {
        let mut ms = 0f32;
        self.inner.rt.bind(self.inner.device)?;
        ffi::check(
            &self.inner.rt.0.api,
            "aclrtEventElapsedTime",
            // SAFETY: the two events' own handles, live while they are.
            unsafe {
                ffi::event_elapsed(&self.inner.rt.0.api, &mut ms, self.inner.raw, end.inner.raw)
            },
        )?;
        if !(ms >= 0.0 && ms.is_finite()) {
            return Err(Error::invalid(
                "event",
                "end",
                format!("completed {ms} ms before the start event"),
            ));
        }
        Ok(std::time::Duration::from_secs_f64(f64::from(ms) / 1e3))
    }

    /// Whether `inner` has completed (binding its device on this thread).
    #[cfg(feature = "async")]
    pub(crate) fn poll_complete(inner: &EventInner) -> bool {
        // An unbindable device never completes anything: report complete so
        // the waiter lets go; the caller's next read reports the error.
        // SAFETY: `inner`'s own event, live while it is.
        inner.rt.bind(inner.device).is_err()
            || unsafe { ffi::event_complete(&inner.rt.0.api, inner.raw) }
    }
}
