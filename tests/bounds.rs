//! What one call may cost (issue 8): a FILL window reads (and pads) only
//! the region it samples, so a 2x2 window of an input that fills most of
//! the device works; an overlapping AsStrided on a product without
//! IndexSelect launches once per index of the overlapping dims only.
//! Simulator only: it needs a small device and another SoC.

use npu_ops::{Backend, DType, Runtime, SampleMode, SampledSlice, Scalar, Tensor};

#[test]
fn what_one_call_may_cost() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("what_one_call_may_cost: skipped: needs a simulated device and SoC");
        return;
    }
    {
        // SAFETY: this binary's only test, before any runtime exists.
        unsafe { std::env::set_var("NPU_SIM_MEM", "64M") };
        let rt = Runtime::new(Backend::Simulator).unwrap();
        let s = rt.stream().unwrap();
        // 40 MiB of the 64 MiB device: padding all of it would not fit.
        let (r, c) = (2560usize, 4096usize);
        let x = Tensor::empty(&s, DType::F32, &[r, c]).unwrap();
        let corner = Tensor::from_slice(&s, &[2, 2], &[1f32, 2., 3., 4.]).unwrap();
        s.sampled_slice_into(
            &corner,
            &SampledSlice::new(&[0, 0], &[2, 2], &[1, 1], SampleMode::Clamp),
            &x.narrow(0, 0, 2).unwrap().narrow(1, 0, 2).unwrap(),
        )
        .unwrap();
        let p = SampledSlice::new(&[-1, -1], &[2, 2], &[1, 1], SampleMode::Fill)
            .with_fill(Scalar::Float(9.0));
        let y = s.sampled_slice(&x, &p).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), [9., 9., 9., 1.]);
        let q = SampledSlice::new(
            &[r as i64 - 1, c as i64 - 1],
            &[2, 2],
            &[1, 1],
            SampleMode::Fill,
        );
        let z = s.sampled_slice(&x.narrow(0, 0, 2).unwrap(), &q).unwrap();
        assert_eq!(z.to_vec::<f32>().unwrap()[1..], [0., 0., 0.]);
    }
    {
        // SAFETY: as above; the previous runtime is gone.
        unsafe {
            std::env::remove_var("NPU_SIM_MEM");
            std::env::set_var("NPU_SIM_SOC", "Ascend310B1");
        }
        let rt = Runtime::new(Backend::Simulator).unwrap();
        assert_eq!(rt.soc(), "Ascend310B1");
        let s = rt.stream().unwrap();
        let (rows, cols) = (64usize, 16usize);
        let v: Vec<i16> = (0..(rows * cols) as i16).collect();
        let x = Tensor::from_slice(&s, &[rows, cols], &v).unwrap();
        // Windows of 8 rows, one row apart: 57 x 8 x 16 elements.
        let before = npu_sim::stats().launches;
        let y = s
            .as_strided(
                &x,
                &[rows as i64 - 7, 8, cols as i64],
                &[cols as i64, cols as i64, 1],
                0,
            )
            .unwrap();
        let launches = npu_sim::stats().launches - before;
        assert!(launches <= 8, "{launches} launches for 8 overlapping rows");
        let got = y.to_vec::<i16>().unwrap();
        for w in 0..rows - 7 {
            for k in 0..8 {
                let at = (w * 8 + k) * cols;
                assert_eq!(got[at..at + cols], v[(w + k) * cols..(w + k + 1) * cols]);
            }
        }
    }
}
