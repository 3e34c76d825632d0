//! Product support: the simulator re-initialised as one SoC of each family,
//! every operator on every dtype compared with cpu-ref kind for kind (and
//! bit for bit where both succeed). Simulator only: the SoC of real
//! hardware cannot be changed.

mod common;

use common::{assert_same, ref_tensor};
use cpu_ref::DType as R;
use npu_ops::{Backend, Runtime, SampleMode, SampledSlice};

const SOCS: [&str; 5] = [
    "Ascend910A",
    "Ascend910B3",
    "Ascend910_9391",
    "Ascend310P3",
    "Ascend310B1",
];

fn compare(
    got: npu_ops::Result<npu_ops::Tensor>,
    want: Result<cpu_ref::Tensor, cpu_ref::RefError>,
    what: &str,
) {
    match (got, want) {
        (Ok(g), Ok(w)) => assert_same(&g, &w, what),
        (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{what}: got {g}, reference says {w}"),
        (g, w) => panic!(
            "{what}: got {:?}, reference says {:?}",
            g.map(|t| t.shape().to_vec()),
            w.map(|t| t.shape().to_vec())
        ),
    }
}

#[test]
fn every_family_supports_what_the_spec_says() {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("every_family_supports_what_the_spec_says: skipped: the SoC of real hardware cannot be changed");
        return;
    }
    for soc in SOCS {
        // SAFETY: this binary's only test; no other thread reads the variable.
        unsafe { std::env::set_var("NPU_SIM_SOC", soc) };
        let rt = Runtime::new(Backend::Simulator).unwrap();
        assert_eq!(rt.soc(), soc);
        let s = rt.stream().unwrap();
        for d in R::ALL {
            let what = |op: &str| format!("{soc} {op} {d}");
            let x = ref_tensor(d, &[3, 4], None, 7);
            let dx = common::upload(&s, &x);
            compare(
                s.slice(&dx, 1, 1, 4, 2),
                cpu_ref::slice(soc, &x, 1, 1, 4, 2),
                &what("slice"),
            );
            compare(
                s.index_select_host(&dx, 0, &[2, 0]),
                cpu_ref::index_select(
                    soc,
                    &x,
                    0,
                    &cpu_ref::Tensor::from_slice(&[2], &[2i64, 0]).unwrap(),
                ),
                &what("index_select"),
            );
            // Overlapping windows: a gather, or copies in pieces where the
            // product has no IndexSelect.
            compare(
                s.as_strided(&dx, &[3, 3], &[1, 1], 1),
                cpu_ref::as_strided(soc, &x, &[3, 3], &[1, 1], &[1]),
                &what("as_strided"),
            );
            let p = SampledSlice::new(&[-1, 5], &[4, 3], &[1, -2], SampleMode::Reflect);
            let rp = cpu_ref::SampledSliceParams::new(
                &[-1, 5],
                &[4, 3],
                &[1, -2],
                cpu_ref::SampleMode::Reflect,
            );
            compare(
                s.sampled_slice(&dx, &p),
                cpu_ref::sampled_slice(soc, &x, &rp),
                &what("sampled_slice"),
            );
            compare(
                dx.subtensor(&[1], 2),
                cpu_ref::subtensor(soc, &x, &[1], 2),
                &what("subtensor"),
            );
            compare(
                s.add(&dx, &dx, npu_ops::Scalar::Int(2)),
                cpu_ref::add(soc, &x, &x, cpu_ref::Scalar::Int(2)),
                &what("add"),
            );
            compare(s.mul(&dx, &dx), cpu_ref::mul(soc, &x, &x), &what("mul"));
            compare(
                s.cat(&[&dx, &dx], -1),
                cpu_ref::cat(soc, &[&x, &x], -1),
                &what("cat"),
            );
            compare(
                s.stack(&[&dx, &dx], 1),
                cpu_ref::stack(soc, &[&x, &x], 1),
                &what("stack"),
            );
            compare(
                s.cast(&dx, npu_ops::DType::F32),
                cpu_ref::cast(soc, &x, R::Float32),
                &what("cast"),
            );
            compare(
                s.permute(&dx, &[1, 0]),
                cpu_ref::permute(soc, &x, &[1, 0]),
                &what("permute"),
            );
            compare(
                s.flip(&dx, &[0]),
                cpu_ref::flip(soc, &x, &[0]),
                &what("flip"),
            );
            compare(
                s.roll(&dx, &[1, -1], &[0, 1]),
                cpu_ref::roll(soc, &x, &[1, -1], &[0, 1]),
                &what("roll"),
            );
            compare(
                s.expand(&dx, &[2, 4, 3]),
                cpu_ref::expand(soc, &x, &[2, 4, 3]),
                &what("expand"),
            );
            compare(
                s.slice_v2(&dx, &[1, 0], &[3, -1], &[1, -1], &[1, 2]),
                cpu_ref::slice_v2(soc, &x, &[1, 0], &[3, -1], &[1, -1], &[1, 2]),
                &what("slice_v2"),
            );
            compare(
                s.slice_v3(&dx, &[1, 0, 1], &[1, 2, 2]),
                cpu_ref::slice_v3(soc, &x, &[1, 0, 1], &[1, 2, 2]),
                &what("slice_v3"),
            );
            compare(
                s.as_strided_aclnn(&dx, &[2, 2], &[1, 2], 1),
                cpu_ref::as_strided_aclnn(soc, &x, &[2, 2], &[1, 2], 1),
                &what("as_strided_aclnn"),
            );
            compare(
                s.view_copy(
                    &dx,
                    npu_ops::Window::new(&[2, 2], &[3, 1], 1),
                    &dx,
                    npu_ops::Window::new(&[2, 2], &[1, 2], 0),
                ),
                cpu_ref::view_copy(
                    soc,
                    &x,
                    cpu_ref::Window {
                        size: &[2, 2],
                        stride: &[3, 1],
                        offset: 1,
                    },
                    &x,
                    cpu_ref::Window {
                        size: &[2, 2],
                        stride: &[1, 2],
                        offset: 0,
                    },
                ),
                &what("view_copy"),
            );
            {
                // In place on a copy of dx: its new value read back.
                let v = cpu_ref::slice_v2(soc, &x, &[0], &[1], &[0], &[1]);
                if let Ok(v) = v {
                    let var = common::upload(&s, &x);
                    let got = s
                        .strided_slice_assign_v2(
                            &var,
                            &common::upload(&s, &v),
                            &[2],
                            &[3],
                            &[1],
                            None,
                        )
                        .map(|()| var);
                    compare(
                        got,
                        cpu_ref::strided_slice_assign_v2(soc, &x, &v, &[2], &[3], &[1], None),
                        &what("strided_slice_assign_v2"),
                    );
                }
            }
            compare(
                s.repeat(&dx, &[2, 1, 2]),
                cpu_ref::repeat(soc, &x, &[2, 1, 2]),
                &what("repeat"),
            );
            compare(s.tril(&dx, 1), cpu_ref::tril(soc, &x, 1), &what("tril"));
            compare(s.triu(&dx, -1), cpu_ref::triu(soc, &x, -1), &what("triu"));
            let idx = cpu_ref::Tensor::from_slice(&[2], &[2i64, 0]).unwrap();
            compare(
                s.embedding(&dx, &common::upload(&s, &idx)),
                cpu_ref::embedding(soc, &x, &idx),
                &what("embedding"),
            );
            compare(
                s.gather_v2(&dx, 1, &common::upload(&s, &idx)),
                cpu_ref::gather_v2(soc, &x, 1, &idx),
                &what("gather_v2"),
            );
            let gi = cpu_ref::Tensor::from_slice(&[2, 2], &[2i64, 0, 1, 3]).unwrap();
            compare(
                s.gather(&dx, 1, &common::upload(&s, &gi)),
                cpu_ref::gather(soc, &x, 1, &gi),
                &what("gather"),
            );
            compare(
                s.take(&dx, &common::upload(&s, &gi)),
                cpu_ref::take(soc, &x, &gi),
                &what("take"),
            );
            let mk =
                cpu_ref::Tensor::from_bytes(cpu_ref::DType::Bool, &[4], vec![1, 0, 0, 1]).unwrap();
            compare(
                s.masked_select(&dx, &common::upload(&s, &mk)),
                cpu_ref::masked_select(soc, &x, &mk),
                &what("masked_select"),
            );
            let ni = cpu_ref::Tensor::from_slice(&[2, 1], &[2i64, 0]).unwrap();
            compare(
                s.gather_nd(&dx, &common::upload(&s, &ni), false),
                cpu_ref::gather_nd(soc, &x, &ni, false),
                &what("gather_nd"),
            );
            let xi = cpu_ref::Tensor::from_slice(&[2], &[2i64, -1]).unwrap();
            compare(
                s.index(&dx, &[&common::upload(&s, &xi)]),
                cpu_ref::index(soc, &x, &[&xi]),
                &what("index"),
            );
            let ci = cpu_ref::Tensor::from_slice(&[1], &[2i64]).unwrap();
            let cs = cpu_ref::Tensor::from_bytes(
                x.dtype(),
                &[3, 1],
                x.contiguous_bytes()[..3 * x.dtype().size()].to_vec(),
            )
            .unwrap();
            compare(
                s.index_copy(&dx, 1, &common::upload(&s, &ci), &common::upload(&s, &cs)),
                cpu_ref::index_copy(soc, &x, 1, &ci, &cs),
                &what("index_copy"),
            );
            // The splits: compared piece by piece (as one list of results).
            let pieces = |r: npu_ops::Result<Vec<npu_ops::Tensor>>| r.map(|v| v[1].clone());
            compare(
                pieces(s.split_tensor(&dx, 2, 1)),
                cpu_ref::split_tensor(soc, &x, 2, 1).map(|v| v[1].clone()),
                &what("split_tensor"),
            );
            compare(
                pieces(s.split_with_size(&dx, &[1, 2], 0)),
                cpu_ref::split_with_size(soc, &x, &[1, 2], 0).map(|v| v[1].clone()),
                &what("split_with_size"),
            );
            // The pads (x as [1, 3, 4] and [1, 1, 3, 4] where needed).
            let x3 = x.view(&[1, 3, 4], &[12, 4, 1], 0).unwrap();
            let x4 = x.view(&[1, 1, 3, 4], &[12, 12, 4, 1], 0).unwrap();
            let d3 = dx.view(&[1, 3, 4], &[12, 4, 1], 0).unwrap();
            let d4 = dx.view(&[1, 1, 3, 4], &[12, 12, 4, 1], 0).unwrap();
            let p2 = [1i64, 2, 2, 0];
            let p3 = [1i64, 0, 1, 1, 0, 0];
            compare(
                s.reflection_pad1d(&dx, &[2, 1]),
                cpu_ref::reflection_pad1d(soc, &x, &[2, 1]),
                &what("reflection_pad1d"),
            );
            compare(
                s.reflection_pad2d(&d3, &p2),
                cpu_ref::reflection_pad2d(soc, &x3, &p2),
                &what("reflection_pad2d"),
            );
            compare(
                s.reflection_pad3d(&d4, &p3),
                cpu_ref::reflection_pad3d(soc, &x4, &p3),
                &what("reflection_pad3d"),
            );
            compare(
                s.replication_pad1d(&dx, &[5, 1]),
                cpu_ref::replication_pad1d(soc, &x, &[5, 1]),
                &what("replication_pad1d"),
            );
            compare(
                s.replication_pad2d(&d3, &p2),
                cpu_ref::replication_pad2d(soc, &x3, &p2),
                &what("replication_pad2d"),
            );
            compare(
                s.replication_pad3d(&d4, &p3),
                cpu_ref::replication_pad3d(soc, &x4, &p3),
                &what("replication_pad3d"),
            );
            compare(
                s.circular_pad2d(&d3, &p2),
                cpu_ref::circular_pad2d(soc, &x3, &p2),
                &what("circular_pad2d"),
            );
            compare(
                s.circular_pad3d(&d4, &p3),
                cpu_ref::circular_pad3d(soc, &x4, &p3),
                &what("circular_pad3d"),
            );
            // The fills write in place (on `dx`'s storage when `contiguous`
            // returns it as it is: so last), read back.
            let fill = |f: &dyn Fn(&npu_ops::Tensor) -> npu_ops::Result<()>| {
                let c = s.contiguous(&dx)?;
                f(&c)?;
                Ok(c)
            };
            compare(
                fill(&|t| s.fill_scalar_inplace(t, npu_ops::Scalar::Bool(true))),
                cpu_ref::fill_scalar(soc, &x, cpu_ref::Scalar::Bool(true)),
                &what("fill_scalar"),
            );
            compare(
                fill(&|t| s.zero_inplace(t)),
                cpu_ref::zero(soc, &x),
                &what("zero"),
            );
        }
        drop(s);
        drop(rt); // the last runtime: finalizes, so the next reads NPU_SIM_SOC anew
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var("NPU_SIM_SOC") };
}

/// The SoC table the simulator and the safe layer share (`cann_sys::soc`)
/// says what the reference's independent table says, name for name.
#[test]
fn the_shared_soc_table_matches_the_reference() {
    use npu_ops::Family as F;
    let pair = |f: cpu_ref::Family| match f {
        cpu_ref::Family::Training => F::Training,
        cpu_ref::Family::A2 => F::A2,
        cpu_ref::Family::A3 => F::A3,
        cpu_ref::Family::Inference => F::Inference,
        cpu_ref::Family::A200I500A2 => F::Atlas200I500A2,
    };
    let mut n = 0;
    for f in cpu_ref::Family::ALL {
        for soc in f.soc_names() {
            assert_eq!(F::of_soc(soc), Some(pair(f)), "{soc}");
            n += 1;
        }
        let mut ours: Vec<_> = pair(f).soc_names().collect();
        let mut theirs = f.soc_names().to_vec();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs, "{f:?}");
    }
    assert_eq!(n, 28);
    for soc in ["Ascend310P6", "ascend910b3", "", "Ascend910B3 "] {
        assert_eq!(F::of_soc(soc), None, "{soc:?}");
        assert_eq!(cpu_ref::Family::from_soc(soc), None, "{soc:?}");
    }
}
