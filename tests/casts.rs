//! Cast through the safe layer (spec section 14), against cpu-ref bit for
//! bit: every dtype pair (random bytes: NaN payloads, infinities),
//! views in and out, overlapping inputs, aliasing outputs, every rule.

mod common;

use common::{check, dtype, ref_tensor, stream, upload};
use cpu_ref::DType as R;
use npu_ops::{DType, Error, Tensor};

fn soc() -> String {
    common::rt().soc().to_string()
}

fn invalid(e: Error, op: &str, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), (op, param), "{e}"),
        other => panic!("expected invalid ({op}, {param}), got {other}"),
    }
}

#[test]
fn every_dtype_pair_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 40;
    for dx in R::ALL {
        seed += 1;
        let x = ref_tensor(dx, &[3, 4, 2], Some(&[2, 0, 1]), seed);
        let gx = upload(&s, &x);
        for dy in R::ALL {
            let what = format!("cast {dx} -> {dy}");
            check(s.cast(&gx, dtype(dy)), cpu_ref::cast(&soc, &x, dy), &what);
            // Into a transposed view.
            let want = cpu_ref::cast(&soc, &x, dy);
            let store = Tensor::zeros(&s, dtype(dy), &[2, 4, 3]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let got = s.cast_into(&gx, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn overlapping_inputs_and_aliasing_outputs() {
    let s = stream();
    let soc = soc();
    // A sliding window of 3 over 6 float32s.
    let base = ref_tensor(R::Float32, &[6], None, 5);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let g = upload(&s, &base);
    let gw = g.view(&[4, 3], &[1, 1], 0).unwrap();
    check(
        s.cast(&gw, DType::F64),
        cpu_ref::cast(&soc, &w, R::Float64),
        "window",
    );
    // int32 -> float32 into another buffer, shifted by one element.
    let x = Tensor::from_slice(&s, &[9], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    let want: Vec<f32> = (1..=8).map(|v| v as f32).collect();
    let src = x.narrow(0, 0, 8).unwrap();
    let dst = Tensor::from_bytes(&s, DType::F32, &[9], &x.to_bytes().unwrap()).unwrap();
    s.cast_into(&src, &dst.narrow(0, 1, 8).unwrap()).unwrap();
    assert_eq!(dst.to_vec::<f32>().unwrap()[1..], want[..]);
    // out sharing x's storage, shifted by one element: as if x were read
    // first.
    let same = x.narrow(0, 1, 8).unwrap();
    let tmp = s.cast(&x.narrow(0, 0, 8).unwrap(), DType::I64).unwrap();
    s.cast_into(&x.narrow(0, 0, 8).unwrap(), &same).unwrap(); // i32 -> i32, shifted
    assert_eq!(same.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(tmp.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn every_rule_in_order() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[2, 3], &[1f32; 6]).unwrap();
    invalid(
        s.cast_into(&x, &Tensor::zeros(&s, DType::I8, &[3, 2]).unwrap())
            .unwrap_err(),
        "cast",
        "out",
    );
    let row = Tensor::zeros(&s, DType::I8, &[3]).unwrap();
    let twice = row.view(&[2, 3], &[0, 1], 0).unwrap();
    invalid(s.cast_into(&x, &twice).unwrap_err(), "cast", "out");
    // Empty: checked, nothing enqueued.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(s.cast(&e, DType::Bool).unwrap().shape(), &[0, 3]);
    invalid(
        s.cast_into(&e, &Tensor::zeros(&s, DType::Bool, &[3]).unwrap())
            .unwrap_err(),
        "cast",
        "out",
    );
}
