//! What a service relies on (issue 9): reads that wait for their writer
//! only, stream-ordered memory reuse, writes into existing tensors,
//! events, raw interop. Tests that use the simulator's gates or counters
//! skip on real CANN, saying so.

mod common;

use common::*;
use half::bf16;
use npu_ops::{DType, Error, PinnedBuffer, Stream, Tensor};
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

#[test]
#[serial]
fn uploads_write_existing_tensors_and_views() {
    let s = stream();
    let cache = Tensor::zeros(&s, DType::BF16, &[4, 3]).unwrap();
    let row: Vec<bf16> = [1.0f32, 2.0, 3.0].map(bf16::from_f32).to_vec();
    s.upload(&cache.narrow(0, 2, 1).unwrap(), &row).unwrap();
    // A non-contiguous destination (a column).
    let col: Vec<bf16> = [4.0f32, 5.0, 6.0, 7.0].map(bf16::from_f32).to_vec();
    s.upload(&cache.narrow(1, 0, 1).unwrap(), &col).unwrap();
    let got: Vec<f32> = cache
        .to_vec::<bf16>()
        .unwrap()
        .iter()
        .map(|v| v.to_f32())
        .collect();
    assert_eq!(got, [4., 0., 0., 5., 0., 0., 6., 2., 3., 7., 0., 0.]);
    // Bytes, and a caller-filled pinned buffer.
    let t = Tensor::empty(&s, DType::I32, &[2]).unwrap();
    s.upload_bytes(&t, &[1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2]);
    let mut buf = PinnedBuffer::new(rt(), 8).unwrap();
    buf.as_mut_slice()
        .copy_from_slice(&[3, 0, 0, 0, 4, 0, 0, 0]);
    s.upload_pinned(&t, buf).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [3, 4]);
}

#[test]
#[serial]
fn bad_writes_are_typed_errors() {
    let s = stream();
    let t = Tensor::zeros(&s, DType::F32, &[2, 2]).unwrap();
    let invalid = |r: npu_ops::Result<()>, op: &str, param: &str| match r {
        Err(Error::InvalidArgument {
            op: o, param: p, ..
        }) => {
            assert_eq!((o, p), (op, param))
        }
        other => panic!("expected invalid {op}.{param}, got {other:?}"),
    };
    invalid(s.upload(&t, &[1f32; 3]), "upload", "data");
    invalid(s.upload(&t, &[1i32; 4]), "upload", "dst");
    let broadcast = t.view(&[2, 2], &[0, 1], 0).unwrap();
    invalid(s.upload(&broadcast, &[1f32; 4]), "upload", "dst");
    invalid(s.fill(&broadcast, 1f32), "fill", "dst");
    invalid(s.fill(&t, 1i64), "fill", "dst");
    let other = Tensor::zeros(&s, DType::F32, &[4]).unwrap();
    invalid(s.copy(&t, &other), "copy", "src");
    invalid(
        s.copy(&t, &Tensor::zeros(&s, DType::I32, &[2, 2]).unwrap()),
        "copy",
        "src",
    );
    let foreign = npu_ops::Runtime::new(npu_ops::Backend::Simulator).unwrap();
    let fs = foreign.stream().unwrap();
    let ft = Tensor::zeros(&fs, DType::F32, &[2, 2]).unwrap();
    invalid(s.copy(&t, &ft), "copy", "src");
    invalid(s.upload(&ft, &[0f32; 4]), "upload", "dst");
    let buf = PinnedBuffer::new(&foreign, 16).unwrap();
    invalid(s.upload_pinned(&t, buf), "upload", "buf");
    // Nothing was written.
    assert_eq!(t.to_vec::<f32>().unwrap(), [0.; 4]);
}

#[test]
#[serial]
fn device_copies_fills_and_overlap() {
    let s = stream();
    let a = Tensor::from_slice(&s, &[2, 3], &[1i64, 2, 3, 4, 5, 6]).unwrap();
    let b = Tensor::zeros(&s, DType::I64, &[3, 2]).unwrap();
    s.copy(&b, &a.transpose(0, 1).unwrap()).unwrap();
    assert_eq!(b.to_vec::<i64>().unwrap(), [1, 4, 2, 5, 3, 6]);
    let c = Tensor::zeros(&s, DType::I64, &[2, 3]).unwrap();
    s.copy(&c, &a).unwrap();
    assert_eq!(c.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 5, 6]);
    // A shift within one storage: every element read before it is written.
    let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
    s.copy(&x.narrow(0, 1, 5).unwrap(), &x.narrow(0, 0, 5).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [0, 0, 1, 2, 3, 4]);
    // Fills: byte-uniform (memset) and not, on views too.
    let f = Tensor::full(&s, &[2, 3], 1.5f32).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), [1.5; 6]);
    s.fill(&f.narrow(1, 1, 1).unwrap(), -1f32).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), [1.5, -1., 1.5, 1.5, -1., 1.5]);
    let m = Tensor::full(&s, &[5], -1i16).unwrap();
    assert_eq!(m.to_vec::<i16>().unwrap(), [-1; 5]);
    let z = Tensor::zeros(&s, DType::C128, &[2]).unwrap();
    assert_eq!(z.to_vec::<[f64; 2]>().unwrap(), [[0., 0.]; 2]);
}

#[test]
#[serial]
fn a_kv_cache_loop_makes_no_device_allocation_after_warm_up() {
    if !sim_only("a_kv_cache_loop_makes_no_device_allocation_after_warm_up") {
        return;
    }
    let s = stream();
    let (len, width, window) = (64usize, 32usize, 8usize);
    let cache = Tensor::zeros(&s, DType::BF16, &[len, width]).unwrap();
    let token: Vec<bf16> = (0..width).map(|i| bf16::from_f32(i as f32)).collect();
    let step = |t: usize| {
        s.upload(&cache.narrow(0, t % len, 1).unwrap(), &token)
            .unwrap();
        let start = (t % len).saturating_sub(window - 1);
        let w = s
            .slice(&cache, 0, start as i64, (t % len + 1) as i64, 1)
            .unwrap();
        let idx: Vec<i64> = (0..window as i64)
            .map(|i| i % (w.shape()[0] as i64))
            .collect();
        s.index_select_host(&w, 0, &idx).unwrap()
    };
    // Warm-up: the pool grows to the deepest queue the loop builds (the
    // stream keeps at most 64 launches in flight); until 200 steps in a
    // row allocate nothing.
    let mut t = 0;
    let mut quiet = 0;
    while quiet < 200 {
        let before = rt().memory_stats().device_allocs;
        drop(step(t));
        t += 1;
        quiet = if rt().memory_stats().device_allocs == before {
            quiet + 1
        } else {
            0
        };
        assert!(t < 5000, "the pool never stopped growing");
    }
    s.synchronize().unwrap();
    let (before, sim_before) = (rt().memory_stats(), npu_sim::stats());
    let mut last = None;
    for t in t..t + 1000 {
        last = Some(step(t));
    }
    let last = last.unwrap();
    assert_eq!(last.shape(), &[window, width]);
    s.synchronize().unwrap();
    let (after, sim_after) = (rt().memory_stats(), npu_sim::stats());
    assert_eq!(
        after.device_allocs, before.device_allocs,
        "steady state allocates nothing: {before:?} -> {after:?}"
    );
    assert!(after.hits >= before.hits + 2000, "{before:?} -> {after:?}");
    assert_eq!(sim_after.allocations, sim_before.allocations);
    assert_eq!(sim_after.host_allocations, sim_before.host_allocations);
}

#[test]
#[serial]
fn a_block_is_not_reused_while_queued_work_uses_it() {
    if !sim_only("a_block_is_not_reused_while_queued_work_uses_it") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[1024], &vec![1f32; 1024]).unwrap();
    s.synchronize().unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&x, 0, 0, 1024, 1).unwrap();
    let p = y.device_ptr();
    drop(y); // queued work still writes it
    let z = Tensor::empty(&s, DType::F32, &[1024]).unwrap();
    assert_ne!(z.device_ptr(), p, "handed out while queued work uses it");
    hold.release();
    s.synchronize().unwrap();
    drop(s.slice(&x, 0, 0, 1, 1).unwrap()); // a launch releases finished work
    s.synchronize().unwrap();
    let w = Tensor::empty(&s, DType::F32, &[1024]).unwrap();
    assert_eq!(w.device_ptr(), p, "reused once the work has run");
    drop(z);
}

#[test]
#[serial]
fn foreign_memory_and_streams_interoperate() {
    if !sim_only("foreign_memory_and_streams_interoperate") {
        return;
    }
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let api = rt().api().clone();
    let dev = rt().device(0).unwrap();
    // A stream and memory made by "other CANN code".
    let mut raw_stream: cann_sys::aclrtStream = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; device 0 is bound by `stream()` below.
    let _s0 = stream();
    assert_eq!(unsafe { (api.aclrtCreateStream)(&mut raw_stream) }, 0);
    let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(
        unsafe {
            (api.aclrtMalloc)(
                &mut p,
                16,
                cann_sys::aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
            )
        },
        0
    );
    let released = Arc::new(AtomicBool::new(false));
    {
        // SAFETY: a live stream of device 0 made through the same API, kept
        // until after the adopted handle is dropped.
        let s = unsafe { Stream::from_raw(&dev, raw_stream) }.unwrap();
        let r = released.clone();
        let api2 = api.clone();
        let addr = p as usize;
        let release = move || {
            // SAFETY: the adopted allocation, freed once.
            unsafe { (api2.aclrtFree)(addr as *mut std::ffi::c_void) };
            r.store(true, Ordering::SeqCst);
        };
        // SAFETY: 16 bytes of device 0 memory, freed only by `release`.
        let t = unsafe { Tensor::from_raw(&s, p, DType::I32, &[4], release) }.unwrap();
        assert_eq!(t.device_ptr(), p);
        s.upload(&t, &[5i32, 6, 7, 8]).unwrap();
        let u = s.slice(&t, 0, 1, 3, 1).unwrap();
        assert_eq!(u.to_vec::<i32>().unwrap(), [6, 7]);
        let d = t.acl_tensor().unwrap();
        assert!(!d.as_raw().is_null());
        drop(d);
        drop(t);
        drop(u);
    }
    assert!(
        released.load(Ordering::SeqCst),
        "release ran when the last user went"
    );
    // The adopted stream is still the caller's.
    // SAFETY: the stream made above, destroyed once.
    assert_eq!(unsafe { (api.aclrtDestroyStream)(raw_stream) }, 0);
}
