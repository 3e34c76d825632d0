//! `Stream::launch_host_fn` (CANN's `aclrtLaunchHostFunc`): closures run in
//! stream order, later work waits for them, and each is freed exactly
//! once: after it has run, whether the stream is synchronised, dropped
//! with the closure still queued, or faulted before it.

mod common;

use common::*;
use npu_ops::Tensor;
use serial_test::serial;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[test]
#[serial]
fn closures_run_in_order_and_later_work_waits_for_them() {
    let s = stream();
    let log = Arc::new(Mutex::new(Vec::new()));
    for i in 0..4 {
        let log = log.clone();
        s.launch_host_fn(move || {
            std::thread::sleep(Duration::from_millis(5));
            log.lock().unwrap().push(i);
        })
        .unwrap();
    }
    // An event recorded after them completes only once they have run.
    let ev = s.record().unwrap();
    ev.synchronize().unwrap();
    assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3]);
    // Device work enqueued after a closure runs after it too.
    let flag = Arc::new(AtomicUsize::new(0));
    let f = flag.clone();
    s.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(30));
        f.store(1, Ordering::SeqCst);
    })
    .unwrap();
    let t = Tensor::from_slice(&s, &[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    s.synchronize().unwrap();
    assert_eq!(flag.load(Ordering::SeqCst), 1);
}

/// What a closure owns is dropped exactly once, after it ran.
#[test]
#[serial]
fn each_closure_is_freed_exactly_once() {
    let owned = Arc::new(());
    let runs = Arc::new(AtomicUsize::new(0));
    {
        let s = stream();
        let hold = if sim_only("each_closure_is_freed_exactly_once (hold)") {
            Some(npu_sim::hold_stream(s.as_raw()).unwrap())
        } else {
            None
        };
        for _ in 0..3 {
            let (o, r) = (owned.clone(), runs.clone());
            s.launch_host_fn(move || {
                let _keep = &o;
                r.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        }
        // Still queued (behind the hold): not run, not freed.
        if hold.is_some() {
            assert_eq!(runs.load(Ordering::SeqCst), 0);
            assert_eq!(Arc::strong_count(&owned), 4);
        }
        drop(hold);
        // The stream goes with the closures possibly still queued: its
        // drop finishes its work first.
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(Arc::strong_count(&owned), 1);
    // A panicking closure is dropped too, and the stream goes on.
    let s = stream();
    let o = owned.clone();
    s.launch_host_fn(move || {
        let _keep = &o;
        panic!("a host function panics");
    })
    .unwrap();
    let r = runs.clone();
    s.launch_host_fn(move || {
        r.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    s.synchronize().unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    assert_eq!(Arc::strong_count(&owned), 1);
}

/// A device fault earlier on the stream does not lose a closure: it runs
/// (host work), and the fault is still reported.
#[test]
#[serial]
fn a_fault_before_a_closure_neither_runs_it_twice_nor_loses_it() {
    if !sim_only("a_fault_before_a_closure_neither_runs_it_twice_nor_loses_it") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let idx = Tensor::from_slice(&s, &[2], &[0i64, 9]).unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let owned = Arc::new(());
    // An out-of-range index, found by the kernel on the device.
    let y = s.index_select(&x, 0, &idx);
    let (r, o) = (runs.clone(), owned.clone());
    s.launch_host_fn(move || {
        let _keep = &o;
        r.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    let got = s.synchronize();
    if let Ok(y) = y {
        assert!(got.is_err() || y.to_vec::<f32>().is_err());
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&owned), 1);
}
