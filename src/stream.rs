//! Streams: ordered queues of device work, each with its own workspace
//! cache and the list of buffers its queued work still uses.

use crate::error::{Error, Result};
use crate::ffi::{self, First};
use crate::runtime::{Device, Runtime};
use crate::tensor::Storage;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Launches tracked per stream before a new one waits for the oldest:
/// bounds the events and the memory held by queued work (real runtimes
/// bound their task queues too).
const MAX_INFLIGHT: usize = 64;

/// What queued work holds until it has run: its buffers, and the events
/// it waits on.
#[derive(Default)]
pub(crate) struct Keep {
    /// Held (never read) until the work has run.
    _storages: Vec<Arc<Storage>>,
    /// Held (never read) until the wait has passed.
    _events: Vec<Arc<EventInner>>,
}

struct State {
    /// The cached workspace (grown on demand, reused by every launch).
    workspace: Option<Arc<Storage>>,
    /// Work in flight: the event recorded after it, and what it uses.
    inflight: VecDeque<(usize, Keep)>,
    /// Completed events, for reuse.
    spare: Vec<usize>,
}

pub(crate) struct StreamInner {
    pub(crate) rt: Runtime,
    pub(crate) device: i32,
    pub(crate) raw: usize,
    state: Mutex<State>,
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
        Ok(Stream(Arc::new(StreamInner {
            rt: dev.rt.clone(),
            device: dev.id,
            raw,
            state: Mutex::new(State {
                workspace: None,
                inflight: VecDeque::new(),
                spare: Vec::new(),
            }),
        })))
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.0.rt
    }

    /// The raw `aclrtStream`, for interoperating with other CANN code (it
    /// stays valid while this stream, or a clone, lives).
    pub fn as_raw(&self) -> cann_sys::aclrtStream {
        self.0.raw as cann_sys::aclrtStream
    }

    /// The device index.
    pub fn device(&self) -> u32 {
        self.0.device as u32
    }

    pub(crate) fn api(&self) -> &cann_sys::Api {
        &self.0.rt.0.api
    }

    pub(crate) fn bind(&self) -> Result<()> {
        self.0.rt.bind(self.0.device)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for all queued work. A fault of any of it (an out-of-range
    /// device index, a memory error) is returned here, typed.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        let code = ffi::synchronize_stream(self.api(), self.0.raw);
        // Release what finished; work another thread queued meanwhile keeps
        // its buffers (its completion event has not fired).
        let mut st = self.state();
        self.reap(&mut st);
        drop(st);
        if code == 0 {
            return Ok(());
        }
        Err(fault(self.api(), code))
    }

    /// Makes later work on `self` wait for all work queued on `other` so
    /// far (without blocking the host).
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        self.wait_event(&other.record()?)
    }

    /// Records an event after the work queued so far.
    pub fn record(&self) -> Result<Event> {
        self.bind()?;
        let raw = ffi::create_event(self.api())?;
        let ev = Event {
            inner: Arc::new(EventInner {
                rt: self.0.rt.clone(),
                device: self.0.device,
                raw,
            }),
        };
        ffi::record_event(self.api(), raw, self.0.raw)?;
        Ok(ev)
    }

    /// Makes later work on this stream wait until `event` has completed.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.bind()?;
        let mut st = self.state();
        ffi::stream_wait_event(self.api(), self.0.raw, event.inner.raw)?;
        // The event must outlive the wait: it is released with the wait.
        self.track(
            &mut st,
            Keep {
                _storages: Vec::new(),
                _events: vec![event.inner.clone()],
            },
        )
    }

    /// Releases what finished work held.
    fn reap(&self, st: &mut State) {
        while let Some((ev, _)) = st.inflight.front() {
            if !ffi::event_complete(self.api(), *ev) {
                break;
            }
            let (ev, keep) = st.inflight.pop_front().expect("front exists");
            st.spare.push(ev);
            drop(keep);
        }
    }

    /// Records a completion event after the work queued so far and holds
    /// `keep` until it fires. If the event cannot be recorded, waits for the
    /// stream instead, so nothing is released early.
    fn track(&self, st: &mut State, keep: Keep) -> Result<()> {
        let ev = match st.spare.pop() {
            Some(e) => Ok(e),
            None => ffi::create_event(self.api()),
        };
        let recorded = ev.and_then(|e| match ffi::record_event(self.api(), e, self.0.raw) {
            Ok(()) => Ok(e),
            Err(err) => {
                st.spare.push(e);
                Err(err)
            }
        });
        match recorded {
            Ok(e) => {
                st.inflight.push_back((e, keep));
                Ok(())
            }
            Err(err) => {
                ffi::synchronize_stream(self.api(), self.0.raw);
                drop(keep);
                Err(err)
            }
        }
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
                let grown = (bytes as usize).next_power_of_two().max(64 << 10);
                let w = Arc::new(Storage::alloc(&self.0.rt, self.0.device, grown)?);
                st.workspace = Some(w.clone());
                Ok(Some(w))
            }
        }
    }

    /// Runs both phases of one operator call and records what it uses.
    pub(crate) fn launch(&self, first: First<'_>, storages: Vec<Arc<Storage>>) -> Result<()> {
        self.bind()?;
        let (planned, run) = first.plan(self.api())?;
        self.run_planned(
            first.names().1,
            run,
            planned.workspace,
            planned.executor,
            true,
            storages,
        )
    }

    /// The second phase of a planned call; a `one_shot` executor is released
    /// if it cannot be run, a repeatable one stays its owner's.
    pub(crate) fn run_planned(
        &self,
        name: &'static str,
        run: cann_sys::fns::OpRun,
        ws_bytes: u64,
        executor: usize,
        one_shot: bool,
        mut storages: Vec<Arc<Storage>>,
    ) -> Result<()> {
        let mut st = self.state();
        self.reap(&mut st);
        if st.inflight.len() >= MAX_INFLIGHT {
            let (ev, keep) = st.inflight.pop_front().expect("non-empty");
            // A fault is reported by the next synchronize, not here.
            let _ = ffi::synchronize_event(self.api(), ev);
            st.spare.push(ev);
            drop(keep);
        }
        let ws = match self.workspace(&mut st, ws_bytes) {
            Ok(w) => w,
            Err(e) => {
                if one_shot {
                    // Never run: release it, or it would leak.
                    ffi::destroy_executor(self.api(), executor);
                }
                return Err(e);
            }
        };
        let ws_ptr = ws.as_ref().map_or(0, |w| w.ptr);
        ffi::run(
            self.api(),
            name,
            run,
            ws_ptr,
            ws_bytes,
            executor,
            self.0.raw,
        )?;
        storages.extend(ws);
        for s in &storages {
            s.used_by(self);
        }
        self.track(
            &mut st,
            Keep {
                _storages: storages,
                _events: Vec::new(),
            },
        )
    }
}

/// An event handle; holds the runtime (not the stream, so a stream that
/// waits on its own event forms no reference cycle).
pub(crate) struct EventInner {
    rt: Runtime,
    device: i32,
    raw: usize,
}

impl Drop for EventInner {
    fn drop(&mut self) {
        let _ = self.rt.bind(self.device);
        ffi::destroy_event(&self.rt.0.api, self.raw);
    }
}

/// A point in a stream's queue (`aclrtEvent`): other streams can wait for
/// it ([`Stream::wait_event`]) and the host can wait or poll. `Send + Sync`.
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
pub struct Event {
    inner: Arc<EventInner>,
}

impl Event {
    /// Blocks the host until the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.rt.bind(self.inner.device)?;
        ffi::synchronize_event(&self.inner.rt.0.api, self.inner.raw)
    }

    /// Whether the event has completed.
    pub fn is_complete(&self) -> bool {
        ffi::event_complete(&self.inner.rt.0.api, self.inner.raw)
    }
}

/// A stream fault as a typed error: an out-of-range device index becomes
/// [`Error::IndexOutOfRange`] when the runtime says which (the simulator
/// does: "position P value V bound B"), anything else [`Error::Runtime`].
fn fault(api: &cann_sys::Api, code: i32) -> Error {
    let message = ffi::last_error(api);
    if code == cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION {
        if let Some(e) = parse_index_fault(&message) {
            return e;
        }
    }
    Error::Runtime {
        api: "aclrtSynchronizeStream",
        code,
        message,
    }
}

fn parse_index_fault(msg: &str) -> Option<Error> {
    let after = |key: &str| -> Option<i64> {
        let rest = &msg[msg.find(key)? + key.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    let position = after("position ")?;
    let value = after(" value ")?;
    let bound = after(" bound ")?;
    Some(Error::IndexOutOfRange {
        op: "index_select",
        position: usize::try_from(position).ok()?,
        value,
        bound: usize::try_from(bound).ok()?,
    })
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        let api = &self.rt.0.api;
        let _ = self.rt.bind(self.device);
        // Queued work finishes before its buffers and the stream go.
        ffi::synchronize_stream(api, self.raw);
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for (ev, _) in st.inflight.drain(..) {
            ffi::destroy_event(api, ev);
        }
        for ev in st.spare.drain(..) {
            ffi::destroy_event(api, ev);
        }
        st.workspace = None;
        ffi::destroy_stream(api, self.raw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_faults_parse() {
        let e = parse_index_fault("npu-sim: aclnnIndexSelect: index out of range: position 3 value -7 bound 5 (valid ...)").unwrap();
        assert!(matches!(
            e,
            Error::IndexOutOfRange {
                position: 3,
                value: -7,
                bound: 5,
                ..
            }
        ));
        assert!(parse_index_fault("AI Core exception").is_none());
    }
}
