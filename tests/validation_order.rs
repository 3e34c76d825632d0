//! Issue 17, classes 9 and 10: every form of every operator checks in the
//! contract's order (docs/ops.md, Conventions): the product (whether the
//! operator exists on the SoC, then whether it moves the dtype), then
//! whether each tensor belongs to the stream's runtime and device, then the
//! parameters, then index values. And the spec edges: sampled-slice
//! coordinates computed exactly, `as_strided` with `size [i64::MAX],
//! stride [0]` refused as an output too large.
//!
//! The simulator is re-initialised as one SoC at a time (`NPU_SIM_SOC`), so
//! the tests of this binary take turns. Simulator only: the SoC of real
//! hardware cannot be changed.

#[path = "support/oracle.rs"]
mod oracle;

use npu_ops::{Backend, DType, Error, Runtime, SampleMode, SampledSlice, Scalar, Stream, Tensor};
use std::sync::Mutex;

static TURN: Mutex<()> = Mutex::new(());

/// Runs `f` on a stream of a fresh simulator acting as `soc`, with two
/// devices (for tensors on another device); `false` (skipped) on real CANN.
fn on_soc(soc: &str, f: impl FnOnce(&Runtime, &Stream)) -> bool {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("skipped: the SoC of real hardware cannot be changed");
        return false;
    }
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: every test of this binary holds TURN while it sets or reads
    // the variables (the simulator reads them when a runtime starts it).
    unsafe {
        std::env::set_var("NPU_SIM_SOC", soc);
        std::env::set_var("NPU_SIM_DEVICES", "2");
    }
    {
        let rt = Runtime::new(Backend::Simulator).unwrap();
        assert_eq!(rt.soc(), soc);
        let s = rt.stream().unwrap();
        f(&rt, &s);
        s.synchronize().ok();
    }
    true
}

fn kind<T>(r: npu_ops::Result<T>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => e.kind().into(),
    }
}

fn param<T>(r: npu_ops::Result<T>) -> String {
    match r {
        Err(Error::InvalidArgument { op, param, .. }) => format!("{op}.{param}"),
        Err(e) => e.kind().into(),
        Ok(_) => "ok".into(),
    }
}

/// Every form of every operator but the sub-tensor view (which has no
/// product rule) called on `x` with parameters that break a rule: the
/// error kind of each, by form.
fn every_form_with_bad_params(s: &Stream, x: &Tensor) -> Vec<(&'static str, String)> {
    let d = x.dtype();
    let out = Tensor::zeros(s, d, &[2, 2]).unwrap();
    let idx = Tensor::from_slice(s, &[2], &[0i64, 1]).unwrap();
    let bad_idx = Tensor::from_slice(s, &[1, 2], &[0i64, 1]).unwrap();
    let rank2 = Tensor::from_slice(s, &[1, 2], &[0i64, 0]).unwrap();
    let ok1 = Tensor::from_slice(s, &[2], &[0i64, 0]).unwrap();
    let sp = SampledSlice::new(&[0], &[1], &[1], SampleMode::Clamp); // wrong length
    let spf =
        SampledSlice::new(&[0, 0], &[1, 1], &[1, 1], SampleMode::Wrap).with_fill(Scalar::Int(0)); // a fill outside FILL
    vec![
        ("slice bad dim", kind(s.slice(x, 9, 0, 1, 1))),
        ("slice bad step", kind(s.slice(x, 0, 0, 1, 0))),
        (
            "slice_into bad dim",
            kind(s.slice_into(x, 9, 0, 1, 1, &out)),
        ),
        (
            "prepare_slice bad dim",
            kind(s.prepare_slice(x, 9, 0, 1, 1, &out)),
        ),
        ("index_select bad dim", kind(s.index_select(x, 9, &idx))),
        (
            "index_select bad index rank",
            kind(s.index_select(x, 0, &bad_idx)),
        ),
        (
            "index_select_host bad dim",
            kind(s.index_select_host(x, 9, &[0i64])),
        ),
        (
            "index_select_host (u8) bad dim",
            kind(s.index_select_host(x, -3, &[0u8])),
        ),
        (
            "index_select_host out of range",
            kind(s.index_select_host(x, 0, &[7usize])),
        ),
        (
            "index_select_checked bad dim",
            kind(s.index_select_checked(x, 9, &idx)),
        ),
        (
            "index_select_into bad dim",
            kind(s.index_select_into(x, 9, &idx, &out)),
        ),
        (
            "prepare_index_select bad dim",
            kind(s.prepare_index_select(x, 9, &idx, &out)),
        ),
        ("as_strided bad size", kind(s.as_strided(x, &[0], &[1], 0))),
        (
            "as_strided huge broadcast",
            kind(s.as_strided(x, &[i64::MAX], &[0], 0)),
        ),
        (
            "as_strided_into bad stride",
            kind(s.as_strided_into(x, &[2, 2], &[-1, 1], 0, &out)),
        ),
        ("sampled_slice bad lists", kind(s.sampled_slice(x, &sp))),
        ("sampled_slice fill", kind(s.sampled_slice(x, &spf))),
        (
            "sampled_slice_into bad lists",
            kind(s.sampled_slice_into(x, &sp, &out)),
        ),
        (
            "sampled_slice_dynamic rank-2 start",
            kind(s.sampled_slice_dynamic(x, &rank2, &ok1, &ok1, None, SampleMode::Clamp, None)),
        ),
    ]
}

fn bf16_2x2(s: &Stream) -> Tensor {
    let v: Vec<half::bf16> = (0..4).map(|i| half::bf16::from_f32(i as f32)).collect();
    Tensor::from_slice(s, &[2, 2], &v).unwrap()
}

/// The reported case: bf16 `index_select_host` on a 910A with a bad dim.
#[test]
fn bf16_index_select_host_on_910a_with_a_bad_dim_is_unsupported_dtype() {
    on_soc("Ascend910A", |_, s| {
        let x = bf16_2x2(s);
        let e = s.index_select_host(&x, 5, &[0u32]).unwrap_err();
        assert_eq!(e.kind(), "unsupported_dtype", "{e}");
        let e = s.index_select_host(&x, 0, &[9i64]).unwrap_err();
        assert_eq!(e.kind(), "unsupported_dtype", "{e}");
    });
}

/// The reported case: any index_select on a 310B with bad parameters.
#[test]
fn index_select_host_on_310b_with_a_bad_dim_is_unsupported_op() {
    on_soc("Ascend310B1", |_, s| {
        let x = Tensor::from_slice(s, &[2, 2], &[1f32, 2., 3., 4.]).unwrap();
        let e = s.index_select_host(&x, 5, &[0u32]).unwrap_err();
        assert_eq!(e.kind(), "unsupported_op", "{e}");
        let e = s.index_select_host(&x, 0, &[-1i32]).unwrap_err();
        assert_eq!(e.kind(), "unsupported_op", "{e}");
    });
}

/// bf16 on the training and inference series: every operator form says
/// `unsupported_dtype` (or `unsupported_op` where the operator is missing)
/// whatever its parameters.
#[test]
fn every_form_refuses_bf16_before_its_parameters_where_bf16_is_unsupported() {
    for soc in ["Ascend910A", "Ascend310P3"] {
        on_soc(soc, |_, s| {
            let x = bf16_2x2(s);
            for (form, got) in every_form_with_bad_params(s, &x) {
                let slice = form.starts_with("slice") || form.starts_with("prepare_slice");
                let want = if soc == "Ascend310P3" && slice {
                    "unsupported_op" // no Slice on the inference series
                } else {
                    "unsupported_dtype"
                };
                assert_eq!(got, want, "{soc}: {form}");
            }
        });
    }
}

/// On Atlas 200I/500 A2 only AsStrided (and the sub-tensor view) exist:
/// every form of the others says `unsupported_op` whatever its parameters
/// and dtype.
#[test]
fn every_form_of_a_missing_operator_is_unsupported_op_before_its_parameters() {
    on_soc("Ascend310B1", |_, s| {
        for x in [
            Tensor::from_slice(s, &[2, 2], &[1f32, 2., 3., 4.]).unwrap(),
            bf16_2x2(s),
        ] {
            for (form, got) in every_form_with_bad_params(s, &x) {
                let want = if form.starts_with("as_strided") {
                    if x.dtype() == DType::BF16 {
                        "unsupported_dtype"
                    } else {
                        "invalid_argument"
                    }
                } else {
                    "unsupported_op"
                };
                assert_eq!(got, want, "{}: {form}", x.dtype());
            }
        }
    });
}

/// On a product that has everything, the same calls are invalid arguments
/// (the parameters are what is wrong); the out-of-range host index is
/// `index_out_of_range`.
#[test]
fn every_form_with_bad_params_is_invalid_where_the_product_has_it() {
    on_soc("Ascend910B3", |_, s| {
        let x = bf16_2x2(s);
        for (form, got) in every_form_with_bad_params(s, &x) {
            let want = if form.ends_with("out of range") {
                "index_out_of_range"
            } else {
                "invalid_argument"
            };
            assert_eq!(got, want, "{form}");
        }
    });
}

/// A tensor on another device is reported before the parameters, by every
/// form that takes one (its `param` is that tensor's, not the bad dim's).
#[test]
fn a_tensor_on_another_device_is_reported_before_the_parameters() {
    on_soc("Ascend910B3", |rt, s| {
        let s1 = rt.device(1).unwrap().stream().unwrap();
        let x = Tensor::from_slice(s, &[2, 2], &[1f32, 2., 3., 4.]).unwrap();
        let idx = Tensor::from_slice(s, &[2], &[0i64, 1]).unwrap();
        let other_out = Tensor::zeros(&s1, DType::F32, &[2, 2]).unwrap();
        let other_idx = Tensor::from_slice(&s1, &[2], &[0i64, 1]).unwrap();
        let rank2 = Tensor::from_slice(s, &[1, 2], &[0i64, 0]).unwrap();
        let other_1 = Tensor::from_slice(&s1, &[2], &[1i64, 1]).unwrap();
        let ok1 = Tensor::from_slice(s, &[2], &[0i64, 0]).unwrap();
        let cases = [
            (
                "slice_into",
                param(s.slice_into(&x, 9, 0, 1, 1, &other_out)),
                "slice.out",
            ),
            (
                "prepare_slice",
                param(s.prepare_slice(&x, 9, 0, 1, 1, &other_out)),
                "slice.out",
            ),
            (
                "index_select",
                param(s.index_select(&x, 9, &other_idx)),
                "index_select.index",
            ),
            (
                "index_select_into",
                param(s.index_select_into(&x, 9, &idx, &other_out)),
                "index_select.out",
            ),
            (
                "prepare_index_select",
                param(s.prepare_index_select(&x, 9, &idx, &other_out)),
                "index_select.out",
            ),
            (
                "as_strided_into",
                param(s.as_strided_into(&x, &[0], &[1], 0, &other_out)),
                "as_strided.out",
            ),
            (
                "sampled_slice_into",
                param(s.sampled_slice_into(
                    &x,
                    &SampledSlice::new(&[0], &[1], &[1], SampleMode::Clamp),
                    &other_out,
                )),
                "sampled_slice.out",
            ),
            (
                "sampled_slice_dynamic",
                param(s.sampled_slice_dynamic(
                    &x,
                    &ok1,
                    &rank2,
                    &other_1,
                    None,
                    SampleMode::Clamp,
                    None,
                )),
                "sampled_slice.stride",
            ),
        ];
        for (form, got, want) in cases {
            assert_eq!(got, want, "{form}");
        }
    });
}

/// The oracle (random calls on random views against cpu-ref, error kind for
/// kind, every form of a refused call too) on one SoC of each family, where
/// the product and dtype rules differ.
#[test]
fn the_oracle_agrees_with_cpu_ref_on_every_family() {
    let var = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = var("NPU_OPS_ORACLE_CASES", 3000);
    let seed = var("NPU_OPS_ORACLE_SEED", 0x9e37_79b9_7f4a_7c15);
    for soc in [
        "Ascend910A",
        "Ascend910B3",
        "Ascend910_9391",
        "Ascend310P3",
        "Ascend310B1",
    ] {
        on_soc(soc, |_, s| {
            let mut rng = oracle::Rng(seed ^ soc.len() as u64);
            for i in 0..cases {
                if let oracle::Verdict::Mismatch(m) = oracle::run_case(&mut rng, s, true) {
                    panic!("{soc}, seed {seed}, case {i}: {m}");
                }
            }
        });
    }
}

/// Issue 17 class 10: `x_i = y_i * stride_i + start_i` is computed exactly
/// (no 64-bit wrap) in every mode: start near `i64::MAX` with a large
/// stride reads what cpu-ref reads, bit for bit.
#[test]
fn sampled_slice_coordinates_never_wrap() {
    on_soc("Ascend910B3", |_, s| {
        let data: Vec<i32> = (0..7).collect();
        let x = Tensor::from_slice(s, &[7], &data).unwrap();
        let rx = cpu_ref::Tensor::from_slice(&[7], &data).unwrap();
        let modes = [
            (SampleMode::Wrap, "wrap"),
            (SampleMode::Clamp, "clamp"),
            (SampleMode::Fill, "fill"),
            (SampleMode::Reflect, "reflect"),
            (SampleMode::StrictBounds, "strict_bounds"),
        ];
        let edges = [
            (i64::MAX, i64::MAX),
            (i64::MAX - 3, i64::MAX / 2 + 1),
            (i64::MAX, 1),
            (i64::MIN, i64::MIN),
            (i64::MIN + 2, i64::MAX),
            (i64::MAX, i64::MIN),
            (i64::MAX - 1, 1 << 62),
            (i64::MIN + 2, i64::MIN),
        ];
        for (mode, name) in modes {
            for (start, stride) in edges {
                let what = format!("{name} start {start} stride {stride}");
                let got = s
                    .sampled_slice(&x, &SampledSlice::new(&[start], &[5], &[stride], mode))
                    .and_then(|t| t.to_vec::<i32>());
                let fill = (name == "fill").then_some(cpu_ref::Scalar::Int(0));
                let rmode = cpu_ref::SampleMode::from_name(name, fill).unwrap();
                let want = cpu_ref::sampled_slice(
                    "Ascend910B3",
                    &rx,
                    &cpu_ref::SampledSliceParams::new(&[start], &[5], &[stride], rmode),
                )
                .map(|t| t.to_vec::<i32>().unwrap());
                match (got, want) {
                    (Ok(g), Ok(w)) => assert_eq!(g, w, "{what}"),
                    (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{what}: {g} / {w}"),
                    (g, w) => panic!("{what}: got {g:?}, reference {w:?}"),
                }
            }
        }
        // The values themselves, worked by hand in i128. With start
        // 2 - 2^63 and stride -2^63, y = 1 is 2 - 2^64: far outside, but 2
        // (inside) if the coordinate wrapped in 64 bits.
        let (start, stride) = (i64::MIN + 2, i64::MIN);
        let exact = |y: i128| start as i128 + y * stride as i128;
        assert_eq!(
            (exact(1) as i64),
            2,
            "the case a wrapping coordinate gets wrong"
        );
        let p = SampledSlice::new(&[start], &[3], &[stride], SampleMode::Fill)
            .with_fill(Scalar::Int(-1));
        assert_eq!(
            s.sampled_slice(&x, &p).unwrap().to_vec::<i32>().unwrap(),
            [-1, -1, -1]
        );
        let p = SampledSlice::new(&[start], &[3], &[stride], SampleMode::Wrap);
        let want: Vec<i32> = (0..3).map(|y| exact(y).rem_euclid(7) as i32).collect();
        assert_eq!(want[1], 0, "(2 - 2^64) mod 7");
        assert_eq!(
            s.sampled_slice(&x, &p).unwrap().to_vec::<i32>().unwrap(),
            want
        );
        let p = SampledSlice::new(&[start], &[3], &[stride], SampleMode::Clamp);
        assert_eq!(
            s.sampled_slice(&x, &p).unwrap().to_vec::<i32>().unwrap(),
            [0, 0, 0]
        );
        let p = SampledSlice::new(&[start], &[3], &[stride], SampleMode::StrictBounds);
        assert_eq!(param(s.sampled_slice(&x, &p)), "sampled_slice.start");
    });
}

/// Issue 17 class 10: `size [i64::MAX], stride [0]` reads one element
/// (the largest index read is the offset), so the index rule holds; the
/// output is what is refused: its element count and bytes must fit 64
/// bits and the device (invalid `as_strided`, `size`), in every
/// materialising form, as cpu-ref refuses it.
#[test]
fn as_strided_of_i64_max_elements_is_an_invalid_size() {
    on_soc("Ascend910B3", |_, s| {
        for d in [DType::I8, DType::F32, DType::C128] {
            let x = Tensor::zeros(s, d, &[4]).unwrap();
            let got = s.as_strided(&x, &[i64::MAX], &[0], 0);
            assert_eq!(param(got), "as_strided.size", "{d}");
            let got = s.as_strided(&x, &[2, i64::MAX], &[1, 0], 1);
            assert_eq!(param(got), "as_strided.size", "{d}");
            let rd = cpu_ref::DType::parse(d.name()).unwrap();
            let rx = cpu_ref::Tensor::from_bytes(rd, &[4], vec![0; 4 * d.size()]).unwrap();
            let e = cpu_ref::as_strided("Ascend910B3", &rx, &[i64::MAX], &[0], &[0]).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument", "{d}: {e}");
            assert_eq!(e.param(), Some("size"), "{d}: {e}");
            // The zero-copy view allocates nothing: the view rules apply
            // (element count and bytes fit i64).
            let v = x.as_strided_view(&[i64::MAX], &[0], 3);
            if d.size() == 1 {
                assert_eq!(v.unwrap().numel(), i64::MAX as usize);
            } else {
                assert_eq!(kind(v), "invalid_argument", "{d}");
            }
        }
    });
}
