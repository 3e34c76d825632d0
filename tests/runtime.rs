//! Runtime behaviour of the safe layer: buffer lifetimes across queued
//! work, device-found index errors, threads and streams, prepared
//! operators, steady-state allocation, zero-copy views and leaks.
//! Tests that read the simulator's counters skip on real CANN, saying so.

mod common;

use common::*;
use npu_ops::{DType, Error, Tensor};
use serial_test::serial;

fn arange(s: &npu_ops::Stream, n: usize) -> Tensor {
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    Tensor::from_slice(s, &[n], &v).unwrap()
}

/// Asserts no device memory, tensor, executor, stream or event the
/// simulator handed out is still live, once the shared runtime's allocator
/// has returned its cached blocks (none may be in use).
fn assert_no_leaks(what: &str) {
    assert_eq!(rt().memory_in_use(), 0, "{what}: blocks still in use");
    rt().empty_cache();
    let st = npu_sim::stats();
    assert!(st.is_clean(), "{what}: leak: {st:?}");
}

#[test]
#[serial]
fn dropping_inputs_right_after_launch_is_safe() {
    if !sim_only("dropping_inputs_right_after_launch_is_safe") {
        return;
    }
    {
        let s = stream();
        let x = Tensor::from_slice(&s, &[4, 3], &(0..12).map(|i| i as f32).collect::<Vec<_>>())
            .unwrap();
        // Hold the stream so the kernel is certainly still queued when the
        // last handle to its input goes; the simulator's memory checker
        // would report a use after free if the buffer were released.
        let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
        let y = s.slice(&x, 0, 2, 4, 1).unwrap();
        let z = s
            .index_select_host(&x.transpose(0, 1).unwrap(), 1, &[3, 0])
            .unwrap();
        drop(x);
        hold.release();
        s.synchronize().unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [6., 7., 8., 9., 10., 11.]);
        assert_eq!(z.to_vec::<f32>().unwrap(), [9., 0., 10., 1., 11., 2.]);
    }
    assert_no_leaks("after the test");
}

#[test]
#[serial]
fn host_reads_wait_for_the_work_that_writes() {
    let s = stream();
    let x = arange(&s, 1 << 16);
    let y = s.slice(&x, 0, 1, 1 << 16, 2).unwrap();
    // No explicit synchronize: to_vec waits for the stream that wrote y.
    let v = y.to_vec::<f32>().unwrap();
    assert_eq!(v.len(), 1 << 15);
    assert_eq!(v[100], 201.0);
}

#[test]
#[serial]
fn device_indices_out_of_range_surface_as_typed_errors() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[3, 2], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let idx = Tensor::from_slice(&s, &[3], &[0i64, 7, 1]).unwrap();
    // Not checked on the host: the device finds it.
    let y = s.index_select(&x, 0, &idx).unwrap();
    match s.synchronize() {
        Err(Error::IndexOutOfRange {
            position,
            value,
            bound,
            ..
        }) if rt().backend() == npu_ops::BackendKind::Simulator => {
            assert_eq!((position, value, bound), (1, 7, 3));
        }
        Err(e) => assert!(
            matches!(e, Error::IndexOutOfRange { .. } | Error::Runtime { .. }),
            "{e}"
        ),
        Ok(()) => panic!("an out-of-range index must fail the stream"),
    }
    drop(y);
    // The stream is usable again.
    let ok = Tensor::from_slice(&s, &[1], &[2i64]).unwrap();
    assert_eq!(
        s.index_select(&x, 0, &ok).unwrap().to_vec::<i32>().unwrap(),
        [5, 6]
    );
    // Host-known indices never reach the device.
    let e = s.index_select_host(&x, 0, &[0, -1]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::IndexOutOfRange {
                position: 1,
                value: -1,
                bound: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
#[serial]
fn threads_and_streams_work_independently() {
    let handles: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let s = stream();
                let n = 1000 + t * 17;
                let x = arange(&s, n);
                for k in 0..20 {
                    let y = s.slice(&x, 0, k, n as i64, 3).unwrap();
                    let want: Vec<f32> = (k as usize..n).step_by(3).map(|i| i as f32).collect();
                    assert_eq!(y.to_vec::<f32>().unwrap(), want, "thread {t} iteration {k}");
                }
                s.synchronize().unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // A stream shared by threads (Stream is Send + Sync).
    let s = stream();
    let x = arange(&s, 64);
    std::thread::scope(|sc| {
        for t in 0..3i64 {
            let (s, x) = (&s, &x);
            sc.spawn(move || {
                let y = s.slice(x, 0, t, 64, 4).unwrap();
                assert_eq!(y.to_vec::<f32>().unwrap()[0], t as f32);
            });
        }
    });
}

#[test]
#[serial]
fn streams_order_work_with_wait_for() {
    let (a, b) = (stream(), stream());
    let x = arange(&a, 1 << 18);
    let mid = a.slice(&x, 0, 0, 1 << 17, 1).unwrap();
    b.wait_for(&a).unwrap();
    let out = b.slice(&mid, 0, 0, 10, 1).unwrap();
    b.synchronize().unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        (0..10).map(|i| i as f32).collect::<Vec<_>>()
    );
}

#[test]
#[serial]
fn prepared_operators_run_many_times_with_new_buffers() {
    let sim = sim_only("prepared_operators_run_many_times_with_new_buffers (counters)");
    {
        let s = stream();
        let x0 = Tensor::from_slice(&s, &[4, 8], &[0f32; 32]).unwrap();
        let out0 = Tensor::empty(&s, DType::F32, &[4, 3]).unwrap();
        let p = s.prepare_slice(&x0, 1, 2, 8, 2, &out0).unwrap();
        assert!(
            p.is_repeatable() || !sim,
            "the simulator supports repeatable executors"
        );
        let xs: Vec<Tensor> = (0..4)
            .map(|k| {
                Tensor::from_slice(
                    &s,
                    &[4, 8],
                    &(0..32).map(|i| (i + 100 * k) as f32).collect::<Vec<_>>(),
                )
                .unwrap()
            })
            .collect();
        let outs: Vec<Tensor> = (0..4)
            .map(|_| Tensor::empty(&s, DType::F32, &[4, 3]).unwrap())
            .collect();
        p.run(&xs[0], &outs[0]).unwrap(); // warm the workspace cache
        s.synchronize().unwrap();
        let before = npu_sim::stats();
        for it in 0..500 {
            p.run(&xs[it % 4], &outs[it % 4]).unwrap();
        }
        s.synchronize().unwrap();
        if sim {
            let after = npu_sim::stats();
            assert_eq!(
                after.allocations, before.allocations,
                "steady state allocates no device memory"
            );
            assert_eq!(after.executors, before.executors, "one executor, reused");
        }
        for (k, out) in outs.iter().enumerate() {
            let want: Vec<f32> = (0..4)
                .flat_map(|r| [2, 4, 6].map(|c| (r * 8 + c + 100 * k) as f32))
                .collect();
            assert_eq!(out.to_vec::<f32>().unwrap(), want, "buffer {k}");
        }
        // Layouts must match what was prepared.
        let wrong = Tensor::empty(&s, DType::F32, &[4, 4]).unwrap();
        assert_eq!(
            p.run(&xs[0], &wrong).unwrap_err().kind(),
            "invalid_argument"
        );
        // IndexSelect too.
        let idx = Tensor::from_slice(&s, &[2], &[3i64, 0]).unwrap();
        let o = Tensor::empty(&s, DType::F32, &[2, 8]).unwrap();
        let q = s.prepare_index_select(&xs[1], 0, &idx, &o).unwrap();
        for _ in 0..50 {
            q.run(&xs[1], &idx, &o).unwrap();
        }
        let v = o.to_vec::<f32>().unwrap();
        assert_eq!((v[0], v[8]), (124.0, 100.0));
    }
    if sim {
        assert_no_leaks("after prepared runs");
    }
}

#[test]
#[serial]
fn prepared_add_and_mul_run_many_times_with_new_buffers() {
    let sim = sim_only("prepared_add_and_mul_run_many_times_with_new_buffers (counters)");
    {
        let s = stream();
        let vals = |k: usize| (0..32).map(|i| (i + 100 * k) as f32).collect::<Vec<_>>();
        let xs: Vec<Tensor> = (0..4)
            .map(|k| Tensor::from_slice(&s, &[4, 8], &vals(k)).unwrap())
            .collect();
        // A [8] bias broadcast along the rows, float16: promoted to float32.
        let bias: Vec<half::f16> = (0..8).map(|i| half::f16::from_f32(i as f32)).collect();
        let b = Tensor::from_slice(&s, &[8], &bias).unwrap();
        let outs: Vec<Tensor> = (0..4)
            .map(|_| Tensor::empty(&s, DType::F32, &[4, 8]).unwrap())
            .collect();
        let p = s
            .prepare_add(&xs[0], &b, npu_ops::Scalar::Int(2), &outs[0])
            .unwrap();
        let q = s.prepare_mul(&xs[0], &b, &outs[0]).unwrap();
        assert!(
            (p.is_repeatable() && q.is_repeatable()) || !sim,
            "the simulator supports repeatable executors"
        );
        p.run(&xs[0], &b, &outs[0]).unwrap(); // warm the workspace cache
        q.run(&xs[0], &b, &outs[0]).unwrap();
        s.synchronize().unwrap();
        let before = npu_sim::stats();
        for it in 0..500 {
            q.run(&xs[it % 4], &b, &outs[it % 4]).unwrap();
            p.run(&xs[it % 4], &b, &outs[it % 4]).unwrap();
        }
        s.synchronize().unwrap();
        if sim {
            let after = npu_sim::stats();
            assert_eq!(
                after.allocations, before.allocations,
                "steady state allocates no device memory"
            );
            assert_eq!(
                after.executors, before.executors,
                "one executor each, reused"
            );
            assert_eq!(after.tensors, before.tensors, "no descriptor per run");
            assert_eq!(after.scalars, before.scalars, "no alpha per run");
        }
        for (k, out) in outs.iter().enumerate() {
            let want: Vec<f32> = vals(k)
                .iter()
                .enumerate()
                .map(|(i, v)| v + 2.0 * (i % 8) as f32)
                .collect();
            assert_eq!(out.to_vec::<f32>().unwrap(), want, "buffer {k}");
        }
    }
    if sim {
        assert_no_leaks("after prepared add and mul");
    }
}

#[test]
#[serial]
fn steady_state_launches_allocate_no_device_memory() {
    if !sim_only("steady_state_launches_allocate_no_device_memory") {
        return;
    }
    {
        let s = stream();
        let x = Tensor::from_slice(&s, &[64, 64], &vec![1f32; 4096]).unwrap();
        // A transposed output makes the operator use a workspace.
        let out_store = Tensor::empty(&s, DType::F32, &[32, 64]).unwrap();
        let out = out_store.view(&[64, 32], &[1, 64], 0).unwrap();
        for _ in 0..200 {
            s.slice_into(&x, 1, 0, 64, 2, &out).unwrap();
        }
        s.synchronize().unwrap();
        let before = npu_sim::stats();
        assert!(
            before.events <= 65,
            "in-flight work is bounded: {} events",
            before.events
        );
        for _ in 0..200 {
            s.slice_into(&x, 1, 0, 64, 2, &out).unwrap();
        }
        s.synchronize().unwrap();
        let after = npu_sim::stats();
        assert_eq!(after.allocations, before.allocations);
        assert_eq!(after.allocated_bytes, before.allocated_bytes);
        // Completion events are recycled: the pool only ever grows to the
        // deepest queue seen, which the in-flight bound caps.
        assert!(after.events <= 65, "{} events", after.events);
    }
    assert_no_leaks("after the loop");
}

#[test]
#[serial]
#[allow(deprecated)] // slice_view: its checks stay until it is removed
fn subtensor_and_views_enqueue_no_device_work() {
    if !sim_only("subtensor_and_views_enqueue_no_device_work") {
        return;
    }
    let s = stream();
    let x = Tensor::from_slice(
        &s,
        &[8, 4, 16],
        &(0..512).map(|i| i as i16).collect::<Vec<_>>(),
    )
    .unwrap();
    s.synchronize().unwrap();
    // A held stream would never run work: views must not need any.
    let hold = npu_sim::hold_stream(s.as_raw()).unwrap();
    let before = npu_sim::stats();
    let a = x.subtensor(&[2], 2).unwrap();
    let b = x.subtensor(&[3, 2], 1).unwrap();
    let c = x.transpose(0, 2).unwrap().narrow(1, 1, 2).unwrap();
    let d = x.as_strided_view(&[2, 2], &[2, 3], 2).unwrap();
    let e = x.slice_view(1, 1, 4, 2).unwrap();
    assert_eq!(
        npu_sim::stats(),
        before,
        "no allocation, tensor or executor"
    );
    assert_eq!(
        (a.shape(), b.shape()),
        (&[2usize, 4, 16][..], &[1usize, 16][..])
    );
    for v in [&a, &b, &c, &d, &e] {
        assert!(v.shares_storage(&x));
    }
    hold.release();
    assert_eq!(a.to_vec::<i16>().unwrap(), (128..256).collect::<Vec<i16>>());
    assert_eq!(
        b.to_vec::<i16>().unwrap(),
        (3 * 64 + 2 * 16..3 * 64 + 3 * 16).collect::<Vec<i16>>()
    );
    assert_eq!(d.to_vec::<i16>().unwrap(), [2, 5, 4, 7]);
    assert_eq!(e.shape(), &[8, 2, 16]);
}

#[test]
#[serial]
fn runtime_reports_its_backend_and_devices() {
    let r = rt();
    assert!(r.device_count() >= 1);
    let (free, total) = r.device(0).unwrap().memory().unwrap();
    assert!(free <= total && total > 0);
    assert!(r.family().is_some(), "{} is a known SoC", r.soc());
    assert_eq!(
        r.device(r.device_count()).unwrap_err().kind(),
        "invalid_argument"
    );
    // Many runtimes share one initialisation.
    let again = npu_ops::Runtime::new(npu_ops::Backend::Auto).unwrap();
    assert_eq!(again.soc(), r.soc());
}

#[test]
#[serial]
fn out_variants_validate_the_out_tensor() {
    let s = stream();
    let x = arange(&s, 10);
    let out = Tensor::empty(&s, DType::F32, &[4]).unwrap();
    assert_eq!(
        s.slice_into(&x, 0, 0, 5, 1, &out).unwrap_err().kind(),
        "invalid_argument"
    );
    let ints = Tensor::empty(&s, DType::I32, &[5]).unwrap();
    assert_eq!(
        s.slice_into(&x, 0, 0, 5, 1, &ints).unwrap_err().kind(),
        "invalid_argument"
    );
    let five = Tensor::empty(&s, DType::F32, &[5]).unwrap();
    s.slice_into(&x, 0, 0, 10, 2, &five).unwrap();
    assert_eq!(five.to_vec::<f32>().unwrap(), [0., 2., 4., 6., 8.]);
    // A tensor of the wrong dtype is refused by to_vec.
    assert_eq!(five.to_vec::<i32>().unwrap_err().kind(), "invalid_argument");
}

#[test]
#[serial]
fn events_order_streams_without_blocking_the_host() {
    let sim = sim_only("events_order_streams_without_blocking_the_host (held stream)");
    {
        let (a, b) = (stream(), stream());
        let x = arange(&a, 8);
        let hold = sim.then(|| npu_sim::hold_stream(a.as_raw()).unwrap());
        let y = a.slice(&x, 0, 4, 8, 1).unwrap();
        let done = a.record().unwrap();
        b.wait_event(&done).unwrap(); // returns at once even though a is held
        let z = b.slice(&y, 0, 0, 2, 1).unwrap();
        if sim {
            assert!(!done.is_complete(), "a is held");
        }
        drop(hold);
        assert_eq!(z.to_vec::<f32>().unwrap(), [4., 5.]);
        assert!(done.is_complete());
        // A stream may wait on its own event; nothing leaks.
        a.wait_event(&a.record().unwrap()).unwrap();
    }
    if sim {
        assert_no_leaks("after events");
    }
}

#[test]
#[serial]
fn prepared_operators_fall_back_to_one_shot_when_reuse_is_refused() {
    if !sim_only("prepared_operators_fall_back_to_one_shot_when_reuse_is_refused") {
        return;
    }
    {
        // The simulator's API without executor reuse, as an older CANN.
        let mut api = npu_sim::api();
        api.aclSetAclOpExecutorRepeatable = None;
        // SAFETY: the simulator's own table with one optional function
        // removed; every remaining pointer is the simulator's.
        let rt =
            unsafe { npu_ops::Runtime::with_api(api, npu_ops::BackendKind::Simulator) }.unwrap();
        let s = rt.stream().unwrap();
        let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
        let out = Tensor::empty(&s, DType::I32, &[3]).unwrap();
        let p = s.prepare_slice(&x, 0, 0, 6, 2, &out).unwrap();
        assert!(!p.is_repeatable());
        for k in 0..20 {
            let xk =
                Tensor::from_slice(&s, &[6], &(0..6).map(|i| i + k).collect::<Vec<i32>>()).unwrap();
            p.run(&xk, &out).unwrap();
            assert_eq!(out.to_vec::<i32>().unwrap(), [k, k + 2, k + 4]);
        }
    }
    assert_no_leaks("after one-shot fallbacks");
}

#[test]
#[serial]
fn synchronize_on_one_thread_never_releases_work_queued_on_another() {
    if !sim_only("synchronize_on_one_thread_never_releases_work_queued_on_another (memory checker)")
    {
        return;
    }
    let s = stream();
    let x =
        Tensor::from_slice(&s, &[4, 4], &(0..16).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        sc.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                s.synchronize().unwrap();
            }
        });
        for _ in 0..300 {
            // Temporaries whose only owner after the launch is the queue.
            let tmp = s.contiguous(&x.transpose(0, 1).unwrap()).unwrap();
            let y = s.index_select_host(&tmp, 0, &[1, 2, 3]).unwrap();
            drop(tmp);
            assert_eq!(y.to_vec::<f32>().unwrap()[..4], [1., 5., 9., 13.]);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    s.synchronize().unwrap();
}

#[test]
#[serial]
fn a_prepared_operator_shared_by_threads_keeps_each_run_its_own() {
    let s = stream();
    let like = Tensor::from_slice(&s, &[64], &[0i32; 64]).unwrap();
    let like_out = Tensor::empty(&s, DType::I32, &[32]).unwrap();
    let p = std::sync::Arc::new(s.prepare_slice(&like, 0, 0, 64, 2, &like_out).unwrap());
    std::thread::scope(|sc| {
        for t in 0..4i32 {
            let (p, s) = (p.clone(), s.clone());
            sc.spawn(move || {
                let x = Tensor::from_slice(
                    &s,
                    &[64],
                    &(0..64).map(|i| i + 1000 * t).collect::<Vec<_>>(),
                )
                .unwrap();
                let out = Tensor::empty(&s, DType::I32, &[32]).unwrap();
                for _ in 0..100 {
                    p.run(&x, &out).unwrap();
                    let v = out.to_vec::<i32>().unwrap();
                    assert_eq!((v[0], v[31]), (1000 * t, 1000 * t + 62), "thread {t}");
                }
            });
        }
    });
    s.synchronize().unwrap();
}

#[test]
#[serial]
fn dropping_a_prepared_operator_keeps_other_faults_for_their_owner() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(&s, &[1], &[9i64]).unwrap();
    let _y = s.index_select(&x, 0, &bad).unwrap();
    let out = Tensor::empty(&s, DType::I32, &[2]).unwrap();
    drop(s.prepare_slice(&x, 0, 0, 2, 1, &out).unwrap());
    assert!(
        s.synchronize().is_err(),
        "the out-of-range index is still reported"
    );
}

#[test]
#[serial]
fn outputs_that_alias_inputs_or_overlap_themselves() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[8], &[1i32, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    // out = x[1..8] written from x[0..7]: the result is as if via a copy.
    s.slice_into(&x, 0, 0, 7, 1, &x.narrow(0, 1, 7).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 1, 2, 3, 4, 5, 6, 7]);
    let idx = Tensor::from_slice(&s, &[4], &[3i64, 2, 1, 0]).unwrap();
    s.index_select_into(
        &x.narrow(0, 0, 4).unwrap(),
        0,
        &idx,
        &x.narrow(0, 2, 4).unwrap(),
    )
    .unwrap();
    // x[2..6] = x[0..4][[3, 2, 1, 0]] = [1, 1, 2, 3][[3, 2, 1, 0]].
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 1, 3, 2, 1, 1, 6, 7]);
    // An output that overlaps itself is refused, naming `out`.
    let twice = x.view(&[2], &[0], 0).unwrap();
    for e in [
        s.slice_into(&x, 0, 0, 2, 1, &twice).unwrap_err(),
        s.as_strided_into(&x, &[2], &[1], 0, &twice).unwrap_err(),
        s.sampled_slice_into(
            &x,
            &npu_ops::SampledSlice::new(&[0], &[2], &[1], npu_ops::SampleMode::Clamp),
            &twice,
        )
        .unwrap_err(),
    ] {
        assert!(
            matches!(e, Error::InvalidArgument { param: "out", .. }),
            "{e}"
        );
    }
}

#[test]
#[serial]
#[allow(deprecated)] // slice_view: its checks stay until it is removed
fn view_arithmetic_never_overflows() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[4], &[1u8, 2, 3, 4]).unwrap();
    let m = usize::MAX;
    for (shape, strides, offset) in [
        (vec![m, m], vec![m, m], 0),
        (vec![2, 2], vec![1 << 62, 1 << 62], 0),
        (vec![3, 0], vec![m, 1], m),
        (vec![2], vec![1], m),
    ] {
        assert_eq!(
            x.view(&shape, &strides, offset).unwrap_err().kind(),
            "invalid_argument",
            "{shape:?} {strides:?} {offset}"
        );
    }
    // Empty views with extreme (allowed) strides: moving past i64::MAX is
    // an error, not a wrap or a panic; staying within is fine.
    let e = x.view(&[3, 0], &[i64::MAX as usize, 1], 2).unwrap();
    assert_eq!(e.narrow(0, 1, 1).unwrap_err().kind(), "invalid_argument");
    assert_eq!(e.subtensor(&[2], 1).unwrap_err().kind(), "invalid_argument");
    assert_eq!(
        e.slice_view(0, 1, 3, i64::MAX).unwrap_err().kind(),
        "invalid_argument"
    );
    assert_eq!(e.narrow(0, 0, 2).unwrap().shape(), &[2, 0]);
}
