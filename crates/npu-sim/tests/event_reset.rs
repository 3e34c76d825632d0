//! A stream wait after `aclrtResetEvent` through the C ABI (issue 19):
//! as on a device (CANN's runtime sends a wait task for an event reset
//! since its latest record, and the reset clears the event's flag), it
//! waits for the event's next record, not the latest one issued; a limit
//! turns a missing record into `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`, a
//! synchronisation with a timeout reports it, destroying the stream
//! releases it; a captured model's wait and reset (CANN's model-update
//! pattern with an `ACL_EVENT_EXTERNAL` event) make each replay wait for
//! that replay's record. Events without a reset keep their semantics.

mod common;

use cann_sys::*;
use common::*;
use npu_sim as sim;
use serial_test::serial;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

fn ok(rc: i32) {
    assert_eq!(rc, 0, "{}", last_error());
}

fn event_with(flag: u32) -> aclrtEvent {
    let mut e = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclrtCreateEventWithFlag(&mut e, flag) });
    e
}

fn destroy_event(e: aclrtEvent) {
    // SAFETY: live event, destroyed once.
    ok(unsafe { (api().aclrtDestroyEvent)(e) });
}

fn record(e: aclrtEvent, s: aclrtStream) {
    // SAFETY: live handles.
    ok(unsafe { (api().aclrtRecordEvent)(e, s) });
}

fn wait(s: aclrtStream, e: aclrtEvent) {
    // SAFETY: live handles.
    ok(unsafe { (api().aclrtStreamWaitEvent)(s, e) });
}

fn fill(b: &Buf, v: i32, s: aclrtStream) {
    // SAFETY: the whole device buffer.
    ok(unsafe { (api().aclrtMemsetAsync)(b.ptr, b.len, v, b.len, s) });
}

fn sync_within(s: aclrtStream, ms: i32) -> i32 {
    sim::aclrtSynchronizeStreamWithTimeout(s, ms)
}

const SYNC: u32 = ACL_EVENT_SYNC as u32;

#[test]
#[serial]
fn a_wait_after_a_reset_waits_for_the_next_record() {
    let (s, t) = (Stream::new(), Stream::new());
    let b = Buf::from(&[0u8; 64]);
    let e = event_with(SYNC);
    record(e, s.0);
    ok(s.sync());
    // Recorded and reached: a wait passes at once.
    wait(t.0, e);
    ok(t.sync());
    // Reset (reached), then a wait: it waits for the next record.
    ok(sim::aclrtResetEvent(e, t.0));
    ok(t.sync());
    wait(t.0, e);
    fill(&b, 9, t.0);
    assert_eq!(
        sync_within(t.0, 60),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
        "the wait must block until the next record"
    );
    assert!(b.read().iter().all(|&x| x == 0), "work after the wait ran");
    record(e, s.0);
    ok(t.sync());
    assert!(b.read().iter().all(|&x| x == 9));
    // A record after the reset and before the wait: the wait passes.
    ok(sim::aclrtResetEvent(e, t.0));
    record(e, s.0);
    ok(s.sync());
    wait(t.0, e);
    ok(sync_within(t.0, 1000));
    destroy_event(e);
}

#[test]
#[serial]
fn the_reset_on_the_waiting_stream_blocks_a_second_waiter() {
    // CANN's aclrtResetEvent note: stream2 waits, then resets; stream3's
    // later wait cannot succeed (until the event is recorded again).
    let (s1, s2, s3) = (Stream::new(), Stream::new(), Stream::new());
    let e = event_with(SYNC);
    record(e, s1.0);
    wait(s2.0, e);
    ok(sim::aclrtResetEvent(e, s2.0));
    ok(s2.sync());
    wait(s3.0, e);
    assert_eq!(sync_within(s3.0, 60), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    record(e, s1.0);
    ok(s3.sync());
    destroy_event(e);
}

#[test]
#[serial]
fn an_unsatisfied_wait_after_a_reset_is_diagnosable() {
    let s = Stream::new();
    let e = event_with(SYNC);
    record(e, s.0);
    ok(sim::aclrtResetEvent(e, s.0));
    ok(s.sync());
    // With a limit: the stream faults with ACL_ERROR_RT_EVENT_SYNC_TIMEOUT.
    ok(sim::aclrtStreamWaitEventWithFlag(
        s.0,
        e,
        30,
        ACL_EVENT_WAIT_DEFAULT as u32,
    ));
    let rc = s.sync();
    assert_eq!(rc, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "{}", last_error());
    assert!(
        last_error().contains("reset"),
        "the message says why: {}",
        last_error()
    );
    ok(s.sync());
    // Without a limit: a synchronisation with a timeout reports it, and
    // destroying the stream releases the wait (no hang).
    let t = {
        let mut t = null_mut();
        // SAFETY: valid out-pointer.
        ok(unsafe { (api().aclrtCreateStream)(&mut t) });
        t
    };
    wait(t, e);
    assert_eq!(sync_within(t, 30), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    let start = Instant::now();
    ok(sim::aclrtDestroyStreamForce(t));
    assert!(start.elapsed() < Duration::from_secs(5));
    destroy_event(e);
}

#[test]
#[serial]
fn a_captured_wait_and_reset_wait_for_each_replays_record() {
    // CANN's model-update pattern: the model waits for an ACL_EVENT_EXTERNAL
    // event and resets it; each replay's work after the wait runs only
    // once the host records the event for that replay.
    let (s, u) = (Stream::new(), Stream::new());
    let b = Buf::from(&[0u8; 64]);
    let e = event_with(ACL_EVENT_EXTERNAL as u32);
    ok(sim::aclmdlRICaptureBegin(
        s.0,
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
    ));
    wait(s.0, e);
    ok(sim::aclrtResetEvent(e, s.0));
    fill(&b, 5, s.0);
    let mut m = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { sim::aclmdlRICaptureEnd(s.0, &mut m) });
    for round in 0..3 {
        b.write(&[0u8; 64]);
        ok(sim::aclmdlRIExecuteAsync(m, s.0));
        // Never recorded (round 0) or reset by the previous replay: the
        // replay waits for this round's record.
        assert_eq!(
            sync_within(s.0, 60),
            ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
            "round {round}"
        );
        assert!(b.read().iter().all(|&x| x == 0), "round {round}");
        record(e, u.0);
        ok(s.sync());
        assert!(b.read().iter().all(|&x| x == 5), "round {round}");
    }
    ok(sim::aclmdlRIDestroy(m));
    destroy_event(e);
}

#[test]
#[serial]
fn without_a_reset_waits_keep_the_latest_record() {
    // A plain event and an Ex event are never reset: a wait is for the
    // latest record issued (passes if reached), as before.
    let (s, t) = (Stream::new(), Stream::new());
    let mut plain = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { (api().aclrtCreateEvent)(&mut plain) });
    wait(t.0, plain); // never recorded: nothing to wait for
    ok(sync_within(t.0, 1000));
    record(plain, s.0);
    ok(s.sync());
    wait(t.0, plain);
    ok(sync_within(t.0, 1000));
    let sync_ev = event_with(SYNC);
    record(sync_ev, s.0);
    ok(s.sync());
    wait(t.0, sync_ev);
    wait(t.0, sync_ev);
    ok(sync_within(t.0, 1000));
    destroy_event(plain);
    destroy_event(sync_ev);
}
