//! FillScalar and Zero through the safe layer (spec section 13), against
//! cpu-ref bit for bit: every dtype and value kind, views with gaps (which
//! keep their bytes), stride-0 views, every rule's error, empty tensors.

mod common;

use common::{check, ref_tensor, stream, upload};
use cpu_ref::DType as R;
use npu_ops::{DType, Error, Scalar, Tensor};

fn soc() -> String {
    common::rt().soc().to_string()
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

fn invalid(e: Error, op: &str, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), (op, param), "{e}"),
        other => panic!("expected invalid ({op}, {param}), got {other}"),
    }
}

/// Runs an in-place form on a fresh upload of `x` and returns the result
/// as a new-tensor outcome (the view read back).
fn run(
    s: &npu_ops::Stream,
    x: &cpu_ref::Tensor,
    f: impl FnOnce(&Tensor) -> npu_ops::Result<()>,
) -> npu_ops::Result<Tensor> {
    let g = upload(s, x);
    f(&g)?;
    Ok(g)
}

#[test]
fn every_dtype_and_value_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let fam = cpu_ref::Family::from_soc(&soc).expect("a known SoC");
    let values = [
        cpu_ref::Scalar::Bool(true),
        cpu_ref::Scalar::Int(-3),
        cpu_ref::Scalar::Int(70000),
        cpu_ref::Scalar::UInt(u64::MAX),
        cpu_ref::Scalar::Float(0.1),
        cpu_ref::Scalar::Float(f64::NAN),
        cpu_ref::Scalar::Float(-1e300),
        cpu_ref::Scalar::Complex(0.5, -2.0),
    ];
    let mut seed = 10;
    for d in R::ALL {
        seed += 1;
        // A permuted [3, 4, 2]: non-contiguous.
        let x = ref_tensor(d, &[3, 4, 2], Some(&[2, 0, 1]), seed);
        for v in values {
            let what = format!("fill_scalar {d} {v}");
            check(
                run(&s, &x, |g| s.fill_scalar_inplace(g, ours(v))),
                cpu_ref::fill_scalar(&soc, &x, v),
                &what,
            );
        }
        check(
            run(&s, &x, |g| s.zero_inplace(g)),
            cpu_ref::zero(&soc, &x),
            &format!("zero {d}"),
        );
        if cpu_ref::supported_dtypes(cpu_ref::Op::FillScalar, fam).contains(&d) {
            let y = s.full(common::dtype(d), &[2, 3], Scalar::Int(1)).unwrap();
            let want = cpu_ref::fill_scalar(
                &soc,
                &ref_tensor(d, &[2, 3], None, 0),
                cpu_ref::Scalar::Int(1),
            );
            check(Ok(y), want, &format!("full {d}"));
        }
    }
}

#[test]
fn gaps_keep_their_bytes_and_broadcasts_fill_once() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[3, 4], &[7i32; 12]).unwrap();
    // Every other column.
    let cols = x.as_strided_view(&[3, 2], &[4, 2], 1).unwrap();
    s.fill_scalar_inplace(&cols, Scalar::Int(-1)).unwrap();
    assert_eq!(
        x.to_vec::<i32>().unwrap(),
        [7, -1, 7, -1, 7, -1, 7, -1, 7, -1, 7, -1]
    );
    s.zero_inplace(&x.narrow(0, 1, 1).unwrap()).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap()[4..8], [0; 4]);
    // A stride-0 view: written through one element per run.
    let row = Tensor::from_slice(&s, &[3], &[1f32, 2., 3.]).unwrap();
    let b = row.view(&[5, 3], &[0, 1], 0).unwrap();
    s.fill_scalar_inplace(&b, Scalar::Float(2.5)).unwrap();
    assert_eq!(row.to_vec::<f32>().unwrap(), [2.5; 3]);
    s.zero_inplace(&b).unwrap();
    assert_eq!(row.to_vec::<f32>().unwrap(), [0.0; 3]);
}

#[test]
fn every_rule_in_order() {
    let s = stream();
    let i = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    invalid(
        s.fill_scalar_inplace(&i, Scalar::Float(1.0)).unwrap_err(),
        "fill_scalar",
        "value",
    );
    invalid(
        s.fill_scalar_inplace(&i, Scalar::UInt(1 << 63))
            .unwrap_err(),
        "fill_scalar",
        "value",
    );
    let f = Tensor::from_slice(&s, &[1], &[1f32]).unwrap();
    invalid(
        s.fill_scalar_inplace(&f, Scalar::Complex(1.0, 0.0))
            .unwrap_err(),
        "fill_scalar",
        "value",
    );
    let u = Tensor::from_slice(&s, &[1], &[1u16]).unwrap();
    assert_eq!(
        s.fill_scalar_inplace(&u, Scalar::Int(1))
            .unwrap_err()
            .kind(),
        "unsupported_dtype"
    );
    s.zero_inplace(&u).unwrap();
    let u32t = Tensor::from_slice(&s, &[1], &[1u32]).unwrap();
    assert_eq!(
        s.zero_inplace(&u32t).unwrap_err().kind(),
        "unsupported_dtype"
    );
    // A sliding window writes one element twice.
    let w = i.as_strided_view(&[2, 3], &[1, 1], 0).unwrap();
    invalid(s.zero_inplace(&w).unwrap_err(), "zero", "self");
    invalid(
        s.fill_scalar_inplace(&w, Scalar::Int(0)).unwrap_err(),
        "fill_scalar",
        "self",
    );
    // The value before the view.
    invalid(
        s.fill_scalar_inplace(&w, Scalar::Float(0.0)).unwrap_err(),
        "fill_scalar",
        "value",
    );
    // Empty: nothing to do, but the rules still hold.
    let e = Tensor::zeros(&s, DType::I32, &[0, 3]).unwrap();
    s.fill_scalar_inplace(&e, Scalar::Int(1)).unwrap();
    s.zero_inplace(&e).unwrap();
    invalid(
        s.fill_scalar_inplace(&e, Scalar::Float(1.0)).unwrap_err(),
        "fill_scalar",
        "value",
    );
    let e = s.full(DType::F16, &[0], Scalar::Int(1)).unwrap();
    assert_eq!(e.numel(), 0);
}
