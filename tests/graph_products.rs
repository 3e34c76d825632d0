//! Graph capture on products that lack it (CANN's tables: not on Atlas
//! 200I/500 A2 nor the training series): a typed error naming the
//! operation and the SoC. Its own binary: it sets `NPU_SIM_SOC`.

use npu_ops::{Backend, Error, Runtime, Tensor};

#[test]
fn products_without_capture_say_so() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!(
            "products_without_capture_say_so: skipped: the SoC of real hardware cannot be changed"
        );
        return;
    }
    for (soc, ok) in [
        ("Ascend310B1", false),
        ("Ascend910A", false),
        ("Ascend310P3", true),
    ] {
        // SAFETY: this binary's only test; no other thread reads the variable.
        unsafe { std::env::set_var("NPU_SIM_SOC", soc) };
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let s = rt.stream().unwrap();
        let x = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
        let y = Tensor::empty(&s, x.dtype(), &[4]).unwrap();
        match s.capture(|c| c.copy(&y, &x)) {
            Ok(g) if ok => {
                g.replay(&s).unwrap();
                assert_eq!(y.to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
            }
            Err(Error::UnsupportedOp { op, soc: got }) if !ok => {
                assert!(op.contains("capture"), "{op}");
                assert_eq!(got, soc);
            }
            other => panic!("{soc}: {:?}", other.map(drop)),
        }
        drop((x, y, s));
        drop(rt);
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var("NPU_SIM_SOC") };
}
