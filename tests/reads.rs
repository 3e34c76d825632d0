//! Reads that do not block the host (issue 18, item 4): `to_vec` straight
//! into `Vec<T>`, stream-ordered downloads into a caller's pinned buffer,
//! pinned buffers lent to uploads and given back, the async form. Each
//! read path reports the fault of the work that produced its data, and a
//! lent buffer is never visible to the host before its copy has run.

use npu_ops::{Backend, DType, PinnedBuffer, Runtime, Stream, Tensor};
use std::time::Duration;

fn rt() -> Runtime {
    Runtime::new(Backend::Simulator).expect("simulator runtime")
}

/// A tensor of 4 int32 whose producing launch on `s` faults on the device
/// (an out-of-range index).
fn faulted4(s: &Stream) -> Tensor {
    let x = Tensor::from_slice(s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(s, &[4], &[0i64, 1, 99, 2]).unwrap();
    s.index_select(&x, 0, &bad).unwrap()
}

/// Bit patterns that must survive untouched: NaN payloads, -0, subnormals.
fn awkward_f32() -> Vec<f32> {
    [
        0x7fc0_0001u32,
        0xffc1_2345,
        0x8000_0000,
        0x0000_0001,
        0x7f80_0000,
        0x3f80_0000,
    ]
    .iter()
    .cycle()
    .take(1000)
    .map(|&b| f32::from_bits(b))
    .collect()
}

#[test]
fn to_vec_is_bit_exact_for_views_and_every_dtype_path() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let v = awkward_f32();
    let x = Tensor::from_slice(&s, &[10, 100], &v).unwrap();
    let got: Vec<u32> = x
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|f| f.to_bits())
        .collect();
    let want: Vec<u32> = v.iter().map(|f| f.to_bits()).collect();
    assert_eq!(got, want);
    // A strided view, gathered on the host: equal to to_bytes.
    let t = x.transpose(0, 1).unwrap();
    let tv: Vec<u8> = t
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert_eq!(tv, t.to_bytes().unwrap());
    // bool (not every bit pattern valid) takes the converting path.
    let b = Tensor::from_slice(&s, &[3], &[true, false, true]).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), [true, false, true]);
    // Empty.
    let e = Tensor::empty(&s, DType::I64, &[0, 3]).unwrap();
    assert!(e.to_vec::<i64>().unwrap().is_empty());
}

#[test]
fn a_faulted_result_reports_through_to_vec() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let y = faulted4(&s);
    assert!(y.to_vec::<i32>().unwrap_err().is_device_fault());
    assert!(y.to_bytes().unwrap_err().is_device_fault());
    let _ = s.synchronize();
}

#[test]
fn download_pinned_is_bit_exact_and_the_buffer_is_reused() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let v = awkward_f32();
    let x = Tensor::from_slice(&s, &[10, 100], &v).unwrap();
    let mut buf = PinnedBuffer::new(&rt, 4000).unwrap();
    let addr = buf.as_ptr();
    for step in 0..5 {
        let y = s.slice(&x, 1, step, 100, 1).unwrap(); // queued, strided source
        let want = y.to_bytes().unwrap();
        let mut b2 = PinnedBuffer::new(&rt, want.len()).unwrap();
        b2 = s.download_pinned(&y, b2).unwrap().wait().unwrap();
        assert_eq!(b2.as_slice(), &want[..]);
        // The contiguous whole, into the reused buffer.
        let z = s.slice(&x, 0, 0, 10, 1).unwrap();
        buf = s.download_pinned(&z, buf).unwrap().wait().unwrap();
        assert_eq!(buf.as_ptr(), addr, "the same buffer comes back");
        let got: Vec<u32> = buf
            .as_slice()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, v.iter().map(|f| f.to_bits()).collect::<Vec<_>>());
    }
    // A wrong size is refused, naming the parameter; the buffer is gone.
    let e = s
        .download_pinned(&x, PinnedBuffer::new(&rt, 3).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("buf"), "{e}");
}

#[test]
fn download_pinned_waits_for_the_copy_behind_a_held_stream() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    s.synchronize().unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&x, 0, 1, 3, 1).unwrap();
    let pending = s
        .download_pinned(&y, PinnedBuffer::new(&rt, 8).unwrap())
        .unwrap();
    // Enqueued without blocking; not complete while the stream is held.
    std::thread::sleep(Duration::from_millis(50));
    assert!(!pending.is_complete());
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        hold.release();
    });
    let buf = pending.wait().unwrap();
    assert_eq!(buf.as_slice(), [2, 0, 0, 0, 3, 0, 0, 0]);
    releaser.join().unwrap();
}

#[test]
fn download_pinned_reports_the_fault_of_the_producing_work() {
    let rt = rt();
    let s = rt.stream().unwrap();
    // Pending at enqueue: the fault comes through wait().
    let y = faulted4(&s);
    let r = s.download_pinned(&y, PinnedBuffer::new(&rt, 16).unwrap());
    match r {
        Ok(p) => assert!(p.wait().unwrap_err().is_device_fault()),
        Err(e) => assert!(e.is_device_fault(), "{e}"),
    }
    let _ = s.synchronize();
    // Known at enqueue: refused at once.
    let y2 = faulted4(&s);
    let _ = s.synchronize();
    let e = s
        .download_pinned(&y2, PinnedBuffer::new(&rt, 16).unwrap())
        .unwrap_err();
    assert!(e.is_device_fault(), "{e}");
    // From another stream's faulted work, read on a second stream.
    let a = rt.stream().unwrap();
    let b = rt.stream().unwrap();
    let y3 = faulted4(&a);
    let r = b.download_pinned(&y3, PinnedBuffer::new(&rt, 16).unwrap());
    match r {
        Ok(p) => assert!(p.wait().unwrap_err().is_device_fault()),
        Err(e) => assert!(e.is_device_fault(), "{e}"),
    }
    let _ = a.synchronize();
    // The stream recovers: a good read afterwards is Ok.
    let x = Tensor::from_slice(&s, &[2], &[5i32, 6]).unwrap();
    let buf = s
        .download_pinned(&x, PinnedBuffer::new(&rt, 8).unwrap())
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(buf.as_slice(), [5, 0, 0, 0, 6, 0, 0, 0]);
}

#[test]
fn a_lent_upload_buffer_comes_back_only_after_its_copy() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let t = Tensor::empty(&s, DType::I32, &[256]).unwrap();
    let mut buf = PinnedBuffer::new(&rt, 1024).unwrap();
    let addr = buf.as_ptr();
    for step in 0..4i32 {
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        for (i, c) in buf.as_mut_slice().chunks_exact_mut(4).enumerate() {
            c.copy_from_slice(&(step * 1000 + i as i32).to_le_bytes());
        }
        let pending = s.upload_pinned_lend(&t, buf).unwrap();
        // The host holds no reference to the bytes while the copy is
        // queued: the buffer is only reachable through `pending`.
        std::thread::sleep(Duration::from_millis(20));
        assert!(!pending.is_complete());
        hold.release();
        buf = pending.wait().unwrap();
        assert_eq!(buf.as_ptr(), addr);
        // Overwrite at once: the device copy has the old bytes.
        buf.as_mut_slice().fill(0xff);
        let want: Vec<i32> = (0..256).map(|i| step * 1000 + i).collect();
        assert_eq!(t.to_vec::<i32>().unwrap(), want);
    }
    // Into a strided view (a temporary, then a copy).
    let m = Tensor::zeros(&s, DType::I32, &[2, 2]).unwrap();
    let mut b = PinnedBuffer::new(&rt, 8).unwrap();
    b.as_mut_slice().copy_from_slice(&[7, 0, 0, 0, 8, 0, 0, 0]);
    let _b = s
        .upload_pinned_lend(&m.transpose(0, 1).unwrap().narrow(0, 0, 1).unwrap(), b)
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(m.to_vec::<i32>().unwrap(), [7, 0, 8, 0]);
}

#[test]
fn a_lent_upload_after_a_fault_reports_it_and_the_stream_recovers() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let _y = faulted4(&s);
    let t = Tensor::empty(&s, DType::I32, &[4]).unwrap();
    // Queued behind the faulting launch: skipped, so not Ok.
    let r = s
        .upload_pinned_lend(&t, PinnedBuffer::new(&rt, 16).unwrap())
        .unwrap()
        .wait();
    assert!(r.unwrap_err().is_device_fault());
    let _ = s.synchronize();
    let mut b = PinnedBuffer::new(&rt, 16).unwrap();
    b.as_mut_slice()[0] = 9;
    let _b = s.upload_pinned_lend(&t, b).unwrap().wait().unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [9, 0, 0, 0]);
}

#[test]
fn pinned_copies_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<npu_ops::PinnedCopy>();
    send_sync::<PinnedBuffer>();
    let rt = rt();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(&s, &[2], &[1u32, 2]).unwrap();
    let p = s
        .download_pinned(&x, PinnedBuffer::new(&rt, 8).unwrap())
        .unwrap();
    let buf = std::thread::spawn(move || p.wait().unwrap())
        .join()
        .unwrap();
    assert_eq!(buf.as_slice(), [1, 0, 0, 0, 2, 0, 0, 0]);
}

#[test]
fn dropping_a_pending_copy_is_safe() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(&s, &[1024], &vec![3u8; 1024]).unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let p = s
        .download_pinned(&x, PinnedBuffer::new(&rt, 1024).unwrap())
        .unwrap();
    let t = Tensor::empty(&s, DType::U8, &[1024]).unwrap();
    let q = s
        .upload_pinned_lend(&t, PinnedBuffer::new(&rt, 1024).unwrap())
        .unwrap();
    drop(p); // the buffers are freed once their copies have run
    drop(q);
    hold.release();
    s.synchronize().unwrap();
    assert_eq!(t.to_vec::<u8>().unwrap(), vec![0u8; 1024]);
}

#[cfg(feature = "async")]
#[test]
fn an_awaited_download_yields_the_data_or_the_fault() {
    use std::future::Future;
    use std::sync::Arc;
    use std::task::{Context, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = Box::pin(f);
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }
    let rt = rt();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    s.synchronize().unwrap();
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let y = s.slice(&x, 0, 1, 3, 1).unwrap();
    let mut fut = Box::pin(
        s.download_pinned(&y, PinnedBuffer::new(&rt, 8).unwrap())
            .unwrap(),
    );
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    // Held: polling returns at once, pending (the executor is not blocked).
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    hold.release();
    let buf = block_on(fut).unwrap();
    assert_eq!(buf.as_slice(), [2, 0, 0, 0, 3, 0, 0, 0]);
    // Reused, awaited again; then a faulted source.
    let z = s.slice(&x, 0, 0, 2, 1).unwrap();
    let buf = block_on(s.download_pinned(&z, buf).unwrap()).unwrap();
    assert_eq!(buf.as_slice(), [1, 0, 0, 0, 2, 0, 0, 0]);
    let f = faulted4(&s);
    match s.download_pinned(&f, PinnedBuffer::new(&rt, 16).unwrap()) {
        Ok(p) => assert!(block_on(p).unwrap_err().is_device_fault()),
        Err(e) => assert!(e.is_device_fault(), "{e}"),
    }
    let _ = s.synchronize();
}
