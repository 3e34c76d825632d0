//! Graphs: a closure's launches captured once (CANN's
//! `aclmdlRICaptureBegin`/`End`) and replayed on any stream with one host
//! call (`aclmdlRIExecuteAsync`), with task groups whose launches can be
//! replaced between replays (`aclmdlRICaptureTaskGrp*`,
//! `aclmdlRICaptureTaskUpdate*`).
//!
//! Lifetimes: a [`Graph`] holds every tensor and workspace its launches
//! use; each replay holds them (and the model) until it has run, as any
//! launch does; the model is destroyed only when the graph and every
//! queued replay are gone.

use crate::error::{Error, Result};
use crate::ffi;
use crate::runtime::Runtime;
use crate::stream::{CaptureLog, Recorded, Stream};
use crate::tensor::Tensor;
use cann_sys::{aclmdlRI, aclmdlRICaptureMode, aclrtTaskGrp};
use std::sync::{Arc, Mutex, Weak};

const CAPTURE_OP: &str = "graph capture (aclmdlRICaptureBegin)";

/// A captured sequence of launches, replayable on any stream of its
/// device ([`Graph::replay`]); made by [`Stream::capture`].
///
/// Replays read the data their inputs hold when they run: write new
/// inputs in place (uploads, operators) between replays. Reads of the
/// outputs wait for the replay that wrote them, and report its fault.
pub struct Graph {
    inner: Arc<GraphInner>,
}

/// A task group of a graph ([`Stream::task_group`]): launches that
/// [`Graph::update`] can replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskGroup(usize);

struct GraphInner {
    rt: Runtime,
    device: i32,
    model: usize,
    state: Mutex<GraphState>,
}

struct GraphState {
    /// What the launches outside task groups use.
    base: Recorded,
    /// Each task group: its handle and what its launches use.
    groups: Vec<(usize, Recorded)>,
    /// The last replay queued on each stream.
    replays: Vec<(Weak<crate::stream::StreamInner>, u64)>,
}

impl Drop for GraphInner {
    fn drop(&mut self) {
        // Every replay held this: they have all run.
        let api = &self.rt.0.api;
        if let Some(destroy) = api.aclmdlRIDestroy {
            let _ = self.rt.bind(self.device);
            // SAFETY: the model made by this graph's capture, destroyed
            // once, here, after every replay that used it has run.
            let _ = unsafe { destroy(self.model as aclmdlRI) };
        }
    }
}

/// The capture functions, or `Error::Unavailable` / `Error::UnsupportedOp`.
fn check_capture(s: &Stream) -> Result<()> {
    let rt = s.runtime();
    if let Some(f) = rt.family() {
        if matches!(f, crate::Family::Training | crate::Family::Atlas200I500A2) {
            return Err(Error::UnsupportedOp {
                op: CAPTURE_OP,
                soc: rt.soc().to_string(),
            });
        }
    }
    let api = s.api();
    let all = api.aclmdlRICaptureBegin.is_some()
        && api.aclmdlRICaptureEnd.is_some()
        && api.aclmdlRIExecuteAsync.is_some()
        && api.aclmdlRIDestroy.is_some()
        && api.aclmdlRICaptureTaskGrpBegin.is_some()
        && api.aclmdlRICaptureTaskGrpEnd.is_some()
        && api.aclmdlRICaptureTaskUpdateBegin.is_some()
        && api.aclmdlRICaptureTaskUpdateEnd.is_some();
    if !all {
        return Err(Error::Unavailable {
            what: "graph capture",
            reason: "this CANN's runtime library has no aclmdlRICapture* functions (CANN 8.2 or \
                     later has them)"
                .into(),
        });
    }
    Ok(())
}

impl Stream {
    /// Captures the launches `f` makes on the stream it is given into a
    /// [`Graph`]: nothing runs now; [`Graph::replay`] runs them all with
    /// one call. `f` gets a stream private to the capture, on this
    /// stream's device: call operators on it (`slice_into`,
    /// `index_select_into`, `copy` ...), on tensors made before or inside
    /// the capture. Reads to the host and synchronisations inside `f` are
    /// errors (the capture's thread is in CANN's THREAD_LOCAL mode).
    ///
    /// Not on Atlas 200I/500 A2 nor the training series
    /// (`Error::UnsupportedOp` naming the operation and the SoC).
    ///
    /// ```
    /// # use npu_ops::{Backend, Runtime, Tensor};
    /// # let rt = Runtime::new(Backend::Simulator)?;
    /// let s = rt.stream()?;
    /// let x = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.])?;
    /// let y = Tensor::empty(&s, x.dtype(), &[2, 2])?;
    /// let graph = s.capture(|c| c.slice_into(&x, 1, 1, 3, 1, &y))?;
    /// for _ in 0..3 {
    ///     graph.replay(&s)?;
    /// }
    /// assert_eq!(y.to_vec::<f32>()?, [2., 3., 5., 6.]);
    /// # Ok::<(), npu_ops::Error>(())
    /// ```
    pub fn capture(&self, f: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        check_capture(self)?;
        let api = self.api();
        let (begin, end) = (
            api.aclmdlRICaptureBegin.expect("checked"),
            api.aclmdlRICaptureEnd.expect("checked"),
        );
        let dev = self.runtime().device(self.device())?;
        let log = Arc::new(CaptureLog::default());
        let cs = Stream::new_logging(&dev, log.clone())?;
        let raw = cs.0.raw.as_raw();
        // SAFETY: a live stream of this runtime (held by `cs`).
        let code = unsafe {
            begin(
                raw,
                aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
            )
        };
        ffi::check(api, "aclmdlRICaptureBegin", code)?;
        let r = f(&cs);
        let mut model: aclmdlRI = std::ptr::null_mut();
        // SAFETY: as above; `model` is a valid out-pointer.
        let code = unsafe { end(raw, &mut model) };
        let ended = ffi::check(api, "aclmdlRICaptureEnd", code);
        if let Err(e) = r {
            if ended.is_ok() {
                // SAFETY: the model just made, never replayed.
                let _ = unsafe { api.aclmdlRIDestroy.expect("checked")(model) };
            }
            return Err(e);
        }
        ended?;
        let base = std::mem::take(&mut *log.rec.lock().unwrap_or_else(|e| e.into_inner()));
        let groups = std::mem::take(&mut *log.groups.lock().unwrap_or_else(|e| e.into_inner()));
        Ok(Graph {
            inner: Arc::new(GraphInner {
                rt: self.runtime().clone(),
                device: self.device() as i32,
                model: model as usize,
                state: Mutex::new(GraphState {
                    base,
                    groups,
                    replays: Vec::new(),
                }),
            }),
        })
    }

    /// Inside [`Stream::capture`] (on the stream it gives), makes the
    /// launches of `f` a task group that [`Graph::update`] can replace:
    /// only operator launches may be in a group.
    pub fn task_group(&self, f: impl FnOnce(&Stream) -> Result<()>) -> Result<TaskGroup> {
        let Some(log) = &self.0.log else {
            return Err(Error::invalid(
                "task_group",
                "stream",
                "a task group is made inside Stream::capture, on the stream it gives",
            ));
        };
        let api = self.api();
        let (begin, end) = (
            api.aclmdlRICaptureTaskGrpBegin.ok_or_else(missing)?,
            api.aclmdlRICaptureTaskGrpEnd.ok_or_else(missing)?,
        );
        let raw = self.0.raw.as_raw();
        let outside = std::mem::take(&mut *log.rec.lock().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: a live stream in capture (held by `self`).
        let code = unsafe { begin(raw) };
        let r = ffi::check(api, "aclmdlRICaptureTaskGrpBegin", code).and_then(|()| f(self));
        let mut handle: aclrtTaskGrp = std::ptr::null_mut();
        // SAFETY: as above; a valid out-pointer.
        let code = unsafe { end(raw, &mut handle) };
        let inside = std::mem::replace(
            &mut *log.rec.lock().unwrap_or_else(|e| e.into_inner()),
            outside,
        );
        r?;
        ffi::check(api, "aclmdlRICaptureTaskGrpEnd", code)?;
        let mut groups = log.groups.lock().unwrap_or_else(|e| e.into_inner());
        groups.push((handle as usize, inside));
        Ok(TaskGroup(groups.len() - 1))
    }
}

fn missing() -> Error {
    Error::Unavailable {
        what: "graph capture",
        reason: "this CANN's runtime library has no aclmdlRICapture* functions".into(),
    }
}

impl Graph {
    /// Queues one run of the graph's launches on `stream` (of the graph's
    /// runtime and device) and returns: one host call however many
    /// launches. Ordered like a launch that reads every input and writes
    /// every output of the graph: after their pending work on other
    /// streams; later reads of an output wait for this replay and report
    /// its fault. An input whose producing work is known to have faulted
    /// is refused before anything is queued.
    pub fn replay(&self, stream: &Stream) -> Result<()> {
        if !Arc::ptr_eq(&stream.runtime().0, &self.inner.rt.0)
            || stream.device() as i32 != self.inner.device
        {
            return Err(Error::invalid(
                "replay",
                "stream",
                "the stream is of another runtime or device than the graph",
            ));
        }
        let exec = stream.api().aclmdlRIExecuteAsync.ok_or_else(missing)?;
        let mut st = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        let parts: Vec<&Recorded> = std::iter::once(&st.base)
            .chain(st.groups.iter().map(|(_, r)| r))
            .collect();
        let reads: Vec<&Tensor> = parts.iter().flat_map(|r| r.reads.iter()).collect();
        let writes: Vec<&Tensor> = parts.iter().flat_map(|r| r.writes.iter()).collect();
        let storages: Vec<_> = parts
            .iter()
            .flat_map(|r| r.storages.iter().cloned())
            .collect();
        let model = self.inner.model;
        let held: Arc<dyn std::any::Any + Send + Sync> = self.inner.clone();
        let seq = stream.launch_graph(
            |api, raw| {
                // SAFETY: the graph's live model (held by this replay until
                // it has run) and a live stream; every buffer the model
                // uses is held by the replay (`reads`, `writes`,
                // `storages`).
                let code = unsafe { exec(model as aclmdlRI, raw.as_raw()) };
                ffi::check(api, "aclmdlRIExecuteAsync", code)
            },
            &reads,
            &writes,
            &storages,
            held,
        )?;
        drop(parts);
        let me = Arc::downgrade(&stream.0);
        st.replays
            .retain(|(w, _)| w.strong_count() > 0 && !w.ptr_eq(&me));
        st.replays.push((me, seq));
        Ok(())
    }

    /// Replaces the launches of task group `group` with those `f` makes
    /// on the stream it is given (the same number of launches of the same
    /// operators, in order; other tensors and parameters are allowed).
    /// Waits first for the replays already queued; replays queued
    /// afterwards run the new launches. On a mismatch the runtime's error
    /// is returned and the group is unchanged.
    pub fn update(
        &mut self,
        group: TaskGroup,
        f: impl FnOnce(&Stream) -> Result<()>,
    ) -> Result<()> {
        let inner = &self.inner;
        let handle = {
            let st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
            st.groups.get(group.0).map(|(h, _)| *h).ok_or_else(|| {
                Error::invalid("update", "group", "not a task group of this graph")
            })?
        };
        let replays: Vec<_> = inner
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replays
            .drain(..)
            .collect();
        for (w, seq) in replays {
            if let Some(s) = w.upgrade() {
                let _ = Stream(s).outcome_of(seq);
            }
        }
        let dev = inner.rt.device(inner.device as u32)?;
        let api = &inner.rt.0.api;
        let (begin, end) = (
            api.aclmdlRICaptureTaskUpdateBegin.ok_or_else(missing)?,
            api.aclmdlRICaptureTaskUpdateEnd.ok_or_else(missing)?,
        );
        let log = Arc::new(CaptureLog::default());
        let us = Stream::new_logging(&dev, log.clone())?;
        let raw = us.0.raw.as_raw();
        // SAFETY: a live stream (held by `us`) and the graph's live group.
        let code = unsafe { begin(raw, handle as aclrtTaskGrp) };
        ffi::check(api, "aclmdlRICaptureTaskUpdateBegin", code)?;
        let r = f(&us);
        // SAFETY: as above.
        let code = unsafe { end(raw) };
        let ended = ffi::check(api, "aclmdlRICaptureTaskUpdateEnd", code);
        // The update is stream-ordered: done before the next replay.
        let synced = us.synchronize();
        r?;
        ended?;
        synced?;
        let rec = std::mem::take(&mut *log.rec.lock().unwrap_or_else(|e| e.into_inner()));
        let mut st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
        st.groups[group.0].1 = rec;
        Ok(())
    }
}
