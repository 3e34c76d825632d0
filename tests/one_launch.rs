//! The single-launch composite plans (an overlapping AsStrided view or a
//! wrapped, clamped, reflected or filled sampled slice: one IndexSelect
//! through an index kept per layout, one ConstantPadNd, or one
//! replication, reflection or circular pad) against cpu-ref,
//! bit for bit, on the default SoC and on products without IndexSelect
//! (where the multi-launch plans remain), each call twice (the second
//! through the kept index) and over inputs at other storage offsets.
//! Simulator only for the other SoCs: the SoC of real hardware cannot be
//! changed.

mod common;

use common::{assert_same, ref_tensor};
use cpu_ref::DType as R;
use npu_ops::{Backend, Runtime, SampleMode, SampledSlice, Scalar};

fn check_soc(rt: &Runtime, soc: &str) {
    let s = rt.stream().unwrap();
    for d in [R::Float32, R::Float16, R::Int8, R::Int64, R::BFloat16] {
        let what = |op: &str| format!("{soc} {op} {d}");
        // [11, 32] and a copy at storage offset 32 (a narrow of [12, 32]).
        let x = ref_tensor(d, &[11, 32], None, 11);
        let big = ref_tensor(d, &[12, 32], None, 11);
        let dx = common::upload(&s, &x);
        let dbig = common::upload(&s, &big).narrow(0, 1, 11).unwrap();
        let rbig = big.view(&[11, 32], &[32, 1], 32).unwrap();
        for (dx, x) in [(&dx, &x), (&dbig, &rbig), (&dx, &x)] {
            // Windows of 8 rows of 32 (rows under 256 bytes), and of
            // elements (offset 3: not at a row boundary).
            for (size, stride, off) in [
                (vec![4i64, 8, 32], vec![32i64, 32, 1], 0i64),
                (vec![4, 8, 30], vec![32, 32, 1], 3),
                (vec![6, 5], vec![3, 1], 1),
            ] {
                let want = cpu_ref::as_strided(soc, x, &size, &stride, &[off]);
                match (s.as_strided(dx, &size, &stride, off), want) {
                    (Ok(g), Ok(w)) => assert_same(&g, &w, &what("as_strided")),
                    (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{}", what("as_strided")),
                    (g, w) => panic!("{}: {:?} vs {:?}", what("as_strided"), g.err(), w.err()),
                }
            }
            let modes = [
                (SampleMode::Wrap, cpu_ref::SampleMode::Wrap),
                (SampleMode::Clamp, cpu_ref::SampleMode::Clamp),
                (SampleMode::Reflect, cpu_ref::SampleMode::Reflect),
                (
                    SampleMode::Fill,
                    cpu_ref::SampleMode::Fill(cpu_ref::Scalar::Int(3)),
                ),
            ];
            for (m, rm) in modes {
                for (start, size, stride) in [
                    ([-3i64, -8], [11i64, 32], [1i64, 1]),
                    ([13, 40], [5, 7], [-2, -3]),
                    ([-2, 5], [15, 3], [1, 1]),
                    // Windows one pad computes (spec §4, §16, §17): every
                    // side padded, one side only, a wrap of whole axes.
                    ([-2, -5], [15, 42], [1, 1]),
                    ([-3, 4], [8, 10], [1, 1]),
                    ([-4, -31], [19, 94], [1, 1]),
                    ([-30, -40], [70, 100], [1, 1]),
                    // Whole axes wrapped (WRAP: one Roll): past the end,
                    // one axis turned, none turned (a copy).
                    ([25, 0], [11, 32], [1, 1]),
                    ([-3, 64], [11, 32], [1, 1]),
                    ([0, -32], [11, 32], [1, 1]),
                ] {
                    let mut p = SampledSlice::new(&start, &size, &stride, m);
                    let rp = cpu_ref::SampledSliceParams::new(&start, &size, &stride, rm);
                    if m == SampleMode::Fill {
                        p = p.with_fill(Scalar::Int(3));
                    }
                    let what = what(&format!("sampled_slice {m:?} {start:?} {stride:?}"));
                    match (s.sampled_slice(dx, &p), cpu_ref::sampled_slice(soc, x, &rp)) {
                        (Ok(g), Ok(w)) => {
                            assert_same(&g, &w, &what);
                            // The `_into` form, into a transposed view.
                            let dims: Vec<usize> = g.shape().to_vec();
                            let t =
                                npu_ops::Tensor::zeros(&s, g.dtype(), &[dims[1], dims[0]]).unwrap();
                            let o = t.transpose(0, 1).unwrap();
                            s.sampled_slice_into(dx, &p, &o).unwrap();
                            assert_same(&o, &w, &format!("{what} into a transposed view"));
                        }
                        (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{what}"),
                        (g, w) => panic!("{what}: {:?} vs {:?}", g.err(), w.err()),
                    }
                }
            }
        }
    }
}

#[test]
fn single_launch_plans_match_the_reference_on_every_product() {
    // Its own runtime (not the shared one): the last runtime must go for
    // the simulator to read NPU_SIM_SOC anew.
    let rt = Runtime::new(Backend::Auto).unwrap();
    check_soc(&rt, rt.soc());
    let sim = rt.backend() == npu_ops::BackendKind::Simulator;
    drop(rt);
    if !sim {
        eprintln!(
            "single_launch_plans: other SoCs skipped: the SoC of real hardware cannot be changed"
        );
        return;
    }
    // Without IndexSelect (310B: pieces), and with it but without bf16.
    for soc in ["Ascend310B1", "Ascend310P3"] {
        // SAFETY: this binary's only test; no other thread reads the variable.
        unsafe { std::env::set_var("NPU_SIM_SOC", soc) };
        let rt = Runtime::new(Backend::Simulator).unwrap();
        assert_eq!(rt.soc(), soc);
        check_soc(&rt, soc);
        drop(rt); // the last runtime: finalizes, so the next reads NPU_SIM_SOC anew
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var("NPU_SIM_SOC") };
}
