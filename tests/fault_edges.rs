//! Edges of the fault mechanism found by an adversarial review (issue 17):
//! shared streams, whole and partial rewrites, composites, stream drops.
//! Each test says what it attacks; those marked "regression" reproduced a
//! defect before it was fixed. The stream-drop tests take a few seconds
//! (a drop begins on another thread, and a timer releases the held
//! stream, so none can hang).

#[path = "support/shared_stream.rs"]
mod shared_stream;

use npu_ops::{Backend, DType, Runtime, SampleMode, SampledSlice, Stream, Tensor};
use shared_stream::{faulting_launch, race};
use std::sync::mpsc;
use std::time::Duration;

fn rt() -> Runtime {
    Runtime::new(Backend::Simulator).expect("simulator runtime")
}

// ---------------------------------------------------------------------------
// A stream being dropped (its last handle gone, its queue still draining)
// ---------------------------------------------------------------------------

/// Drops `a` (its last handle) on another thread while `a`'s queue is held,
/// and returns once the drop has most likely begun (the drop blocks until
/// the hold is released: it synchronises `a`). Any launch or read that
/// depends on `a`'s held work now waits on the host for that drop, so the
/// hold is released by `release_eventually`'s timer. Should the drop not
/// have begun yet (a very slow host), the same calls take the ordinary
/// path through `a`'s events and must give the same results: the test
/// then checks less, never wrongly.
fn drop_while_held(
    _rt: &Runtime,
    a: Stream,
    _pending: &Tensor,
) -> (std::thread::JoinHandle<()>, Vec<Stream>) {
    let (tx, rx) = mpsc::channel();
    let dropper = std::thread::spawn(move || {
        tx.send(()).unwrap();
        drop(a);
    });
    rx.recv().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    (dropper, Vec::new())
}

/// Releases `hold` after `secs` unless the test did first (a safety net:
/// a test that goes wrong must not hang the suite).
fn release_eventually(
    hold: npu_sim::Hold,
    secs: u64,
) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<()>();
    let h = std::thread::spawn(move || {
        let _ = rx.recv_timeout(Duration::from_secs(secs));
        hold.release();
    });
    (tx, h)
}

/// Regression: a whole rewrite on stream B of a tensor whose writer on stream A
/// faulted (a kernel that wrote part of its output before faulting), made
/// while A's last handle is being dropped (its queue still draining), is
/// not ordered after A's work: `Timeline::event_for` cannot reach the dying
/// stream, so `cross_stream_waits` treats A's work as finished, lists it as
/// `ordered`, and `set_written` drops the faulted record. A's kernel then
/// runs after B's write, leaving its partial output in the tensor, which
/// reads back as `Ok`. Fixed: a launch ordered after work of a stream that
/// is gone waits on the host until the drop has settled that work.
#[test]
fn a_whole_rewrite_while_the_faulted_writers_stream_drops_never_reads_stale_ok() {
    let rt = rt();
    let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    // The kernel checks its indices 512 at a time: it writes y[..512],
    // then faults at position 700.
    let n = 1024usize;
    let xv: Vec<i32> = (0..n as i32).map(|i| i + 1).collect();
    let mut iv: Vec<i64> = (0..n as i64).collect();
    iv[700] = 1 << 40;
    let x = Tensor::from_slice(&a, &[n], &xv).unwrap();
    let bad = Tensor::from_slice(&a, &[n], &iv).unwrap();
    a.synchronize().unwrap();
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let (stop, releaser) = release_eventually(hold, 2);
    let y = a.index_select(&x, 0, &bad).unwrap();
    let (dropper, probes) = drop_while_held(&rt, a, &y);
    // A whole rewrite of y, on another stream, after the faulted write.
    b.fill(&y, 7i32).unwrap();
    b.synchronize().unwrap();
    let _ = stop.send(());
    releaser.join().unwrap();
    dropper.join().unwrap();
    drop(probes);
    // Ordered after the faulted kernel (which wrote part of y before it
    // faulted), the whole rewrite makes y good: every element is B's.
    let v = y.to_vec::<i32>().expect("rewritten whole after the fault");
    let stale = v.iter().filter(|&&e| e != 7).count();
    assert_eq!(
        stale, 0,
        "{stale} elements of the faulted kernel's partial output read back as Ok"
    );
}

/// Regression (ordering, no fault): the same window without a
/// fault. B's whole rewrite of y is not ordered after A's pending write of
/// y while A is being dropped, so A's write lands last and y reads back
/// A's bytes as `Ok` although B's write came after it in program order
/// ("between streams, the data orders the work").
#[test]
fn a_write_while_the_previous_writers_stream_drops_is_ordered_after_it() {
    let rt = rt();
    let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    let idx = Tensor::from_slice(&a, &[4], &[0i64, 1, 2, 3]).unwrap();
    a.synchronize().unwrap();
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let (stop, releaser) = release_eventually(hold, 2);
    let y = a.index_select(&x, 0, &idx).unwrap();
    let (dropper, probes) = drop_while_held(&rt, a, &y);
    b.fill(&y, 7i32).unwrap();
    b.synchronize().unwrap();
    let _ = stop.send(());
    releaser.join().unwrap();
    dropper.join().unwrap();
    drop(probes);
    assert_eq!(
        y.to_vec::<i32>().unwrap(),
        [7, 7, 7, 7],
        "the earlier write on the dropped stream landed after the later one"
    );
}

// ---------------------------------------------------------------------------
// Whole rewrites made of several launches
// ---------------------------------------------------------------------------

/// Regression (liveness, conservative): a sampled slice written into a
/// faulted tensor rewrites every byte of it, but as several partial
/// launches (one per block, `copy_blocks`) with no record for the whole
/// (`Stream::rewrote` is not called), so every block keeps the old fault as
/// a dependency and the tensor keeps reporting it ("writing a whole tensor
/// again ... makes it good"). `copy_pieces` (a contiguous copy of an
/// overlapping view) does the same thing right.
#[test]
fn a_sampled_slice_into_a_faulted_tensor_makes_it_good() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let y = faulting_launch(&s);
    assert!(s.synchronize().is_err());
    assert!(y.to_vec::<i32>().is_err());
    let x = Tensor::from_slice(&s, &[4], &[10i32, 20, 30, 40]).unwrap();
    // WRAP from 2: blocks [2, 3] and [0, 1].
    let p = SampledSlice::new(&[2], &[4], &[1], SampleMode::Wrap);
    assert_eq!(
        s.sampled_slice(&x, &p).unwrap().to_vec::<i32>().unwrap(),
        [30, 40, 10, 20]
    );
    s.sampled_slice_into(&x, &p, &y).unwrap();
    assert_eq!(
        y.to_vec::<i32>()
            .expect("rewritten whole by the sampled slice"),
        [30, 40, 10, 20]
    );
}

/// Holds: the contiguous copy of an overlapping view into a faulted
/// tensor (several launches, one record for the whole) makes it good; so
/// do an upload and a fill through a non-contiguous view of the whole.
#[test]
fn composite_whole_rewrites_make_a_faulted_tensor_good() {
    let rt = rt();
    let (s, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let src = Tensor::from_slice(&s, &[3], &[5i32, 6, 7]).unwrap();
    for on in [&s, &b] {
        // as_strided_into: windows [5, 6], [6, 7] overlap (pieces).
        let y = faulting_launch(&s);
        let _ = s.synchronize();
        let whole = y.view(&[2, 2], &[2, 1], 0).unwrap();
        on.as_strided_into(&src, &[2, 2], &[1, 1], 0, &whole)
            .unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), [5, 6, 6, 7]);
        // An upload through the transposed view of the whole storage.
        let y = faulting_launch(&s);
        let _ = s.synchronize();
        let t = y.view(&[2, 2], &[1, 2], 0).unwrap();
        on.upload(&t, &[1i32, 2, 3, 4]).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), [1, 3, 2, 4]);
        // A non-uniform fill through the transposed view.
        let y = faulting_launch(&s);
        let _ = s.synchronize();
        on.fill(&y.view(&[2, 2], &[1, 2], 0).unwrap(), 0x0102_0304i32)
            .unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), [0x0102_0304; 4]);
    }
    s.synchronize().unwrap();
}

/// Holds: a partial rewrite made of several launches keeps the fault.
#[test]
fn composite_partial_rewrites_keep_the_fault() {
    let rt = rt();
    let (s, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let src = Tensor::from_slice(&s, &[3], &[5i32, 6, 7]).unwrap();
    for on in [&s, &b] {
        let y = faulting_launch(&s);
        let _ = s.synchronize();
        // Three of the four elements (overlapping windows, pieces).
        let part = y.view(&[3], &[1], 0).unwrap();
        on.as_strided_into(&src, &[3], &[1], 0, &part).unwrap();
        assert!(y.to_vec::<i32>().is_err(), "one element is still spoiled");
        assert!(part.to_vec::<i32>().is_err());
        let y = faulting_launch(&s);
        let _ = s.synchronize();
        let p = SampledSlice::new(&[1], &[3], &[1], SampleMode::Wrap);
        on.sampled_slice_into(&src, &p, &y.view(&[3], &[1], 1).unwrap())
            .unwrap();
        assert!(y.to_vec::<i32>().is_err(), "element 0 is still spoiled");
    }
    s.synchronize().unwrap();
}

/// Regression (ordering, no fault, same cause): a read on stream
/// B of a tensor stream A is still writing, while A's last handle is being
/// dropped, does not wait for A's write: B reads the bytes from before it,
/// and its result reads back as `Ok`.
#[test]
fn a_read_while_the_writers_stream_drops_waits_for_the_write() {
    let rt = rt();
    let (a, b) = (rt.stream().unwrap(), rt.stream().unwrap());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    let y = Tensor::zeros(&a, DType::I32, &[4]).unwrap();
    a.synchronize().unwrap();
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let (stop, releaser) = release_eventually(hold, 2);
    a.copy(&y, &x).unwrap();
    let (dropper, probes) = drop_while_held(&rt, a, &y);
    let z = b.slice(&y, 0, 0, 4, 1).unwrap();
    b.synchronize().unwrap();
    let _ = stop.send(());
    releaser.join().unwrap();
    dropper.join().unwrap();
    drop(probes);
    assert_eq!(y.to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
    assert_eq!(
        z.to_vec::<i32>().unwrap(),
        [1, 2, 3, 4],
        "B read y before the write A had queued"
    );
}

// ---------------------------------------------------------------------------
// Shared streams: composites against faults taken by other threads
// ---------------------------------------------------------------------------

/// Holds: threads sharing one stream with a thread that faults it and
/// synchronises it; the others build results from several launches each
/// (a sampled slice in blocks, an upload and a non-uniform fill through a
/// transposed view, an as_strided of a non-contiguous input that gathers
/// into a temporary, an as_strided with overlapping windows in pieces)
/// and read them back, sometimes synchronising too: every read is the
/// right data or an error.
#[test]
fn composites_on_a_shared_faulting_stream_never_read_stale_ok() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let r = race(&s, 1500, 2, |s, t, i| {
        let k = (t * 13).wrapping_add(i);
        let m = 4 + (k.rem_euclid(29)) as usize; // rows of 2
        let v: Vec<i32> = (0..(2 * m) as i32).map(|i| i * 3 + k).collect();
        let (got, want): (npu_ops::Result<Vec<i32>>, Vec<i32>) = match k % 5 {
            0 => {
                // Sampled slice, WRAP: two blocks.
                let r = Tensor::from_slice(s, &[2 * m], &v).and_then(|x| {
                    let p = SampledSlice::new(&[m as i64], &[2 * m as i64], &[1], SampleMode::Wrap);
                    let out = Tensor::empty(s, DType::I32, &[2 * m])?;
                    s.sampled_slice_into(&x, &p, &out)?;
                    out.to_vec::<i32>()
                });
                let want = v[m..].iter().chain(&v[..m]).copied().collect();
                (r, want)
            }
            1 => {
                // Upload through the transposed view.
                let r = Tensor::empty(s, DType::I32, &[m, 2]).and_then(|y| {
                    let t = y.transpose(0, 1)?;
                    s.upload(&t, &v)?;
                    y.to_vec::<i32>()
                });
                // y^T = v as [2, m]: y[i][j] = v[j * m + i].
                let want = (0..m).flat_map(|i| [v[i], v[m + i]]).collect();
                (r, want)
            }
            2 => {
                // Non-uniform fill through the transposed view.
                let r = Tensor::empty(s, DType::I32, &[m, 2]).and_then(|y| {
                    s.fill(&y.transpose(0, 1)?, 0x0102_0300 + k)?;
                    y.to_vec::<i32>()
                });
                (r, vec![0x0102_0300 + k; 2 * m])
            }
            3 => {
                // as_strided of a non-contiguous input (x^T
                // as [2, m]), reading less than half: a gather
                // into a non-dense view (temporary, then a copy).
                let r = Tensor::from_slice(s, &[m, 2], &v).and_then(|x| {
                    let xt = x.transpose(0, 1)?; // [2, m]
                    let out = Tensor::empty(s, DType::I32, &[2, 3])?;
                    let view = out.transpose(0, 1)?; // [3, 2]
                    s.as_strided_into(&xt, &[3, 2], &[1, 2], 0, &view)?;
                    out.to_vec::<i32>()
                });
                // flat(xt)[f] = v[(f % m) * 2 + f / m];
                // view[i][j] = flat(xt)[i + 2j]; out = view^T.
                let flat = |f: usize| v[(f % m) * 2 + f / m];
                let want = (0..2)
                    .flat_map(|j| (0..3).map(move |i| (i, j)))
                    .map(|(i, j)| flat(i + 2 * j))
                    .collect();
                (r, want)
            }
            _ => {
                // as_strided with overlapping windows: pieces.
                let r = Tensor::from_slice(s, &[2 * m], &v).and_then(|x| {
                    s.as_strided(&x, &[m as i64, 3], &[1, 1], 0)?
                        .to_vec::<i32>()
                });
                let want = (0..m).flat_map(|i| [v[i], v[i + 1], v[i + 2]]).collect();
                (r, want)
            }
        };
        if k % 7 == 0 {
            let _ = s.synchronize();
        }
        Some((got, want))
    });
    let (wrong, good, faulted) = (r.wrong, r.good, r.faulted);
    eprintln!("composites: {good} good, {faulted} faulted, {wrong} wrong");
    assert_eq!(wrong, 0, "reads that returned Ok with wrong bytes");
    assert!(good > 0, "no read ever succeeded: the test tests nothing");
}
