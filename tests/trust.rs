//! Regression tests of issue 8 ("trust"): memory safety reachable from safe
//! Rust, faults that must never read back as `Ok`, valid views that used to
//! fail, and the bounds of what one call may ask for.

mod common;

use common::*;
use npu_ops::{DType, Error, SampleMode, SampledSlice, Scalar, Tensor};
use serial_test::serial;

// ------------------------------------------------ 1. memory safety

#[test]
#[serial]
fn a_prepared_index_select_writing_into_its_own_index_is_safe() {
    let s = stream();
    // x holds values far outside any index range.
    let x = Tensor::from_slice(&s, &[4], &[1i64 << 40, 1 << 41, 1 << 42, 1 << 43]).unwrap();
    let store = Tensor::from_slice(&s, &[5], &[0i64, 1, 2, 3, 0]).unwrap();
    let index = store.narrow(0, 0, 4).unwrap();
    let out = store.narrow(0, 1, 4).unwrap(); // out[i] is index[i + 1]
    let p = s.prepare_index_select(&x, 0, &index, &out).unwrap();
    // The same rules as index_select_into: the result is as if the
    // indices were read before anything was written.
    p.run(&x, &index, &out).unwrap();
    assert_eq!(
        store.to_vec::<i64>().unwrap(),
        [0, 1 << 40, 1 << 41, 1 << 42, 1 << 43]
    );
}

#[test]
#[serial]
fn a_prepared_slice_into_its_own_input_is_safe() {
    let s = stream();
    let store = Tensor::from_slice(&s, &[8], &[0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    let x = store.narrow(0, 0, 6).unwrap();
    let out = store.narrow(0, 2, 3).unwrap();
    let p = s.prepare_slice(&x, 0, 0, 6, 2, &out).unwrap();
    p.run(&x, &out).unwrap();
    // out = x[0, 2, 4] read before writing = [0, 2, 4], into store[2..5].
    assert_eq!(store.to_vec::<i32>().unwrap(), [0, 1, 0, 2, 4, 5, 6, 7]);
}

#[test]
#[serial]
fn views_whose_element_count_overflows_are_invalid() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[2], &[1i8, 2]).unwrap();
    for (shape, strides) in [
        (vec![(1usize << 62) + 1, 2], vec![0usize, 1]),
        (vec![1 << 61, 1 << 3], vec![0, 0]),
        (vec![usize::MAX / 2, 3], vec![0, 0]),
        (vec![1 << 32, 1 << 32], vec![0, 0]),
    ] {
        match x.view(&shape, &strides, 0) {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!("{shape:?}/{strides:?}: expected invalid_argument, got {other:?}"),
        }
    }
    // A legal but huge broadcast view (2^40 elements of one byte): reading
    // it back is a typed out-of-memory error, never an abort.
    let big = x.view(&[1 << 40], &[0], 0).unwrap();
    match big.to_bytes() {
        Err(e) => assert_eq!(e.kind(), "out_of_memory", "{e}"),
        Ok(_) => panic!("2^40 bytes cannot be read back here"),
    }
    // Operators on it refuse an output that cannot fit the device.
    let e = s.contiguous(&big).unwrap_err();
    assert!(
        matches!(e.kind().as_str(), "invalid_argument" | "out_of_memory"),
        "{e}"
    );
}

// ------------------------------------------------ 2. faults

#[test]
#[serial]
fn outputs_of_work_skipped_after_a_fault_report_the_fault() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let bad = Tensor::from_slice(&s, &[2], &[0i64, 9]).unwrap();
    let a = s.index_select(&x, 0, &bad).unwrap(); // faults on the device
    let b = s.slice(&x, 0, 0, 3, 1).unwrap(); // skipped after the fault
    assert!(s.synchronize().is_err(), "the fault is reported once here");
    for (name, t) in [("faulting output", &a), ("skipped output", &b)] {
        match t.to_vec::<i32>() {
            Err(e) => assert_eq!(e.kind(), "index_out_of_range", "{name}: {e}"),
            Ok(v) => panic!("{name} read back as Ok({v:?}) after its work faulted"),
        }
    }
    // Work enqueued after the report runs normally.
    let c = s.slice(&x, 0, 1, 3, 1).unwrap();
    assert_eq!(c.to_vec::<i32>().unwrap(), [2, 3]);
}

#[test]
#[serial]
fn a_fault_is_never_lost_by_dropping_the_stream() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let bad = Tensor::from_slice(&s, &[1], &[-4i64]).unwrap();
    let a = s.index_select(&x, 0, &bad).unwrap();
    drop(s); // nobody synchronised
    let e = std::thread::spawn(move || a.to_vec::<i32>().unwrap_err())
        .join()
        .unwrap();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
}

// ------------------------------------------------ 3. valid views

/// Overlapping views whose rows are wide are gathered row by row (one
/// IndexSelect, an index per row); the same bits as cpu-ref, for windows,
/// rows repeated out of order, and rows with an offset and a gap.
#[test]
#[serial]
fn wide_overlapping_rows_are_gathered_whole() {
    let s = stream();
    let n = 40 * 96;
    let data: Vec<i32> = (0..n as i32)
        .map(|v| v.wrapping_mul(2_654_435_761u32 as i32))
        .collect();
    let base = Tensor::from_slice(&s, &[n], &data).unwrap();
    let r = cpu_ref::Tensor::from_slice(&[n], &data).unwrap();
    for (shape, strides, offset) in [
        (vec![4usize, 8, 96], vec![96usize, 96, 1], 0usize), // windows of 8 rows
        (vec![3, 5, 64], vec![64, 128, 1], 64),              // rows overlapping, offset
        (vec![6, 2, 96], vec![192, 96, 1], 96),              // interleaved pairs
        (vec![5, 4, 2, 64], vec![128, 64, 64, 1], 0),        // a repeated row dim
    ] {
        let v = base.view(&shape, &strides, offset).unwrap();
        let rv = r.view(&shape, &strides, offset).unwrap();
        let c = s.contiguous(&v).unwrap();
        assert_same(
            &c,
            &rv.to_contiguous(),
            &format!("contiguous {shape:?}/{strides:?}+{offset}"),
        );
        // Into a strided destination too.
        let wide = Tensor::zeros(
            &s,
            npu_ops::DType::I32,
            &[shape.iter().product::<usize>() * 2],
        )
        .unwrap();
        let mut every_other = vec![2usize; shape.len()];
        for i in (0..shape.len() - 1).rev() {
            every_other[i] = every_other[i + 1] * shape[i + 1];
        }
        let dst = wide.view(&shape, &every_other, 0).unwrap();
        s.copy(&dst, &v).unwrap();
        assert_same(
            &s.contiguous(&dst).unwrap(),
            &rv.to_contiguous(),
            &format!("into a strided destination {shape:?}/{strides:?}+{offset}"),
        );
    }
}

#[test]
#[serial]
fn self_overlapping_and_interleaved_inputs_are_valid_everywhere() {
    let s = stream();
    let base = Tensor::from_slice(&s, &[12], &(0..12).collect::<Vec<i32>>()).unwrap();
    let r = cpu_ref::Tensor::from_slice(&[12], &(0..12).collect::<Vec<i32>>()).unwrap();
    for (shape, strides) in [
        (vec![3usize, 4], vec![0usize, 1]), // broadcast rows
        (vec![4, 3], vec![1, 0]),           // broadcast columns
        (vec![5, 4], vec![2, 1]),           // sliding windows
        (vec![2, 3], vec![4, 3]),           // interleaved, no overlap
        (vec![3, 2, 2], vec![1, 0, 4]),     // both
    ] {
        let v = base.view(&shape, &strides, 0).unwrap();
        let rv = r.view(&shape, &strides, 0).unwrap();
        let c = s.contiguous(&v).unwrap();
        assert_same(
            &c,
            &rv.to_contiguous(),
            &format!("contiguous {shape:?}/{strides:?}"),
        );
        let size: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let a = s.as_strided(&v, &size[..1], &[1], 0).unwrap();
        let want = cpu_ref::ops::as_strided::as_strided("Ascend910B3", &rv, &size[..1], &[1], &[0])
            .unwrap();
        assert_same(&a, &want, &format!("as_strided {shape:?}/{strides:?}"));
        let p = SampledSlice::new(
            &vec![0; shape.len()],
            &size,
            &vec![1; shape.len()],
            SampleMode::Wrap,
        );
        let w = s.sampled_slice(&v, &p).unwrap();
        assert_same(
            &w,
            &rv.to_contiguous(),
            &format!("sampled_slice {shape:?}/{strides:?}"),
        );
    }
}

#[test]
#[serial]
fn an_empty_input_in_fill_mode_names_the_sampled_slice() {
    let s = stream();
    let x = Tensor::empty(&s, DType::F32, &[0, 3]).unwrap();
    let p = SampledSlice::new(&[0, 0], &[2, 2], &[1, 1], SampleMode::Fill)
        .with_fill(Scalar::Float(2.0));
    let y = s.sampled_slice(&x, &p).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [2.0; 4]);
}

#[test]
#[serial]
fn a_fault_reaches_work_on_other_streams_that_used_its_output() {
    let (a, b) = (stream(), stream());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(&a, &[2], &[1i64, 40]).unwrap();
    let hold = sim_only("cross-stream fault").then(|| npu_sim::hold_stream(a.as_raw()).unwrap());
    let y = a.index_select(&x, 0, &bad).unwrap(); // faults when it runs
    b.wait_for(&a).unwrap();
    let z = b.slice(&y, 0, 0, 2, 1).unwrap(); // reads y while y is pending
    drop(hold);
    // z's own work ran, on garbage: reading it reports a's fault, from any
    // thread, and b's synchronisation is clean (b did not fault).
    let e = std::thread::spawn(move || z.to_vec::<i32>().unwrap_err())
        .join()
        .unwrap();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    b.synchronize().unwrap();
    // Once a's fault is known, using y is refused before anything runs.
    let e = b.slice(&y, 0, 0, 1, 1).unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    assert_eq!(a.synchronize().unwrap_err().kind(), "index_out_of_range");
    // Overwriting y entirely makes it good again.
    let ok = Tensor::from_slice(&a, &[2], &[3i64, 0]).unwrap();
    a.index_select_into(&x, 0, &ok, &y).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [4, 1]);
}

#[test]
#[serial]
fn a_fault_is_reported_once_by_synchronize_and_kept_by_its_tensors() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[2], &[5u8, 6]).unwrap();
    let bad = Tensor::from_slice(&s, &[1], &[2i32]).unwrap();
    let y = s.index_select(&x, 0, &bad).unwrap();
    // A reader on another thread sees the fault first...
    let y2 = y.clone();
    let e = std::thread::spawn(move || y2.wait().unwrap_err())
        .join()
        .unwrap();
    assert_eq!(e.kind(), "index_out_of_range");
    // ...and the stream's owner still gets it, once.
    assert_eq!(s.synchronize().unwrap_err().kind(), "index_out_of_range");
    s.synchronize().unwrap();
    assert_eq!(y.to_vec::<u8>().unwrap_err().kind(), "index_out_of_range");
}

#[test]
#[serial]
fn a_fill_value_outside_fill_mode_is_invalid() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    for mode in [
        SampleMode::StrictBounds,
        SampleMode::Wrap,
        SampleMode::Clamp,
        SampleMode::Reflect,
    ] {
        let p = SampledSlice::new(&[0], &[2], &[1], mode).with_fill(Scalar::Int(1));
        match s.sampled_slice(&x, &p) {
            Err(Error::InvalidArgument { op, param, .. }) => {
                assert_eq!((op, param), ("sampled_slice", "fill"))
            }
            other => panic!("{mode:?}: {other:?}"),
        }
    }
}

// ------------------------------------------------ found by review

#[test]
#[serial]
fn a_fault_passes_through_every_hop_on_the_reading_stream() {
    let (a, b) = (stream(), stream());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(&a, &[2], &[1i64, 40]).unwrap();
    if !sim_only("hold") {
        return;
    }
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let y = a.index_select(&x, 0, &bad).unwrap(); // faults when it runs
    b.wait_for(&a).unwrap();
    let z = b.slice(&y, 0, 0, 2, 1).unwrap(); // reads y while pending: remembers a's record
    let z2 = b.slice(&z, 0, 0, 2, 1).unwrap(); // reads z (pending on b): no record kept
    drop(hold);
    let r2 = z2.to_vec::<i32>();
    let r1 = z.to_vec::<i32>();
    let _ = a.synchronize();
    assert!(r1.is_err(), "z itself: {r1:?}");
    assert!(
        r2.is_err(),
        "z2 = slice(z) read back Ok({:?}) although z reports {:?}",
        r2,
        r1
    );
}

#[test]
#[serial]
fn composite_operators_on_a_pending_faulty_input_report_the_fault() {
    let (a, b) = (stream(), stream());
    let x = Tensor::from_slice(&a, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(&a, &[4], &[0i64, 1, 2, 40]).unwrap();
    if !sim_only("hold") {
        return;
    }
    let hold = npu_sim::hold_stream(a.as_raw()).unwrap();
    let y = a.index_select(&x, 0, &bad).unwrap();
    b.wait_for(&a).unwrap();
    let mut got = Vec::new();
    // FILL pads then index-selects: two launches on b.
    let p = SampledSlice::new(&[-1], &[3], &[2], SampleMode::Fill).with_fill(Scalar::Int(7));
    got.push(("sampled_slice FILL", b.sampled_slice(&y, &p).unwrap()));
    // as_strided of a non-contiguous view: contiguous() then a copy.
    let yt = y.view(&[2], &[2], 0).unwrap();
    got.push((
        "as_strided of a strided view",
        b.as_strided(&yt, &[2], &[1], 0).unwrap(),
    ));
    // contiguous of an overlapping broadcast view: materialise, then broadcast copy.
    let yb = y.view(&[2, 3, 2], &[0, 1, 1], 0).unwrap();
    got.push((
        "contiguous of a broadcast window",
        b.contiguous(&yb).unwrap(),
    ));
    drop(hold);
    let mut ok = Vec::new();
    for (what, t) in &got {
        let r = t.to_vec::<i32>();
        eprintln!("{what}: {r:?}");
        if r.is_ok() {
            ok.push(*what);
        }
    }
    let _ = a.synchronize();
    assert!(
        ok.is_empty(),
        "read back Ok although computed from a faulted input: {ok:?}"
    );
}

#[test]
#[serial]
fn a_whole_rewrite_in_pieces_makes_a_faulted_tensor_good() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[12], &(0..12).collect::<Vec<i32>>()).unwrap();
    let bad = Tensor::from_slice(&s, &[12], &[99i64; 12]).unwrap();
    let y = s.index_select(&x, 0, &bad).unwrap(); // faults
    assert!(s.synchronize().is_err());
    assert!(y.to_vec::<i32>().is_err());
    let y2 = y.view(&[3, 4], &[4, 1], 0).unwrap(); // the whole of y
                                                   // Rewrite all of y with a good call (3 overlapping windows of 4).
    s.as_strided_into(&x, &[3, 4], &[1, 1], 0, &y2).unwrap();
    s.synchronize().unwrap();
    let r = y.to_vec::<i32>();
    assert_eq!(
        r.as_ref().ok(),
        Some(&vec![0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5]),
        "after a good whole rewrite: {r:?}"
    );
}

#[test]
#[serial]
fn small_results_of_a_huge_broadcast_input_match_cpu_ref() {
    let s = stream();
    let soc = rt().soc().to_string();
    let x = Tensor::from_slice(&s, &[1], &[7i32]).unwrap();
    let big = x.view(&[1 << 40], &[0], 0).unwrap();
    let rx = cpu_ref::Tensor::from_slice(&[1], &[7i32]).unwrap();
    let rbig = rx.view(&[1 << 40], &[0], 0).unwrap();
    let mut fails = Vec::new();
    let mut note = |what: &str,
                    got: npu_ops::Result<Tensor>,
                    want: Result<cpu_ref::Tensor, cpu_ref::RefError>| {
        let w = want.map(|t| t.contiguous_bytes());
        let g = got.map(|t| t.to_bytes());
        eprintln!("{what}: got {:?}; cpu-ref {:?}", g, w);
        if !matches!((&g, &w), (Ok(Ok(a)), Ok(b)) if a == b) {
            fails.push(what.to_string());
        }
    };
    let ri = cpu_ref::Tensor::from_slice(&[2], &[0i64, 5]).unwrap();
    note(
        "index_select_host",
        s.index_select_host(&big, 0, &[0, 5]),
        cpu_ref::index_select(&soc, &rbig, 0, &ri),
    );
    note(
        "as_strided",
        s.as_strided(&big, &[2], &[1 << 39], 0),
        cpu_ref::as_strided(&soc, &rbig, &[2], &[1 << 39], &[0]),
    );
    let p = SampledSlice::new(&[0], &[2], &[(1i64 << 40) - 1], SampleMode::Wrap);
    let rp = cpu_ref::SampledSliceParams::new(
        &[0],
        &[2],
        &[(1i64 << 40) - 1],
        cpu_ref::SampleMode::Wrap,
    );
    note(
        "sampled_slice wrap",
        s.sampled_slice(&big, &p),
        cpu_ref::sampled_slice(&soc, &rbig, &rp),
    );
    let p = SampledSlice::new(&[3], &[2], &[5], SampleMode::Clamp);
    let rp = cpu_ref::SampledSliceParams::new(&[3], &[2], &[5], cpu_ref::SampleMode::Clamp);
    note(
        "sampled_slice clamp",
        s.sampled_slice(&big, &p),
        cpu_ref::sampled_slice(&soc, &rbig, &rp),
    );
    note(
        "slice",
        s.slice(&big, 0, 0, 1 << 40, 1 << 39),
        cpu_ref::slice(&soc, &rbig, 0, 0, 1 << 40, 1 << 39),
    );
    assert!(fails.is_empty(), "failed: {fails:?}");
}

#[test]
#[serial]
fn a_prepared_index_select_from_an_empty_dim_checks_its_indices() {
    let s = stream();
    let soc = rt().soc().to_string();
    let x = Tensor::empty(&s, DType::F32, &[0, 3]).unwrap();
    let index = Tensor::from_slice(&s, &[1], &[0i64]).unwrap();
    let out = Tensor::from_slice(&s, &[1, 3], &[1.5f32, 2.5, 3.5]).unwrap();
    let rx = cpu_ref::Tensor::from_bytes(cpu_ref::DType::Float32, &[0, 3], vec![]).unwrap();
    let ri = cpu_ref::Tensor::from_slice(&[1], &[0i64]).unwrap();
    let want = cpu_ref::index_select(&soc, &rx, 0, &ri);
    eprintln!("cpu-ref: {want:?}");
    let direct = s.index_select_into(&x, 0, &index, &out);
    eprintln!("index_select_into: {direct:?}");
    let p = s.prepare_index_select(&x, 0, &index, &out).unwrap();
    eprintln!("repeatable: {}", p.is_repeatable());
    let r = p.run(&x, &index, &out);
    let v = out.to_vec::<f32>();
    eprintln!("prepared run: {r:?}; out reads {v:?}");
    assert!(
        r.is_err() || v.is_err(),
        "prepared index_select with index 0 into an empty dim returned Ok and out reads {v:?}"
    );
}

#[test]
#[serial]
fn concurrent_partial_writes_keep_each_fault() {
    let (a, b) = (stream(), stream());
    let x = Tensor::from_slice(&a, &[2, 4], &[1i32, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    let bad = Tensor::from_slice(&a, &[1], &[9i64]).unwrap();
    let good = Tensor::from_slice(&a, &[1], &[1i64]).unwrap();
    a.synchronize().unwrap();
    let iters: usize = std::env::var("REVIEW_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut lost = 0;
    for _ in 0..iters {
        let out = Tensor::empty(&a, DType::I32, &[2, 4]).unwrap();
        let (top, bottom) = (out.narrow(0, 0, 1).unwrap(), out.narrow(0, 1, 1).unwrap());
        let bar = std::sync::Barrier::new(2);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                bar.wait();
                a.index_select_into(&x, 0, &bad, &top).unwrap(); // faults
            });
            sc.spawn(|| {
                bar.wait();
                b.index_select_into(&x, 0, &good, &bottom).unwrap();
            });
        });
        if let Ok(v) = top.to_vec::<i32>() {
            if lost == 0 {
                eprintln!("faulted half read Ok({v:?})");
            }
            lost += 1;
        }
        let _ = a.synchronize();
        let _ = b.synchronize();
    }
    eprintln!("lost {lost} of {iters}");
    assert_eq!(lost, 0);
}

#[test]
#[serial]
fn a_sparse_fill_window_pads_only_what_it_reads() {
    let s = stream();
    let x = Tensor::empty(&s, DType::F32, &[2560, 4096]).unwrap();
    rt().set_memory_limit(Some(64 << 20));
    let p = SampledSlice::new(&[0, -4095], &[2, 3], &[2559, 4095], SampleMode::Fill);
    let r = s.sampled_slice(&x, &p).map(|t| t.shape().to_vec());
    // The same window in CLAMP mode (no pad) for comparison.
    let q = SampledSlice::new(&[0, -4095], &[2, 3], &[2559, 4095], SampleMode::Clamp);
    let c = s.sampled_slice(&x, &q).map(|t| t.shape().to_vec());
    rt().set_memory_limit(None);
    eprintln!("FILL: {r:?}\nCLAMP: {c:?}");
    assert!(r.is_ok(), "a 2x3 FILL window failed: {r:?}");
}

/// Found by the `ops` fuzzer: a host-checked index_select along a
/// broadcast dim of a view that also overlaps itself elsewhere (a broadcast
/// copy of an overlapping source) wrote only the first row.
#[test]
#[serial]
fn a_broadcast_copy_of_an_overlapping_source_writes_every_row() {
    let s = stream();
    let v: Vec<i16> = (0..9).collect();
    let base = Tensor::from_slice(&s, &[9], &v).unwrap();
    let rbase = cpu_ref::Tensor::from_slice(&[9], &v).unwrap();
    let (shape, strides) = ([2usize, 2, 2, 2], [0usize, 2, 1, 1]);
    let x = base.view(&shape, &strides, 3).unwrap();
    let rx = rbase.view(&shape, &strides, 3).unwrap();
    let got = s.index_select_host(&x, 0, &[1, 0, 0]).unwrap();
    let idx = cpu_ref::Tensor::from_slice(&[3], &[1i64, 0, 0]).unwrap();
    let want = cpu_ref::index_select("Ascend910B3", &rx, 0, &idx).unwrap();
    assert_same(&got, &want, "index_select along a broadcast dim");
}
