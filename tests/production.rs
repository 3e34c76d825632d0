//! What a service relies on (issue 9): reads that wait for their writer
//! only, stream-ordered memory reuse, writes into existing tensors,
//! events, raw interop. Tests that use the simulator's gates or counters
//! skip on real CANN, saying so.

mod common;

use common::*;
use npu_ops::{Error, Tensor};
use serial_test::serial;
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on another thread; `None` if it has not finished after a
/// generous deadline (a deadlock guard, not a timing assertion).
fn finishes<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60)).ok()
}

#[test]
#[serial]
fn a_read_waits_for_its_writer_not_for_later_work() {
    if !sim_only("a_read_waits_for_its_writer_not_for_later_work") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let y = s.slice(&x, 0, 1, 3, 1).unwrap();
    // Everything queued after the gate waits until it is released: a read
    // that synchronised the whole stream would never return.
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let later = s.slice(&x, 0, 0, 2, 1).unwrap();
    let y2 = y.clone();
    let got = finishes(move || y2.to_vec::<i32>());
    let got = got.expect("the read waited for work queued after its writer");
    assert_eq!(got.unwrap(), [2, 3]);
    let done = s.record().unwrap();
    assert!(!done.is_complete(), "the later work cannot have run yet");
    hold.release();
    assert_eq!(later.to_vec::<i32>().unwrap(), [1, 2]);
    s.synchronize().unwrap();
}

#[test]
#[serial]
fn a_finished_writer_is_known_good_without_a_stream_synchronisation() {
    if !sim_only("a_finished_writer_is_known_good_without_a_stream_synchronisation") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let y = s.slice(&x, 0, 2, 4, 1).unwrap();
    s.record().unwrap().synchronize().unwrap();
    // The next launches find y's work finished and record its outcome.
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let _later = s.slice(&x, 0, 0, 1, 1).unwrap();
    let y2 = y.clone();
    let got = finishes(move || y2.to_vec::<i32>()).expect("read blocked behind the gate");
    assert_eq!(got.unwrap(), [3, 4]);
    hold.release();
    s.synchronize().unwrap();
}

#[test]
#[serial]
fn faults_still_reach_every_reader_with_per_writer_waits() {
    if !sim_only("faults_still_reach_every_reader_with_per_writer_waits") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1f32, 2., 3., 4.]).unwrap();
    let good = s.slice(&x, 0, 0, 2, 1).unwrap();
    let bad_idx = Tensor::from_slice(&s, &[2], &[0i64, 9]).unwrap();
    let bad = s.index_select(&x, 0, &bad_idx).unwrap();
    let skipped = s.slice(&x, 0, 1, 3, 1).unwrap();
    // Read in an order that resolves each launch through its own event.
    assert_eq!(good.to_vec::<f32>().unwrap(), [1., 2.]);
    assert!(matches!(
        skipped.to_vec::<f32>(),
        Err(Error::IndexOutOfRange { value: 9, .. })
    ));
    assert!(matches!(
        bad.to_vec::<f32>(),
        Err(Error::IndexOutOfRange { value: 9, .. })
    ));
    // Reported once by the stream, then work runs normally.
    assert!(s.synchronize().is_err());
    s.synchronize().unwrap();
    let after = s.slice(&x, 0, 3, 4, 1).unwrap();
    assert_eq!(after.to_vec::<f32>().unwrap(), [4.]);
    assert!(
        skipped.to_vec::<f32>().is_err(),
        "faults stay with their tensors"
    );
}
