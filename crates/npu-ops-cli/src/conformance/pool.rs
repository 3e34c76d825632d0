//! Running the cases of one SoC across devices: one worker thread per
//! device, each with its own runtime (so `--case-memory` bounds each case,
//! not the sum of the cases running at once) and its own stream, taking
//! cases from one queue. A case that gives no outcome within the time
//! limit fails; its thread is abandoned (a thread cannot be stopped: it
//! keeps its runtime until the case returns, if ever) and its device gets a
//! fresh worker, until [`MAX_TIMEOUTS_PER_DEVICE`] cases of that device
//! have timed out; then the device is retired and the others take its
//! cases. When no device is left, the cases not run fail, saying why.

use super::case::{Case, CaseTensor};
use super::exec::{self, Seen};
use super::report::{DeviceFault, Status};
use npu_ops::{BackendKind, Runtime, Stream};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Called on a case's worker thread, with the stream the case is about to
/// run on, before it runs (for tests: for example to hold the stream with
/// the simulator's `hold_stream`, or to leave a fault on it).
pub type CaseHook = Arc<dyn Fn(&Stream, &Case) + Send + Sync>;

/// Timeouts after which a device is retired for the rest of a group.
pub const MAX_TIMEOUTS_PER_DEVICE: u32 = 3;

/// A backend as the workers open it.
pub(crate) struct Side {
    /// The C API (shared with the group's runtime).
    pub api: cann_sys::Api,
    /// Which backend it is.
    pub kind: BackendKind,
    /// Its device count.
    pub devices: u32,
    /// Its name in reports (`sim`, `cann`).
    pub name: String,
}

/// One group's work.
pub(crate) struct Spec {
    /// The suite, shared.
    pub cases: Arc<[Case]>,
    /// The group's cases: indices into `cases`.
    pub indices: Vec<usize>,
    pub devices: Vec<u32>,
    pub primary: Side,
    pub compare: Option<Side>,
    pub case_memory: Option<usize>,
    pub timeout: Option<Duration>,
    pub hook: Option<CaseHook>,
    pub keep_outputs: bool,
}

/// One case's result.
#[derive(Debug)]
pub(crate) struct Done {
    pub status: Status,
    pub reason: String,
    pub observed: String,
    pub fault: Option<DeviceFault>,
    pub difference: Option<String>,
    pub output: Option<Vec<CaseTensor>>,
    pub seconds: f64,
    pub device: Option<u32>,
    pub soc: Option<String>,
}

impl Done {
    fn failed(reason: String, observed: &str, device: Option<u32>, seconds: f64) -> Done {
        Done {
            status: Status::Failed,
            reason,
            observed: observed.into(),
            fault: None,
            difference: None,
            output: None,
            seconds,
            device,
            soc: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Clone, Copy)]
enum Phase {
    Starting(Instant),
    Idle,
    Running(usize, Instant),
}

/// What a worker and the supervisor share.
struct Cell {
    phase: Mutex<Phase>,
    /// Set (under the queue lock) when the supervisor gives up on it: it
    /// takes no further case.
    abandoned: AtomicBool,
}

enum Msg {
    Done {
        i: usize,
        done: Box<Done>,
    },
    /// The worker cannot go on (its runtime or stream cannot be opened or
    /// renewed); it exits.
    Broken {
        w: usize,
        why: String,
    },
    /// A stream of the worker holds a timed-out case's work: it stops.
    Wedged {
        w: usize,
    },
    /// Sent when the worker's thread ends, after its runtimes are gone.
    Exit {
        w: usize,
    },
}

/// The supervisor's inbox. Outcomes are posted without waking it (the
/// supervisor drains them every few milliseconds: waking it for each case
/// would cost a context switch per case); the rare events wake it.
#[derive(Clone)]
struct Inbox(Arc<(Mutex<VecDeque<Msg>>, Condvar)>);

/// How long the supervisor sleeps at most between two looks at its inbox.
const DRAIN_EVERY: Duration = Duration::from_millis(10);

impl Inbox {
    fn new() -> Inbox {
        Inbox(Arc::new((Mutex::new(VecDeque::new()), Condvar::new())))
    }

    /// Queues `m` without waking the supervisor.
    fn post(&self, m: Msg) {
        lock(&self.0 .0).push_back(m);
    }

    /// Queues `m` and wakes the supervisor.
    fn send(&self, m: Msg) {
        self.post(m);
        self.0 .1.notify_one();
    }

    /// The next message, waiting up to `limit` for one.
    fn recv_timeout(&self, limit: Duration) -> Option<Msg> {
        let until = Instant::now() + limit;
        let mut q = lock(&self.0 .0);
        loop {
            if let Some(m) = q.pop_front() {
                return Some(m);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            q = self
                .0
                 .1
                .wait_timeout(q, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A runtime and stream on one device.
struct Lane {
    rt: Runtime,
    stream: Stream,
    device: u32,
}

impl Lane {
    fn open(side: &Side, device: u32, case_memory: Option<usize>) -> Result<Lane, String> {
        // SAFETY: `side.api` is a clone of an open runtime's table
        // (`conformance::side` takes `Runtime::api`), which that runtime
        // was only given under `with_api`'s contract (`Runtime::new` uses
        // `Api::load`, `Api::linked` or the simulator's table).
        let rt = unsafe { Runtime::with_api(side.api.clone(), side.kind) }
            .map_err(|e| format!("cannot open the {} runtime: {e}", side.name))?;
        rt.set_memory_limit(case_memory);
        let stream = rt.device(device).and_then(|d| d.stream()).map_err(|e| {
            format!(
                "cannot create a stream on {} device {device}: {e}",
                side.name
            )
        })?;
        Ok(Lane { rt, stream, device })
    }

    /// A fresh stream, after the device reported a fault.
    fn renew(&mut self) -> Result<(), String> {
        self.stream = self
            .rt
            .device(self.device)
            .and_then(|d| d.stream())
            .map_err(|e| {
                format!(
                    "cannot create a stream on device {} after a device fault: {e}",
                    self.device
                )
            })?;
        Ok(())
    }
}

fn join(reason: &mut String, more: &str) {
    if !reason.is_empty() {
        reason.push_str("; ");
    }
    reason.push_str(more);
}

/// What a worker does after a case.
enum Next {
    /// Takes the next case.
    Go,
    /// Cannot go on: its runtime or stream cannot be renewed.
    Broken(String),
    /// A stream of its still holds a timed-out case's work: the worker
    /// stops (its thread waits for that work when it drops the stream)
    /// and the device gets a fresh one.
    Wedged,
}

/// Runs one case on the worker's lanes.
fn run_case(spec: &Spec, a: &mut Lane, b: Option<&mut Lane>, c: &Case) -> (Done, Next) {
    let t0 = Instant::now();
    let deadline = spec.timeout.map(|t| t0 + t);
    if let Some(hook) = &spec.hook {
        // A panicking hook is the case's panic.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(&a.stream, c))).is_err() {
            return (
                Done::failed(
                    "panicked: in the case hook".into(),
                    "panic",
                    Some(a.device),
                    t0.elapsed().as_secs_f64(),
                ),
                Next::Go,
            );
        }
    }
    let (mut seen, after) = exec::observe(&a.stream, c, deadline, spec.case_memory);
    let (mut status, mut reason) = exec::judge(c, &seen, spec.case_memory);
    if let Some(e) = after {
        // The case left a fault on the stream: its outcome is that fault.
        let s = Seen::Error(e);
        status = Status::Failed;
        let what = s.fault().map_or_else(|| s.describe(), |f| f.describe());
        join(
            &mut reason,
            &format!("{} after the case: {what}", s.kind().replace('_', " ")),
        );
        seen = s;
    }
    let mut next = Next::Go;
    if let Seen::Timeout(_) = seen {
        next = Next::Wedged;
    } else if seen.fault().is_some() {
        if let Err(why) = a.renew() {
            next = Next::Broken(why);
        }
    }
    let mut difference = None;
    if let (Some(b), Some(side), Next::Go) = (b, &spec.compare, &next) {
        let (seen_b, after_b) = exec::observe(&b.stream, c, deadline, spec.case_memory);
        let seen_b = after_b.map_or(seen_b, Seen::Error);
        if let Seen::Timeout(_) = seen_b {
            next = Next::Wedged;
        } else if seen_b.fault().is_some() {
            if let Err(why) = b.renew() {
                next = Next::Broken(why);
            }
        }
        if let Some(d) = exec::difference(&seen, &seen_b) {
            status = Status::Failed;
            join(
                &mut reason,
                &format!("{} and {} differ: {d}", spec.primary.name, side.name),
            );
            difference = Some(d);
        }
    }
    let done = Done {
        status,
        reason,
        observed: seen.kind().into(),
        fault: seen.fault(),
        difference,
        output: match seen {
            Seen::Output(t) if spec.keep_outputs => Some(vec![t]),
            Seen::Outputs(ts) if spec.keep_outputs => Some(ts),
            _ => None,
        },
        seconds: t0.elapsed().as_secs_f64(),
        device: Some(a.device),
        soc: Some(a.rt.soc().to_string()),
    };
    (done, next)
}

/// Sends `Exit` when the worker's thread ends, however it ends.
struct ExitOnDrop(Inbox, usize);

impl Drop for ExitOnDrop {
    fn drop(&mut self) {
        self.0.send(Msg::Exit { w: self.1 });
    }
}

fn worker(
    w: usize,
    device: u32,
    spec: Arc<Spec>,
    queue: Arc<Mutex<usize>>,
    cell: Arc<Cell>,
    tx: Inbox,
) {
    let _exit = ExitOnDrop(tx.clone(), w);
    let opened = Lane::open(&spec.primary, device, spec.case_memory).and_then(|a| {
        let b = match &spec.compare {
            Some(side) => Some(Lane::open(
                side,
                device % side.devices.max(1),
                spec.case_memory,
            )?),
            None => None,
        };
        Ok((a, b))
    });
    let (mut a, mut b) = match opened {
        Ok(lanes) => lanes,
        Err(why) => {
            tx.send(Msg::Broken { w, why });
            return;
        }
    };
    *lock(&cell.phase) = Phase::Idle;
    loop {
        let i = {
            let mut next = lock(&queue);
            if cell.abandoned.load(Ordering::Acquire) || *next >= spec.indices.len() {
                break;
            }
            let i = *next;
            *next += 1;
            *lock(&cell.phase) = Phase::Running(i, Instant::now());
            i
        };
        let (done, next) = run_case(&spec, &mut a, b.as_mut(), &spec.cases[spec.indices[i]]);
        *lock(&cell.phase) = Phase::Idle;
        tx.post(Msg::Done {
            i,
            done: Box::new(done),
        });
        match next {
            Next::Go => {}
            Next::Broken(why) => {
                tx.send(Msg::Broken { w, why });
                break;
            }
            Next::Wedged => {
                tx.send(Msg::Wedged { w });
                break;
            }
        }
    }
    // The runtimes go before `Exit` is sent (the simulator can then be
    // started as another SoC).
    drop((a, b));
}

struct Worker {
    device: u32,
    cell: Arc<Cell>,
    /// Neither ended nor abandoned.
    live: bool,
}

/// Runs `spec` across its devices; `on_done(i, done)` for every case `i`
/// of `spec.indices`, once each, as outcomes arrive.
pub(crate) fn run_group(spec: Spec, mut on_done: impl FnMut(usize, Done)) {
    let n = spec.indices.len();
    if n == 0 {
        return;
    }
    let spec = Arc::new(spec);
    let queue = Arc::new(Mutex::new(0usize));
    let inbox = Inbox::new();
    let mut workers: Vec<Worker> = Vec::new();
    let mut timeouts: std::collections::HashMap<u32, u32> = Default::default();
    let mut retired: Vec<(u32, String)> = Vec::new();
    let spawn = |workers: &mut Vec<Worker>, retired: &mut Vec<(u32, String)>, device: u32| {
        let w = workers.len();
        let cell = Arc::new(Cell {
            phase: Mutex::new(Phase::Starting(Instant::now())),
            abandoned: AtomicBool::new(false),
        });
        let (spec, queue, c, tx) = (spec.clone(), queue.clone(), cell.clone(), inbox.clone());
        match std::thread::Builder::new()
            .name(format!("conformance-device-{device}"))
            .spawn(move || worker(w, device, spec, queue, c, tx))
        {
            Ok(_) => workers.push(Worker {
                device,
                cell,
                live: true,
            }),
            Err(e) => retired.push((device, format!("cannot start a thread: {e}"))),
        }
    };
    for &d in &spec.devices {
        spawn(&mut workers, &mut retired, d);
    }
    let abandon = |w: &mut Worker| {
        let _q = lock(&queue);
        w.cell.abandoned.store(true, Ordering::Release);
        w.live = false;
    };
    // A timed-out case's device: a fresh worker, or retired.
    let timed_out = |d: u32,
                     timeouts: &mut std::collections::HashMap<u32, u32>,
                     retired: &mut Vec<(u32, String)>,
                     workers: &mut Vec<Worker>,
                     left: usize| {
        let k = timeouts.entry(d).or_insert(0);
        *k += 1;
        if *k >= MAX_TIMEOUTS_PER_DEVICE {
            retired.push((d, format!("retired after {k} cases timed out")));
        } else if left > 0 {
            spawn(workers, retired, d);
        }
    };
    // The worker times a case's stream itself; this watchdog catches a
    // case stuck anywhere else, a little later.
    let watchdog = spec
        .timeout
        .map(|t| t + (t / 2).clamp(Duration::from_millis(250), Duration::from_secs(10)));
    let mut resolved = vec![false; n];
    let mut left = n;
    while left > 0 {
        if !workers.iter().any(|w| w.live) {
            let why = retired
                .iter()
                .map(|(d, r)| format!("device {d}: {r}"))
                .collect::<Vec<_>>()
                .join("; ");
            for (i, r) in resolved.iter_mut().enumerate() {
                if !*r {
                    *r = true;
                    on_done(
                        i,
                        Done::failed(
                            format!("not run: no device left to run it ({why})"),
                            "not_run",
                            None,
                            0.0,
                        ),
                    );
                }
            }
            break;
        }
        // Wake at the next deadline, and to drain the outcomes.
        let mut wait = DRAIN_EVERY;
        if let Some(t) = watchdog {
            for w in workers.iter().filter(|w| w.live) {
                if let Phase::Running(_, t0) | Phase::Starting(t0) = *lock(&w.cell.phase) {
                    wait = wait.min((t0 + t).saturating_duration_since(Instant::now()));
                }
            }
        }
        match inbox.recv_timeout(wait.max(Duration::from_millis(1))) {
            Some(Msg::Done { i, done }) if !resolved[i] => {
                resolved[i] = true;
                left -= 1;
                on_done(i, *done);
            }
            Some(Msg::Broken { w, why }) if workers[w].live => {
                workers[w].live = false;
                retired.push((workers[w].device, why));
            }
            Some(Msg::Wedged { w }) if workers[w].live => {
                abandon(&mut workers[w]);
                let d = workers[w].device;
                timed_out(d, &mut timeouts, &mut retired, &mut workers, left);
            }
            Some(Msg::Exit { w }) if workers[w].live => {
                workers[w].live = false;
                // Ended in the middle of a case: outside the case's own
                // panic guard, so the device is not trusted further.
                if let Phase::Running(i, t0) = *lock(&workers[w].cell.phase) {
                    if !resolved[i] {
                        resolved[i] = true;
                        left -= 1;
                        let d = workers[w].device;
                        on_done(
                            i,
                            Done::failed(
                                format!(
                                    "the worker thread of device {d} ended while running the case"
                                ),
                                "panic",
                                Some(d),
                                t0.elapsed().as_secs_f64(),
                            ),
                        );
                        retired.push((d, "its worker thread ended in a case".into()));
                    }
                }
            }
            // Outcomes of cases already resolved (timed out), messages of
            // workers already let go, or nothing yet.
            Some(_) | None => {}
        }
        let Some(t) = watchdog else { continue };
        for w in 0..workers.len() {
            if !workers[w].live {
                continue;
            }
            let phase = *lock(&workers[w].cell.phase);
            let d = workers[w].device;
            match phase {
                Phase::Running(i, t0) if !resolved[i] && t0.elapsed() >= t => {
                    abandon(&mut workers[w]);
                    resolved[i] = true;
                    left -= 1;
                    on_done(
                        i,
                        Done::failed(
                            format!(
                                "timed out: no outcome within {} s (--timeout {}); the case was abandoned on its thread",
                                t.as_secs_f64(),
                                spec.timeout.unwrap_or(t).as_secs_f64()
                            ),
                            "timeout",
                            Some(d),
                            t0.elapsed().as_secs_f64(),
                        ),
                    );
                    timed_out(d, &mut timeouts, &mut retired, &mut workers, left);
                }
                Phase::Starting(t0) if t0.elapsed() >= t => {
                    abandon(&mut workers[w]);
                    retired.push((
                        d,
                        format!(
                            "its runtime and stream did not open within {} s",
                            t.as_secs_f64()
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    // Let the workers end: each drops its runtimes, then says so. One that
    // does not end in time is left behind.
    let deadline = Instant::now()
        + watchdog
            .unwrap_or(Duration::from_secs(60))
            .min(Duration::from_secs(60));
    while workers.iter().any(|w| w.live) {
        match inbox.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Some(Msg::Exit { w }) => workers[w].live = false,
            Some(_) => {}
            None => break,
        }
    }
}
