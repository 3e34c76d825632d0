//! Graph capture at the stream level (CANN's `aclmdlRICapture*`): a
//! stream in capture records the tasks submitted to it into a [`Model`]
//! instead of running them; the model replays them later, one stream task
//! per captured task, through the same path as direct work (memory
//! checks, faults, failure mode). A child of `stream`: capture diverts the
//! stream's own submissions, under the stream's queue lock.
//!
//! Lock order: a stream's queue lock, then a model's state lock, then an
//! event's capture mark. Ending a capture first detaches its streams
//! (each under its own queue lock, without the model's), then settles the
//! model.
//!
//! The capture-mode rules for "unsafe" calls (`aclrtMemset`,
//! `aclrtMemcpy`, asynchronous copies from pageable host memory) follow
//! CANN's runtime: each active capture has a mode and a beginning thread;
//! each thread has an exchange mode (`aclmdlRICaptureThreadExchangeMode`,
//! GLOBAL until changed).

use super::{lock, Event, Stream};
use crate::work::{Fault, Launch, Memset, SendCopy};
use cann_sys::*;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// A capture mode (`aclmdlRICaptureMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `ACL_MODEL_RI_CAPTURE_MODE_GLOBAL`.
    Global,
    /// `ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL`.
    ThreadLocal,
    /// `ACL_MODEL_RI_CAPTURE_MODE_RELAXED`.
    Relaxed,
}

impl Mode {
    /// The mode of a C value, if it is one.
    pub fn of(m: aclmdlRICaptureMode) -> Option<Mode> {
        match m {
            aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL => Some(Mode::Global),
            aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL => Some(Mode::ThreadLocal),
            aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED => Some(Mode::Relaxed),
            _ => None,
        }
    }

    /// The C value.
    pub fn raw(self) -> aclmdlRICaptureMode {
        match self {
            Mode::Global => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
            Mode::ThreadLocal => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
            Mode::Relaxed => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
        }
    }
}

/// A host function as a captured task: callable at every replay.
pub(crate) type HostFn = Arc<dyn Fn() + Send + Sync>;

/// One captured task, held by the model and shared (by `Arc`) with the
/// stream tasks of every replay.
// Held in an Arc per task: the size difference costs nothing per replay.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Captured {
    /// An operator launch (an aclnn second phase): its regions are checked
    /// again at each replay.
    Launch(Launch),
    /// An asynchronous copy.
    Copy(SendCopy),
    /// An asynchronous fill.
    Memset(Memset),
    /// A host function (`aclrtLaunchHostFunc`).
    Host(HostFn),
    /// An event record: a real record on the replaying stream.
    Record(Arc<Event>, bool),
    /// A wait for an event recorded outside the capture
    /// (`ACL_EVENT_WAIT_EXTERNAL`): a real wait at replay.
    WaitExternal(Arc<Event>),
    /// An event reset.
    Reset(Arc<Event>),
    /// A label's place in a built model's stream (`aclrtSetLabel`): the
    /// label's handle.
    Label(usize),
    /// `aclrtSwitchLabelByIndex`: at run time, jumps to a label of the
    /// list by the index read from device memory.
    Switch(Switch),
    /// `aclmdlRIEndTask`: the end of a bound stream's tasks.
    EndTask,
}

/// A switch-by-index task: the `u32` index at `addr` (inside `alloc`)
/// picks one of `labels` (at most `max`; a larger index picks the last).
pub(crate) struct Switch {
    pub(crate) alloc: Arc<crate::memory::Allocation>,
    pub(crate) addr: u64,
    pub(crate) max: u32,
    pub(crate) labels: Vec<usize>,
}

impl Switch {
    /// Reads the index and returns the label jumped to.
    pub(crate) fn target(&self) -> Result<usize, Fault> {
        let api = "aclrtSwitchLabelByIndex";
        if let Some(f) = crate::work::freed_fault(api, &(self.addr, Some(self.alloc.clone()))) {
            return Err(f);
        }
        let mut b = [0u8; 4];
        // SAFETY: [addr, addr + 4) lay in `alloc` when the switch was
        // submitted; `alloc` is still live (just checked) and kept mapped
        // by the Arc.
        unsafe { std::ptr::copy_nonoverlapping(self.alloc.host_ptr(self.addr), b.as_mut_ptr(), 4) };
        let i = u32::from_ne_bytes(b);
        let n = (self.max as usize).min(self.labels.len()).max(1);
        Ok(self.labels[(i as usize).min(n - 1)])
    }
}

// SAFETY: every variant is Send + Sync data: a launch and a copy hold
// addresses and Arcs of Sync allocations (their raw host pointers are
// formed only while running), the rest are Arcs of Sync values.
unsafe impl Sync for Captured {}

impl Captured {
    fn is_launch(&self) -> bool {
        matches!(self, Captured::Launch(_))
    }

    /// What it is, for messages.
    fn what(&self) -> &'static str {
        match self {
            Captured::Launch(l) => l.op(),
            Captured::Copy(_) => "aclrtMemcpyAsync",
            Captured::Memset(_) => "aclrtMemsetAsync",
            Captured::Host(_) => "aclrtLaunchHostFunc",
            Captured::Record(..) => "aclrtRecordEvent",
            Captured::WaitExternal(_) => "aclrtStreamWaitEventWithFlag",
            Captured::Reset(_) => "aclrtResetEvent",
            Captured::Label(_) => "aclrtSetLabel",
            Captured::Switch(_) => "aclrtSwitchLabelByIndex",
            Captured::EndTask => "aclmdlRIEndTask",
        }
    }

    /// Runs a device task (a launch, copy or fill) at replay.
    pub(crate) fn run(&self, cores: &crate::cores::Cores) -> Result<(), Fault> {
        match self {
            Captured::Launch(l) => l.run(cores),
            Captured::Copy(c) => c.run(cores),
            Captured::Memset(m) => m.run("aclrtMemsetAsync"),
            _ => Ok(()),
        }
    }

    /// Bytes a device task touches (for inline runs).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Captured::Launch(l) => l.bytes(),
            Captured::Copy(c) => 2 * c.0.count as u64,
            Captured::Memset(m) => m.count as u64,
            _ => 0,
        }
    }
}

/// Where a model is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Between `aclmdlRICaptureBegin` and `aclmdlRICaptureEnd`.
    Capturing,
    /// Capturing, but an unsupported operation spoiled the capture
    /// (`aclmdlRICaptureEnd` then fails with
    /// `ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED`).
    Invalidated,
    /// Captured: it can run.
    Ready,
    /// Between `aclmdlRIBuildBegin` and `aclmdlRIBuildEnd`: bound streams
    /// record their tasks into it.
    Building,
}

/// What a built model (`aclmdlRIBuildBegin`) keeps of its streams.
#[derive(Default)]
pub(crate) struct Built {
    /// Bound streams (key, stream, `aclmdlRIBindStream` flag), in bind
    /// order.
    pub(crate) bound: Vec<(usize, Weak<Stream>, u32)>,
    /// Bound streams whose task list is closed (`aclmdlRIEndTask`).
    pub(crate) ended: HashSet<usize>,
}

/// A task group's launches, by index into the model's tasks.
pub(crate) struct Group {
    pub(crate) tasks: Vec<usize>,
}

/// The mutable part of a model.
pub(crate) struct ModelState {
    pub(crate) phase: Phase,
    /// Every captured task, in submission order over all the capture's
    /// streams (replayed in this order on one stream).
    pub(crate) tasks: Vec<Arc<Captured>>,
    /// The capture's streams, the origin first (key: the stream's
    /// address), each with the index of its last task.
    members: Vec<(usize, Weak<Stream>, Option<usize>)>,
    /// Records (task indices) that a stream of the capture waited for.
    waited: HashSet<usize>,
    /// Task groups open on a stream (by key): their launches so far.
    open_groups: HashMap<usize, Vec<usize>>,
    /// Closed task groups.
    pub(crate) groups: Vec<Group>,
    /// The stream (key) each task was submitted to, by task index.
    pub(crate) task_stream: Vec<usize>,
    /// A built model's bindings (`None`: made by capture).
    pub(crate) built: Option<Built>,
}

/// A model (`aclmdlRI`) made by capture.
pub struct Model {
    /// The device of the stream that began the capture.
    pub device: u32,
    /// The capture's mode.
    pub mode: Mode,
    /// The thread that began the capture.
    pub thread: ThreadId,
    /// The stream that began the capture (its key).
    origin: usize,
    pub(crate) st: Mutex<ModelState>,
    /// Replays queued and not yet finished.
    running: Mutex<u64>,
    finished: Condvar,
    /// The stream `aclmdlRIExecute` runs it on (made on first use).
    pub(crate) exec_stream: Mutex<Option<Arc<Stream>>>,
    /// Process-unique model id (`aclmdlRIDebugPrint`).
    pub id: u64,
}

fn key(s: &Stream) -> usize {
    Arc::as_ptr(&s.shared) as usize
}

fn refused(code: i32, message: String) -> Fault {
    Fault { code, message }
}

/// Every capture in progress: (model id, mode, beginning thread).
static ACTIVE: Mutex<Vec<(u64, Mode, ThreadId)>> = Mutex::new(Vec::new());
static NEXT_MODEL: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static EXCHANGE: Cell<Mode> = const { Cell::new(Mode::Global) };
}

/// `aclmdlRICaptureThreadExchangeMode`: sets the calling thread's mode,
/// returns the previous one.
pub fn exchange_mode(m: Mode) -> Mode {
    EXCHANGE.with(|c| c.replace(m))
}

/// Whether the calling thread may make an unsafe call now (CANN's rule:
/// its exchange mode RELAXED always may; GLOBAL may not while any capture
/// is GLOBAL or the thread began a THREAD_LOCAL one; THREAD_LOCAL may not
/// while the thread began a GLOBAL or THREAD_LOCAL capture).
fn unsafe_allowed() -> Result<(), String> {
    let active = lock(&ACTIVE);
    if active.is_empty() {
        return Ok(());
    }
    let me = std::thread::current().id();
    let exchange = EXCHANGE.with(Cell::get);
    let global = active.iter().any(|(_, m, _)| *m == Mode::Global);
    let mine: Vec<Mode> = active
        .iter()
        .filter(|(_, _, t)| *t == me)
        .map(|(_, m, _)| *m)
        .collect();
    let mine_strict = mine.iter().any(|m| *m != Mode::Relaxed);
    let refused = match exchange {
        Mode::Relaxed => false,
        Mode::Global => global || mine.contains(&Mode::ThreadLocal),
        Mode::ThreadLocal => mine_strict,
    };
    if refused {
        Err(format!(
            "a capture is in progress (modes of the captures: {:?}; this thread's exchange mode \
             {exchange:?}): the operation is allowed only in RELAXED mode \
             (aclmdlRICaptureThreadExchangeMode)",
            active.iter().map(|(_, m, _)| *m).collect::<Vec<_>>()
        ))
    } else {
        Ok(())
    }
}

/// An unsafe synchronous call (`aclrtMemset`, `aclrtMemcpy`): refused with
/// `ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT` where the capture modes forbid
/// it.
pub(crate) fn check_unsafe_call(api: &str) -> Result<(), i32> {
    unsafe_allowed().map_err(|why| {
        crate::abi::fail(
            ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
            format!("npu-sim: {api}: {why}"),
        )
    })
}

/// An asynchronous copy with a pageable host end, which CANN turns into a
/// stream synchronisation and a synchronous copy: on a capturing stream
/// the synchronisation is `ACL_ERROR_RT_STREAM_CAPTURED`; elsewhere, where
/// the capture modes forbid the synchronous copy,
/// `ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`.
pub(crate) fn check_pageable_async(s: &Stream, api: &str) -> Result<(), i32> {
    if lock(&s.shared.q).capture.is_some() {
        return Err(crate::abi::fail(
            ACL_ERROR_RT_STREAM_CAPTURED,
            format!(
                "npu-sim: {api}: a host end is not aclrtMallocHost memory, so the copy becomes a \
                 stream synchronisation and a synchronous copy; the stream is being captured \
                 (use page-locked host memory)"
            ),
        ));
    }
    unsafe_allowed().map_err(|why| {
        crate::abi::fail(
            ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
            format!(
                "npu-sim: {api}: a host end is not aclrtMallocHost memory, so the copy becomes \
                 synchronous: {why}"
            ),
        )
    })
}

impl Model {
    /// Whether it is being captured (or was, and is invalidated).
    pub fn capturing(&self) -> bool {
        lock(&self.st).phase != Phase::Ready
    }

    /// Its phase.
    pub fn phase(&self) -> Phase {
        lock(&self.st).phase
    }

    /// Marks the capture spoiled (`aclmdlRICaptureEnd` will fail).
    pub(crate) fn invalidate(&self) {
        let mut st = lock(&self.st);
        if st.phase == Phase::Capturing {
            st.phase = Phase::Invalidated;
        }
    }

    /// Records `task` submitted to member stream `s` (called under `s`'s
    /// queue lock). Only launches may be submitted while a task group is
    /// open on the stream.
    pub(crate) fn record(&self, s: usize, task: Arc<Captured>) -> Result<usize, Fault> {
        let mut st = lock(&self.st);
        match st.phase {
            Phase::Capturing | Phase::Building => {}
            Phase::Invalidated => {
                return Err(refused(
                    ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                    format!(
                        "npu-sim: {}: the stream's capture was invalidated by an earlier \
                         unsupported operation; end it (aclmdlRICaptureEnd fails) and capture again",
                        task.what()
                    ),
                ))
            }
            Phase::Ready => {
                return Err(refused(
                    ACL_ERROR_RT_INTERNAL_ERROR,
                    "npu-sim: internal: a task reached a finished capture".into(),
                ))
            }
        }
        let grouped = st.open_groups.contains_key(&s);
        if grouped && !task.is_launch() {
            return Err(refused(
                ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT,
                format!(
                    "npu-sim: {}: only single-operator launches (aclnn second phases) may be \
                     submitted between aclmdlRICaptureTaskGrpBegin and aclmdlRICaptureTaskGrpEnd",
                    task.what()
                ),
            ));
        }
        if st.built.as_ref().is_some_and(|b| b.ended.contains(&s)) {
            return Err(refused(
                ACL_ERROR_RT_STREAM_MODEL,
                format!(
                    "npu-sim: {}: the stream's task list was closed by aclmdlRIEndTask",
                    task.what()
                ),
            ));
        }
        let i = st.tasks.len();
        st.tasks.push(task);
        st.task_stream.push(s);
        if let Some(g) = st.open_groups.get_mut(&s) {
            g.push(i);
        }
        if let Some(m) = st.members.iter_mut().find(|m| m.0 == s) {
            m.2 = Some(i);
        }
        Ok(i)
    }

    /// Replays queued and not yet finished.
    pub fn running(&self) -> u64 {
        *lock(&self.running)
    }

    /// Waits until no replay is pending, at most `limit`; whether none is.
    pub fn wait_idle(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut n = lock(&self.running);
        while *n > 0 {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            n = self
                .finished
                .wait_timeout(n, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// A snapshot of its tasks (what a replay runs).
    pub(crate) fn snapshot(&self) -> Vec<Arc<Captured>> {
        lock(&self.st).tasks.clone()
    }

    /// Task `i` as it is now (a task group's launch may have been updated).
    pub(crate) fn task(&self, i: usize) -> Arc<Captured> {
        lock(&self.st).tasks[i].clone()
    }

    /// The indices of the tasks of its task groups.
    pub(crate) fn grouped(&self) -> std::collections::HashSet<usize> {
        lock(&self.st)
            .groups
            .iter()
            .flat_map(|g| g.tasks.iter().copied())
            .collect()
    }

    /// Tracks one replay in flight: the returned guard ends it when
    /// dropped (after the replay's last task, or when its stream discards
    /// it).
    pub(crate) fn start_replay(self: &Arc<Self>) -> ReplayGuard {
        *lock(&self.running) += 1;
        ReplayGuard(self.clone())
    }
}

/// One replay in flight (see [`Model::start_replay`]).
pub(crate) struct ReplayGuard(Arc<Model>);

impl Drop for ReplayGuard {
    fn drop(&mut self) {
        let mut n = lock(&self.0.running);
        *n = n.saturating_sub(1);
        drop(n);
        self.0.finished.notify_all();
    }
}

/// The capture status of a stream (`aclmdlRICaptureGetInfo`).
pub fn status_of(s: &Stream) -> (aclmdlRICaptureStatus, Option<Arc<Model>>) {
    let m = lock(&s.shared.q).capture.clone();
    match m {
        None => (
            aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE,
            None,
        ),
        Some(m) => {
            let st = match m.phase() {
                Phase::Invalidated => {
                    aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                }
                _ => aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
            };
            (st, Some(m))
        }
    }
}

/// `aclmdlRICaptureBegin`: `s` starts capturing into a new model.
pub fn begin(s: &Arc<Stream>, mode: Mode) -> Result<Arc<Model>, Fault> {
    let mut q = lock(&s.shared.q);
    if q.capture.is_some() {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURED,
            "npu-sim: aclmdlRICaptureBegin: the stream is already being captured (begun on it, \
             or joined through an event)"
                .into(),
        ));
    }
    if q.update.is_some() {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureBegin: the stream is between aclmdlRICaptureTaskUpdateBegin \
             and aclmdlRICaptureTaskUpdateEnd"
                .into(),
        ));
    }
    let id = NEXT_MODEL.fetch_add(1, Ordering::Relaxed);
    let k = key(s);
    let m = Arc::new(Model {
        device: s.device,
        mode,
        thread: std::thread::current().id(),
        origin: k,
        st: Mutex::new(ModelState {
            phase: Phase::Capturing,
            tasks: Vec::new(),
            members: vec![(k, Arc::downgrade(s), None)],
            waited: HashSet::new(),
            open_groups: HashMap::new(),
            groups: Vec::new(),
            task_stream: Vec::new(),
            built: None,
        }),
        running: Mutex::new(0),
        finished: Condvar::new(),
        exec_stream: Mutex::new(None),
        id,
    });
    q.capture = Some(m.clone());
    lock(&ACTIVE).push((id, mode, m.thread));
    Ok(m)
}

/// Detaches every stream of `m`'s capture and ends the capture's mode
/// restrictions.
fn detach(m: &Model) {
    let members: Vec<Weak<Stream>> = lock(&m.st).members.iter().map(|x| x.1.clone()).collect();
    for w in members {
        if let Some(s) = w.upgrade() {
            let mut q = lock(&s.shared.q);
            if q.capture.as_ref().is_some_and(|c| c.id == m.id) {
                q.capture = None;
            }
        }
    }
    lock(&ACTIVE).retain(|(id, _, _)| *id != m.id);
    // Events whose latest record is a captured one are back to their
    // state before the capture.
    let st = lock(&m.st);
    for t in &st.tasks {
        if let Captured::Record(ev, _) = &**t {
            ev.clear_capture_mark(m.id);
        }
    }
}

/// `aclmdlRICaptureEnd`: ends the capture that `s` began; the model, or
/// the documented status (the capture is ended either way, except on a
/// stream that did not begin it).
pub fn end(s: &Arc<Stream>) -> Result<Arc<Model>, Fault> {
    let m = lock(&s.shared.q).capture.clone();
    let Some(m) = m else {
        return Err(refused(
            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "npu-sim: aclmdlRICaptureEnd: the stream is not being captured: call \
             aclmdlRICaptureBegin on it first"
                .into(),
        ));
    };
    if m.origin != key(s) {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
            "npu-sim: aclmdlRICaptureEnd: the capture was not begun on this stream (it joined \
             through an event); end it on the stream that began it"
                .into(),
        ));
    }
    detach(&m);
    if m.mode != Mode::Relaxed && m.thread != std::thread::current().id() {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
            format!(
                "npu-sim: aclmdlRICaptureEnd: a capture begun in {:?} mode must end on the thread \
                 that began it (the capture is discarded)",
                m.mode
            ),
        ));
    }
    let mut st = lock(&m.st);
    if st.phase == Phase::Invalidated {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
            "npu-sim: aclmdlRICaptureEnd: an unsupported operation invalidated the capture; no \
             model was made"
                .into(),
        ));
    }
    if !st.open_groups.is_empty() {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureEnd: a task group is still open \
             (aclmdlRICaptureTaskGrpBegin without aclmdlRICaptureTaskGrpEnd); no model was made"
                .into(),
        ));
    }
    for (k, _, last) in &st.members {
        if *k == m.origin {
            continue;
        }
        let joined = last.is_some_and(|i| {
            matches!(&*st.tasks[i], Captured::Record(_, false)) && st.waited.contains(&i)
        });
        if !joined {
            return Err(refused(
                ACL_ERROR_RT_STREAM_UNJOINED,
                "npu-sim: aclmdlRICaptureEnd: a stream joined the capture (it waited for an event \
                 recorded in it) but did not rejoin: its last task must be an event record that \
                 a stream of the capture waits for; no model was made"
                    .into(),
            ));
        }
    }
    st.phase = Phase::Ready;
    st.members.clear();
    st.waited.clear();
    drop(st);
    Ok(m)
}

/// Discards `m`'s capture (its stream is destroyed mid-capture, or the
/// model goes away): the streams leave it, it is invalidated.
pub(crate) fn abandon(m: &Model) {
    m.invalidate();
    detach(m);
}

/// A stream's wait for `ev` (`aclrtStreamWaitEvent`; `external`:
/// `ACL_EVENT_WAIT_EXTERNAL`), as capture sees it: `Ok(true)` when the wait
/// was absorbed by a capture (joined, internal, or captured as an external
/// wait), `Ok(false)` when it is an ordinary wait.
/// Whether `s` is being captured (or bound to a model being built).
pub(crate) fn capturing(s: &Stream) -> bool {
    lock(&s.shared.q).capture.is_some()
}

pub(crate) fn wait_event(s: &Arc<Stream>, ev: &Arc<Event>, external: bool) -> Result<bool, Fault> {
    let mark = ev.capture_mark();
    let mut q = lock(&s.shared.q);
    let mine = q.capture.clone();
    match (mine, mark) {
        (None, _) if external => Err(refused(
            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "npu-sim: aclrtStreamWaitEventWithFlag: ACL_EVENT_WAIT_EXTERNAL needs a stream being \
             captured (aclmdlRICaptureBegin)"
                .into(),
        )),
        (None, None) => Ok(false),
        // A stream outside a built model does not join it: the record is
        // a task of the model, not yet a record, so this is an ordinary
        // wait.
        (None, Some((m, _))) if m.is_built() => Ok(false),
        (None, Some((m, i))) => {
            // The stream joins the capture that recorded the event.
            if q.update.is_some() {
                return Err(refused(
                    ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                    "npu-sim: aclrtStreamWaitEvent: the stream is updating a task group and \
                     cannot join a capture"
                        .into(),
                ));
            }
            let mut st = lock(&m.st);
            st.waited.insert(i);
            st.members.push((key(s), Arc::downgrade(s), None));
            drop(st);
            q.capture = Some(m);
            Ok(true)
        }
        (Some(c), _) if external => {
            drop(q);
            let _ = c;
            capture_task(s, Captured::WaitExternal(ev.clone())).map(|()| true)
        }
        (Some(c), Some((m, i))) if c.id == m.id => {
            lock(&m.st).waited.insert(i);
            Ok(true)
        }
        // A bound stream of a built model waiting for an event recorded
        // outside it: a wait task of the model, a real wait when it runs.
        (Some(c), None) if c.is_built() => {
            drop(q);
            capture_task(s, Captured::WaitExternal(ev.clone())).map(|()| true)
        }
        (Some(_), Some(_)) => Err(refused(
            ACL_ERROR_RT_CAPTURE_DEPENDENCY,
            "npu-sim: aclrtStreamWaitEvent: the event was recorded in another capture".into(),
        )),
        (Some(_), None) => Err(refused(
            ACL_ERROR_RT_CAPTURE_DEPENDENCY,
            "npu-sim: aclrtStreamWaitEvent: the stream is being captured and the event's latest \
             record is not part of the capture (the wait has no record in the model); record it \
             in the capture, or wait with ACL_EVENT_WAIT_EXTERNAL"
                .into(),
        )),
    }
}

/// Records `task` if `s` is capturing: `Ok(())` when captured, `Err` with
/// the refusal; panics never. Use [`try_capture`] to fall through when the
/// stream is not capturing.
fn capture_task(s: &Stream, task: Captured) -> Result<(), Fault> {
    match try_capture(s, task) {
        Ok(None) => Ok(()),
        Ok(Some(_)) => Err(refused(
            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "npu-sim: the stream's capture ended meanwhile".into(),
        )),
        Err(f) => Err(f),
    }
}

/// If `s` is capturing, records `task` (`Ok(None)`); else gives it back.
pub(crate) fn try_capture(s: &Stream, task: Captured) -> Result<Option<Captured>, Fault> {
    let q = lock(&s.shared.q);
    match &q.capture {
        Some(m) => m.record(key(s), Arc::new(task)).map(|_| None),
        None => Ok(Some(task)),
    }
}

/// An event record on `s` while it captures (under its queue lock, from
/// [`Event::record`]): the record becomes a task of the model, and the
/// event's latest record is that task (streams waiting for it join the
/// capture). `external`: `ACL_EVENT_RECORD_EXTERNAL` (not a capture
/// dependency: the event stays as it was outside).
pub(crate) fn record_event(
    m: &Arc<Model>,
    s: &Stream,
    ev: &Arc<Event>,
    external: bool,
) -> Result<(), Fault> {
    let i = m.record(key(s), Arc::new(Captured::Record(ev.clone(), external)))?;
    if !external {
        ev.set_capture_mark(Arc::downgrade(m), m.id, i);
    }
    Ok(())
}

/// `aclmdlRICaptureTaskGrpBegin`.
pub fn group_begin(s: &Stream) -> Result<(), Fault> {
    let q = lock(&s.shared.q);
    let Some(m) = &q.capture else {
        return Err(refused(
            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "npu-sim: aclmdlRICaptureTaskGrpBegin: the stream is not being captured".into(),
        ));
    };
    let mut st = lock(&m.st);
    if st.open_groups.contains_key(&key(s)) {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureTaskGrpBegin: a task group is already open on the stream"
                .into(),
        ));
    }
    st.open_groups.insert(key(s), Vec::new());
    Ok(())
}

/// `aclmdlRICaptureTaskGrpEnd`: the model and the group's index.
pub fn group_end(s: &Stream) -> Result<(Arc<Model>, usize), Fault> {
    let q = lock(&s.shared.q);
    let Some(m) = q.capture.clone() else {
        return Err(refused(
            ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "npu-sim: aclmdlRICaptureTaskGrpEnd: the stream is not being captured".into(),
        ));
    };
    let mut st = lock(&m.st);
    let Some(tasks) = st.open_groups.remove(&key(s)) else {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureTaskGrpEnd: no task group is open on the stream \
             (aclmdlRICaptureTaskGrpBegin first, on the same stream)"
                .into(),
        ));
    };
    st.groups.push(Group { tasks });
    let g = st.groups.len() - 1;
    drop(st);
    Ok((m, g))
}

/// A stream between `aclmdlRICaptureTaskUpdateBegin` and `...End`: the
/// launches submitted meanwhile, which replace the group's at the end.
pub(crate) struct Update {
    model: Arc<Model>,
    group: usize,
    launches: Vec<Launch>,
    expected: usize,
}

impl Update {
    /// Takes a launch submitted during the update (more than the group
    /// holds: the task group update error, as CANN's).
    pub(crate) fn push(&mut self, l: Launch) -> Result<(), Fault> {
        if self.launches.len() >= self.expected {
            return Err(refused(
                ACL_ERROR_RT_INTERNAL_ERROR,
                format!(
                    "npu-sim: {}: task group update error: the group holds {} launch(es); this is \
                     launch {} of the update",
                    l.op(),
                    self.expected,
                    self.launches.len() + 1
                ),
            ));
        }
        self.launches.push(l);
        Ok(())
    }
}

/// `aclmdlRICaptureTaskUpdateBegin`: `s` (not capturing) collects the
/// launches that replace group `g` of `m`.
pub fn update_begin(s: &Stream, m: Arc<Model>, g: usize) -> Result<(), Fault> {
    let mut q = lock(&s.shared.q);
    if q.capture.is_some() {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURED,
            "npu-sim: aclmdlRICaptureTaskUpdateBegin: the stream is being captured; update on a \
             stream that is not"
                .into(),
        ));
    }
    if q.update.is_some() {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureTaskUpdateBegin: the stream is already updating a task group"
                .into(),
        ));
    }
    let st = lock(&m.st);
    if st.phase != Phase::Ready {
        return Err(refused(
            ACL_ERROR_RT_MODEL_CAPTURED,
            "npu-sim: aclmdlRICaptureTaskUpdateBegin: the group's model is still being captured"
                .into(),
        ));
    }
    let expected = st.groups.get(g).map_or(0, |g| g.tasks.len());
    drop(st);
    q.update = Some(Update {
        model: m,
        group: g,
        launches: Vec::new(),
        expected,
    });
    Ok(())
}

/// `aclmdlRICaptureTaskUpdateEnd`: the collected launches replace the
/// group's (same count, same operators, in order), for every replay that
/// reaches the group from now on (one queued earlier and still waiting
/// before the group runs the new launches, as on the device); a mismatch
/// changes nothing.
pub fn update_end(s: &Stream) -> Result<(), Fault> {
    let u = lock(&s.shared.q).update.take();
    let Some(u) = u else {
        return Err(refused(
            ACL_ERROR_STREAM_TASK_GROUP_STATUS,
            "npu-sim: aclmdlRICaptureTaskUpdateEnd: the stream is not updating a task group \
             (aclmdlRICaptureTaskUpdateBegin first, on the same stream)"
                .into(),
        ));
    };
    let mut st = lock(&u.model.st);
    let idx = st
        .groups
        .get(u.group)
        .map(|g| g.tasks.clone())
        .unwrap_or_default();
    if idx.len() != u.launches.len() {
        return Err(refused(
            ACL_ERROR_RT_INTERNAL_ERROR,
            format!(
                "npu-sim: aclmdlRICaptureTaskUpdateEnd: task group update error: the group holds \
                 {} launch(es), the update launched {}; the group is unchanged",
                idx.len(),
                u.launches.len()
            ),
        ));
    }
    for (&i, l) in idx.iter().zip(&u.launches) {
        let old = match &*st.tasks[i] {
            Captured::Launch(o) => o.op(),
            _ => "?",
        };
        if old != l.op() {
            return Err(refused(
                ACL_ERROR_RT_INTERNAL_ERROR,
                format!(
                    "npu-sim: aclmdlRICaptureTaskUpdateEnd: task group update error: task {i} of \
                     the model is {old}, the update launched {}; the group is unchanged",
                    l.op()
                ),
            ));
        }
    }
    for (i, l) in idx.into_iter().zip(u.launches) {
        st.tasks[i] = Arc::new(Captured::Launch(l));
    }
    Ok(())
}

/// Takes a launch if `q` is updating a task group (`Ok(None)`), else
/// gives it back.
pub(crate) fn try_update(u: &mut Option<Update>, l: Launch) -> Result<Option<Launch>, Fault> {
    match u {
        Some(u) => u.push(l).map(|()| None),
        None => Ok(Some(l)),
    }
}

/// The control flow of one replay of a model with switches: per stream
/// (key), the label it is jumping to (its tasks are skipped until the
/// label).
#[derive(Default)]
pub(crate) struct Flow {
    skip: Mutex<HashMap<usize, usize>>,
}

impl Flow {
    /// Runs task `t` of stream `k` in this replay (or skips it).
    pub(crate) fn run(
        &self,
        k: usize,
        t: &Captured,
        pool: &crate::cores::Cores,
    ) -> Result<(), Fault> {
        let mut skip = lock(&self.skip);
        match t {
            Captured::Label(id) => {
                if skip.get(&k) == Some(id) {
                    skip.remove(&k);
                }
                Ok(())
            }
            _ if skip.contains_key(&k) => Ok(()),
            Captured::Switch(sw) => {
                let target = sw.target()?;
                skip.insert(k, target);
                Ok(())
            }
            Captured::Host(f) => {
                drop(skip);
                f();
                Ok(())
            }
            other => {
                drop(skip);
                other.run(pool)
            }
        }
    }
}

/// Stream key -> (stream, id of the built model it is bound to).
static BOUND: Mutex<Vec<(usize, Weak<Stream>, u64)>> = Mutex::new(Vec::new());

fn bound_model(s: &Arc<Stream>) -> Option<u64> {
    let mut b = lock(&BOUND);
    b.retain(|(_, w, _)| w.strong_count() > 0);
    b.iter()
        .find(|(k, w, _)| *k == key(s) && w.upgrade().is_some_and(|x| Arc::ptr_eq(&x, s)))
        .map(|x| x.2)
}

/// `aclmdlRIBuildBegin`: a new model being built on `device`.
pub fn build_begin(device: u32) -> Arc<Model> {
    Arc::new(Model {
        device,
        mode: Mode::Relaxed,
        thread: std::thread::current().id(),
        origin: 0,
        st: Mutex::new(ModelState {
            phase: Phase::Building,
            tasks: Vec::new(),
            members: Vec::new(),
            waited: HashSet::new(),
            open_groups: HashMap::new(),
            groups: Vec::new(),
            task_stream: Vec::new(),
            built: Some(Built::default()),
        }),
        running: Mutex::new(0),
        finished: Condvar::new(),
        exec_stream: Mutex::new(None),
        id: NEXT_MODEL.fetch_add(1, Ordering::Relaxed),
    })
}

impl Model {
    /// Whether it was made by `aclmdlRIBuildBegin`.
    pub fn is_built(&self) -> bool {
        lock(&self.st).built.is_some()
    }

    /// Whether a replay needs control flow (it has a switch).
    pub(crate) fn flow(&self) -> Option<(Arc<Flow>, Vec<usize>)> {
        let st = lock(&self.st);
        st.tasks
            .iter()
            .any(|t| matches!(&**t, Captured::Switch(_)))
            .then(|| (Arc::new(Flow::default()), st.task_stream.clone()))
    }
}

/// `aclmdlRIBindStream`: `s`'s tasks are recorded into `m` until
/// `aclmdlRIBuildEnd`.
pub fn bind(m: &Arc<Model>, s: &Arc<Stream>, flag: u32) -> Result<(), Fault> {
    let api = "aclmdlRIBindStream";
    if let Some(id) = bound_model(s) {
        return Err(refused(
            ACL_ERROR_RT_STREAM_MODEL,
            if id == m.id {
                format!("npu-sim: {api}: the stream is already bound to this model")
            } else {
                format!(
                    "npu-sim: {api}: the stream is bound to another model (one stream cannot be \
                     bound to several models); aclmdlRIUnbindStream it first"
                )
            },
        ));
    }
    let mut q = lock(&s.shared.q);
    if q.capture.is_some() || q.update.is_some() {
        return Err(refused(
            ACL_ERROR_RT_STREAM_CAPTURED,
            format!("npu-sim: {api}: the stream is being captured or is updating a task group"),
        ));
    }
    let mut st = lock(&m.st);
    if st.phase != Phase::Building {
        return Err(refused(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "npu-sim: {api}: the model is not being built (bind between aclmdlRIBuildBegin \
                 and aclmdlRIBuildEnd)"
            ),
        ));
    }
    let Some(b) = st.built.as_mut() else {
        return Err(refused(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("npu-sim: {api}: the model was made by capture, not by aclmdlRIBuildBegin"),
        ));
    };
    b.bound.push((key(s), Arc::downgrade(s), flag));
    drop(st);
    q.capture = Some(m.clone());
    lock(&BOUND).push((key(s), Arc::downgrade(s), m.id));
    Ok(())
}

/// `aclmdlRIUnbindStream`: `s` leaves `m` (its recorded tasks stay).
pub fn unbind(m: &Arc<Model>, s: &Arc<Stream>) -> Result<(), Fault> {
    if bound_model(s) != Some(m.id) {
        return Err(refused(
            ACL_ERROR_RT_STREAM_MODEL,
            "npu-sim: aclmdlRIUnbindStream: the stream is not bound to this model \
             (aclmdlRIBindStream first)"
                .into(),
        ));
    }
    let mut q = lock(&s.shared.q);
    if q.capture.as_ref().is_some_and(|c| c.id == m.id) {
        q.capture = None;
    }
    let mut st = lock(&m.st);
    if let Some(b) = st.built.as_mut() {
        b.bound.retain(|x| x.0 != key(s));
        b.ended.remove(&key(s));
    }
    drop(st);
    drop(q);
    lock(&BOUND).retain(|x| x.0 != key(s));
    Ok(())
}

/// Records a control task (`aclrtSetLabel`, `aclrtSwitchLabelByIndex`,
/// `aclmdlRIEndTask`) on `s`, which must be bound to a model being built
/// (`want`: that model).
pub(crate) fn record_control(
    s: &Arc<Stream>,
    want: Option<&Arc<Model>>,
    task: Captured,
) -> Result<Arc<Model>, Fault> {
    let what = task.what();
    let q = lock(&s.shared.q);
    let m = match &q.capture {
        Some(m) if m.is_built() && m.phase() == Phase::Building => m.clone(),
        _ => {
            return Err(refused(
                ACL_ERROR_RT_STREAM_MODEL,
                format!(
                    "npu-sim: {what}: the stream is not bound to a model being built \
                     (aclmdlRIBuildBegin, aclmdlRIBindStream; labels and switches exist only in \
                     built models)"
                ),
            ))
        }
    };
    if let Some(w) = want {
        if w.id != m.id {
            return Err(refused(
                ACL_ERROR_RT_STREAM_MODEL,
                format!("npu-sim: {what}: the stream is bound to another model"),
            ));
        }
    }
    let end = matches!(task, Captured::EndTask);
    m.record(key(s), Arc::new(task))?;
    if end {
        if let Some(b) = lock(&m.st).built.as_mut() {
            b.ended.insert(key(s));
        }
    }
    Ok(m)
}

/// `aclmdlRIBuildEnd`: checks the switches (each label of a switch's list
/// is set later on the switch's own stream), detaches the bound streams
/// (they stay bound) and makes the model runnable.
pub fn build_end(m: &Arc<Model>) -> Result<(), Fault> {
    let api = "aclmdlRIBuildEnd";
    let bound = {
        let st = lock(&m.st);
        let Some(b) = &st.built else {
            return Err(refused(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: the model was made by capture, not aclmdlRIBuildBegin"),
            ));
        };
        if st.phase != Phase::Building {
            return Err(refused(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("npu-sim: {api}: the model is already built (aclmdlRIBuildEnd twice)"),
            ));
        }
        for (i, t) in st.tasks.iter().enumerate() {
            let Captured::Switch(sw) = &**t else { continue };
            let k = st.task_stream[i];
            let n = (sw.max as usize).min(sw.labels.len());
            for &l in &sw.labels[..n] {
                let at = st
                    .tasks
                    .iter()
                    .enumerate()
                    .find(|(_, x)| matches!(&***x, Captured::Label(y) if *y == l))
                    .map(|(j, _)| j);
                match at {
                    Some(j) if j > i && st.task_stream[j] == k => {}
                    Some(_) => {
                        return Err(refused(
                            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            format!(
                                "npu-sim: {api}: switch task {i} may jump to a label set on \
                                 another stream or before the switch; the simulator runs only \
                                 forward jumps within the switch's stream"
                            ),
                        ))
                    }
                    None => {
                        return Err(refused(
                            ACL_ERROR_RT_PARAM_INVALID,
                            format!(
                                "npu-sim: {api}: switch task {i} may jump to a label that is not \
                                 set in this model (aclrtSetLabel on a bound stream)"
                            ),
                        ))
                    }
                }
            }
        }
        b.bound.clone()
    };
    for (_, w, _) in bound {
        if let Some(s) = w.upgrade() {
            let mut q = lock(&s.shared.q);
            if q.capture.as_ref().is_some_and(|c| c.id == m.id) {
                q.capture = None;
            }
        }
    }
    let mut st = lock(&m.st);
    // Events recorded in the model are back to their state before it.
    for t in &st.tasks {
        if let Captured::Record(ev, _) = &**t {
            ev.clear_capture_mark(m.id);
        }
    }
    st.phase = Phase::Ready;
    Ok(())
}

/// Detaches a built model's streams (it is destroyed, or its device
/// reset): they are no longer bound.
pub(crate) fn release_built(m: &Model) {
    let bound: Vec<Weak<Stream>> = match &lock(&m.st).built {
        Some(b) => b.bound.iter().map(|x| x.1.clone()).collect(),
        None => return,
    };
    for w in bound {
        if let Some(s) = w.upgrade() {
            let mut q = lock(&s.shared.q);
            if q.capture.as_ref().is_some_and(|c| c.id == m.id) {
                q.capture = None;
            }
        }
    }
    lock(&BOUND).retain(|x| x.2 != m.id);
}

/// A description of the model's tasks, by stream: (stream index, task
/// index within the stream, what).
pub fn describe(m: &Model) -> Vec<(usize, usize, &'static str)> {
    let st = lock(&m.st);
    let mut keys: Vec<usize> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for (i, t) in st.tasks.iter().enumerate() {
        let k = st.task_stream.get(i).copied().unwrap_or(0);
        let si = match keys.iter().position(|x| *x == k) {
            Some(p) => p,
            None => {
                keys.push(k);
                counts.push(0);
                keys.len() - 1
            }
        };
        out.push((si, counts[si], t.what()));
        counts[si] += 1;
    }
    out
}

/// The key of a stream (what a model's task list names it by).
pub(crate) fn stream_key(s: &Stream) -> usize {
    key(s)
}

/// A model's streams (`aclmdlRIGetStreams`), by key: a captured model's
/// origin stream first, then each other stream in the order of its first
/// task; a built model's bound streams in bind order, then any unbound
/// stream that left tasks.
pub(crate) fn stream_keys(m: &Model) -> Vec<usize> {
    let st = lock(&m.st);
    let mut keys: Vec<usize> = match &st.built {
        Some(b) => b.bound.iter().map(|x| x.0).collect(),
        None => vec![m.origin],
    };
    for &k in &st.task_stream {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

/// The kind of a captured task (`aclmdlRITaskGetType`).
fn task_type(t: &Captured) -> aclmdlRITaskType {
    match t {
        Captured::Launch(_) => aclmdlRITaskType::ACL_MODEL_RI_TASK_KERNEL,
        Captured::Record(..) => aclmdlRITaskType::ACL_MODEL_RI_TASK_EVENT_RECORD,
        Captured::WaitExternal(_) => aclmdlRITaskType::ACL_MODEL_RI_TASK_EVENT_WAIT,
        Captured::Reset(_) => aclmdlRITaskType::ACL_MODEL_RI_TASK_EVENT_RESET,
        _ => aclmdlRITaskType::ACL_MODEL_RI_TASK_DEFAULT,
    }
}

/// The tasks of the model's stream `k` (`aclmdlRIGetTasksByStream`): their
/// indices into the model's tasks, in the stream's order.
pub(crate) fn task_indices(m: &Model, k: usize) -> Vec<usize> {
    let st = lock(&m.st);
    (0..st.tasks.len())
        .filter(|&i| st.task_stream.get(i) == Some(&k))
        .collect()
}

/// Task `i` of the model: its type and its position on its stream
/// (`aclmdlRITaskGetType`, `aclmdlRITaskGetSeqId`), if it exists.
pub(crate) fn task_info(m: &Model, i: usize) -> Option<(aclmdlRITaskType, u32)> {
    let st = lock(&m.st);
    let t = st.tasks.get(i)?;
    let k = st.task_stream.get(i)?;
    let seq = st.task_stream[..i].iter().filter(|x| *x == k).count();
    Some((task_type(t), u32::try_from(seq).unwrap_or(u32::MAX)))
}
