//! A prepared operator whose workspace cannot be allocated fails that run
//! with OutOfMemory and keeps its executor: later runs work (the executor
//! is its owner's, never destroyed by a failed run). Simulator only: it
//! needs a small device (NPU_SIM_MEM).

use npu_ops::{Backend, DType, Error, Runtime, Tensor};

#[test]
fn a_failed_workspace_allocation_keeps_the_prepared_executor() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("a_failed_workspace_allocation_keeps_the_prepared_executor: skipped: needs a simulated 1 MiB device");
        return;
    }
    // SAFETY: this binary's only test, before any runtime exists.
    unsafe { std::env::set_var("NPU_SIM_MEM", "1M") };
    let rt = Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(
        &s,
        &[16, 16],
        &(0..256).map(|i| i as f32).collect::<Vec<_>>(),
    )
    .unwrap();
    // A transposed output makes the operator need a workspace.
    let store = Tensor::empty(&s, DType::F32, &[16, 16]).unwrap();
    let out = store.transpose(0, 1).unwrap();
    let p = s.prepare_slice(&x, 0, 0, 16, 1, &out).unwrap();
    assert!(p.is_repeatable());
    let (free, _) = rt.device(0).unwrap().memory().unwrap();
    let filler = Tensor::empty(&s, DType::U8, &[free - (16 << 10)]).unwrap();
    match p.run(&x, &out) {
        Err(Error::OutOfMemory { .. }) => {}
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    drop(filler);
    for _ in 0..3 {
        p.run(&x, &out).unwrap();
    }
    let want: Vec<f32> = (0..16)
        .flat_map(|c| (0..16).map(move |r| (r * 16 + c) as f32))
        .collect();
    assert_eq!(store.to_vec::<f32>().unwrap(), want);
    drop(p);
    drop((x, out, store, s, rt));
    assert!(npu_sim::stats().is_clean(), "{:?}", npu_sim::stats());
}
