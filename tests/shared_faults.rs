//! Faults on streams that threads share (issue 17, classes 1 and 3): a
//! fault never reads as `Ok`, whichever thread synchronises, and a whole
//! rewrite makes a faulted tensor good again from any stream or device.

#[path = "support/shared_stream.rs"]
mod shared_stream;

use npu_ops::{Backend, Runtime, Stream, Tensor};
use shared_stream::race;

fn rt() -> Runtime {
    Runtime::new(Backend::Simulator).expect("simulator runtime")
}

/// A launch on `s` that faults on the device (an out-of-range index in a
/// device index tensor); its output must never read as `Ok`.
fn faulting_launch(s: &Stream) -> Tensor {
    let x = Tensor::from_slice(s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let idx = Tensor::from_slice(s, &[2], &[0i64, 99]).unwrap();
    s.index_select(&x, 0, &idx).unwrap()
}

/// Thread A faults and synchronises; thread B slices fresh tensors on the
/// same stream and reads them back: every read is the right data or an
/// error, never stale bytes. Before the fix, an event recorded after A's
/// synchronisation took the fault vouched for B's launches that the
/// runtime had skipped.
#[test]
fn a_fault_on_a_shared_stream_never_reads_as_ok() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let r = race(&s, 4000, 2, |s, t, i| {
        let k = t.wrapping_add(i.wrapping_mul(7));
        let n = 64 + (k.rem_euclid(512)) as usize;
        let v: Vec<i32> = (0..n as i32).map(|i| i ^ k).collect();
        let x = Tensor::from_slice(s, &[n], &v).ok()?;
        // A slice (one launch), or the contiguous copy of a view that
        // overlaps itself (a composite of several launches on the stream,
        // one record for the whole).
        let composite = k % 2 == 0;
        let y = if composite {
            x.view(&[n / 2, 2], &[1, 2], 0)
                .and_then(|w| s.contiguous(&w))
        } else {
            s.slice(&x, 0, 1, n as i64, 2)
        }
        .ok()?;
        if k % 5 == 0 {
            let _ = s.synchronize();
        }
        let want: Vec<i32> = if composite {
            (0..n / 2).flat_map(|i| [v[i], v[i + 2]]).collect()
        } else {
            v.iter().skip(1).step_by(2).copied().collect()
        };
        Some((y.to_vec::<i32>(), want))
    });
    let (wrong, good, faulted) = (r.wrong, r.good, r.faulted);
    eprintln!("shared stream: {good} good reads, {faulted} reported a fault, {wrong} wrong");
    assert_eq!(wrong, 0, "reads that returned Ok with wrong bytes");
    assert!(good > 0, "no read ever succeeded: the test tests nothing");
}

/// A faulted tensor, rewritten whole on another stream, reads the new data.
#[test]
fn a_whole_rewrite_from_another_stream_makes_a_tensor_good() {
    let rt = rt();
    let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let y = faulting_launch(&a);
    assert!(y.to_vec::<i32>().is_err());
    assert!(a.synchronize().is_err());
    // Rewritten whole from the host, on another stream.
    b.upload(&y, &[3i32, 4]).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [3, 4]);
    // Faulted again, rewritten whole by a device copy on another stream.
    let y = faulting_launch(&a);
    let _ = a.synchronize();
    let fresh = Tensor::from_slice(&b, &[2], &[5i32, 6]).unwrap();
    b.copy(&y, &fresh).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [5, 6]);
    // Faulted again on `a`, rewritten whole by an operator on `b`.
    let z = faulting_launch(&a);
    assert!(z.wait().is_err());
    let _ = a.synchronize();
    let src = Tensor::from_slice(&b, &[4], &[9i32, 8, 7, 6]).unwrap();
    b.slice_into(&src, 0, 0, 4, 2, &z).unwrap();
    assert_eq!(z.to_vec::<i32>().unwrap(), [9, 7]);
    // A partial rewrite keeps the fault: the rest of the bytes are spoiled.
    let w = faulting_launch(&a);
    let _ = a.synchronize();
    let part = w.view(&[1], &[1], 0).unwrap();
    let one = Tensor::from_slice(&b, &[1], &[1i32]).unwrap();
    b.copy(&part, &one).unwrap();
    assert!(
        w.to_vec::<i32>().is_err(),
        "half the bytes are still spoiled"
    );
}
