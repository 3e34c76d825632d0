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
    p.run(&[&x, &index], &out).unwrap();
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
    p.run(&[&x], &out).unwrap();
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
        matches!(e.kind(), "invalid_argument" | "out_of_memory"),
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
