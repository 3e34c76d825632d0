//! Events: tickets recorded on a stream, completed when the stream reaches
//! them (a child of `stream`: a record and a wait are tasks of its queue).

use super::capture::{self, Model};
use super::{lock, spin_until, strict_async, Stream, Task};
use crate::work::Fault;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// An event (ACL/CUDA semantics): each record is a ticket that completes
/// when its stream reaches it; a wait (or a host synchronisation) waits for
/// the ticket of the record last issued before the wait, and nothing else:
/// a later record, even on a faster stream, never releases it. An event
/// of `aclrtCreateEventWithFlag` with `ACL_EVENT_SYNC` or
/// `ACL_EVENT_EXTERNAL` also has a device flag (set when a record is
/// reached, cleared when a reset is reached): a wait issued after a reset,
/// and a model's wait at replay, wait for the flag, so for the next record.
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
    /// Host threads asleep on `cv`.
    sleepers: AtomicU64,
    /// How it was made: `None` by `aclrtCreateEvent`, else the flags of
    /// `aclrtCreateEventWithFlag` (`ex` false) or
    /// `aclrtCreateEventExWithFlag` (`ex` true).
    pub kind: Option<EventKind>,
    /// When the latest record is a task of a capture in progress: the
    /// model, its id and the task's index.
    captured: Mutex<Option<(Weak<Model>, u64, usize)>>,
}

/// The flags an event was created with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventKind {
    /// The `ACL_EVENT_*` flags.
    pub flags: u32,
    /// Made by `aclrtCreateEventExWithFlag`.
    pub ex: bool,
}

#[derive(Default)]
struct Tickets {
    /// Records issued so far (the latest ticket).
    issued: u64,
    /// Tickets issued but not yet completed (few: one per stream it is
    /// recorded on at once).
    pending: Vec<u64>,
    /// Recent completed tickets whose stream held a fault when reached.
    faulted: std::collections::BTreeMap<u64, Fault>,
    /// When the latest completed ticket completed, and which it was.
    stamp: Option<(u64, Instant)>,
    /// A reset was issued after the latest record issued (CANN's
    /// `HasReset`): a wait issued now waits for the next record.
    reset_since_record: bool,
    /// The device's event flag (events of `aclrtCreateEventWithFlag` with
    /// `ACL_EVENT_SYNC` or `ACL_EVENT_EXTERNAL`): set when a record is
    /// reached, cleared when a reset is reached.
    flag: bool,
}

/// How long a wait for the next record may block (without a limit of its
/// own) before the simulator says so on stderr: the record may never come.
const FLAG_WAIT_NOTICE: Duration = Duration::from_secs(10);

/// Faulted tickets kept per event (older ones are forgotten: a host
/// synchronisation asks for the latest record).
const FAULTED_KEPT: u64 = 64;

impl Event {
    /// Records the event on `stream`: completes at once if the stream is
    /// idle (and not strictly asynchronous), else when the stream reaches
    /// it.
    pub fn record(self: &Arc<Self>, stream: &Stream) -> Result<(), Fault> {
        self.record_with(stream, false)
    }

    /// [`Event::record`]; on a stream being captured the record becomes a
    /// task of the model (`external`: `ACL_EVENT_RECORD_EXTERNAL`, which
    /// streams outside the capture do not join through).
    pub fn record_with(self: &Arc<Self>, stream: &Stream, external: bool) -> Result<(), Fault> {
        let q = lock(&stream.shared.q);
        if let Some(m) = &q.capture {
            return capture::record_event(m, stream, self, external);
        }
        *lock(&self.captured) = None;
        let ticket = {
            let mut st = lock(&self.state);
            st.issued += 1;
            st.reset_since_record = false;
            let t = st.issued;
            st.pending.push(t);
            t
        };
        if !strict_async() && stream.idle_locked(&q) {
            let fault = q.fault.clone();
            drop(q);
            self.complete(ticket, fault);
            return Ok(());
        }
        stream.push(q, Task::Record(self.clone(), ticket));
        Ok(())
    }

    /// The capture whose task the latest record is, if that capture is in
    /// progress: the model and the task's index.
    pub fn capture_mark(&self) -> Option<(Arc<Model>, usize)> {
        let g = lock(&self.captured);
        let (w, _, i) = g.as_ref()?;
        let m = w.upgrade()?;
        m.capturing().then_some((m, *i))
    }

    pub(super) fn set_capture_mark(&self, m: Weak<Model>, id: u64, i: usize) {
        *lock(&self.captured) = Some((m, id, i));
    }

    /// The capture `id` ended: the event is as before it.
    pub(super) fn clear_capture_mark(&self, id: u64) {
        let mut g = lock(&self.captured);
        if g.as_ref().is_some_and(|(_, c, _)| *c == id) {
            *g = None;
        }
    }

    /// Completes `ticket`, carrying `fault` (the stream's state then).
    pub(super) fn complete(&self, ticket: u64, fault: Option<Fault>) {
        let mut st = lock(&self.state);
        if let Some(i) = st.pending.iter().position(|&t| t == ticket) {
            st.pending.swap_remove(i);
        }
        if st.stamp.is_none_or(|(t, _)| t < ticket) {
            st.stamp = Some((ticket, Instant::now()));
        }
        st.flag = true;
        if let Some(f) = fault {
            st.faulted.insert(ticket, f);
            let keep_from = st.issued.saturating_sub(FAULTED_KEPT);
            st.faulted = st.faulted.split_off(&keep_from);
        }
        drop(st);
        if self.sleepers.load(Ordering::Acquire) > 0 {
            self.cv.notify_all();
        }
    }

    /// An event made with flags (`aclrtCreateEventWithFlag`, `ex` false;
    /// `aclrtCreateEventExWithFlag`, `ex` true).
    pub fn with_kind(kind: EventKind) -> Event {
        Event {
            kind: Some(kind),
            ..Event::default()
        }
    }

    /// Makes `stream` wait for the event's latest record (as of now): no
    /// task at all if that record has completed.
    pub fn wait_on(self: &Arc<Self>, stream: &Stream) {
        self.wait_on_within(stream, None)
    }

    /// [`Event::wait_on`], the stream faulting with
    /// `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT` if the record is not reached
    /// within `limit`.
    pub fn wait_on_within(self: &Arc<Self>, stream: &Stream, limit: Option<Duration>) {
        if self.has_flag() && lock(&self.state).reset_since_record {
            // CANN's runtime: a wait issued after a reset is a device wait
            // for the event's flag, which the reset clears: it waits for
            // the next record.
            self.wait_flag_on(stream, limit);
            return;
        }
        let ticket = lock(&self.state).issued;
        if self.ticket_done(ticket) {
            return;
        }
        let q = lock(&stream.shared.q);
        stream.push(q, Task::Wait(self.clone(), ticket, limit));
    }

    /// A model's wait at replay (a captured or built model's external
    /// wait): on a device a model's stream always sends the wait task
    /// (CANN's `WaitSendCheck` for a bound stream), so for an event with a
    /// flag (`aclrtCreateEventWithFlag`, `ACL_EVENT_SYNC` or
    /// `ACL_EVENT_EXTERNAL`) it waits for the flag: a record reached and
    /// not reset since, else the next record, one never recorded included.
    /// Other events: [`Event::wait_on`].
    pub fn wait_on_replay(self: &Arc<Self>, stream: &Stream) {
        if self.has_flag() {
            self.wait_flag_on(stream, None);
        } else {
            self.wait_on(stream);
        }
    }

    /// Whether the event has a device flag that resets clear: made by
    /// `aclrtCreateEventWithFlag` with `ACL_EVENT_SYNC` or
    /// `ACL_EVENT_EXTERNAL` (the events `aclrtResetEvent` accepts).
    fn has_flag(&self) -> bool {
        let sync_or_external = (cann_sys::ACL_EVENT_SYNC | cann_sys::ACL_EVENT_EXTERNAL) as u32;
        self.kind
            .is_some_and(|k| !k.ex && k.flags & sync_or_external != 0)
    }

    /// Enqueues on `stream` a wait until the event's flag is set (a record
    /// reached after the last reset reached), at most `limit` (then the
    /// stream faults with `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`). A wait that
    /// no record will ever satisfy is said on stderr after
    /// [`FLAG_WAIT_NOTICE`]; the stream's destruction releases it.
    fn wait_flag_on(self: &Arc<Self>, stream: &Stream, limit: Option<Duration>) {
        let ev = self.clone();
        let mut since: Option<Instant> = None;
        let mut told = false;
        stream.enqueue_wait_until(move || {
            if lock(&ev.state).flag {
                return Ok(true);
            }
            let start = *since.get_or_insert_with(Instant::now);
            let waited = start.elapsed();
            if let Some(l) = limit {
                if waited >= l {
                    return Err(Fault {
                        code: cann_sys::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                        message: format!(
                            "npu-sim: aclrtStreamWaitEventWithFlag: the event was reset and not \
                             recorded again within {} ms (a wait after aclrtResetEvent waits \
                             for the next aclrtRecordEvent)",
                            l.as_millis()
                        ),
                    });
                }
            } else if !told && waited >= FLAG_WAIT_NOTICE {
                told = true;
                eprintln!(
                    "npu-sim: a stream has waited {} s for event {:p}, which was reset \
                     (aclrtResetEvent) or never recorded: a wait after a reset waits for the \
                     next aclrtRecordEvent of the event, and none has been reached; if none is \
                     coming, the stream waits for ever (aclrtSynchronizeStreamWithTimeout \
                     reports it; destroying the stream releases it)",
                    waited.as_secs(),
                    Arc::as_ptr(&ev)
                );
            }
            Ok(false)
        });
    }

    /// Enqueues a reset on `stream` (`aclrtResetEvent`): when the stream
    /// reaches it, the event is back in its initial state (as if never
    /// recorded: no completion time, no fault); records issued before the
    /// reset no longer count.
    pub fn reset_on(self: &Arc<Self>, stream: &Stream) -> Result<(), Fault> {
        if capture::try_capture(stream, capture::Captured::Reset(self.clone()))?.is_none() {
            return Ok(());
        }
        lock(&self.state).reset_since_record = true;
        let ev = self.clone();
        stream.enqueue(super::TaskKind::Sync, move || {
            ev.reset_now();
            Ok(())
        });
        Ok(())
    }

    fn reset_now(&self) {
        let mut st = lock(&self.state);
        st.stamp = None;
        st.faulted.clear();
        st.flag = false;
    }

    fn ticket_done(&self, ticket: u64) -> bool {
        !lock(&self.state).pending.contains(&ticket)
    }

    pub(super) fn wait_for(&self, ticket: u64) {
        self.wait_within(ticket, None);
    }

    /// Waits for `ticket`, at most `limit` (`None`: for ever); whether it
    /// completed.
    pub(super) fn wait_within(&self, ticket: u64, limit: Option<Duration>) -> bool {
        if spin_until(|| self.ticket_done(ticket)) {
            return true;
        }
        let deadline = limit.map(|l| Instant::now() + l);
        let mut st = lock(&self.state);
        self.sleepers.fetch_add(1, Ordering::AcqRel);
        let mut done = true;
        while st.pending.contains(&ticket) {
            match deadline {
                None => st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        done = false;
                        break;
                    }
                    st = self
                        .cv
                        .wait_timeout(st, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        }
        self.sleepers.fetch_sub(1, Ordering::AcqRel);
        done
    }

    /// Blocks the host until the latest record has completed; the fault
    /// its stream held when it was reached, if any.
    pub fn synchronize(&self) -> Result<(), Fault> {
        self.synchronize_within(None).map(|_| ())
    }

    /// [`Event::synchronize`], giving up after `limit` (`Ok(false)`:
    /// not completed in time; a zero limit only polls).
    pub fn synchronize_within(&self, limit: Option<Duration>) -> Result<bool, Fault> {
        let ticket = lock(&self.state).issued;
        let done = match limit {
            Some(l) if l.is_zero() => self.ticket_done(ticket),
            _ => self.wait_within(ticket, limit),
        };
        if !done {
            return Ok(false);
        }
        match lock(&self.state).faulted.get(&ticket) {
            Some(f) => Err(f.clone()),
            None => Ok(true),
        }
    }

    /// When the latest record completed: `None` if it has not (or the event
    /// was never recorded).
    pub fn completed_at(&self) -> Option<Instant> {
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
