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
    // A decode step: write this token's row, gather the attention window,
    // read the result back (as sampling the next token would).
    let step = |t: usize| {
        s.upload(&cache.narrow(0, t % len, 1).unwrap(), &token)
            .unwrap();
        let start = (t % len).saturating_sub(window - 1);
        let w = s
            .slice(&cache, 0, start as i64, (t % len + 1) as i64, 1)
            .unwrap();
        let idx: Vec<u32> = (0..window as u32)
            .map(|i| i % (w.shape()[0] as u32))
            .collect();
        let out = s.index_select_host(&w, 0, &idx).unwrap();
        assert_eq!(out.to_vec::<bf16>().unwrap()[..width], token[..]);
        out
    };
    for t in 0..20 {
        drop(step(t));
    }
    let (before, sim_before) = (rt().memory_stats(), npu_sim::stats());
    for t in 20..1020 {
        drop(step(t));
    }
    s.synchronize().unwrap();
    let (after, sim_after) = (rt().memory_stats(), npu_sim::stats());
    assert_eq!(
        after.device_allocs, before.device_allocs,
        "steady state allocates nothing: {before:?} -> {after:?}"
    );
    assert!(after.hits >= before.hits + 3000, "{before:?} -> {after:?}");
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

#[test]
#[serial]
fn token_ids_of_any_integer_type_gather_rows() {
    let s = stream();
    let table: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let emb = Tensor::from_slice(&s, &[4, 3], &table).unwrap();
    let want = [9f32, 10., 11., 0., 1., 2., 9., 10., 11.];
    // A device tensor of uint32 ids (read as int32 in place, no copy).
    let ids = Tensor::from_slice(&s, &[3], &[3u32, 0, 3]).unwrap();
    assert_eq!(
        s.index_select(&emb, 0, &ids)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        want
    );
    // Host ids of several integer types.
    assert_eq!(
        s.index_select_host(&emb, 0, &[3u32, 0, 3])
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        want
    );
    assert_eq!(
        s.index_select_host(&emb, 0, &[3u8, 0, 3])
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        want
    );
    assert_eq!(
        s.index_select_host(&emb, 0, &[3usize, 0, 3])
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        want
    );
    // Out of range on the host, whatever the type.
    for r in [
        s.index_select_host(&emb, 0, &[0u64, u64::MAX]),
        s.index_select_host(&emb, 0, &[4u16]),
        s.index_select_host(&emb, 0, &[-1i8]),
    ] {
        assert!(matches!(r, Err(Error::IndexOutOfRange { .. })), "{r:?}");
    }
    // And on the device: a uint32 id past the table faults, typed.
    let bad = Tensor::from_slice(&s, &[2], &[1u32, 7]).unwrap();
    let out = s.index_select(&emb, 0, &bad).unwrap();
    assert!(matches!(
        out.to_vec::<f32>(),
        Err(Error::IndexOutOfRange {
            position: 1,
            value: 7,
            ..
        })
    ));
    let _ = s.synchronize();
    // Other index dtypes are still refused, naming the parameter.
    let f = Tensor::from_slice(&s, &[1], &[0f32]).unwrap();
    assert!(matches!(
        s.index_select(&emb, 0, &f),
        Err(Error::InvalidArgument { param: "index", .. })
    ));
}

#[test]
#[serial]
fn events_time_device_work() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[1 << 16]).unwrap();
    let start = s.record().unwrap();
    let _y = s.slice(&x, 0, 0, 1 << 16, 2).unwrap();
    let end = s.record().unwrap();
    end.synchronize().unwrap();
    let took = start.elapsed(&end).unwrap();
    assert!(took < Duration::from_secs(600), "{took:?}");
    // Backwards is an error, not a negative duration.
    if end.elapsed(&start).is_ok() {
        assert_eq!(end.elapsed(&start).unwrap(), Duration::ZERO);
    }
    // An event never recorded has no time.
    let never = s.record().unwrap();
    never.synchronize().unwrap();
    let pending_hold = if npu_ops::Runtime::new(npu_ops::Backend::Auto)
        .map(|r| r.backend() == npu_ops::BackendKind::Simulator)
        .unwrap_or(false)
    {
        Some(npu_sim::hold_stream(s.as_raw()).unwrap())
    } else {
        None
    };
    if let Some(h) = pending_hold {
        let later = s.record().unwrap();
        assert!(start.elapsed(&later).is_err(), "not complete yet");
        h.release();
        later.synchronize().unwrap();
        assert!(start.elapsed(&later).is_ok());
    }
}

#[cfg(feature = "async")]
#[test]
#[serial]
fn an_async_wait_does_not_block_the_executor_thread() {
    use std::future::Future;
    use std::sync::Arc;
    use std::task::{Context, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    if !sim_only("an_async_wait_does_not_block_the_executor_thread") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&x, 0, 1, 3, 1).unwrap();
    let mut fut = Box::pin(s.record().unwrap().wait_async());
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    // Held: polling returns at once, pending.
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    hold.release();
    while fut.as_mut().poll(&mut cx).is_pending() {
        std::thread::park_timeout(Duration::from_millis(50));
    }
    assert_eq!(y.to_vec::<i32>().unwrap(), [2, 3]);
}

#[test]
#[serial]
fn streams_are_ordered_by_the_data_they_share() {
    if !sim_only("streams_are_ordered_by_the_data_they_share") {
        return;
    }
    let rt = rt();
    let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    a.synchronize().unwrap();
    // Read after write: b reads what a has not written yet.
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let y = a.slice(&x, 0, 1, 4, 1).unwrap(); // pending behind the gate
    let z = b.slice(&y, 0, 0, 2, 1).unwrap(); // must wait for it on the device
    let later = b.record().unwrap();
    assert!(
        !later.is_complete(),
        "b ran before the data it reads was written"
    );
    hold.release();
    assert_eq!(z.to_vec::<i32>().unwrap(), [2, 3]);
    // Write after read: b overwrites what a still has to read.
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let r = a.slice(&x, 0, 0, 4, 1).unwrap(); // reads x, pending
    b.upload(&x, &[9i32, 9, 9, 9]).unwrap(); // must wait for that read
    let written = b.record().unwrap();
    assert!(!written.is_complete(), "b overwrote x before a read it");
    hold.release();
    assert_eq!(r.to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
    b.synchronize().unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [9, 9, 9, 9]);
    // Write after write: the later write wins.
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    a.fill(&x, 1i32).unwrap();
    b.fill(&x, 2i32).unwrap();
    hold.release();
    b.synchronize().unwrap();
    a.synchronize().unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [2, 2, 2, 2]);
}

#[test]
#[serial]
fn a_runtime_never_sees_another_runtimes_bytes() {
    let n = 1 << 14;
    {
        let a = npu_ops::Runtime::new(npu_ops::Backend::Simulator).unwrap();
        let s = a.stream().unwrap();
        let t = Tensor::full(&s, &[n], 0xABu8).unwrap();
        t.wait().unwrap();
        drop(t);
        s.synchronize().unwrap();
        a.empty_cache(); // back to the device
    }
    let b = npu_ops::Runtime::new(npu_ops::Backend::Simulator).unwrap();
    let s = b.stream().unwrap();
    let fresh = Tensor::empty(&s, DType::U8, &[n]).unwrap();
    assert!(
        fresh.to_vec::<u8>().unwrap().iter().all(|&v| v == 0),
        "another runtime's bytes"
    );
}

#[test]
#[serial]
fn a_synchronisation_with_a_time_limit_gives_up_and_keeps_the_work() {
    if !sim_only("a_synchronisation_with_a_time_limit_gives_up_and_keeps_the_work") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&x, 0, 1, 3, 1).unwrap();
    match s.synchronize_timeout(Duration::from_millis(50)) {
        Err(Error::Runtime { api, code, .. }) => {
            assert_eq!(api, "aclrtSynchronizeStreamWithTimeout");
            assert_eq!(code, cann_sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    hold.release();
    s.synchronize_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [2, 3]);
}
