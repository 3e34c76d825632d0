//! Streams (one worker thread each, tasks in order) and events.
//!
//! The hand-off is built for small launches: the queue holds tasks by value
//! (an operator launch is not boxed), the worker spins a little before it
//! parks, and an enqueue or a completion wakes a sleeper through the kernel
//! only when one is parked. Small work submitted to an idle stream runs at
//! once on the submitting thread ("inline"): nothing is queued before it,
//! so the order of the stream, its sticky fault and its events behave
//! exactly as if the worker had run it. [`set_strict_async`] (or
//! `NPU_SIM_STRICT_ASYNC=1`) sends everything through the worker, for
//! tests that hunt races.

pub mod capture;
mod event;

pub use event::{Event, EventKind};

use crate::work::{Fault, Launch, Memset, SendCopy};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What a task is, for the fault rule: after a fault, device work is skipped
/// until the fault is reported, but event records still complete so that
/// other streams are not blocked forever.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// A kernel or copy.
    Work,
    /// An event record or wait.
    Sync,
    /// A host function or callback (`aclrtLaunchHostFunc`,
    /// `aclrtLaunchCallback`): host work, so it runs after a fault too,
    /// unless the stream stops on failure (`ACL_STOP_ON_FAILURE`).
    Host,
}

type TaskFn = Box<dyn FnOnce() -> Result<(), Fault> + Send>;

/// Device work, held by value in the queue.
// By value on purpose: a launch is not boxed (no allocation per launch).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Job {
    /// An operator launch, run with the kernel pool.
    Launch(Launch, Arc<crate::cores::Cores>),
    /// An asynchronous copy (`aclrtMemcpyAsync`), by value.
    Copy(SendCopy, Arc<crate::cores::Cores>),
    /// An asynchronous fill (`aclrtMemsetAsync`), by value.
    Memset(Memset),
    /// A captured task of a model, replayed (`aclmdlRIExecuteAsync`).
    Replay(Arc<capture::Captured>, Arc<crate::cores::Cores>),
    /// A task of a model's task group, replayed: read from the model when
    /// the stream reaches it, so an update made meanwhile (before the
    /// replay gets there) is what runs, as on the device, where a model's
    /// tasks are updated in place.
    ReplayAt(Arc<capture::Model>, usize, Arc<crate::cores::Cores>),
    /// A task of a built model with labels, replayed under its replay's
    /// control flow (skipped while its stream jumps to a label).
    Gated(
        Arc<capture::Flow>,
        usize,
        Arc<capture::Captured>,
        Arc<crate::cores::Cores>,
    ),
    /// Anything else (a test gate).
    Closure(TaskFn),
}

impl Job {
    #[inline]
    fn run(self) -> Result<(), Fault> {
        // Device work runs in place, by reference (a launch is some 750
        // bytes: moving it into the closure would copy it); the job is
        // dropped after.
        let r = match &self {
            Job::Launch(l, pool) => guarded(|| l.run(pool)),
            Job::Copy(c, pool) => guarded(|| c.run(pool)),
            Job::Memset(m) => guarded(|| m.run("aclrtMemsetAsync")),
            Job::Replay(t, pool) => guarded(|| t.run(pool)),
            Job::ReplayAt(m, i, pool) => guarded(|| m.task(*i).run(pool)),
            Job::Gated(flow, k, t, pool) => guarded(|| flow.run(*k, t, pool)),
            Job::Closure(_) => match self {
                Job::Closure(f) => return guarded(f),
                _ => unreachable!("matched above"),
            },
        };
        drop(self);
        r
    }
}

/// Runs `f`, a panic becoming an internal-error fault.
fn guarded(f: impl FnOnce() -> Result<(), Fault>) -> Result<(), Fault> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Fault {
            code: cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
            message: crate::abi::internal_error("a stream task", &*p),
        })
    })
}

#[allow(clippy::large_enum_variant)]
enum Task {
    Job(TaskKind, Job),
    /// Completes `ticket` of the event with the stream's fault state.
    Record(Arc<Event>, u64),
    /// Waits for `ticket` of the event (at most the limit, then the
    /// stream faults with `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`).
    Wait(Arc<Event>, u64, Option<Duration>),
}

/// Work at most this size (bytes touched) may run inline on an idle
/// stream (`NPU_SIM_INLINE_BYTES` overrides; 0 turns inline work off).
pub const INLINE_BYTES: u64 = 4 << 20;

static STRICT: AtomicBool = AtomicBool::new(false);
static INLINE_LIMIT: AtomicU64 = AtomicU64::new(INLINE_BYTES);

/// Sends every task through its stream's worker thread (`true`), or lets
/// small work on an idle stream run on the submitting thread (`false`, the
/// default unless `NPU_SIM_STRICT_ASYNC=1`).
pub fn set_strict_async(on: bool) {
    STRICT.store(on, Ordering::Relaxed);
}

/// Whether every task goes through the worker ([`set_strict_async`]).
pub fn strict_async() -> bool {
    STRICT.load(Ordering::Relaxed)
}

/// Reads `NPU_SIM_STRICT_ASYNC` and `NPU_SIM_INLINE_BYTES` (at
/// initialisation).
pub(crate) fn configure_from_env() {
    if let Ok(v) = std::env::var("NPU_SIM_STRICT_ASYNC") {
        set_strict_async(matches!(v.trim(), "1" | "true" | "yes"));
    }
    if let Some(n) = std::env::var("NPU_SIM_INLINE_BYTES")
        .ok()
        .and_then(|v| crate::config::parse_size(&v))
    {
        INLINE_LIMIT.store(n, Ordering::Relaxed);
    }
}

fn may_inline(bytes: u64) -> bool {
    !STRICT.load(Ordering::Relaxed) && bytes <= INLINE_LIMIT.load(Ordering::Relaxed)
}

/// How long a worker spins for new work, and a host waiter for completion,
/// before sleeping in the kernel.
const SPIN: Duration = Duration::from_micros(50);

struct Queue {
    tasks: VecDeque<Task>,
    fault: Option<Fault>,
    shutdown: bool,
    /// The worker is asleep on `work`.
    parked: bool,
    /// Host threads asleep on `idle`.
    waiters: u32,
    /// A task is running (on the worker, or inline).
    running: bool,
    /// `aclrtSetStreamFailureMode` was called (CANN allows it once).
    mode_set: bool,
    /// `ACL_STOP_ON_FAILURE`: a fault is never cleared; every later task
    /// is skipped and every synchronisation reports it.
    stop_on_failure: bool,
    /// The model the stream captures into (began on it, or joined through
    /// an event): its submissions are recorded, not run.
    capture: Option<Arc<capture::Model>>,
    /// A task group update in progress on the stream: its launches are
    /// collected, not run.
    update: Option<capture::Update>,
}

struct Shared {
    /// The device of the stream (for its log reports).
    device: u32,
    q: Mutex<Queue>,
    /// Tasks submitted (queued or inline), and finished.
    enqueued: AtomicU64,
    done: AtomicU64,
    /// Tasks in `q.tasks` (read without the lock while spinning).
    queued: AtomicU64,
    /// `q.fault` is set (written under the lock, before the faulting task
    /// counts done): a synchronize that finds the work done and no fault
    /// returns without taking the lock.
    faulted: AtomicBool,
    /// Signals the worker (new task, shutdown, inline work finished).
    work: Condvar,
    /// Signals waiters (task done).
    idle: Condvar,
}

/// A stream: tasks run in order on its own worker thread (or inline, see
/// the module documentation).
pub struct Stream {
    /// The device it belongs to.
    pub device: u32,
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
    /// The gates of its holds not yet opened (a hold never outlives its
    /// stream: destroying the stream opens them), and whether it is being
    /// destroyed (a hold taken from then on is open at once: one taken by
    /// another thread while the destruction drains the stream must not
    /// make it wait forever).
    gates: Mutex<(bool, Vec<std::sync::Weak<Gate>>)>,
}

/// The gate of a [`Hold`]: a task that waits until it is opened.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    /// Lets the stream go on (idempotent).
    fn open(&self) {
        *lock(&self.open) = true;
        self.cv.notify_all();
    }

    /// Waits at most `d` for the gate to open; whether it is open.
    fn wait_for(&self, d: Duration) -> bool {
        let open = lock(&self.open);
        if *open {
            return true;
        }
        *self
            .cv
            .wait_timeout(open, d)
            .unwrap_or_else(|e| e.into_inner())
            .0
    }

    fn wait(&self) {
        let mut open = lock(&self.open);
        while !*open {
            open = self.cv.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A gate that keeps a stream from running further work until released
/// (a test hook: it makes "work is still pending" deterministic).
///
/// A hold never outlives its stream: destroying the stream
/// (`aclrtDestroyStream`, `aclrtResetDevice` releasing the device, or
/// `aclFinalize`) opens it, so a hold that is never released cannot make
/// the destruction wait forever.
pub struct Hold(Arc<Gate>);

impl Hold {
    /// Lets the stream go on.
    pub fn release(&self) {
        self.0.open();
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.release();
    }
}

static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Stream {
    /// Starts a stream on `device`.
    pub fn new(device: u32) -> Result<Stream, String> {
        let shared = Arc::new(Shared {
            device,
            q: Mutex::new(Queue {
                tasks: VecDeque::with_capacity(64),
                fault: None,
                shutdown: false,
                parked: false,
                waiters: 0,
                running: false,
                mode_set: false,
                stop_on_failure: false,
                capture: None,
                update: None,
            }),
            enqueued: AtomicU64::new(0),
            done: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            faulted: AtomicBool::new(false),
            work: Condvar::new(),
            idle: Condvar::new(),
        });
        let s2 = shared.clone();
        let n = NEXT_STREAM.fetch_add(1, Ordering::Relaxed);
        let (started, ready) = std::sync::mpsc::sync_channel::<()>(0);
        let worker = std::thread::Builder::new()
            .name(format!("npu-sim-stream-{n}"))
            .spawn(move || {
                let _ = started.send(());
                worker_loop(&s2)
            })
            .map_err(|e| format!("cannot start a stream worker: {e}"))?;
        // The stream exists once its worker runs (not merely was spawned).
        let _ = ready.recv();
        Ok(Stream {
            device,
            shared,
            worker: Mutex::new(Some(worker)),
            gates: Mutex::new((false, Vec::new())),
        })
    }

    /// Enqueues a gate: work enqueued after it waits until the returned
    /// [`Hold`] is released or dropped, or the stream destroyed
    /// ([`Stream::open_holds`]).
    pub(crate) fn hold(&self) -> Hold {
        let gate = self.gate();
        let g = gate.clone();
        self.enqueue(TaskKind::Sync, move || {
            g.wait();
            Ok(())
        });
        Hold(gate)
    }

    /// Registers a gate that the stream's destruction opens (open at once
    /// if the stream is being destroyed already).
    fn gate(&self) -> Arc<Gate> {
        let gate = Arc::new(Gate::default());
        let mut gates = lock(&self.gates);
        if gates.0 {
            gate.open();
        } else {
            gates.1.retain(|g| g.strong_count() > 0);
            gates.1.push(Arc::downgrade(&gate));
        }
        gate
    }

    /// Enqueues a task that blocks the stream until `poll` answers
    /// `Ok(true)` (`aclrtValueWait`): it polls, with a back-off from 20 µs
    /// up to 1 ms, and ends with `poll`'s fault if it gives one. The
    /// stream's destruction (plain or forced, a reset, `aclFinalize`)
    /// releases it, so a condition that never holds cannot make teardown
    /// hang.
    pub(crate) fn enqueue_wait_until(
        &self,
        mut poll: impl FnMut() -> Result<bool, Fault> + Send + 'static,
    ) {
        let gate = self.gate();
        self.enqueue(TaskKind::Sync, move || {
            let mut pause = Duration::from_micros(20);
            loop {
                if poll()? {
                    return Ok(());
                }
                if gate.wait_for(pause) {
                    // Released by the stream's destruction.
                    return Ok(());
                }
                pause = (pause * 2).min(Duration::from_millis(1));
            }
        });
    }

    /// Opens every gate of the stream's holds, and every later one (its
    /// destruction: a hold that is never released must not keep the
    /// stream from draining).
    pub(crate) fn open_holds(&self) {
        let gates = {
            let mut g = lock(&self.gates);
            g.0 = true;
            std::mem::take(&mut g.1)
        };
        for g in gates {
            if let Some(g) = g.upgrade() {
                g.open();
            }
        }
    }

    /// Appends a task; returns at once.
    pub fn enqueue(
        &self,
        kind: TaskKind,
        task: impl FnOnce() -> Result<(), Fault> + Send + 'static,
    ) {
        let q = lock(&self.shared.q);
        self.push(q, Task::Job(kind, Job::Closure(Box::new(task))));
    }

    /// Submits device work touching `bytes` bytes: run at once on this
    /// thread if the stream is idle and the work small, else queued. On a
    /// stream being captured the work is recorded into the model instead,
    /// and on one updating a task group a launch is collected; `Err` is
    /// the status of a submission capture refuses.
    pub(crate) fn submit(&self, job: Job, bytes: u64) -> Result<(), Fault> {
        let mut q = lock(&self.shared.q);
        if q.capture.is_none() && q.update.is_none() {
            return self.submit_now(q, job, bytes);
        }
        let job = match job {
            Job::Launch(l, pool) => match capture::try_update(&mut q.update, l)? {
                None => return Ok(()),
                Some(l) => Job::Launch(l, pool),
            },
            other => other,
        };
        let Some(m) = q.capture.clone() else {
            // Updating a task group: work other than launches runs.
            return self.submit_now(q, job, bytes);
        };
        let task = match job {
            Job::Launch(l, _) => Arc::new(capture::Captured::Launch(l)),
            Job::Copy(c, _) => Arc::new(capture::Captured::Copy(c)),
            Job::Memset(f) => Arc::new(capture::Captured::Memset(f)),
            // A replay on a capturing stream: its tasks join this model.
            Job::Replay(t, _) | Job::Gated(_, _, t, _) => t,
            Job::ReplayAt(m, i, _) => m.task(i),
            Job::Closure(_) => {
                return Err(Fault {
                    code: cann_sys::ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT,
                    message: "npu-sim: this task cannot be captured".into(),
                })
            }
        };
        // Under the queue lock: an End on another thread cannot slip in
        // between (lock order: queue, then model).
        m.record(Arc::as_ptr(&self.shared) as usize, task).map(drop)
    }

    fn submit_now(
        &self,
        mut q: std::sync::MutexGuard<'_, Queue>,
        job: Job,
        bytes: u64,
    ) -> Result<(), Fault> {
        if !(may_inline(bytes) && self.idle_locked(&q)) {
            self.push(q, Task::Job(TaskKind::Work, job));
            return Ok(());
        }
        // Nothing is queued or running: this is next in stream order.
        let faulted = q.fault.is_some();
        q.running = true;
        self.shared.enqueued.fetch_add(1, Ordering::Relaxed);
        drop(q);
        let result = if faulted {
            drop(job); // skipped: the stream already faulted
            Ok(())
        } else {
            job.run()
        };
        self.finish_inline(result);
        Ok(())
    }

    /// [`Stream::submit`] of an operator launch: when it may run inline,
    /// it runs where it is, by reference (a launch is some 750 bytes; the
    /// general path moves it into a job, and a queued one into the queue).
    /// Taken by `&mut`, not by value: passing it by value cost two copies
    /// of those bytes on the inline path. The launch is left empty either
    /// way (its regions, and the allocations they hold, are released
    /// before the work counts as done, as a queued job's are).
    #[inline(always)]
    pub(crate) fn submit_launch(
        &self,
        launch: &mut Launch,
        pool: &Arc<crate::cores::Cores>,
    ) -> Result<(), Fault> {
        let bytes = launch.bytes();
        let mut q = lock(&self.shared.q);
        if q.capture.is_some() || q.update.is_some() || !(may_inline(bytes) && self.idle_locked(&q))
        {
            drop(q);
            let owned = std::mem::replace(launch, Launch::new(launch.op()));
            return self.submit(Job::Launch(owned, pool.clone()), bytes);
        }
        // As `submit_now`'s inline path.
        let faulted = q.fault.is_some();
        q.running = true;
        self.shared.enqueued.fetch_add(1, Ordering::Relaxed);
        drop(q);
        let result = if faulted {
            Ok(()) // skipped: the stream already faulted
        } else {
            guarded(|| launch.run(pool))
        };
        // Its allocations are let go before the work counts as done (as a
        // queued job's are).
        launch.release();
        self.finish_inline(result);
        Ok(())
    }

    /// Marks inline work done with `result`.
    fn finish_inline(&self, result: Result<(), Fault>) {
        if let Err(f) = &result {
            // The device reports the fault to the host's log before the
            // stream counts the task done.
            crate::runtime::device_fault(self.device, &f.message);
        }
        let mut q = lock(&self.shared.q);
        if let Err(f) = result {
            q.fault.get_or_insert(f);
            self.shared.faulted.store(true, Ordering::Relaxed);
        }
        q.running = false;
        self.shared.done.fetch_add(1, Ordering::Release);
        let (wake_worker, wake_waiters) = (q.parked && !q.tasks.is_empty(), q.waiters > 0);
        drop(q);
        if wake_worker {
            self.shared.work.notify_one();
        }
        if wake_waiters {
            self.shared.idle.notify_all();
        }
    }

    /// Whether the stream is being captured (began a capture, or joined
    /// one through an event).
    pub fn capturing(&self) -> bool {
        lock(&self.shared.q).capture.is_some()
    }

    /// Whether the stream is being captured, and whether the model it is
    /// bound to is being built ([`Stream::capturing`],
    /// [`Stream::building`]) under one look at the queue: a synchronize
    /// asks both.
    pub fn capture_state(&self) -> (bool, bool) {
        let q = lock(&self.shared.q);
        let Some(m) = q.capture.clone() else {
            return (false, false);
        };
        drop(q);
        (true, m.is_built())
    }

    /// Whether the stream is bound to a model being built (its tasks are
    /// recorded, never queued).
    pub fn building(&self) -> bool {
        let m = lock(&self.shared.q).capture.clone();
        m.is_some_and(|m| m.is_built())
    }

    /// Enqueues a host function (`aclrtLaunchHostFunc`), or records it on
    /// a stream being captured (then it runs at every replay).
    pub(crate) fn submit_host(&self, f: capture::HostFn) -> Result<(), Fault> {
        let q = lock(&self.shared.q);
        if let Some(m) = &q.capture {
            let task = Arc::new(capture::Captured::Host(f));
            return m.record(Arc::as_ptr(&self.shared) as usize, task).map(drop);
        }
        self.push(
            q,
            Task::Job(
                TaskKind::Host,
                Job::Closure(Box::new(move || {
                    f();
                    Ok(())
                })),
            ),
        );
        Ok(())
    }

    /// Queues one replay of `tasks` (a model's, `aclmdlRIExecuteAsync`): a
    /// stream task per captured task, in order, through the same paths as
    /// direct work (device work is skipped after a fault, event records
    /// complete carrying it). `guard` ends when the replay has run (or is
    /// discarded). On a stream being captured the tasks join its model.
    pub(crate) fn replay(
        &self,
        model: &Arc<capture::Model>,
        tasks: &[Arc<capture::Captured>],
        flow: Option<(Arc<capture::Flow>, Vec<usize>)>,
        pool: &Arc<crate::cores::Cores>,
        guard: capture::ReplayGuard,
    ) -> Result<(), Fault> {
        let grouped = model.grouped();
        use capture::Captured as C;
        for (i, t) in tasks.iter().enumerate() {
            if let Some((flow, keys)) = &flow {
                // A model with switches: every task but the event
                // operations runs under the replay's control flow.
                if !matches!(&**t, C::Record(..) | C::WaitExternal(_) | C::Reset(_)) {
                    let bytes = match &**t {
                        C::Host(_) => u64::MAX, // queued, never inline
                        other => other.bytes(),
                    };
                    let k = keys.get(i).copied().unwrap_or(0);
                    self.submit(Job::Gated(flow.clone(), k, t.clone(), pool.clone()), bytes)?;
                    continue;
                }
            }
            match &**t {
                C::Label(_) | C::EndTask | C::Switch(_) => {}
                C::Launch(_) if grouped.contains(&i) => {
                    self.submit(Job::ReplayAt(model.clone(), i, pool.clone()), t.bytes())?
                }
                C::Launch(_) | C::Copy(_) | C::Memset(_) => {
                    self.submit(Job::Replay(t.clone(), pool.clone()), t.bytes())?
                }
                C::Host(f) => self.submit_host(f.clone())?,
                C::Record(ev, external) => ev.record_with(self, *external)?,
                C::WaitExternal(ev) => {
                    if capture::try_capture(self, C::WaitExternal(ev.clone()))?.is_some() {
                        ev.wait_on_replay(self);
                    }
                }
                C::Reset(ev) => ev.reset_on(self)?,
            }
        }
        self.enqueue(TaskKind::Sync, move || {
            drop(guard);
            Ok(())
        });
        Ok(())
    }

    fn idle_locked(&self, q: &Queue) -> bool {
        q.tasks.is_empty() && !q.running && !q.shutdown
    }

    fn push(&self, mut q: std::sync::MutexGuard<'_, Queue>, task: Task) {
        if q.shutdown {
            // The stream is being destroyed (by another thread, or by
            // aclFinalize / aclrtResetDevice): nothing will run this, so it
            // is skipped now, with a fault, instead of waited for forever.
            let fault = Fault {
                code: cann_sys::ACL_ERROR_RT_STREAM_ABORT,
                message: "npu-sim: work was enqueued on a stream being destroyed \
                          (aclrtDestroyStream, aclrtResetDevice or aclFinalize): skipped"
                    .into(),
            };
            q.fault.get_or_insert(fault.clone());
            self.shared.faulted.store(true, Ordering::Relaxed);
            self.shared.enqueued.fetch_add(1, Ordering::Relaxed);
            self.shared.done.fetch_add(1, Ordering::Release);
            drop(q);
            match task {
                Task::Record(ev, ticket) => ev.complete(ticket, Some(fault)),
                Task::Job(_, job) => drop(job),
                Task::Wait(..) => {}
            }
            return;
        }
        q.tasks.push_back(task);
        self.shared.enqueued.fetch_add(1, Ordering::Relaxed);
        self.shared.queued.fetch_add(1, Ordering::Release);
        let wake = q.parked;
        drop(q);
        if wake {
            self.shared.work.notify_one();
        }
    }

    /// Waits for every task submitted so far; returns (and clears) the first
    /// fault since the last synchronisation.
    pub fn synchronize(&self) -> Result<(), Fault> {
        self.synchronize_within(None)
    }

    /// [`Stream::synchronize`], giving up after `limit` (then
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`; the work stays queued and the
    /// stream's fault, if any, is kept).
    pub fn synchronize_within(&self, limit: Option<Duration>) -> Result<(), Fault> {
        let target = self.shared.enqueued.load(Ordering::Acquire);
        let reached = || self.shared.done.load(Ordering::Acquire) >= target;
        if !spin_until(reached) {
            let deadline = limit.map(|l| Instant::now() + l);
            let mut q = lock(&self.shared.q);
            q.waiters += 1;
            while !reached() {
                match deadline {
                    None => q = self.shared.idle.wait(q).unwrap_or_else(|e| e.into_inner()),
                    Some(d) => {
                        let now = Instant::now();
                        if now >= d {
                            q.waiters -= 1;
                            return Err(Fault {
                                code: cann_sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                message: format!(
                                    "npu-sim: aclrtSynchronizeStreamWithTimeout: the stream's work \
                                     did not finish within {} ms",
                                    limit.unwrap_or_default().as_millis()
                                ),
                            });
                        }
                        q = self
                            .shared
                            .idle
                            .wait_timeout(q, d - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                    }
                }
            }
            q.waiters -= 1;
        }
        // Done, and no fault was set before the work counted done (the
        // flag is written before `done` is released): nothing to report.
        if !self.shared.faulted.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut q = lock(&self.shared.q);
        let fault = if q.stop_on_failure {
            q.fault.clone()
        } else {
            let f = q.fault.take();
            self.shared.faulted.store(false, Ordering::Relaxed);
            f
        };
        match fault {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Sets the failure mode (`aclrtSetStreamFailureMode`): `stop` keeps a
    /// fault for good. Err if the mode was set already (CANN allows one
    /// call per stream).
    pub(crate) fn set_stop_on_failure(&self, stop: bool) -> Result<(), ()> {
        let mut q = lock(&self.shared.q);
        if q.mode_set {
            return Err(());
        }
        q.mode_set = true;
        q.stop_on_failure = stop;
        Ok(())
    }

    /// Discards every task not yet started (`aclrtDestroyStreamForce`):
    /// device work and host functions are dropped unrun, event records
    /// complete with `ACL_ERROR_RT_STREAM_ABORT` (so nothing waits for them
    /// forever); then opens the holds and stops the worker (a task already
    /// running is finished first).
    pub(crate) fn abort(&self) {
        let dropped: Vec<Task> = {
            let mut q = lock(&self.shared.q);
            let tasks: Vec<Task> = q.tasks.drain(..).collect();
            let n = tasks.len() as u64;
            self.shared.queued.fetch_sub(n, Ordering::Relaxed);
            self.shared.done.fetch_add(n, Ordering::Release);
            tasks
        };
        let fault = Fault {
            code: cann_sys::ACL_ERROR_RT_STREAM_ABORT,
            message: "npu-sim: the stream was destroyed by aclrtDestroyStreamForce before \
                      this record was reached"
                .into(),
        };
        for t in dropped {
            if let Task::Record(ev, ticket) = t {
                ev.complete(ticket, Some(fault.clone()));
            }
        }
        self.shared.idle.notify_all();
        self.shutdown();
    }

    /// Whether every submitted task has finished.
    pub fn is_idle(&self) -> bool {
        self.shared.done.load(Ordering::Acquire) == self.shared.enqueued.load(Ordering::Acquire)
    }

    /// Opens its holds, drains the queue and stops the worker.
    pub fn shutdown(&self) {
        self.open_holds();
        {
            let mut q = lock(&self.shared.q);
            q.shutdown = true;
        }
        self.shared.work.notify_all();
        if let Some(h) = lock(&self.worker).take() {
            // Never join from the worker itself (its last task dropping
            // the stream): it exits on its own once the queue is drained.
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Spins (briefly, yielding the core now and then) until `done` holds;
/// whether it did.
fn spin_until(done: impl Fn() -> bool) -> bool {
    if done() {
        return true;
    }
    let start = Instant::now();
    let mut i = 0u32;
    loop {
        if done() {
            return true;
        }
        i += 1;
        if i.is_multiple_of(64) {
            if start.elapsed() > SPIN {
                return false;
            }
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

fn worker_loop(s: &Shared) {
    // The task taken when the previous one was marked done (one lock per
    // task while the queue is not empty).
    let mut next = None;
    loop {
        let (task, faulted, stop) = if let Some(t) = next.take() {
            t
        } else {
            let mut q = lock(&s.q);
            loop {
                if !q.running {
                    if let Some(t) = q.tasks.pop_front() {
                        s.queued.fetch_sub(1, Ordering::Relaxed);
                        q.running = true;
                        break (t, q.fault.is_some(), q.stop_on_failure);
                    }
                }
                if q.shutdown && q.tasks.is_empty() && !q.running {
                    return;
                }
                if q.tasks.is_empty() {
                    // Spin for the next task before sleeping.
                    drop(q);
                    spin_until(|| s.queued.load(Ordering::Acquire) > 0);
                    q = lock(&s.q);
                    if !q.tasks.is_empty() || q.shutdown {
                        continue;
                    }
                }
                q.parked = true;
                q = s.work.wait(q).unwrap_or_else(|e| e.into_inner());
                q.parked = false;
            }
        };
        let result = match task {
            Task::Job(TaskKind::Work, job) if faulted => {
                drop(job);
                Ok(()) // skipped: the stream already faulted
            }
            Task::Job(TaskKind::Host, job) if faulted && stop => {
                drop(job);
                Ok(()) // skipped: the stream stops on failure
            }
            Task::Job(_, job) => job.run(),
            Task::Record(ev, ticket) => {
                let fault = lock(&s.q).fault.clone();
                ev.complete(ticket, fault);
                Ok(())
            }
            Task::Wait(ev, ticket, None) => {
                ev.wait_for(ticket);
                Ok(())
            }
            Task::Wait(ev, ticket, Some(limit)) => {
                if ev.wait_within(ticket, Some(limit)) {
                    Ok(())
                } else {
                    Err(Fault {
                        code: cann_sys::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                        message: format!(
                            "npu-sim: aclrtStreamWaitEventWithFlag: the event was not reached \
                             within {} ms",
                            limit.as_millis()
                        ),
                    })
                }
            }
        };
        if let Err(f) = &result {
            crate::runtime::device_fault(s.device, &f.message);
        }
        let mut q = lock(&s.q);
        if let Err(f) = result {
            q.fault.get_or_insert(f);
            s.faulted.store(true, Ordering::Relaxed);
        }
        q.running = false;
        s.done.fetch_add(1, Ordering::Release);
        let wake = q.waiters > 0;
        // Nothing can have run inline meanwhile (the stream was running
        // this task): the next one is next in stream order.
        if let Some(t) = q.tasks.pop_front() {
            s.queued.fetch_sub(1, Ordering::Relaxed);
            q.running = true;
            next = Some((t, q.fault.is_some(), q.stop_on_failure));
        }
        drop(q);
        if wake {
            s.idle.notify_all();
        }
    }
}
