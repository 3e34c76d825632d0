//! Several devices of one runtime (the simulator with NPU_SIM_DEVICES=3):
//! explicit device choice, streams running on two devices at once, copies
//! between devices, per-device memory. Simulator only (it sets the device
//! count before any runtime exists; this binary's only test).

use npu_ops::{Backend, DType, Error, Runtime, Tensor};

#[test]
fn devices_are_chosen_explicitly_and_copy_between_each_other() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("multi_device: skipped: needs a simulated 3-device host");
        return;
    }
    // SAFETY: this binary's only test, before any runtime exists.
    unsafe { std::env::set_var("NPU_SIM_DEVICES", "3") };
    let rt = Runtime::new(Backend::Simulator).unwrap();
    assert_eq!(rt.device_count(), 3);
    assert!(matches!(rt.device(3), Err(Error::InvalidArgument { .. })));
    let (d1, d2) = (rt.device(1).unwrap(), rt.device(2).unwrap());
    let (s1, s2) = (d1.stream().unwrap(), d2.stream().unwrap());
    assert_eq!((s1.device(), s2.device()), (1, 2));
    // Work on both devices at once, from two threads.
    let n = 1 << 16;
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (a, b) = std::thread::scope(|sc| {
        let h1 = sc.spawn(|| {
            let x = Tensor::from_slice(&s1, &[n], &data).unwrap();
            s1.slice(&x, 0, 0, n as i64, 2).unwrap()
        });
        let h2 = sc.spawn(|| {
            let x = Tensor::from_slice(&s2, &[n], &data).unwrap();
            s2.slice(&x, 0, 1, n as i64, 2).unwrap()
        });
        (h1.join().unwrap(), h2.join().unwrap())
    });
    // A tensor of device 1 cannot be used by a stream of device 2...
    assert!(matches!(
        s2.slice(&a, 0, 0, 1, 1),
        Err(Error::InvalidArgument { .. })
    ));
    // ...but copies across: into a view on device 2, from a view on device 1.
    let dst = Tensor::zeros(&s2, DType::F32, &[2, n / 2]).unwrap();
    s2.copy(
        &dst.narrow(0, 0, 1).unwrap(),
        &a.view(&[1, n / 2], &[0, 1], 0).unwrap(),
    )
    .unwrap();
    s2.copy(
        &dst.narrow(0, 1, 1).unwrap(),
        &b.view(&[1, n / 2], &[0, 1], 0).unwrap(),
    )
    .unwrap();
    let got = dst.to_vec::<f32>().unwrap();
    let even: Vec<f32> = (0..n).step_by(2).map(|i| i as f32).collect();
    let odd: Vec<f32> = (1..n).step_by(2).map(|i| i as f32).collect();
    assert_eq!(&got[..n / 2], &even[..]);
    assert_eq!(&got[n / 2..], &odd[..]);
    // A non-contiguous source on another device is made contiguous there.
    let t = s1
        .contiguous(&a)
        .unwrap()
        .view(&[2, n / 4], &[1, 2], 0)
        .unwrap();
    let back = Tensor::zeros(&s2, DType::F32, &[2, n / 4]).unwrap();
    s2.copy(&back, &t).unwrap();
    let want: Vec<f32> = (0..2)
        .flat_map(|r| (0..n / 4).map(move |c| ((r + 2 * c) * 2) as f32))
        .collect();
    assert_eq!(back.to_vec::<f32>().unwrap(), want);
    // A write on device 1's stream to a tensor a copy on device 2 has yet
    // to read waits for that copy (the gate holds device 2's stream until
    // another thread opens it).
    let src = Tensor::full(&s1, &[8], 1i32).unwrap();
    src.wait().unwrap();
    let dst2 = Tensor::zeros(&s2, DType::I32, &[8]).unwrap();
    s2.synchronize().unwrap();
    let hold = npu_sim::hold_stream(s2.as_raw()).unwrap();
    s2.copy(&dst2, &src).unwrap(); // queued behind the gate
    let opener = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        hold.release();
    });
    s1.fill(&src, 9i32).unwrap(); // must not overwrite before the copy read it
    opener.join().unwrap();
    assert_eq!(dst2.to_vec::<i32>().unwrap(), [1; 8]);
    assert_eq!(src.to_vec::<i32>().unwrap(), [9; 8]);
    // A tensor spoiled by a fault on device 2, rewritten whole from device
    // 1's data by another stream of device 2, is good again (issue 17,
    // class 3).
    let x2 = Tensor::from_slice(&s2, &[4], &[1i32, 2, 3, 4]).unwrap();
    let bad = Tensor::from_slice(&s2, &[1], &[77i64]).unwrap();
    let spoiled = s2.index_select(&x2, 0, &bad).unwrap();
    assert!(spoiled.to_vec::<i32>().is_err());
    let _ = s2.synchronize();
    let other2 = rt.device(2).unwrap().stream().unwrap();
    let one = Tensor::full(&s1, &[1], 5i32).unwrap();
    other2.copy(&spoiled, &one).unwrap();
    assert_eq!(spoiled.to_vec::<i32>().unwrap(), [5]);
    // Each device reports its own memory.
    for d in 0..3 {
        let (free, total) = rt.device(d).unwrap().memory().unwrap();
        assert!(free <= total && total > 0);
    }
    let (free1, _) = d1.memory().unwrap();
    let (free0, _) = rt.device(0).unwrap().memory().unwrap();
    assert!(free1 < free0, "device 1 holds this test's tensors");
}
