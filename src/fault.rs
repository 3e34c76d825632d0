//! Faults that are never lost: which work a device fault spoiled, and the
//! record of the work that last wrote each storage.
//!
//! The rule (README, "Faults"): a tensor whose producing work faulted or was
//! skipped after a fault reports that fault when it is read, waited on, or
//! used as an operator's input, on any thread, for as long as it lives;
//! dropping the stream does not lose it; work enqueued after the fault has
//! been reported runs normally.
//!
//! How: every launch gets a sequence number on its stream's [`Timeline`]
//! (assigned under the stream's launch lock, together with the enqueue).
//! A synchronisation reads the counter before and after the runtime call;
//! on success everything enqueued before the call is verified, on a fault
//! every launch not yet verified and enqueued before the call returned is
//! poisoned (conservatively: the runtime does not say which launch
//! faulted). A storage remembers its last [`Write`]; a write whose inputs
//! come from work still pending on another stream keeps their records, so
//! a fault there reaches it too.

use crate::error::{Error, Result};
use crate::event::RawEvent;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// What a [`Timeline`] needs of its stream while the stream lives: to wait
/// for a launch. The stream (a layer above) hands itself to its timeline
/// when it is made ([`Timeline::attach`]); the timeline holds it weakly, as
/// it outlives the stream.
pub(crate) trait StreamSync: Send + Sync {
    /// The event recorded after launch `seq` while it is still in flight,
    /// with the stream's device (`None`: finished and released, or no event
    /// could be recorded and the stream was synchronised instead).
    fn inflight_event(self: Arc<Self>, seq: u64) -> Option<(i32, Arc<RawEvent>)>;

    /// Waits until launch `seq` is resolved (on the event after it, else
    /// the stream) and records the outcome on the timeline.
    fn settle_through(self: Arc<Self>, seq: u64) -> Result<()>;
}

/// A fault as the runtime reported it (status code and message), kept to
/// report again to every reader.
#[derive(Clone, Debug)]
pub(crate) struct Fault {
    pub(crate) api: &'static str,
    pub(crate) code: i32,
    pub(crate) message: String,
}

impl Fault {
    /// The typed error: an out-of-range device index becomes
    /// [`Error::IndexOutOfRange`] keeping the fault's status as its
    /// `device_code` (so it stays [`Error::is_device_fault`]) when the
    /// runtime says which index (the simulator does: "position P value V
    /// bound B"); anything else, and an index fault on real CANN (an AI
    /// Core exception, 507015, naming no index), is [`Error::Runtime`].
    pub(crate) fn error(&self) -> Error {
        if self.code == cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION {
            if let Some(e) = parse_index_fault(&self.message, self.code) {
                return e;
            }
        }
        Error::Runtime {
            api: self.api,
            code: self.code,
            message: self.message.clone(),
        }
    }
}

/// The index fault the simulator's message describes ("position P value V
/// bound B"), reported with the fault's status `code`; `None` for any
/// other message (real CANN's AI Core exceptions name no index).
pub(crate) fn parse_index_fault(msg: &str, code: i32) -> Option<Error> {
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
        device_code: Some(code),
    })
}

/// What is known of a launch.
#[derive(Clone, Debug)]
pub(crate) enum Status {
    /// It ran, and no fault was reported for it.
    Good,
    /// It faulted, or was skipped after a fault.
    Faulted(Arc<Fault>),
    /// Not yet known: no synchronisation has covered it.
    Pending,
}

struct Log {
    /// Launches below this are resolved (good unless poisoned).
    verified: u64,
    /// `[lo, hi)` ranges of poisoned launches, in order.
    poisoned: Vec<(u64, u64, Arc<Fault>)>,
    /// A fault not yet returned by `Stream::synchronize`.
    unreported: Option<Arc<Fault>>,
}

/// The launch history of one stream; outlives it (records refer to it).
pub(crate) struct Timeline {
    /// The sequence number of the next launch (advanced under the stream's
    /// launch lock).
    next: std::sync::atomic::AtomicU64,
    log: Mutex<Log>,
    /// Serialises synchronisations, so each fault is attributed once.
    sync: Mutex<()>,
    /// The stream, to synchronise it while it lives.
    stream: OnceLock<Weak<dyn StreamSync>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Timeline {
    pub(crate) fn new() -> Arc<Timeline> {
        Arc::new(Timeline {
            next: std::sync::atomic::AtomicU64::new(0),
            log: Mutex::new(Log {
                verified: 0,
                poisoned: Vec::new(),
                unreported: None,
            }),
            sync: Mutex::new(()),
            stream: OnceLock::new(),
        })
    }

    /// The event recorded after launch `seq` while it is still in flight on
    /// a live stream (`None`: finished and released, or the stream is gone;
    /// either way nothing is left to wait for on the device).
    pub(crate) fn event_for(&self, seq: u64) -> Option<(i32, Arc<RawEvent>)> {
        let s = self.stream.get().and_then(Weak::upgrade)?;
        s.inflight_event(seq)
    }

    /// Whether the stream is gone (dropped, or being dropped: its drop
    /// finishes its work and settles every launch, under the sync lock).
    pub(crate) fn is_gone(&self) -> bool {
        self.stream.get().and_then(Weak::upgrade).is_none()
    }

    /// Waits until launch `seq` of a stream that is gone is settled: its
    /// drop has finished the work (nothing is left on the device).
    pub(crate) fn wait_gone(&self, seq: u64) {
        while matches!(self.status(seq), Status::Pending) && self.is_gone() {
            drop(self.sync_lock());
            std::thread::yield_now();
        }
    }

    /// Whether launch `seq` is known to be finished (good or faulted).
    pub(crate) fn is_resolved(&self, seq: u64) -> bool {
        !matches!(self.status(seq), Status::Pending)
    }

    /// Gives the timeline its stream (once, when the stream is made).
    pub(crate) fn attach(&self, s: Weak<dyn StreamSync>) {
        let _ = self.stream.set(s);
    }

    /// Takes the next sequence number. The caller holds the stream's launch
    /// lock and has just enqueued the launch.
    pub(crate) fn advance(&self) -> u64 {
        self.next.fetch_add(1, std::sync::atomic::Ordering::AcqRel)
    }

    /// The sequence number the next launch will get (read under the
    /// stream's launch lock).
    pub(crate) fn next(&self) -> u64 {
        self.next.load(std::sync::atomic::Ordering::Acquire)
    }

    /// What is known of launch `seq`.
    pub(crate) fn status(&self, seq: u64) -> Status {
        let l = lock(&self.log);
        // Ranges are few (one per fault) and ordered; the last one that
        // starts at or before `seq` is the only candidate.
        let i = l.poisoned.partition_point(|(lo, _, _)| *lo <= seq);
        if i > 0 {
            let (_, hi, f) = &l.poisoned[i - 1];
            if seq < *hi {
                return Status::Faulted(f.clone());
            }
        }
        if seq < l.verified {
            Status::Good
        } else {
            Status::Pending
        }
    }

    /// What is known of launches `first..=last` together: faulted if any
    /// of them is, good once all are.
    pub(crate) fn status_span(&self, first: u64, last: u64) -> Status {
        let l = lock(&self.log);
        // The last range starting at or before `last` that reaches `first`
        // (ranges are ordered and disjoint).
        let i = l.poisoned.partition_point(|(lo, _, _)| *lo <= last);
        if i > 0 {
            let (_, hi, f) = &l.poisoned[i - 1];
            if first < *hi {
                return Status::Faulted(f.clone());
            }
        }
        if last < l.verified {
            Status::Good
        } else {
            Status::Pending
        }
    }

    /// Records the outcome of a synchronisation that covered launches below
    /// `before` (read before the call) and may have seen launches below
    /// `after` (read once it returned). Call with the stream's launch lock
    /// held while reading `after` and recording, so that no launch slips
    /// between the two.
    pub(crate) fn settle(&self, before: u64, after: u64, fault: Option<Fault>) {
        let mut l = lock(&self.log);
        match fault {
            None => l.verified = l.verified.max(before),
            Some(f) => {
                tracing::warn!(target: "npu_ops", api = f.api, code = f.code, message = %f.message, "device fault");
                let f = Arc::new(f);
                let lo = l.verified;
                if after > lo {
                    l.poisoned.push((lo, after, f.clone()));
                }
                l.verified = l.verified.max(after);
                if l.unreported.is_none() {
                    l.unreported = Some(f);
                }
            }
        }
    }

    /// Records the outcome of a synchronisation on an event recorded after
    /// the launches below `covers`: good, or `fault` (the work before the
    /// record faulted: every launch not yet verified below `covers` is
    /// poisoned). Call with the sync lock held.
    pub(crate) fn settle_event(&self, covers: u64, fault: Option<Fault>) {
        let mut l = lock(&self.log);
        let lo = l.verified;
        if covers <= lo {
            return; // a stream synchronisation recorded it already
        }
        if let Some(f) = fault {
            tracing::warn!(target: "npu_ops", api = f.api, code = f.code, message = %f.message, "device fault");
            let f = Arc::new(f);
            l.poisoned.push((lo, covers, f.clone()));
            if l.unreported.is_none() {
                l.unreported = Some(f);
            }
        }
        l.verified = covers;
    }

    /// The fault `Stream::synchronize` has not returned yet, taken.
    pub(crate) fn take_unreported(&self) -> Option<Arc<Fault>> {
        lock(&self.log).unreported.take()
    }

    /// Holds the synchronisation lock.
    pub(crate) fn sync_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        lock(&self.sync)
    }

    /// The synchronisation lock if free (never blocks: safe to call with the
    /// stream's launch lock held).
    pub(crate) fn try_sync_lock(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        match self.sync.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Waits until launch `seq` is resolved: on the event recorded after it
    /// while its stream lives (so later work queued on the stream is not
    /// waited for), else the stream; a dropped stream resolved everything
    /// when it went.
    fn resolve(&self, first: u64, seq: u64) -> Result<Status> {
        loop {
            match self.status_span(first, seq) {
                Status::Pending => {}
                done => return Ok(done),
            }
            let Some(s) = self.stream.get().and_then(Weak::upgrade) else {
                // The stream is being dropped: its drop settles everything
                // under the sync lock; wait for that.
                drop(self.sync_lock());
                std::thread::yield_now();
                continue;
            };
            s.settle_through(seq)?;
        }
    }
}

/// Records whose chain exceeds this depth are resolved before a new launch
/// depends on them (bounds memory and resolution work).
const MAX_DEPTH: u32 = 16;

/// The work that last wrote a storage: launches `first..=seq` of one
/// stream (one launch, or the pieces of a composite that together wrote
/// it: a fault of any piece spoils it).
pub(crate) struct Write {
    timeline: Arc<Timeline>,
    first: u64,
    seq: u64,
    /// Records of pending work on other streams this write's data came from.
    deps: Mutex<Vec<Arc<Write>>>,
    depth: u32,
    /// Once known: `None` good, `Some` the first fault.
    resolved: OnceLock<Option<Arc<Fault>>>,
}

impl Write {
    /// The record of launches `first..=seq` of one stream, from `deps`.
    pub(crate) fn span(
        timeline: Arc<Timeline>,
        first: u64,
        seq: u64,
        deps: Vec<Arc<Write>>,
    ) -> Arc<Write> {
        let depth = 1 + deps.iter().map(|d| d.depth).max().unwrap_or(0);
        Arc::new(Write {
            timeline,
            first,
            seq,
            deps: Mutex::new(deps),
            depth,
            resolved: OnceLock::new(),
        })
    }

    /// Makes this (unshared) record that of launches `first..=seq` of the
    /// same stream, from `deps`.
    pub(crate) fn reset(&mut self, first: u64, seq: u64, deps: Vec<Arc<Write>>) {
        self.depth = 1 + deps.iter().map(|d| d.depth).max().unwrap_or(0);
        self.first = first;
        self.seq = seq;
        *self.deps.get_mut().unwrap_or_else(|e| e.into_inner()) = deps;
        self.resolved = OnceLock::new();
    }

    /// The stream history and launch number of this write.
    pub(crate) fn point(&self) -> (&Arc<Timeline>, u64) {
        (&self.timeline, self.seq)
    }

    pub(crate) fn is_on(&self, t: &Arc<Timeline>) -> bool {
        Arc::ptr_eq(&self.timeline, t)
    }

    /// Whether this record's chain is deep enough to resolve first.
    pub(crate) fn too_deep(&self) -> bool {
        self.depth >= MAX_DEPTH && self.resolved.get().is_none()
    }

    /// Non-blocking: the first known fault, `Ok(true)` if surely good,
    /// `Ok(false)` if still pending somewhere.
    pub(crate) fn peek(&self) -> std::result::Result<bool, Arc<Fault>> {
        if let Some(r) = self.resolved.get() {
            return r.clone().map_or(Ok(true), Err);
        }
        let own = match self.timeline.status_span(self.first, self.seq) {
            Status::Faulted(f) => {
                let _ = self.resolved.set(Some(f.clone()));
                lock(&self.deps).clear();
                return Err(f);
            }
            Status::Good => true,
            Status::Pending => false,
        };
        let deps = {
            let d = lock(&self.deps);
            // Usually none (work of one stream): no copy, no second lock.
            if d.is_empty() {
                None
            } else {
                Some(d.clone())
            }
        };
        let mut good = own;
        if let Some(deps) = &deps {
            for d in deps {
                good &= d.peek()?;
            }
        }
        if good {
            let _ = self.resolved.set(None);
            if deps.is_some() {
                lock(&self.deps).clear();
            }
        }
        Ok(good)
    }

    /// Whether it carries records of other streams' work ([`Write::deps`]).
    pub(crate) fn has_deps(&self) -> bool {
        !lock(&self.deps).is_empty()
    }

    /// The records of other streams' pending work this write's data came
    /// from (for a later write on the same stream that reads it).
    pub(crate) fn deps(&self) -> Vec<Arc<Write>> {
        lock(&self.deps).clone()
    }

    /// Waits for this write and the work its data came from; the first
    /// fault among them is the error.
    pub(crate) fn wait(&self) -> Result<()> {
        match self.resolve()? {
            None => Ok(()),
            Some(f) => Err(f.error()),
        }
    }

    /// Waits: `Ok(None)` good, `Ok(Some(fault))` the first fault; `Err`
    /// when waiting itself failed (the device could not be bound).
    fn resolve(&self) -> Result<Option<Arc<Fault>>> {
        if let Some(r) = self.resolved.get() {
            return Ok(r.clone());
        }
        let mut first = match self.timeline.resolve(self.first, self.seq)? {
            Status::Faulted(f) => Some(f),
            _ => None,
        };
        if first.is_none() {
            for d in self.deps() {
                if let Some(f) = d.resolve()? {
                    first = Some(f);
                    break;
                }
            }
        }
        let _ = self.resolved.set(first.clone());
        lock(&self.deps).clear();
        Ok(first)
    }
}

/// Adds `w` to `deps` unless it is there already.
pub(crate) fn push_dep(deps: &mut Vec<Arc<Write>>, w: Arc<Write>) {
    if !deps.iter().any(|d| Arc::ptr_eq(d, &w)) {
        deps.push(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(msg: &str) -> Fault {
        Fault {
            api: "aclrtSynchronizeStream",
            code: cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION,
            message: msg.into(),
        }
    }

    #[test]
    fn index_faults_parse() {
        let e = fault(
            "npu-sim: aclnnIndexSelect: index out of range: position 3 value -7 bound 5 (valid ...)",
        )
        .error();
        assert!(matches!(
            e,
            Error::IndexOutOfRange {
                position: 3,
                value: -7,
                bound: 5,
                device_code: Some(cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION),
                ..
            }
        ));
        assert!(e.is_device_fault());
        assert_eq!(e.code(), Some(507_015));
        assert!(parse_index_fault("AI Core exception", 507_015).is_none());
        // Real CANN's report names no index: a device fault all the same.
        let e = fault("AI Core exception on core 3").error();
        assert!(matches!(e, Error::Runtime { code: 507_015, .. }));
        assert!(e.is_device_fault());
    }

    #[test]
    fn settling_poisons_what_was_not_verified() {
        let t = Timeline::new();
        for _ in 0..3 {
            t.advance();
        }
        t.settle(3, 3, None);
        assert!(matches!(t.status(2), Status::Good));
        for _ in 0..2 {
            t.advance();
        }
        // A fault reported while launches 3 and 4 were not yet verified,
        // and launch 5 was enqueued during the synchronisation.
        t.advance();
        t.settle(5, 6, Some(fault("x")));
        assert!(matches!(t.status(2), Status::Good));
        for seq in 3..6 {
            assert!(matches!(t.status(seq), Status::Faulted(_)), "{seq}");
        }
        assert!(matches!(t.status(6), Status::Pending));
        t.advance();
        t.settle(7, 7, None);
        assert!(matches!(t.status(6), Status::Good));
        assert!(t.take_unreported().is_some());
        assert!(t.take_unreported().is_none());
    }

    #[test]
    fn a_span_is_spoiled_by_a_fault_of_any_piece() {
        let t = Timeline::new();
        for _ in 0..6 {
            t.advance();
        }
        // Launches 0..2 poisoned; 2..4 verified good after the fault.
        t.settle(0, 2, Some(fault("x")));
        t.settle_event(4, None);
        assert!(matches!(t.status(3), Status::Good));
        assert!(matches!(t.status_span(1, 3), Status::Faulted(_)));
        assert!(matches!(t.status_span(2, 3), Status::Good));
        assert!(matches!(t.status_span(3, 5), Status::Pending));
        let mut w = Write::span(t.clone(), 3, 3, Vec::new());
        assert!(matches!(w.peek(), Ok(true)));
        let mut w2 = Write::span(t.clone(), 3, 3, Vec::new());
        Arc::get_mut(&mut w2).unwrap().reset(0, 3, Vec::new());
        assert!(w2.peek().is_err(), "piece 0 of the span faulted");
        assert!(w2.wait().is_err());
        Arc::get_mut(&mut w).unwrap().reset(4, 5, Vec::new());
        assert!(matches!(w.peek(), Ok(false)));
    }

    #[test]
    fn a_record_reports_the_fault_of_what_it_depends_on() {
        let (a, b) = (Timeline::new(), Timeline::new());
        a.advance();
        b.advance();
        let wa = Write::span(a.clone(), 0, 0, Vec::new());
        let wb = Write::span(b.clone(), 0, 0, vec![wa.clone()]);
        assert!(matches!(wb.peek(), Ok(false)));
        b.settle(1, 1, None);
        assert!(matches!(wb.peek(), Ok(false)), "a is still pending");
        a.settle(1, 1, Some(fault("a faulted")));
        assert!(wb.peek().is_err());
        assert!(matches!(wb.wait(), Err(Error::Runtime { .. })));
    }
}
