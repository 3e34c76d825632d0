//! Streams (one worker thread each, tasks in order) and events.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A failure inside a task; sticky on its stream until synchronisation.
#[derive(Clone, Debug)]
pub struct Fault {
    /// Runtime status code reported at synchronisation.
    pub code: i32,
    /// Explanation, returned by `aclGetRecentErrMsg`.
    pub message: String,
}

/// What a task is, for the fault rule: after a fault, device work is skipped
/// until the fault is reported, but event records still complete so that
/// other streams are not blocked forever.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// A kernel or copy.
    Work,
    /// An event record or wait.
    Sync,
}

type TaskFn = Box<dyn FnOnce() -> Result<(), Fault> + Send>;

struct Queue {
    tasks: VecDeque<(TaskKind, TaskFn)>,
    enqueued: u64,
    done: u64,
    fault: Option<Fault>,
    shutdown: bool,
}

struct Shared {
    q: Mutex<Queue>,
    /// Signals the worker (new task, shutdown).
    work: Condvar,
    /// Signals waiters (task done).
    idle: Condvar,
}

/// A stream: tasks run in order on its own worker thread.
pub struct Stream {
    /// The device it belongs to.
    pub device: u32,
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Stream {
    /// Starts a stream on `device`.
    pub fn new(device: u32) -> Result<Stream, String> {
        let shared = Arc::new(Shared {
            q: Mutex::new(Queue {
                tasks: VecDeque::new(),
                enqueued: 0,
                done: 0,
                fault: None,
                shutdown: false,
            }),
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
        })
    }

    /// Appends a task; returns at once.
    pub fn enqueue(
        &self,
        kind: TaskKind,
        task: impl FnOnce() -> Result<(), Fault> + Send + 'static,
    ) {
        let mut q = lock(&self.shared.q);
        q.tasks.push_back((kind, Box::new(task)));
        q.enqueued += 1;
        drop(q);
        self.shared.work.notify_one();
    }

    /// Waits for every task enqueued so far; returns (and clears) the first
    /// fault since the last synchronisation.
    pub fn synchronize(&self) -> Result<(), Fault> {
        let mut q = lock(&self.shared.q);
        let target = q.enqueued;
        while q.done < target {
            q = self.shared.idle.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        match q.fault.take() {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Whether every enqueued task has finished.
    pub fn is_idle(&self) -> bool {
        let q = lock(&self.shared.q);
        q.done == q.enqueued
    }

    /// Drains the queue and stops the worker.
    pub fn shutdown(&self) {
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

fn worker_loop(s: &Shared) {
    loop {
        let (kind, task, faulted) = {
            let mut q = lock(&s.q);
            loop {
                if let Some((k, t)) = q.tasks.pop_front() {
                    break (k, t, q.fault.is_some());
                }
                if q.shutdown {
                    return;
                }
                q = s.work.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = if faulted && kind == TaskKind::Work {
            Ok(()) // skipped: the stream already faulted
        } else {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(task)).unwrap_or_else(|p| {
                Err(Fault {
                    code: cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
                    message: crate::abi::internal_error("a stream task", &*p),
                })
            })
        };
        let mut q = lock(&s.q);
        if let Err(f) = result {
            if q.fault.is_none() {
                q.fault = Some(f);
            }
        }
        q.done += 1;
        drop(q);
        s.idle.notify_all();
    }
}

/// An event (ACL/CUDA semantics): each record is a ticket that completes
/// when its stream reaches it; a wait (or a host synchronisation) waits for
/// the ticket of the record last issued before the wait, and nothing else:
/// a later record, even on a faster stream, never releases it.
///
/// A record reached while its stream holds a fault (the work before it
/// faulted or was skipped) completes, so waiters are released, but carries
/// the fault: a host synchronisation on it returns that fault (as CUDA's
/// event synchronisation reports earlier asynchronous errors). It does not
/// clear the stream's fault; only `aclrtSynchronizeStream` does.
#[derive(Default)]
pub struct Event {
    state: Mutex<Tickets>,
    cv: Condvar,
}

#[derive(Default)]
struct Tickets {
    /// Records issued so far (the latest ticket).
    issued: u64,
    /// Tickets issued but not yet completed.
    pending: std::collections::BTreeSet<u64>,
    /// Recent completed tickets whose stream held a fault when reached.
    faulted: std::collections::BTreeMap<u64, Fault>,
    /// When the latest completed ticket completed, and which it was.
    stamp: Option<(u64, std::time::Instant)>,
}

/// Faulted tickets kept per event (older ones are forgotten: a host
/// synchronisation asks for the latest record).
const FAULTED_KEPT: u64 = 64;

impl Event {
    /// Records the event on `stream`.
    pub fn record(self: &Arc<Self>, stream: &Stream) {
        let ticket = {
            let mut st = lock(&self.state);
            st.issued += 1;
            let t = st.issued;
            st.pending.insert(t);
            t
        };
        let ev = self.clone();
        let q = stream.shared.clone();
        stream.enqueue(TaskKind::Sync, move || {
            let fault = lock(&q.q).fault.clone();
            let mut st = lock(&ev.state);
            st.pending.remove(&ticket);
            if st.stamp.is_none_or(|(t, _)| t < ticket) {
                st.stamp = Some((ticket, std::time::Instant::now()));
            }
            if let Some(f) = fault {
                st.faulted.insert(ticket, f);
            }
            let keep_from = st.issued.saturating_sub(FAULTED_KEPT);
            st.faulted = st.faulted.split_off(&keep_from);
            drop(st);
            ev.cv.notify_all();
            Ok(())
        });
    }

    /// Makes `stream` wait for the event's latest record (as of now).
    pub fn wait_on(self: &Arc<Self>, stream: &Stream) {
        let ticket = lock(&self.state).issued;
        let ev = self.clone();
        stream.enqueue(TaskKind::Sync, move || {
            ev.wait_for(ticket);
            Ok(())
        });
    }

    fn wait_for(&self, ticket: u64) {
        let mut st = lock(&self.state);
        while st.pending.contains(&ticket) {
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Blocks the host until the latest record has completed; the fault
    /// its stream held when it was reached, if any.
    pub fn synchronize(&self) -> Result<(), Fault> {
        let ticket = lock(&self.state).issued;
        self.wait_for(ticket);
        match lock(&self.state).faulted.get(&ticket) {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        }
    }

    /// When the latest record completed: `None` if it has not (or the event
    /// was never recorded).
    pub fn completed_at(&self) -> Option<std::time::Instant> {
        let st = lock(&self.state);
        match st.stamp {
            Some((t, at)) if t == st.issued && !st.pending.contains(&t) => Some(at),
            _ => None,
        }
    }

    /// Whether the latest record has completed (true if never recorded).
    pub fn is_complete(&self) -> bool {
        let st = lock(&self.state);
        !st.pending.contains(&st.issued)
    }
}
