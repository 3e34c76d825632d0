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
