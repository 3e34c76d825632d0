//! Add and Mul through the safe layer (spec sections 8 and 9), against
//! cpu-ref bit for bit: every dtype pair, broadcasting, views in and out,
//! aliasing outputs, the in-place forms, every rule's error, and random
//! calls (property tests).

mod common;

use common::{check, dtype, ref_tensor, stream, upload};
use cpu_ref::DType as R;
use npu_ops::{DType, Error, Scalar, Stream, Tensor};
use proptest::prelude::*;

/// The SoC the runtime is (the simulator's default, or the device's).
fn soc() -> String {
    common::rt().soc().to_string()
}

fn list() -> Vec<R> {
    let fam = cpu_ref::Family::from_soc(&soc()).expect("a known SoC");
    cpu_ref::supported_dtypes(cpu_ref::Op::Add, fam).to_vec()
}

fn ours(a: cpu_ref::Scalar) -> Scalar {
    match a {
        cpu_ref::Scalar::Bool(b) => Scalar::Bool(b),
        cpu_ref::Scalar::Int(v) => Scalar::Int(v),
        cpu_ref::Scalar::UInt(v) => Scalar::UInt(v),
        cpu_ref::Scalar::Float(v) => Scalar::Float(v),
        cpu_ref::Scalar::Complex(re, im) => Scalar::Complex(re, im),
    }
}

/// Reads `t` back into a cpu-ref tensor (to compare views).
fn back(t: &Tensor) -> cpu_ref::Tensor {
    cpu_ref::Tensor::from_bytes(
        common::ref_dtype(t.dtype()),
        t.shape(),
        t.to_bytes().unwrap(),
    )
    .unwrap()
}

fn invalid(e: Error, op: &str, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => {
            assert_eq!((*o, *p), (op, param), "{e}")
        }
        other => panic!("expected invalid ({op}, {param}), got {other}"),
    }
}

#[test]
fn every_dtype_pair_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 100;
    for dx in list() {
        for dy in list() {
            seed += 1;
            // A permuted [3, 4, 2] with a [4, 1]: both broadcast.
            let x = ref_tensor(dx, &[3, 4, 2], Some(&[2, 0, 1]), seed);
            let y = ref_tensor(dy, &[4, 1], None, seed + 7);
            let (gx, gy) = (upload(&s, &x), upload(&s, &y));
            for alpha in [
                cpu_ref::Scalar::Int(1),
                cpu_ref::Scalar::Int(-3),
                cpu_ref::Scalar::Float(0.25),
                cpu_ref::Scalar::Bool(true),
            ] {
                let what = format!("add {dx} {dy} {alpha}");
                check(
                    s.add(&gx, &gy, ours(alpha)),
                    cpu_ref::add(&soc, &x, &y, alpha),
                    &what,
                );
            }
            check(
                s.mul(&gx, &gy),
                cpu_ref::mul(&soc, &x, &y),
                &format!("mul {dx} {dy}"),
            );
        }
    }
}

#[test]
fn into_views_other_dtypes_and_aliases() {
    let s = stream();
    let soc = soc();
    // out: a transposed view of float16 storage; the result of float32
    // inputs is rounded into it.
    let x = ref_tensor(R::Float32, &[4, 3], None, 1);
    let y = ref_tensor(R::Float32, &[3], None, 2);
    let (gx, gy) = (upload(&s, &x), upload(&s, &y));
    let store = Tensor::zeros(&s, DType::F16, &[3, 4]).unwrap();
    let out = store.transpose(0, 1).unwrap();
    s.add_into(&gx, &gy, Scalar::Float(-1.5), &out).unwrap();
    let want = cpu_ref::add_cast(&soc, &x, &y, cpu_ref::Scalar::Float(-1.5), R::Float16).unwrap();
    assert_eq!(back(&out).contiguous_bytes(), want.contiguous_bytes());
    s.mul_into(&gx, &gy, &out).unwrap();
    let want = cpu_ref::mul_cast(&soc, &x, &y, R::Float16).unwrap();
    assert_eq!(back(&out).contiguous_bytes(), want.contiguous_bytes());

    // out is x itself, and out overlapping y shifted by one element.
    let xi = ref_tensor(R::Int32, &[8], None, 3);
    let gxi = upload(&s, &xi);
    let want = cpu_ref::add(&soc, &xi, &xi, cpu_ref::Scalar::Int(5)).unwrap();
    s.add_into(&gxi, &gxi, Scalar::Int(5), &gxi).unwrap();
    assert_eq!(gxi.to_bytes().unwrap(), want.contiguous_bytes());
    let base = ref_tensor(R::Int32, &[9], None, 4);
    let gb = upload(&s, &base);
    let (a, o) = (gb.narrow(0, 0, 8).unwrap(), gb.narrow(0, 1, 8).unwrap());
    let ra = base.view(&[8], &[1], 0).unwrap();
    let want = cpu_ref::mul(&soc, &ra, &ra).unwrap();
    s.mul_into(&a, &a, &o).unwrap();
    assert_eq!(o.to_bytes().unwrap(), want.contiguous_bytes());
}

#[test]
fn inplace_forms() {
    let s = stream();
    let soc = soc();
    for d in [R::Float32, R::Int64, R::Float16, R::Complex64, R::Bool] {
        let x = ref_tensor(d, &[3, 5], None, 9);
        let y = ref_tensor(d, &[5], None, 10);
        let (gx, gy) = (upload(&s, &x), upload(&s, &y));
        let want = cpu_ref::add_inplace(&soc, &x, &y, cpu_ref::Scalar::Int(1)).unwrap();
        s.add_inplace(&gx, &gy, Scalar::Int(1)).unwrap();
        assert_eq!(gx.to_bytes().unwrap(), want.contiguous_bytes(), "add {d}");
        let want2 = cpu_ref::mul_inplace(&soc, &want, &y).unwrap();
        s.mul_inplace(&gx, &gy).unwrap();
        assert_eq!(gx.to_bytes().unwrap(), want2.contiguous_bytes(), "mul {d}");
        // other is x's own first row: read before written.
        let gx = upload(&s, &x);
        let row = gx.narrow(0, 0, 1).unwrap();
        let rrow = x.view(&[1, 5], &[5, 1], 0).unwrap();
        let want = cpu_ref::add_inplace(&soc, &x, &rrow, cpu_ref::Scalar::Int(2)).unwrap();
        s.add_inplace(&gx, &row, Scalar::Int(2)).unwrap();
        assert_eq!(
            gx.to_bytes().unwrap(),
            want.contiguous_bytes(),
            "aliased {d}"
        );
    }
}

#[test]
fn overlapping_inputs_and_empty_tensors() {
    let s = stream();
    let soc = soc();
    // A sliding window (overlaps itself) and a stride-0 broadcast.
    let st = ref_tensor(R::Float32, &[10], None, 20);
    let win = st.view(&[4, 3], &[2, 1], 0).unwrap();
    let bc = st.view(&[4, 3], &[0, 1], 5).unwrap();
    let g = upload(&s, &st);
    let (gw, gbc) = (
        g.view(&[4, 3], &[2, 1], 0).unwrap(),
        g.view(&[4, 3], &[0, 1], 5).unwrap(),
    );
    check(
        s.add(&gw, &gbc, Scalar::Float(3.0)),
        cpu_ref::add(&soc, &win, &bc, cpu_ref::Scalar::Float(3.0)),
        "window + broadcast",
    );
    // Both broadcast along dim 0 by stride 0.
    let bc2 = st.view(&[4, 3], &[0, 1], 1).unwrap();
    let gbc2 = g.view(&[4, 3], &[0, 1], 1).unwrap();
    check(
        s.mul(&gbc, &gbc2),
        cpu_ref::mul(&soc, &bc, &bc2),
        "two broadcasts",
    );
    // Empty: nothing enqueued, the rules still checked.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    let one = Tensor::zeros(&s, DType::F32, &[1]).unwrap();
    assert_eq!(s.add(&e, &one, Scalar::Int(1)).unwrap().shape(), &[0, 3]);
    invalid(
        s.add(&e, &one, Scalar::Complex(0., 1.)).unwrap_err(),
        "add",
        "alpha",
    );
    let two = Tensor::zeros(&s, DType::F32, &[2]).unwrap();
    invalid(s.mul(&e, &two).unwrap_err(), "mul", "other");
}

#[test]
fn every_rule_names_op_and_param() {
    let s = stream();
    let z = |d: DType, shape: &[usize]| Tensor::zeros(&s, d, shape).unwrap();
    let f = z(DType::F32, &[2, 3]);
    let i = z(DType::I32, &[2, 3]);
    // The product: other's dtype.
    let u = z(DType::U16, &[3]);
    assert_eq!(
        s.add(&f, &u, Scalar::Int(1)).unwrap_err().kind(),
        "unsupported_dtype"
    );
    assert_eq!(s.mul(&u, &f).unwrap_err().kind(), "unsupported_dtype");
    // alpha.
    invalid(
        s.add(&i, &i, Scalar::Float(1.0)).unwrap_err(),
        "add",
        "alpha",
    );
    invalid(
        s.add(&f, &f, Scalar::Complex(1., 0.)).unwrap_err(),
        "add",
        "alpha",
    );
    invalid(
        s.add(&f, &f, Scalar::UInt(u64::MAX)).unwrap_err(),
        "add",
        "alpha",
    );
    let b = z(DType::Bool, &[2]);
    invalid(
        s.add(&b, &b, Scalar::Float(1.0)).unwrap_err(),
        "add",
        "alpha",
    );
    s.add(&b, &b, Scalar::Int(3)).unwrap();
    // alpha comes before the shapes.
    invalid(
        s.add(&i, &z(DType::I32, &[4]), Scalar::Float(1.0))
            .unwrap_err(),
        "add",
        "alpha",
    );
    // Broadcast, merging.
    // (A tensor of rank 9 cannot be made: the views' own rule.)
    invalid(
        s.add(&f, &z(DType::F32, &[4]), Scalar::Int(1)).unwrap_err(),
        "add",
        "other",
    );
    let a6 = z(DType::F64, &[2, 1, 2, 1, 2, 1]);
    let f6 = z(DType::F64, &[2, 2, 2, 2, 2, 2]);
    invalid(s.mul(&a6, &f6).unwrap_err(), "mul", "other");
    s.mul(
        &z(DType::F32, &[2, 1, 2, 1, 2, 1]),
        &z(DType::F32, &[2, 2, 2, 2, 2, 2]),
    )
    .unwrap();
    // out: dtype (not castable, not listed), shape, overlap.
    invalid(
        s.add_into(&f, &f, Scalar::Int(1), &i).unwrap_err(),
        "add",
        "out",
    );
    invalid(
        s.mul_into(&i, &i, &z(DType::U32, &[2, 3])).unwrap_err(),
        "mul",
        "out",
    );
    invalid(
        s.mul_into(&i, &i, &z(DType::Bool, &[2, 3])).unwrap_err(),
        "mul",
        "out",
    );
    invalid(
        s.add_into(&f, &f, Scalar::Int(1), &z(DType::F32, &[3, 2]))
            .unwrap_err(),
        "add",
        "out",
    );
    let row = z(DType::F32, &[3]);
    let bcast = row.view(&[2, 3], &[0, 1], 0).unwrap();
    invalid(s.mul_into(&f, &f, &bcast).unwrap_err(), "mul", "out");
    // In place: shape, dtype, overlap.
    invalid(
        s.add_inplace(&z(DType::F32, &[3]), &f, Scalar::Int(1))
            .unwrap_err(),
        "add",
        "other",
    );
    invalid(s.mul_inplace(&i, &f).unwrap_err(), "mul", "self");
    invalid(
        s.add_inplace(&bcast, &f, Scalar::Int(1)).unwrap_err(),
        "add",
        "self",
    );
    // Another runtime's tensor.
    let other_rt = npu_ops::Runtime::new(npu_ops::Backend::Simulator);
    if let Ok(rt2) = other_rt {
        if common::rt().backend() == npu_ops::BackendKind::Simulator {
            let s2 = rt2.stream().unwrap();
            let foreign = Tensor::zeros(&s2, DType::F32, &[2, 3]).unwrap();
            invalid(
                s.add(&f, &foreign, Scalar::Int(1)).unwrap_err(),
                "add",
                "other",
            );
            invalid(s.mul_into(&f, &f, &foreign).unwrap_err(), "mul", "out");
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn random_call(
    s: &Stream,
    soc: &str,
    dx: R,
    dy: R,
    shapes: (Vec<usize>, Vec<usize>),
    alpha: cpu_ref::Scalar,
    seed: u64,
    transpose: bool,
) {
    let (sx, sy) = shapes;
    let perm: Vec<usize> = (0..sx.len()).rev().collect();
    let x = ref_tensor(dx, &sx, transpose.then_some(&perm[..]), seed);
    let y = ref_tensor(dy, &sy, None, seed ^ 0x55);
    let (gx, gy) = (upload(s, &x), upload(s, &y));
    let what = format!("{dx}{sx:?} {dy}{sy:?} {alpha}");
    check(
        s.add(&gx, &gy, ours(alpha)),
        cpu_ref::add(soc, &x, &y, alpha),
        &format!("add {what}"),
    );
    check(
        s.mul(&gx, &gy),
        cpu_ref::mul(soc, &x, &y),
        &format!("mul {what}"),
    );
}

fn dtype_strategy() -> impl Strategy<Value = R> {
    prop::sample::select(R::ALL.to_vec())
}

fn alpha_strategy() -> impl Strategy<Value = cpu_ref::Scalar> {
    prop_oneof![
        any::<bool>().prop_map(cpu_ref::Scalar::Bool),
        any::<i64>().prop_map(cpu_ref::Scalar::Int),
        any::<f64>().prop_map(cpu_ref::Scalar::Float),
        (any::<f64>(), any::<f64>()).prop_map(|(a, b)| cpu_ref::Scalar::Complex(a, b)),
        any::<u64>().prop_map(cpu_ref::Scalar::UInt),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Random dtypes (supported or not), shapes that broadcast or not,
    /// alphas of every kind, permuted views: the same data or the same
    /// error kind as cpu-ref.
    #[test]
    fn random_calls_agree_with_cpu_ref(
        dx in dtype_strategy(),
        dy in dtype_strategy(),
        sx in prop::collection::vec(0usize..4, 0..4),
        keep in prop::collection::vec(0usize..3, 0..4),
        alpha in alpha_strategy(),
        seed in any::<u64>(),
        transpose in any::<bool>(),
    ) {
        // other: a suffix of self's shape with some extents 1 (broadcast)
        // or changed (often invalid).
        let sy: Vec<usize> = sx.iter().rev().zip(&keep).map(|(&d, &k)| match k { 0 => d, 1 => 1, _ => d + 1 }).collect::<Vec<_>>().into_iter().rev().collect();
        let s = stream();
        random_call(&s, &soc(), dx, dy, (sx, sy), alpha, seed, transpose);
    }
}

#[test]
fn dtype_names_agree() {
    for d in R::ALL {
        assert_eq!(dtype(d).name(), d.name());
    }
}

/// `prepare_add` / `prepare_mul` of `gx`, `gy` into `out`, run with those.
fn prepared_run(
    s: &Stream,
    alpha: Option<cpu_ref::Scalar>,
    gx: &Tensor,
    gy: &Tensor,
    out: &Tensor,
) -> npu_ops::Result<bool> {
    match alpha {
        Some(a) => {
            let p = s.prepare_add(gx, gy, ours(a), out)?;
            p.run(gx, gy, out)?;
            Ok(p.is_repeatable())
        }
        None => {
            let p = s.prepare_mul(gx, gy, out)?;
            p.run(gx, gy, out)?;
            Ok(p.is_repeatable())
        }
    }
}

/// The reference of Add (`Some(alpha)`) or Mul (`None`), into `to`.
fn ref_op(
    alpha: Option<cpu_ref::Scalar>,
    x: &cpu_ref::Tensor,
    y: &cpu_ref::Tensor,
    to: Option<R>,
) -> Result<cpu_ref::Tensor, cpu_ref::RefError> {
    let soc = soc();
    match (alpha, to) {
        (Some(a), None) => cpu_ref::add(&soc, x, y, a),
        (Some(a), Some(d)) => cpu_ref::add_cast(&soc, x, y, a, d),
        (None, None) => cpu_ref::mul(&soc, x, y),
        (None, Some(d)) => cpu_ref::mul_cast(&soc, x, y, d),
    }
}

#[test]
fn prepared_forms_match_cpu_ref() {
    let s = stream();
    let sim = common::rt().backend() == npu_ops::BackendKind::Simulator;
    let listed = list();
    let pairs = [
        (R::Float32, R::Float32),
        (R::Float16, R::Float32),
        (R::BFloat16, R::Float16),
        (R::Int8, R::UInt8),
        (R::Int32, R::Int64),
        (R::Bool, R::Float16),
        (R::Complex64, R::Float64),
    ];
    let mut seed = 500;
    let mut ran = 0;
    for (dx, dy) in pairs {
        if !listed.contains(&dx) || !listed.contains(&dy) {
            continue;
        }
        for alpha in [
            Some(cpu_ref::Scalar::Int(1)),
            Some(cpu_ref::Scalar::Int(-3)),
            Some(cpu_ref::Scalar::Float(0.25)),
            None,
        ] {
            seed += 10;
            let what = format!("prepared {dx} {dy} {alpha:?}");
            // A permuted [3, 4, 2] with a [4, 1]: both broadcast.
            let x = ref_tensor(dx, &[3, 4, 2], Some(&[2, 0, 1]), seed);
            let y = ref_tensor(dy, &[4, 1], None, seed + 1);
            let (gx, gy) = (upload(&s, &x), upload(&s, &y));
            let want = ref_op(alpha, &x, &y, None);
            let Ok(want) = want else {
                // Refused at prepare time with the reference's kind.
                let out = Tensor::zeros(&s, dtype(dx), &[3, 4, 2]).unwrap();
                let e = prepared_run(&s, alpha, &gx, &gy, &out).unwrap_err();
                assert_eq!(e.kind(), want.unwrap_err().kind(), "{what}: {e}");
                continue;
            };
            ran += 1;
            let out = Tensor::zeros(&s, dtype(want.dtype()), want.shape()).unwrap();
            let repeatable = prepared_run(&s, alpha, &gx, &gy, &out).unwrap();
            assert!(repeatable || !sim, "{what}: the simulator reuses executors");
            common::assert_same(&out, &want, &what);

            // One prepared operator, new buffers of the same layouts (out a
            // transposed view of float32 storage where the promoted dtype
            // casts to float32), run twice.
            let to = match want.dtype() {
                R::Float16 | R::BFloat16 | R::Float32 => R::Float32,
                d => d,
            };
            let store = Tensor::zeros(&s, dtype(to), &[2, 4, 3]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let (x2, y2) = (
                ref_tensor(dx, &[3, 4, 2], Some(&[2, 0, 1]), seed + 2),
                ref_tensor(dy, &[4, 1], None, seed + 3),
            );
            let (gx2, gy2) = (upload(&s, &x2), upload(&s, &y2));
            let run = |gx: &Tensor, gy: &Tensor| match alpha {
                Some(a) => {
                    let p = s.prepare_add(&gx2, &gy2, ours(a), &out).unwrap();
                    p.run(gx, gy, &out).and_then(|_| p.run(gx, gy, &out))
                }
                None => {
                    let p = s.prepare_mul(&gx2, &gy2, &out).unwrap();
                    p.run(gx, gy, &out).and_then(|_| p.run(gx, gy, &out))
                }
            };
            run(&gx2, &gy2).unwrap();
            let want2 = ref_op(alpha, &x2, &y2, Some(to)).unwrap();
            assert_eq!(
                back(&out).contiguous_bytes(),
                want2.contiguous_bytes(),
                "{what}: into {to}"
            );
            run(&gx, &gy).unwrap();
            let want1 = ref_op(alpha, &x, &y, Some(to)).unwrap();
            assert_eq!(
                back(&out).contiguous_bytes(),
                want1.contiguous_bytes(),
                "{what}: into {to}, first inputs"
            );
        }
    }
    assert!(ran >= 20, "{ran} prepared calls checked");
}

#[test]
fn prepared_forms_alias_and_overlap_like_the_into_forms() {
    let s = stream();
    let soc = soc();
    // out is x itself: read before written, through a temporary.
    let x = ref_tensor(R::Int32, &[4, 8], None, 31);
    let y = ref_tensor(R::Int32, &[8], None, 32);
    let (gx, gy) = (upload(&s, &x), upload(&s, &y));
    let other = Tensor::zeros(&s, DType::I32, &[4, 8]).unwrap();
    let p = s.prepare_add(&gx, &gy, Scalar::Int(3), &other).unwrap();
    p.run(&gx, &gy, &gx).unwrap();
    let want = cpu_ref::add(&soc, &x, &y, cpu_ref::Scalar::Int(3)).unwrap();
    assert_eq!(
        gx.to_bytes().unwrap(),
        want.contiguous_bytes(),
        "add into x"
    );
    let q = s.prepare_mul(&gx, &gy, &other).unwrap();
    q.run(&gx, &gy, &gx).unwrap();
    let want = cpu_ref::mul(&soc, &want, &y).unwrap();
    assert_eq!(
        gx.to_bytes().unwrap(),
        want.contiguous_bytes(),
        "mul into x"
    );

    // A stride-0 expand as an input: runs as the `_into` form does.
    let st = ref_tensor(R::Float32, &[10], None, 33);
    let bc = st.view(&[4, 3], &[0, 1], 5).unwrap();
    let g = upload(&s, &st);
    let gbc = g.view(&[4, 3], &[0, 1], 5).unwrap();
    let w = ref_tensor(R::Float32, &[4, 3], None, 34);
    let gw = upload(&s, &w);
    let out = Tensor::zeros(&s, DType::F32, &[4, 3]).unwrap();
    let p = s.prepare_add(&gw, &gbc, Scalar::Float(-2.0), &out).unwrap();
    for _ in 0..2 {
        p.run(&gw, &gbc, &out).unwrap();
    }
    let want = cpu_ref::add(&soc, &w, &bc, cpu_ref::Scalar::Float(-2.0)).unwrap();
    common::assert_same(&out, &want, "add of an expand");
    // Empty tensors: nothing to do, at every run.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    let row = Tensor::zeros(&s, DType::F32, &[3]).unwrap();
    let p = s.prepare_mul(&e, &row, &e).unwrap();
    p.run(&e, &row, &e).unwrap();
}

#[test]
fn prepared_forms_refuse_bad_inputs() {
    let s = stream();
    let z = |d: DType, shape: &[usize]| Tensor::zeros(&s, d, shape).unwrap();
    let f = z(DType::F32, &[2, 3]);
    let i = z(DType::I32, &[2, 3]);
    let out = z(DType::F32, &[2, 3]);
    // At prepare time: every rule of the `_into` forms, in their order.
    assert_eq!(
        s.prepare_mul(&f, &z(DType::U16, &[3]), &out)
            .err()
            .unwrap()
            .kind(),
        "unsupported_dtype"
    );
    let e = |r: npu_ops::Result<npu_ops::PreparedAdd>| r.err().unwrap();
    let m = |r: npu_ops::Result<npu_ops::PreparedMul>| r.err().unwrap();
    invalid(
        e(s.prepare_add(&i, &i, Scalar::Float(0.5), &i)),
        "add",
        "alpha",
    );
    invalid(
        e(s.prepare_add(&f, &z(DType::F32, &[4]), Scalar::Int(1), &out)),
        "add",
        "other",
    );
    invalid(m(s.prepare_mul(&f, &f, &i)), "mul", "out"); // float into int32
    invalid(
        m(s.prepare_mul(&f, &f, &z(DType::F32, &[3, 2]))),
        "mul",
        "out",
    );
    let bcast = z(DType::F32, &[3]).view(&[2, 3], &[0, 1], 0).unwrap();
    invalid(m(s.prepare_mul(&f, &f, &bcast)), "mul", "out");

    // At launch: another shape, dtype or stride than prepared.
    let p = s.prepare_add(&f, &f, Scalar::Int(1), &out).unwrap();
    let q = s.prepare_mul(&f, &i, &out).unwrap();
    invalid(
        p.run(&f, &z(DType::F32, &[1, 3]), &out).unwrap_err(),
        "add",
        "inputs",
    );
    invalid(
        p.run(&f, &f, &z(DType::F32, &[3, 2])).unwrap_err(),
        "add",
        "out",
    );
    invalid(q.run(&f, &f, &out).unwrap_err(), "mul", "inputs"); // int32 prepared
    invalid(
        q.run(&f, &i, &z(DType::F16, &[2, 3])).unwrap_err(),
        "mul",
        "out",
    );
    let t = z(DType::F32, &[3, 2]).transpose(0, 1).unwrap();
    invalid(p.run(&t, &f, &out).unwrap_err(), "add", "inputs");
    // Another runtime's tensors, at prepare time and at launch.
    if let (Ok(rt2), npu_ops::BackendKind::Simulator) = (
        npu_ops::Runtime::new(npu_ops::Backend::Simulator),
        common::rt().backend(),
    ) {
        let s2 = rt2.stream().unwrap();
        let foreign = Tensor::zeros(&s2, DType::F32, &[2, 3]).unwrap();
        invalid(
            e(s.prepare_add(&f, &foreign, Scalar::Int(1), &out)),
            "add",
            "other",
        );
        invalid(m(s.prepare_mul(&f, &f, &foreign)), "mul", "out");
        invalid(p.run(&foreign, &f, &out).unwrap_err(), "add", "inputs");
        invalid(p.run(&f, &f, &foreign).unwrap_err(), "add", "out");
    }
    // The runs that failed left the prepared operator usable.
    p.run(&f, &f, &out).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [0f32; 6]);
}

/// One tensor value as both inputs: since inputs keep their descriptors
/// (no clone per argument), `self` and `other` are then one `aclTensor`,
/// as in `x * x`; repeated, and with the tensor's other view beside it.
#[test]
fn one_tensor_as_both_inputs() {
    let s = stream();
    let soc = soc();
    for d in [R::Float32, R::Int32, R::Float16] {
        let x = ref_tensor(d, &[4, 6], None, 21);
        let gx = upload(&s, &x);
        for _ in 0..3 {
            check(
                s.mul(&gx, &gx),
                cpu_ref::mul(&soc, &x, &x),
                &format!("mul {d}"),
            );
            check(
                s.add(&gx, &gx, Scalar::Int(3)),
                cpu_ref::add(&soc, &x, &x, cpu_ref::Scalar::Int(3)),
                &format!("add {d}"),
            );
        }
        let out = Tensor::empty(&s, dtype(d), &[4, 6]).unwrap();
        s.mul_into(&gx, &gx, &out).unwrap();
        let want = cpu_ref::mul(&soc, &x, &x).unwrap();
        assert_eq!(
            out.to_bytes().unwrap(),
            want.contiguous_bytes(),
            "mul_into {d}"
        );
        // In place, x = x * x: other meets the write, so it is read
        // through a temporary first (never one handle read and written).
        s.mul_inplace(&gx, &gx).unwrap();
        assert_eq!(
            gx.to_bytes().unwrap(),
            want.contiguous_bytes(),
            "mul_inplace {d}"
        );
    }
}
