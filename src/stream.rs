//! Streams: ordered queues of device work, each with its own workspace
//! cache, the list of buffers its queued work still uses, and its
//! [`Timeline`] (which launches a fault spoiled).

use crate::dtype::{self, DType, Element};
use crate::error::{Error, Result};
use crate::event::{Event, EventInner, RawEvent};
use crate::fault::{push_dep, Fault, StreamSync, Timeline, Write};
use crate::ffi::{self, DevicePtr, ExecutorHandle, First, StreamHandle};
use crate::layout::{self, Layout, MAX_RANK};
use crate::runtime::{Device, Runtime};
use crate::tensor::{Storage, Tensor};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Launches tracked per stream before a new one waits for the oldest:
/// bounds the events and the memory held by queued work (real runtimes
/// bound their task queues too).
const MAX_INFLIGHT: usize = 64;

/// Launches look for finished work to release once this many pieces are in
/// flight (and allocations always do): one query covers them all.
const REAP_AT: usize = 8;

/// Buffers the tail holds before it gets its own completion event.
const TAIL_STORAGES: usize = 8;

/// Host staging buffers the tail holds before it gets its own event (one:
/// so queued copies hold at most [`MAX_INFLIGHT`] of them).
const TAIL_STAGING: usize = 1;

/// Bytes of host staging buffers queued copies may hold on one stream
/// before a new copy waits for the oldest.
const MAX_STAGED: usize = 256 << 20;

/// What queued work holds until it has run: its buffers, and the events
/// it waits on. Kept small (what most launches hold is inline, the rest
/// boxed) since it is moved in and out of the stream's lists at every
/// launch and synchronisation.
#[derive(Default)]
pub(crate) struct Keep {
    /// Held until the work has run (each once).
    storages: SmallVec<[Arc<Storage>; 4]>,
    /// Other streams' completion events this work waits on, held (so they
    /// are not recycled) until the wait has passed.
    _waits: Vec<Arc<RawEvent>>,
    /// Host staging buffers copies read (returned to their pool after).
    _host: SmallVec<[crate::pinned::Staging; 1]>,
    /// Their bytes.
    staged: usize,
    /// What few pieces of work hold (none for a launch or a copy).
    rare: Option<Box<Rare>>,
}

/// The rarely held part of a [`Keep`].
#[derive(Default)]
struct Rare {
    /// Held (never read) until the wait has passed.
    _events: Vec<Arc<EventInner>>,
    /// Anything else the work needs alive until it has run (a replayed
    /// graph's model).
    _held: Vec<Arc<dyn std::any::Any + Send + Sync>>,
    /// Dropped once the work has run: blocks CANN gave back to a
    /// registered allocator before it was enqueued (`crate::device_alloc`).
    _dropped: Vec<Box<dyn Send>>,
}

impl Keep {
    /// Adds what `other` holds.
    fn merge(&mut self, other: Keep) {
        for s in other.storages {
            if !self.storages.iter().any(|k| Arc::ptr_eq(k, &s)) {
                self.storages.push(s);
            }
        }
        // Usually empty: skip the generic `extend` (some 40 instructions
        // each on a launch's path).
        if !other._waits.is_empty() {
            self._waits.extend(other._waits);
        }
        if !other._host.is_empty() {
            self._host.extend(other._host);
        }
        self.staged += other.staged;
        if let Some(o) = other.rare {
            let r = self.rare.get_or_insert_with(Box::default);
            r._events.extend(o._events);
            r._held.extend(o._held);
            r._dropped.extend(o._dropped);
        }
    }

    /// The rarely held part, made on first use.
    fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Whether it alone holds a buffer nobody else does (then releasing
    /// it soon returns memory to the cache).
    fn sole_holder(&self) -> bool {
        self.storages.iter().any(|s| Arc::strong_count(s) == 1)
    }
}

/// Work in flight: the launches it covers (those numbered below
/// `covers`), the event recorded after them, and what the work uses.
///
/// The newest piece (the tail) gets its event only when something needs
/// it ([`Stream::seal`]): a read or a wait on its work, an allocation that
/// could reuse its buffers, or a launch that writes another storage (a read
/// of what the tail wrote must not wait for that launch). A launch writing
/// the storage the tail wrote joins the tail instead: the storage's writer
/// is then the new launch, so no read needs a point between them, and a
/// hot loop writing one output records no event per launch.
struct Inflight {
    covers: u64,
    ev: Option<Arc<RawEvent>>,
    keep: Keep,
    /// The storage the tail's launches write (its address), 0 if none.
    writes: usize,
}

struct State {
    /// The cached workspace (grown on demand, reused by every launch).
    workspace: Option<Arc<Storage>>,
    /// Work in flight, oldest first; only the last may lack its event.
    inflight: VecDeque<Inflight>,
    /// Completed events, for reuse.
    spare: Vec<Arc<RawEvent>>,
    /// Bytes of host staging the work in flight holds.
    staged: usize,
    /// What finished work held, released once the locks are let go (a
    /// buffer's release may run a caller's callback, which may use this
    /// stream).
    dead: Vec<Keep>,
}

pub(crate) struct StreamInner {
    pub(crate) rt: Runtime,
    pub(crate) device: i32,
    /// Live while this lives: created here (`owned`), or adopted under
    /// `Stream::from_raw`'s contract.
    pub(crate) raw: StreamHandle,
    /// Whether this crate created the stream (and destroys it).
    owned: bool,
    /// The launch lock: enqueueing and numbering a launch are one step.
    state: Mutex<State>,
    pub(crate) timeline: Arc<Timeline>,
    /// A stream private to a graph capture or a task group update
    /// (`crate::graph`): its launches are recorded by the runtime, not
    /// run, so none is numbered or tracked; what they use goes here.
    pub(crate) log: Option<Arc<CaptureLog>>,
    /// The context the stream belongs to, if one of this crate's
    /// (`crate::context`): its binding, and the context itself, held so
    /// that it outlives the stream.
    pub(crate) ctx: Option<(crate::binding::Ctx, Arc<dyn std::any::Any + Send + Sync>)>,
    /// What the runtime handed back to a registered allocator, to be
    /// dropped once the stream has passed the work enqueued so far.
    pub(crate) released: Arc<Released>,
    /// The allocator registration (`crate::device_alloc`).
    pub(crate) hook: Mutex<Hook>,
    /// Gather indices kept per view layout (`crate::ops::index_cache`).
    pub(crate) indices: crate::ops::index_cache::IndexCache,
}

/// Things to drop once the stream has passed every piece of work enqueued
/// before they were pushed (a leaf lock: never held while calling the
/// runtime or taking another lock).
#[derive(Default)]
pub(crate) struct Released {
    items: Mutex<Vec<Box<dyn Send>>>,
    any: std::sync::atomic::AtomicBool,
}

impl Released {
    /// Drops `item` once the stream has passed the work enqueued so far.
    pub(crate) fn push(&self, item: Box<dyn Send>) {
        self.items
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(item);
        self.any.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Everything pushed so far.
    fn take(&self) -> Vec<Box<dyn Send>> {
        if !self.any.swap(false, std::sync::atomic::Ordering::AcqRel) {
            return Vec::new();
        }
        std::mem::take(&mut *self.items.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A stream's allocator registration: whether one is registered with the
/// runtime, and every registration made (each kept, with the objects the
/// runtime may call, until the stream goes).
#[derive(Default)]
pub(crate) struct Hook {
    pub(crate) registered: bool,
    pub(crate) keep: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

/// What the launches on a capture stream used: the graph holds it all
/// for as long as it can run.
#[derive(Default)]
pub(crate) struct Recorded {
    /// Tensors the launches read.
    pub(crate) reads: Vec<Tensor>,
    /// Tensors they write.
    pub(crate) writes: Vec<Tensor>,
    /// Workspaces.
    pub(crate) storages: Vec<Arc<Storage>>,
    /// Host staging buffers captured copies read.
    pub(crate) host: Vec<crate::pinned::Staging>,
}

/// The log of a capture stream (see [`StreamInner::log`]).
#[derive(Default)]
pub(crate) struct CaptureLog {
    /// The launches outside task groups (inside one, while it is open).
    pub(crate) rec: Mutex<Recorded>,
    /// Closed task groups: their handle (`aclrtTaskGrp`) and launches.
    pub(crate) groups: Mutex<Vec<(usize, Recorded)>>,
}

impl CaptureLog {
    fn note(
        &self,
        reads: &[&Tensor],
        write: &Tensor,
        ws: Option<Arc<Storage>>,
        host: Option<crate::pinned::Staging>,
    ) {
        let mut r = self.rec.lock().unwrap_or_else(|e| e.into_inner());
        r.reads.extend(reads.iter().map(|t| (*t).clone()));
        r.writes.push(write.clone());
        r.storages.extend(ws);
        r.host.extend(host);
    }
}

/// An ordered queue of device work (`aclrtStream`). Operators enqueue and
/// return at once; [`Stream::synchronize`] waits and reports faults.
/// Buffers used by queued work stay alive until it has run, even if every
/// [`crate::Tensor`] handle is dropped. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Stream(pub(crate) Arc<StreamInner>);

impl Stream {
    pub(crate) fn new(dev: &Device) -> Result<Stream> {
        dev.rt.bind(dev.id)?;
        let raw = ffi::create_stream(&dev.rt.0.api)?;
        Ok(Stream::wrap(dev, raw, true, None))
    }

    /// A stream private to a graph capture or update, whose launches are
    /// recorded in `log` instead of tracked.
    pub(crate) fn new_logging(dev: &Device, log: Arc<CaptureLog>) -> Result<Stream> {
        dev.rt.bind(dev.id)?;
        let raw = ffi::create_stream(&dev.rt.0.api)?;
        Ok(Stream::wrap(dev, raw, true, Some(log)))
    }

    /// Adopts a foreign `aclrtStream` (from torch_npu, ATB, MindIE or any
    /// CANN code in this process) of `device`: npu-ops work is enqueued on
    /// it in order with the other code's work. npu-ops synchronises it
    /// when the last handle goes, and never destroys it.
    ///
    /// # Safety
    /// `raw` is a live stream of `device` created through the same C API as
    /// `device`'s runtime, and outlives every clone of the returned stream.
    pub unsafe fn from_raw(device: &Device, raw: cann_sys::aclrtStream) -> Result<Stream> {
        if raw.is_null() {
            return Err(Error::invalid(
                "stream",
                "raw",
                "null stream (the default stream is not adopted)",
            ));
        }
        Ok(Stream::wrap(
            device,
            StreamHandle::from_raw(raw),
            false,
            None,
        ))
    }

    fn wrap(dev: &Device, raw: StreamHandle, owned: bool, log: Option<Arc<CaptureLog>>) -> Stream {
        Stream::wrap_in(dev, raw, owned, log, None)
    }

    /// Wraps `raw`, a stream of `dev` in `ctx` (`None`: the default
    /// context), created by this crate (`owned`) or adopted.
    pub(crate) fn wrap_in(
        dev: &Device,
        raw: StreamHandle,
        owned: bool,
        log: Option<Arc<CaptureLog>>,
        ctx: Option<(crate::binding::Ctx, Arc<dyn std::any::Any + Send + Sync>)>,
    ) -> Stream {
        let timeline = Timeline::new();
        let inner = Arc::new(StreamInner {
            rt: dev.rt.clone(),
            device: dev.id,
            owned,
            ctx,
            released: Arc::default(),
            hook: Mutex::default(),
            indices: Default::default(),
            raw,
            state: Mutex::new(State {
                workspace: None,
                inflight: VecDeque::with_capacity(MAX_INFLIGHT),
                spare: Vec::new(),
                staged: 0,
                dead: Vec::new(),
            }),
            timeline: timeline.clone(),
            log,
        });
        let weak: std::sync::Weak<StreamInner> = Arc::downgrade(&inner);
        timeline.attach(weak);
        Stream(inner)
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.0.rt
    }

    /// The raw `aclrtStream`, for interoperating with other CANN code (it
    /// stays valid while this stream, or a clone, lives).
    ///
    /// Work other code enqueues on it runs in order with npu-ops's. Reads
    /// of npu-ops's results wait for the work that wrote them, not for
    /// later work: npu-ops marks the end of its work when it hands out the
    /// handle (and, for an adopted stream, [`Stream::from_raw`], after
    /// every launch), so enqueue other code's work after calling this.
    pub fn as_raw(&self) -> cann_sys::aclrtStream {
        if self.bind().is_ok() {
            let mut st = self.state();
            // A failure leaves reads to synchronise the stream: slower,
            // never wrong.
            let _ = self.seal(&mut st);
        }
        self.0.raw.as_raw()
    }

    /// The device index.
    pub fn device(&self) -> u32 {
        self.0.device as u32
    }

    pub(crate) fn api(&self) -> &cann_sys::Api {
        &self.0.rt.0.api
    }

    /// Makes this stream's device and context current on the calling
    /// thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.0.bind()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets go of the launch lock, then releases what finished work held.
    fn unlock(st: std::sync::MutexGuard<'_, State>) {
        thread_local! {
            /// A list swapped with the stream's (no move of what it holds,
            /// and both keep their capacity: no allocation in a loop).
            static SPARE: std::cell::Cell<Vec<Keep>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut st = st;
        if st.dead.is_empty() {
            return;
        }
        // A release callback that uses this stream on this thread finds
        // the spare taken (empty): it then works with a new list, and the
        // capacity of one of them is lost, nothing else.
        let mut dead = SPARE.take();
        std::mem::swap(&mut dead, &mut st.dead);
        drop(st);
        dead.clear();
        SPARE.set(dead);
    }

    /// Waits for all queued work. The first fault of any work since the
    /// last `synchronize` (an out-of-range device index, a memory error) is
    /// returned here, typed, once, whichever thread or tensor read saw it
    /// first; the outputs of that work keep reporting it when read.
    pub fn synchronize(&self) -> Result<()> {
        self.settle()?;
        match self.0.timeline.take_unreported() {
            Some(f) => Err(f.error()),
            None => Ok(()),
        }
    }

    /// Synchronises with the runtime and records the outcome on the
    /// timeline: the one place a fault is taken from the runtime.
    pub(crate) fn settle(&self) -> Result<()> {
        self.settle_within(None)
    }

    /// Like [`Stream::synchronize`], but gives up after `limit` with
    /// [`Error::Runtime`] (`aclrtSynchronizeStreamWithTimeout`,
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`): the work stays queued, and
    /// nothing is known of it yet. A hung kernel then fails the caller's
    /// wait instead of blocking it forever.
    pub fn synchronize_timeout(&self, limit: std::time::Duration) -> Result<()> {
        self.settle_within(Some(limit))?;
        match self.0.timeline.take_unreported() {
            Some(f) => Err(f.error()),
            None => Ok(()),
        }
    }

    fn settle_within(&self, limit: Option<std::time::Duration>) -> Result<()> {
        self.bind()?;
        let tl = &self.0.timeline;
        let one_at_a_time = tl.sync_lock();
        let (before, released) = {
            let _launches = self.state();
            // Given back before the synchronisation: their work is done
            // after it.
            (tl.next(), self.0.released.take())
        };
        let code = match limit {
            // SAFETY: this stream's handle, live while `self` is.
            None => unsafe { ffi::synchronize_stream(self.api(), self.0.raw) },
            Some(l) => {
                let ms = i32::try_from(l.as_millis().max(1)).unwrap_or(i32::MAX);
                // SAFETY: as above.
                let code = unsafe { ffi::synchronize_stream_within(self.api(), self.0.raw, ms) };
                if code == cann_sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT {
                    return Err(Error::Runtime {
                        api: "aclrtSynchronizeStreamWithTimeout",
                        code,
                        message: ffi::last_error(self.api()),
                    });
                }
                code
            }
        };
        let fault = (code != 0).then(|| Fault {
            api: "aclrtSynchronizeStream",
            code,
            message: ffi::last_error(self.api()),
        });
        let mut st = self.state();
        if fault.is_some() {
            // The fault first: every launch not yet verified, up to now, is
            // spoiled. An event recorded after this synchronisation took
            // the runtime's fault completes clean, yet the launches before
            // it may have been skipped: it must never vouch for them, so no
            // event's outcome is recorded before the fault is.
            tl.settle(before, tl.next(), fault);
        } else {
            // The events' outcomes first: another owner of an adopted
            // stream may have taken the stream's own report of a fault,
            // which events recorded before it still carry.
            self.reap(&mut st, true, 0);
            tl.settle(before, tl.next(), None);
        }
        // Release what finished (everything below `before`); work another
        // thread queued meanwhile keeps its buffers.
        self.reap(&mut st, false, before);
        drop(one_at_a_time);
        Stream::unlock(st);
        drop(released);
        Ok(())
    }

    /// Resolves launch `seq` by waiting for the event recorded after it,
    /// not for later work queued on the stream; falls back to
    /// [`Stream::settle`] when that event is gone (its work finished and
    /// was released before its outcome could be recorded).
    ///
    /// An event synchronisation reports a fault of the work before its
    /// record (the simulator does, as CUDA does; the stream's fault stays
    /// for `aclrtSynchronizeStream`), so its outcome is as good as a
    /// stream synchronisation's for the launches it covers.
    pub(crate) fn settle_through(&self, seq: u64) -> Result<()> {
        self.bind()?;
        let tl = &self.0.timeline;
        let found = {
            let _sync = tl.sync_lock();
            if !matches!(tl.status(seq), crate::fault::Status::Pending) {
                return Ok(());
            }
            let mut st = self.state();
            self.event_after(&mut st, seq)
        };
        let Some((covers, ev)) = found else {
            return self.settle();
        };
        // Wait without the sync lock (other readers are not held up), then
        // record the outcome under it.
        // SAFETY: `ev` is held (its `Arc`), so its event is live.
        let code = unsafe { ffi::synchronize_event_code(self.api(), ev.raw()) };
        let _sync = tl.sync_lock();
        // Re-read under the lock: a stream synchronisation may have taken
        // (and cleared) a fault meanwhile; the event's outcome still holds
        // for what it covers, and a fault it reports is the same fault.
        tl.settle_event(
            covers,
            (code != 0).then(|| self.fault("aclrtSynchronizeEvent", code)),
        );
        Ok(())
    }

    fn fault(&self, api: &'static str, code: i32) -> Fault {
        Fault {
            api,
            code,
            message: ffi::last_error(self.api()),
        }
    }

    /// Makes later work on `self` wait for all work queued on `other` so
    /// far (without blocking the host).
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        self.wait_event(&other.record()?)
    }

    /// Records an event after the work queued so far.
    pub fn record(&self) -> Result<Event> {
        self.bind()?;
        let ev = Event::create(&self.0.rt, self.0.device)?;
        // SAFETY: the event just created (owned by `ev`, held here) and this
        // stream's handle, live while `self` is.
        unsafe { ffi::record_event(self.api(), ev.raw(), self.0.raw) }?;
        Ok(ev)
    }

    /// Runs `f` on a host thread when the stream reaches this point
    /// (CANN's `aclrtLaunchHostFunc`): work enqueued on the stream later
    /// waits until `f` has returned. Returns at once.
    ///
    /// `f` is boxed and freed exactly once: after it has run, or at once if
    /// the launch fails. It runs even if earlier work on the stream faulted
    /// (as CANN's host tasks do under its default failure mode); streams of
    /// this crate are only destroyed after their work has run, so `f` is
    /// never lost with its stream. Only a stream's owner force-destroying
    /// an adopted stream ([`Stream::from_raw`]) before `f` runs can discard
    /// it, and then `f` is leaked, never run or freed twice. As CANN
    /// requires of host functions, `f` must not call into CANN or npu-ops
    /// (synchronising this stream from `f` would wait for `f` itself); a
    /// panic in `f` is caught and dropped.
    ///
    /// ```
    /// # fn main() -> npu_ops::Result<()> {
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use std::sync::Arc;
    /// let rt = npu_ops::Runtime::new(npu_ops::Backend::Simulator)?;
    /// let stream = rt.stream()?;
    /// let ran = Arc::new(AtomicBool::new(false));
    /// let flag = ran.clone();
    /// stream.launch_host_fn(move || flag.store(true, Ordering::SeqCst))?;
    /// stream.synchronize()?;
    /// assert!(ran.load(Ordering::SeqCst));
    /// # Ok(()) }
    /// ```
    pub fn launch_host_fn(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        type HostFn = Box<dyn FnOnce() + Send + 'static>;
        extern "C" fn trampoline(arg: *mut std::ffi::c_void) {
            // SAFETY: `arg` is the pointer `Box::into_raw` made below, handed
            // to the runtime once, which calls this once with it.
            let f = unsafe { Box::from_raw(arg.cast::<HostFn>()) };
            // A panic must not unwind into the runtime's thread.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        }
        let Some(launch) = self.api().aclrtLaunchHostFunc else {
            return Err(Error::Unavailable {
                what: "Stream::launch_host_fn",
                reason: "this CANN's runtime library has no aclrtLaunchHostFunc".into(),
            });
        };
        self.bind()?;
        let arg = Box::into_raw(Box::new(Box::new(f) as HostFn));
        let st = self.state();
        // SAFETY: this stream's live handle; `trampoline` takes `arg`
        // (a leaked box) exactly once when the stream reaches it.
        let code = unsafe { launch(self.0.raw.as_raw(), Some(trampoline), arg.cast()) };
        Stream::unlock(st);
        if code != 0 {
            // SAFETY: the launch failed, so the runtime did not take `arg`:
            // this is its only owner.
            drop(unsafe { Box::from_raw(arg) });
        }
        ffi::check(self.api(), "aclrtLaunchHostFunc", code)
    }

    /// Makes later work on this stream wait until `event` has completed.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.bind()?;
        let mut st = self.state();
        let r = self.admit(&mut st, 0, 0).and_then(|()| {
            // SAFETY: this stream's handle, live while `self` is; `event`'s
            // handle, live while its `EventInner` is, which the wait holds
            // until it has passed (tracked below).
            unsafe { ffi::stream_wait_event(self.api(), self.0.raw, event.raw()) }
        });
        if r.is_ok() {
            // The event must outlive the wait: it is released with the wait.
            let mut keep = Keep::default();
            keep.rare()._events.push(event.inner.clone());
            self.track(&mut st, keep, 0);
        }
        Stream::unlock(st);
        r
    }

    /// Releases what finished work held: the pieces whose events have
    /// completed, and those covering only launches below `synced` (a
    /// stream synchronisation finished them). With `record` (the caller
    /// holds the timeline's sync lock), the outcome is recorded on the
    /// timeline first, so a later read of their outputs need not
    /// synchronise the stream. One query and one event synchronisation
    /// cover every finished piece (work completes in stream order).
    fn reap(&self, st: &mut State, record: bool, synced: u64) {
        let complete = |p: &Inflight| {
            p.covers <= synced
                || p.ev.as_ref().is_some_and(|ev| {
                    // SAFETY: the piece holds `ev`, so its event is live.
                    unsafe { ffi::event_complete(self.api(), ev.raw()) }
                })
        };
        // Usually everything sealed is done: one query of the newest says
        // so. Else count from the oldest.
        let newest = (0..st.inflight.len())
            .rev()
            .find(|&i| st.inflight[i].ev.is_some() || st.inflight[i].covers <= synced);
        let done = match newest {
            None => 0,
            Some(j) if complete(&st.inflight[j]) => j + 1,
            Some(j) => st
                .inflight
                .iter()
                .take(j)
                .take_while(|p| complete(p))
                .count(),
        };
        if done == 0 {
            return;
        }
        if record {
            // On a stream of this crate's own, only its synchronisations
            // take the stream's fault, so the newest event's outcome holds
            // for all before it; on an adopted stream another owner may
            // have taken it in between, so each event is asked.
            let first = if self.0.owned { done - 1 } else { 0 };
            for p in st.inflight.range(first..done) {
                if p.covers <= synced {
                    continue;
                }
                let ev = p.ev.as_ref().expect("complete pieces have events");
                // Complete: returns at once, with the fault of the work
                // before the record if there was one.
                // SAFETY: the piece holds `ev`, so its event is live.
                let code = unsafe { ffi::synchronize_event_code(self.api(), ev.raw()) };
                self.0.timeline.settle_event(
                    p.covers,
                    (code != 0).then(|| self.fault("aclrtSynchronizeEvent", code)),
                );
            }
        }
        for _ in 0..done {
            let p = st.inflight.pop_front().expect("counted");
            if let Some(ev) = p.ev {
                self.recycle(st, ev);
            }
            st.staged -= p.keep.staged;
            st.dead.push(p.keep);
        }
    }

    /// Releases what finished work on this stream held (so its buffers are
    /// back in the allocator's cache before a new allocation looks there):
    /// the tail gets its event first if it alone holds a buffer.
    pub(crate) fn release_finished(&self) {
        // Only with the outcome recorded (else a later read of that work
        // would have to synchronise the whole stream).
        let Some(sync) = self.0.timeline.try_sync_lock() else {
            return;
        };
        let mut st = self.state();
        if st
            .inflight
            .back()
            .is_some_and(|t| t.ev.is_none() && t.keep.sole_holder())
        {
            let _ = self.seal(&mut st);
        }
        self.reap(&mut st, true, 0);
        drop(sync);
        Stream::unlock(st);
    }

    /// Keeps a finished event for reuse, unless a reader still waits on it.
    fn recycle(&self, st: &mut State, ev: Arc<RawEvent>) {
        if Arc::strong_count(&ev) == 1 {
            st.spare.push(ev);
        }
    }

    /// Records the tail's completion event now (after everything queued so
    /// far, which is the tail's work: call under the launch lock).
    fn seal(&self, st: &mut State) -> Result<()> {
        let Some(tail) = st.inflight.back() else {
            return Ok(());
        };
        if tail.ev.is_some() {
            return Ok(());
        }
        let ev = match st.spare.pop() {
            Some(e) => e,
            None => Arc::new(RawEvent::create(&self.0.rt, self.0.device)?),
        };
        // SAFETY: `ev` is held here (its event live), and this stream's
        // handle is live while `self` is.
        if let Err(e) = unsafe { ffi::record_event(self.api(), ev.raw(), self.0.raw) } {
            st.spare.push(ev);
            return Err(e);
        }
        st.inflight.back_mut().expect("checked").ev = Some(ev);
        Ok(())
    }

    /// Before work that writes the storage at `writes` (0: writes none)
    /// and holds `staged` bytes of host staging is enqueued (under the
    /// launch lock): releases finished work now and then, bounds the work
    /// (and staging) in flight, and seals the tail unless the new work
    /// joins it.
    fn admit(&self, st: &mut State, writes: usize, staged: usize) -> Result<()> {
        let over = |st: &State| {
            st.inflight.len() >= MAX_INFLIGHT
                || (staged > 0 && st.staged > 0 && st.staged + staged > MAX_STAGED)
        };
        if st.inflight.len() >= REAP_AT || over(st) {
            // Lock order: sync, then launch; only tried, so never blocks.
            let sync = self.0.timeline.try_sync_lock();
            if sync.is_some() {
                self.reap(st, true, 0);
            }
            while over(st) {
                self.seal(st)?;
                let oldest = st.inflight.pop_front().expect("non-empty");
                let ev = oldest.ev.expect("sealed");
                // SAFETY: `ev` is held here, so its event is live.
                let code = unsafe { ffi::synchronize_event_code(self.api(), ev.raw()) };
                if sync.is_some() {
                    self.0.timeline.settle_event(
                        oldest.covers,
                        (code != 0).then(|| self.fault("aclrtSynchronizeEvent", code)),
                    );
                }
                // Else a fault is recorded by the next synchronisation.
                self.recycle(st, ev);
                st.staged -= oldest.keep.staged;
                st.dead.push(oldest.keep);
            }
        }
        if let Some(tail) = st.inflight.back() {
            let joins = tail.ev.is_none()
                && (writes == 0 || tail.writes == 0 || tail.writes == writes)
                && tail.keep.storages.len() < TAIL_STORAGES
                && (staged == 0 || tail.keep._host.len() < TAIL_STAGING);
            if !joins {
                self.seal(st)?;
            }
        }
        Ok(())
    }

    /// After work was enqueued (under the launch lock, after
    /// [`Stream::admit`]): holds `keep` until it has run, in the tail.
    fn track(&self, st: &mut State, keep: Keep, writes: usize) {
        self.track_lazily(st, keep, writes);
        if !self.0.owned {
            // Other code enqueues on an adopted stream at any time: mark the
            // end of this work now (a failure leaves reads to synchronise).
            let _ = self.seal(st);
        }
    }

    fn track_lazily(&self, st: &mut State, mut keep: Keep, writes: usize) {
        // Blocks given back before this work was enqueued go when it has
        // run (an event recorded after it covers what used them).
        let released = self.0.released.take();
        if !released.is_empty() {
            keep.rare()._dropped.extend(released);
        }
        let covers = self.0.timeline.next();
        st.staged += keep.staged;
        match st.inflight.back_mut() {
            Some(tail) if tail.ev.is_none() => {
                tail.covers = covers;
                if writes != 0 {
                    tail.writes = writes;
                }
                tail.keep.merge(keep);
            }
            _ => st.inflight.push_back(Inflight {
                covers,
                ev: None,
                keep,
                writes,
            }),
        }
    }

    /// The event after launch `seq` while it is in flight (the tail is
    /// sealed for it), with what it covers; `None` if it has finished and
    /// been released, or no event can be recorded (then the caller
    /// synchronises the stream). Call under the launch lock.
    fn event_after(&self, st: &mut State, seq: u64) -> Option<(u64, Arc<RawEvent>)> {
        let i = st.inflight.iter().position(|p| p.covers > seq)?;
        if st.inflight[i].ev.is_none() {
            self.seal(st).ok()?;
        }
        let p = &st.inflight[i];
        Some((p.covers, p.ev.clone().expect("sealed")))
    }

    /// A workspace of at least `bytes`, from the cache (grown if needed).
    fn workspace(&self, st: &mut State, bytes: u64) -> Result<Option<Arc<Storage>>> {
        if bytes == 0 {
            return Ok(None);
        }
        match &st.workspace {
            Some(w) if w.bytes as u64 >= bytes => Ok(Some(w.clone())),
            _ => {
                // Work already queued keeps the old buffer alive.
                let want = usize::try_from(bytes).map_err(|_| Error::OutOfMemory {
                    bytes: usize::MAX,
                    message: format!("a workspace of {bytes} bytes"),
                })?;
                // Grow geometrically (x1.5) so a slowly rising need does
                // not reallocate each time, but never past twice the need
                // (a 600 MB need must not ask for 1 GiB).
                let old = st.workspace.as_ref().map_or(0, |w| w.bytes);
                let grown = want
                    .max(old.saturating_add(old / 2).min(want.saturating_mul(2)))
                    .max(64 << 10)
                    .checked_next_multiple_of(64 << 10)
                    .unwrap_or(want);
                let w = Arc::new(Storage::alloc(&self.0.rt, self.0.device, grown)?);
                st.workspace = Some(w.clone());
                Ok(Some(w))
            }
        }
    }

    /// Runs both phases of one operator call that reads `reads` and writes
    /// `write`, and records what it uses; returns the launch's sequence
    /// number on this stream.
    ///
    /// # Safety
    /// Every tensor descriptor of `first` describes (through `acl`
    /// or `acl_of`) a tensor of `reads` or `write` (whose
    /// storage the launch holds until it has run); its other arguments hold
    /// no address.
    pub(crate) unsafe fn launch(
        &self,
        first: First<'_>,
        reads: &[&Tensor],
        write: &Tensor,
    ) -> Result<u64> {
        self.bind()?;
        let (planned, run) = first.plan(self.api())?;
        // SAFETY: a fresh one-shot executor of `run`'s operator, planned
        // from `first`, whose descriptors are of `reads` and `write` (the
        // caller's contract).
        unsafe {
            self.run_planned(
                first.names().1,
                run,
                planned.workspace,
                planned.executor,
                true,
                reads,
                write,
            )
        }
    }

    /// The second phase of a planned call that reads `reads` and writes
    /// `write`; a `one_shot` executor is released if it cannot be run, a
    /// repeatable one stays its owner's.
    ///
    /// Inputs whose producing work is known to have faulted fail the call
    /// with that fault (nothing is enqueued); inputs still pending on
    /// another stream are remembered, so their fault reaches `write`.
    ///
    /// # Safety
    /// `executor` is a live executor of `run`'s operator, from a first
    /// phase of this stream's runtime: `one_shot` and never run, or
    /// repeatable, run on this stream only, and kept alive by the caller
    /// until this work has run; every device address its descriptors hold
    /// (as planned or rebound) is the storage of a tensor of `reads` or
    /// `write`, that holds the descriptor's whole view.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn run_planned(
        &self,
        name: &'static str,
        run: cann_sys::fns::OpRun,
        ws_bytes: u64,
        executor: ExecutorHandle,
        one_shot: bool,
        reads: &[&Tensor],
        write: &Tensor,
    ) -> Result<u64> {
        let release = |e: Error| {
            if one_shot {
                // Never run: release it, or it would leak.
                // SAFETY: a one-shot executor never run (the caller's
                // contract), destroyed once (the call fails after this).
                unsafe { ffi::destroy_executor(self.api(), executor) };
            }
            e
        };
        if let Some(log) = &self.0.log {
            // Recorded by the runtime, not run: nothing to order or track
            // now (the graph's replay is); the graph holds the buffers.
            let ws = {
                let mut st = self.state();
                self.workspace(&mut st, ws_bytes).map_err(release)?
            };
            let ws_ptr = ws.as_ref().map_or(ffi::DevicePtr::NULL, |w| w.ptr);
            // SAFETY: as below; the graph holds every storage the launch
            // uses (`log`) for as long as it can run.
            unsafe {
                ffi::run(
                    self.api(),
                    name,
                    run,
                    ws_ptr,
                    ws_bytes,
                    executor,
                    self.0.raw,
                )
            }?;
            log.note(reads, write, ws, None);
            return Ok(0);
        }
        let waits = self.cross_stream_waits(reads, write);
        let mut st = self.state();
        let deps = match self.read_deps(reads) {
            Ok(d) => d,
            Err(f) => return Err(release(f.error())),
        };
        let ws = self.workspace(&mut st, ws_bytes).map_err(release)?;
        self.admit(&mut st, Arc::as_ptr(&write.storage) as usize, 0)
            .map_err(release)?;
        self.enqueue_waits(&waits.events).map_err(release)?;
        let ws_ptr = ws.as_ref().map_or(ffi::DevicePtr::NULL, |w| w.ptr);
        // SAFETY: the executor and its addresses: the caller's contract
        // (the storages of `reads` and `write` are held by `enqueued` until
        // the work has run); the workspace is `ws`, a storage of at least
        // `ws_bytes` bytes (none for 0), held alike; this stream's handle
        // is live while `self` is.
        unsafe {
            ffi::run(
                self.api(),
                name,
                run,
                ws_ptr,
                ws_bytes,
                executor,
                self.0.raw,
            )
        }?;
        self.enqueued(st, deps, reads, write, ws, None, waits)
    }

    /// The bookkeeping after work that reads `reads` and writes `write`
    /// was enqueued (under the launch lock `st`): numbers it, makes it
    /// `write`'s last writer, and holds its buffers (and `host`, a staging
    /// buffer) until it has run.
    #[allow(clippy::too_many_arguments)]
    fn enqueued(
        &self,
        mut st: std::sync::MutexGuard<'_, State>,
        deps: Vec<Arc<Write>>,
        reads: &[&Tensor],
        write: &Tensor,
        ws: Option<Arc<Storage>>,
        host: Option<crate::pinned::Staging>,
        waits: Waits,
    ) -> Result<u64> {
        let seq = self.0.timeline.advance();
        self.set_written(seq, seq, deps, write, &waits.ordered);
        for t in reads {
            if !t.shares_storage(write) {
                t.storage.note_read(&self.0.timeline, seq);
            }
        }
        // What the tail holds already (the work joins it: `admit` left it
        // unsealed) is not taken again.
        let tail = st
            .inflight
            .back()
            .filter(|t| t.ev.is_none())
            .map(|t| &t.keep.storages);
        let held = |s: &Arc<Storage>| tail.is_some_and(|k| k.iter().any(|h| Arc::ptr_eq(h, s)));
        let mut storages: SmallVec<[Arc<Storage>; 4]> = SmallVec::new();
        for t in reads.iter().chain([&write]) {
            if !held(&t.storage) && !storages.iter().any(|s| Arc::ptr_eq(s, &t.storage)) {
                storages.push(t.storage.clone());
            }
        }
        if let Some(w) = ws.filter(|w| !held(w)) {
            storages.push(w);
        }
        let staged = host.as_ref().map_or(0, crate::pinned::Staging::bytes);
        let mut staging = SmallVec::new();
        if let Some(h) = host {
            staging.push(h);
        }
        let keep = Keep {
            storages,
            _waits: waits.events,
            staged,
            _host: staging,
            rare: None,
        };
        self.track(&mut st, keep, Arc::as_ptr(&write.storage) as usize);
        Stream::unlock(st);
        Ok(seq)
    }

    /// Enqueues a runtime copy or fill (`enqueue(stream)` makes the one C
    /// call) that reads `reads` and writes `write`, with the same ordering,
    /// fault and lifetime rules as an operator launch; `host` (a staging
    /// buffer the copy reads) is held until it has run.
    ///
    /// `enqueue` gets this stream's live handle; the storages of `reads`
    /// and `write`, and `host`, are held until the work it enqueues has
    /// run (what the `unsafe` copies in it rely on).
    pub(crate) fn launch_raw(
        &self,
        enqueue: impl FnOnce(&cann_sys::Api, StreamHandle) -> Result<()>,
        reads: &[&Tensor],
        write: &Tensor,
        host: Option<crate::pinned::Staging>,
    ) -> Result<u64> {
        self.bind()?;
        if let Some(log) = &self.0.log {
            enqueue(self.api(), self.0.raw)?;
            log.note(reads, write, None, host);
            return Ok(0);
        }
        let waits = self.cross_stream_waits(reads, write);
        let mut st = self.state();
        let deps = self.read_deps(reads).map_err(|f| f.error())?;
        let staged = host.as_ref().map_or(0, crate::pinned::Staging::bytes);
        self.admit(&mut st, Arc::as_ptr(&write.storage) as usize, staged)?;
        self.enqueue_waits(&waits.events)?;
        enqueue(self.api(), self.0.raw)?;
        self.enqueued(st, deps, reads, write, None, host, waits)
    }
}

impl Stream {
    /// Enqueues one replay of a graph (`enqueue` makes the one C call) that
    /// reads `reads` and writes `writes`: ordered after their pending
    /// writers (and the writes after their pending readers) on other
    /// streams, numbered as one launch that is the last writer of every
    /// tensor of `writes`; `storages` and `held` (the graph) are held until
    /// it has run.
    pub(crate) fn launch_graph(
        &self,
        enqueue: impl FnOnce(&cann_sys::Api, StreamHandle) -> Result<()>,
        reads: &[&Tensor],
        writes: &[&Tensor],
        storages: &[Arc<Storage>],
        held: Arc<dyn std::any::Any + Send + Sync>,
    ) -> Result<u64> {
        self.bind()?;
        let mut waits = Waits::default();
        for t in reads.iter().chain(writes) {
            let w = self.cross_stream_waits(&[], t);
            waits.events.extend(w.events);
            waits.ordered.extend(w.ordered);
        }
        let mut st = self.state();
        let deps = self.read_deps(reads).map_err(|f| f.error())?;
        self.admit(&mut st, 0, 0)?;
        self.enqueue_waits(&waits.events)?;
        enqueue(self.api(), self.0.raw)?;
        let seq = self.0.timeline.advance();
        for w in writes {
            self.set_written(seq, seq, deps.clone(), w, &waits.ordered);
        }
        for t in reads {
            if !writes.iter().any(|w| t.shares_storage(w)) {
                t.storage.note_read(&self.0.timeline, seq);
            }
        }
        let mut kept: SmallVec<[Arc<Storage>; 4]> = SmallVec::new();
        for s in reads
            .iter()
            .chain(writes)
            .map(|t| &t.storage)
            .chain(storages)
        {
            if !kept.iter().any(|k| Arc::ptr_eq(k, s)) {
                kept.push(s.clone());
            }
        }
        let keep = Keep {
            storages: kept,
            _waits: waits.events,
            rare: Some(Box::new(Rare {
                _held: vec![held],
                ..Rare::default()
            })),
            ..Keep::default()
        };
        self.track(&mut st, keep, 0);
        Stream::unlock(st);
        Ok(seq)
    }
}

impl Stream {
    /// Enqueues a runtime copy that reads `src` (and writes only the host
    /// block `host`, held until it has run), with an operator's ordering
    /// and fault rules for its input: a known fault of `src` is the error
    /// now; pending writers on other streams are waited for on the device.
    /// Returns the copy's launch number and the records of other streams'
    /// pending work `src`'s data came from: their faults are the read's.
    ///
    /// `enqueue` gets this stream's live handle; `src`'s storage and
    /// `host` are held until the work it enqueues has run (what the
    /// `unsafe` copy in it relies on).
    pub(crate) fn launch_read(
        &self,
        enqueue: impl FnOnce(&cann_sys::Api, StreamHandle) -> Result<()>,
        src: &Tensor,
        host: crate::pinned::Staging,
    ) -> Result<(u64, Vec<Arc<Write>>)> {
        self.bind()?;
        if self.0.log.is_some() {
            return Err(Error::invalid(
                "capture",
                "stream",
                "a read to the host cannot be captured into a graph (read after a replay)",
            ));
        }
        let waits = self.cross_stream_waits(&[], src);
        let mut st = self.state();
        let deps = self.read_deps(&[src]).map_err(|f| f.error())?;
        let staged = host.bytes();
        self.admit(&mut st, 0, staged)?;
        self.enqueue_waits(&waits.events)?;
        enqueue(self.api(), self.0.raw)?;
        let seq = self.0.timeline.advance();
        src.storage.note_read(&self.0.timeline, seq);
        let mut storages: SmallVec<[Arc<Storage>; 4]> = SmallVec::new();
        storages.push(src.storage.clone());
        let mut kept: SmallVec<[crate::pinned::Staging; 1]> = SmallVec::new();
        kept.push(host);
        let keep = Keep {
            storages,
            _waits: waits.events,
            staged,
            _host: kept,
            rare: None,
        };
        self.track(&mut st, keep, 0);
        Stream::unlock(st);
        Ok((seq, deps))
    }

    /// Waits until launch `seq` of this stream has run (or was skipped
    /// after a fault), and returns its fault, if any.
    pub(crate) fn outcome_of(&self, seq: u64) -> Result<()> {
        self.settle_through(seq)?;
        match self.0.timeline.status(seq) {
            crate::fault::Status::Faulted(f) => Err(f.error()),
            _ => Ok(()),
        }
    }
}

/// Other streams' work a launch waits for: the events to wait on (this
/// device's, on the device), and every point `(timeline, launch)` the
/// launch is ordered after (those events, other devices' work waited for
/// on the host, and work that has finished).
#[derive(Default)]
struct Waits {
    events: Vec<Arc<RawEvent>>,
    ordered: Vec<(Arc<Timeline>, u64)>,
}

impl Stream {
    /// The in-flight completion events of other streams (of this device)
    /// that work reading `reads` and writing `write` must wait for on the
    /// device: the pending writers of every storage it touches, and the
    /// pending readers of the one it writes (as cudarc orders streams).
    /// Call without this stream's launch lock (it takes other streams').
    ///
    /// Records whose chain of dependencies has grown too deep are resolved
    /// (waited for) first, before the launch depends on them. Chains grow
    /// only across streams (writes on one stream follow its order and need
    /// no record of each other), so a loop on one stream never waits here.
    ///
    /// Work known good has finished; work found faulted may still run (a
    /// synchronisation poisons launches enqueued while it returned), so it
    /// is waited for like pending work.
    fn cross_stream_waits(&self, reads: &[&Tensor], write: &Tensor) -> Waits {
        let tl = &self.0.timeline;
        let mut points: Vec<(Arc<crate::fault::Timeline>, u64)> = Vec::new();
        let mut add = |t: &Arc<crate::fault::Timeline>, seq: u64| {
            if Arc::ptr_eq(t, tl) || matches!(t.status(seq), crate::fault::Status::Good) {
                return;
            }
            match points.iter_mut().find(|(p, _)| Arc::ptr_eq(p, t)) {
                Some(p) => p.1 = p.1.max(seq),
                None => points.push((t.clone(), seq)),
            }
        };
        for t in reads.iter().chain([&write]) {
            // Records whose chain grew too deep are resolved first (waited
            // for, without any lock held); then their point is read again.
            let deep = t.storage.with_writer(|w| match w {
                Some(w) if w.too_deep() => Some(w.clone()),
                Some(w) => {
                    let (wt, seq) = w.point();
                    add(wt, seq);
                    None
                }
                None => None,
            });
            if let Some(w) = deep {
                let _ = w.wait();
                t.storage.with_writer(|w| {
                    if let Some(w) = w {
                        let (wt, seq) = w.point();
                        add(wt, seq);
                    }
                });
            }
        }
        for (t, seq) in write.storage.foreign_readers(tl) {
            add(&t, seq);
        }
        let mut waits = Waits::default();
        if points.is_empty() {
            // Nothing of another stream: no device was bound meanwhile.
            return waits;
        }
        for (t, seq) in points {
            match t.event_for(seq) {
                // Its stream is gone, or going: its drop finishes the work
                // (with the sync lock held); wait for that on the host, or
                // this launch would run before it.
                None if t.is_gone() => t.wait_gone(seq),
                // Finished and released.
                None => {}
                Some((device, ev)) if device == self.0.device => waits.events.push(ev),
                Some((device, ev)) => {
                    // Another device: wait on the host (its outcome is
                    // recorded by its own stream; a fault reaches readers
                    // through deps).
                    if self.0.rt.bind(device).is_err() {
                        continue;
                    }
                    // SAFETY: `ev` is held here, so its event is live.
                    let _ = unsafe { ffi::synchronize_event_code(self.api(), ev.raw()) };
                }
            }
            waits.ordered.push((t, seq));
        }
        // Back to this stream's device (binding is per thread).
        let _ = self.bind();
        waits
    }

    /// Makes later work on this stream wait for `waits` (call under the
    /// launch lock, right before the work is enqueued).
    fn enqueue_waits(&self, waits: &[Arc<RawEvent>]) -> Result<()> {
        for ev in waits {
            // SAFETY: this stream's handle, live while `self` is; `ev` is
            // held by the work enqueued next (`Keep::_waits`) until the wait
            // has passed.
            unsafe { ffi::stream_wait_event(self.api(), self.0.raw, ev.raw()) }?;
        }
        Ok(())
    }

    /// The event after launch `seq` of this stream if it is still in flight,
    /// with the stream's device.
    pub(crate) fn inflight_event(&self, seq: u64) -> Option<(i32, Arc<RawEvent>)> {
        let mut st = self.state();
        if !st.inflight.iter().any(|p| p.covers > seq) {
            return None;
        }
        match self.event_after(&mut st, seq) {
            Some((_, ev)) => Some((self.0.device, ev)),
            None => {
                // No event could be recorded: finish the work instead.
                drop(st);
                let _ = self.settle();
                None
            }
        }
    }

    /// The records of pending work the data of `reads` comes from; the
    /// first known fault among them is the error (the read is refused).
    /// Work on this stream is covered by its order and its timeline, but
    /// what that work itself depended on (other streams) is carried over.
    /// Call under the launch lock.
    fn read_deps(&self, reads: &[&Tensor]) -> std::result::Result<Vec<Arc<Write>>, Arc<Fault>> {
        let tl = &self.0.timeline;
        let mut deps: Vec<Arc<Write>> = Vec::new();
        for t in reads {
            // Under the storage's writer lock (as `set_written` peeks).
            t.storage
                .with_writer(|w| -> std::result::Result<(), Arc<Fault>> {
                    let Some(w) = w else {
                        return Ok(());
                    };
                    if w.peek()? {
                        return Ok(());
                    }
                    if w.is_on(tl) {
                        if w.has_deps() {
                            for d in w.deps() {
                                push_dep(&mut deps, d);
                            }
                        }
                    } else {
                        push_dep(&mut deps, w.clone());
                    }
                    Ok(())
                })?;
        }
        Ok(deps)
    }

    /// Makes launch `seq` of this stream the last writer of `write`'s
    /// storage. The previous writer stays a dependency unless it is known
    /// good or this write replaces all of its bytes after it in stream
    /// order (a write that leaves bytes, or may race pending work of
    /// another stream, keeps it).
    ///
    /// A whole write ordered after the previous writer (on this stream, or
    /// on another that it waited for: `ordered`) replaces every byte that
    /// writer left, so its record, fault included, no longer counts.
    fn set_written(
        &self,
        first: u64,
        seq: u64,
        mut deps: Vec<Arc<Write>>,
        write: &Tensor,
        ordered: &[(Arc<crate::fault::Timeline>, u64)],
    ) {
        let tl = &self.0.timeline;
        // Asked only where it matters (not for a loop rewriting an output
        // of this stream whose writer carries no other stream's work).
        let whole = std::cell::OnceCell::new();
        let whole = || *whole.get_or_init(|| write.covers_storage());
        write.storage.replace_writer(|prev| {
            if let Some(mut p) = prev {
                let after = |p: &Write| {
                    let (t, at) = p.point();
                    matches!(t.status(at), crate::fault::Status::Good)
                        || ordered
                            .iter()
                            .any(|(o, upto)| Arc::ptr_eq(o, t) && *upto >= at)
                };
                // Rewritten whole after it on this stream: whatever it was
                // (good, faulted or pending, with or without other streams'
                // work in its bytes), nothing of it stays, so its outcome
                // need not be asked.
                let replaced = p.is_on(tl) && whole();
                match if replaced { Ok(true) } else { p.peek() } {
                    Ok(true) => {}
                    // Rewritten whole after it, from another stream.
                    _ if !p.is_on(tl) && whole() && after(&p) => {}
                    // Bytes it left stay: its fault stays with them.
                    Err(_) if !p.is_on(tl) || !whole() => push_dep(&mut deps, p.clone()),
                    Err(_) => {}
                    // Pending on another stream: its outcome reaches ours.
                    Ok(false) if !p.is_on(tl) => push_dep(&mut deps, p.clone()),
                    // Pending on this stream: if it faults, the stream skips
                    // this launch too (both are spoiled by the same report),
                    // so only the other streams' work its bytes came from
                    // is carried, and only for bytes this write leaves.
                    Ok(false) => {
                        if p.has_deps() && !whole() {
                            for d in p.deps() {
                                push_dep(&mut deps, d);
                            }
                        }
                    }
                }
                if let Some(w) = Arc::get_mut(&mut p).filter(|w| w.is_on(tl)) {
                    // Nobody else holds the old record: reuse it (no
                    // allocation per launch in a loop writing one tensor).
                    w.reset(first, seq, deps);
                    return p;
                }
            }
            Write::span(tl.clone(), first, seq, deps)
        });
    }

    /// Runs `pieces`: launches on this stream that together rewrite all of
    /// `dst` from `reads` (a composite's pieces), then records them as one
    /// write of the whole. The span is every launch numbered meanwhile (any
    /// other thread's launch between them only adds its faults).
    pub(crate) fn rewrite_whole(
        &self,
        dst: &Tensor,
        reads: &[&Tensor],
        pieces: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let first = self.0.timeline.next();
        pieces()?;
        let end = self.0.timeline.next();
        if end > first {
            self.rewrote(dst, reads, first, end - 1);
        }
        Ok(())
    }

    /// After launches `first..=last` on this stream (sequence numbers)
    /// that together rewrote all of `dst` from `reads`: one record for the
    /// whole, so what `dst` held before (a fault included) no longer
    /// counts, while a fault of any of those launches does (a piece skipped
    /// after another thread's fault must not read as `Ok`).
    fn rewrote(&self, dst: &Tensor, reads: &[&Tensor], first: u64, last: u64) {
        if !dst.covers_storage() {
            return;
        }
        let _launches = self.state();
        let Ok(deps) = self.read_deps(reads) else {
            return; // an input faulted meanwhile: keep the pieces' records
        };
        self.set_written(first, last, deps, dst, &[]);
    }
}

/// Tensors made on a stream: allocated on its device, in its order (work
/// it has finished gives its memory back first).
impl Tensor {
    /// A tensor of uninitialised device memory, on the stream's device: its
    /// contents are unspecified until written, and may be bytes an earlier
    /// tensor of the same [`crate::Runtime`] left in a block the caching
    /// allocator hands out again. Never another runtime's or process's:
    /// each runtime has its own cache, and memory fresh from the device is
    /// zeroed first. Use [`Tensor::zeros`] or [`Tensor::full`] for defined
    /// contents.
    pub fn empty(stream: &Stream, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::empty_for(stream, "tensor", "shape", dtype, shape)
    }

    /// [`Tensor::empty`] for an operator's output: a shape that could never
    /// fit the device is an invalid `param` of `op`, not an out-of-memory.
    pub(crate) fn empty_for(
        stream: &Stream,
        op: &'static str,
        param: &'static str,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Tensor> {
        let layout = Layout::contiguous(op, shape, 0, dtype.size())?;
        let bytes = Tensor::bytes_that_fit(stream, op, param, dtype, shape)?;
        stream.release_finished();
        let storage = Storage::alloc(&stream.0.rt, stream.0.device, bytes)?;
        Ok(Tensor::new(storage, dtype, layout))
    }

    /// The bytes of a `shape` tensor of `dtype`, if it could fit the
    /// stream's device at all (else an invalid `param` of `op`).
    pub(crate) fn bytes_that_fit(
        stream: &Stream,
        op: &'static str,
        param: &'static str,
        dtype: DType,
        shape: &[usize],
    ) -> Result<usize> {
        if shape.len() > MAX_RANK {
            return Err(Error::invalid(
                op,
                param,
                format!("rank {} exceeds {MAX_RANK}", shape.len()),
            ));
        }
        let n = layout::numel(op, param, shape)?;
        let total = stream.0.rt.total_memory(stream.0.device)?;
        n.checked_mul(dtype.size()).filter(|b| *b <= total).ok_or_else(|| {
            Error::invalid(op, param, format!("an output of shape {shape:?} ({dtype}) cannot fit the device's {total} bytes"))
        })
    }

    /// A tensor holding `bytes` (row-major, `dtype`'s little-endian layout).
    pub fn from_bytes(
        stream: &Stream,
        dtype: DType,
        shape: &[usize],
        bytes: &[u8],
    ) -> Result<Tensor> {
        let layout = Layout::contiguous("tensor", shape, 0, dtype.size())?;
        let need = layout.numel() * dtype.size();
        if bytes.len() != need {
            return Err(Error::invalid(
                "tensor",
                "data",
                format!(
                    "{} bytes for shape {shape:?} of {dtype} (need {need})",
                    bytes.len(),
                ),
            ));
        }
        let t = Tensor::empty(stream, dtype, shape)?;
        // SAFETY: `t` is a new contiguous storage of exactly `bytes.len()`
        // bytes on the stream's device (bound by `empty`), that no work
        // uses yet.
        unsafe { ffi::upload(&stream.0.rt.0.api, t.storage.ptr, bytes) }?;
        Ok(t)
    }

    /// A tensor holding `data` (row-major).
    pub fn from_slice<T: Element>(stream: &Stream, shape: &[usize], data: &[T]) -> Result<Tensor> {
        Tensor::from_bytes(stream, T::DTYPE, shape, dtype::as_bytes(data))
    }

    /// Adopts foreign device memory (from torch_npu, ATB, MindIE or any
    /// CANN code in this process) as a contiguous tensor of `dtype` and
    /// `shape` on the stream's device, without copying. `release` runs once
    /// when the last handle and the last queued work using it are gone.
    /// Reads and writes through npu-ops are ordered on npu-ops streams only:
    /// order them against the other code's streams with events.
    ///
    /// # Safety
    /// `ptr` is device memory of the stream's device, valid for reads and
    /// writes of `shape`'s element count times `dtype`'s size bytes until
    /// `release` runs, and not used concurrently by other code in a way
    /// that races with work npu-ops enqueues.
    pub unsafe fn from_raw(
        stream: &Stream,
        ptr: *mut std::ffi::c_void,
        dtype: DType,
        shape: &[usize],
        release: impl FnOnce() + Send + Sync + 'static,
    ) -> Result<Tensor> {
        let layout = Layout::contiguous("from_raw", shape, 0, dtype.size())?;
        if ptr.is_null() {
            return Err(Error::invalid("from_raw", "ptr", "null device pointer"));
        }
        // SAFETY: the caller's contract: `ptr` is memory of the stream's
        // device, valid for the layout's bytes until `release` runs.
        let storage = unsafe {
            Storage::foreign(
                &stream.0.rt,
                stream.0.device,
                DevicePtr::from_raw(ptr),
                layout.numel() * dtype.size(),
                Box::new(release),
            )
        };
        Ok(Tensor::new(storage, dtype, layout))
    }
}

/// Streams of a runtime and of a device.
impl Runtime {
    /// A new stream on device 0 (binds device 0 to the calling thread;
    /// [`Runtime::device`] chooses another).
    pub fn stream(&self) -> Result<Stream> {
        self.device(0)?.stream()
    }
}

impl Device {
    /// A new stream on this device.
    pub fn stream(&self) -> Result<Stream> {
        Stream::new(self)
    }
}

/// The timeline's way back to its stream (held weakly: it outlives it).
impl StreamSync for StreamInner {
    fn inflight_event(self: Arc<Self>, seq: u64) -> Option<(i32, Arc<RawEvent>)> {
        Stream(self).inflight_event(seq)
    }

    fn settle_through(self: Arc<Self>, seq: u64) -> Result<()> {
        Stream(self).settle_through(seq)
    }
}

impl StreamInner {
    /// Makes this stream's device and context current on the calling
    /// thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.rt.bind_in(self.device, self.ctx.as_ref().map(|c| c.0))
    }
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        let api = &self.rt.0.api;
        let _ = self.bind();
        // Queued work finishes before its buffers and the stream go; its
        // faults stay on the timeline, which outlives the stream.
        let tl = &self.timeline;
        let _one_at_a_time = tl.sync_lock();
        let before = tl.next();
        // SAFETY: this stream's handle, live until the destroy below.
        let code = unsafe { ffi::synchronize_stream(api, self.raw) };
        let fault = (code != 0).then(|| Fault {
            api: "aclrtSynchronizeStream",
            code,
            message: ffi::last_error(api),
        });
        tl.settle(before, tl.next(), fault);
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        // Events (destroyed by their drop) and buffers of finished work.
        st.inflight.clear();
        st.spare.clear();
        st.workspace = None;
        let hook = self.hook.get_mut().unwrap_or_else(|e| e.into_inner());
        if hook.registered {
            if let Some(unregister) = api.aclrtAllocatorUnregister {
                // SAFETY: this stream's handle, live until the destroy
                // below; the runtime calls the allocator no more after.
                let _ = unsafe { unregister(self.raw.as_raw()) };
            }
            hook.registered = false;
        }
        if self.owned {
            // SAFETY: created by this crate (`owned`), destroyed once, here;
            // its work has finished and nothing holds the handle any more
            // (the last `Stream` and every piece of work are gone).
            unsafe { ffi::destroy_stream(api, self.raw) };
        }
        // Blocks the runtime gave back: every piece of work is done.
        drop(self.released.take());
        // The registrations, while the runtime (their descriptions'
        // destroyer) is alive.
        self.hook
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .keep
            .clear();
    }
}
