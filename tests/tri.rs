//! Tril and Triu through the safe layer (spec section 15), against cpu-ref
//! bit for bit: every dtype, views in and out, overlapping inputs,
//! aliasing outputs, the in-place forms, every rule.

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

fn reference(
    lower: bool,
    soc: &str,
    x: &cpu_ref::Tensor,
    d: i64,
) -> Result<cpu_ref::Tensor, cpu_ref::RefError> {
    if lower {
        cpu_ref::tril(soc, x, d)
    } else {
        cpu_ref::triu(soc, x, d)
    }
}

#[test]
fn every_dtype_and_form_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 70;
    for d in R::ALL {
        for lower in [true, false] {
            for diagonal in [i64::MIN, -1, 0, 2, i64::MAX] {
                seed += 1;
                let what = format!("{d} lower {lower} diagonal {diagonal}");
                let x = ref_tensor(d, &[2, 3, 5], Some(&[0, 2, 1]), seed);
                let gx = upload(&s, &x);
                let want = reference(lower, &soc, &x, diagonal);
                let got = if lower {
                    s.tril(&gx, diagonal)
                } else {
                    s.triu(&gx, diagonal)
                };
                check(got, reference(lower, &soc, &x, diagonal), &what);
                if want.is_err() {
                    continue;
                }
                // Into a permuted view.
                let store = Tensor::zeros(&s, dtype(d), &[5, 3, 2]).unwrap();
                let out = store.permute(&[2, 1, 0]).unwrap();
                let r = if lower {
                    s.tril_into(&gx, diagonal, &out)
                } else {
                    s.triu_into(&gx, diagonal, &out)
                };
                check(
                    r.map(|()| out.clone()),
                    want.clone(),
                    &format!("{what} (into)"),
                );
                // In place, on the strided view itself.
                let r = if lower {
                    s.tril_inplace(&gx, diagonal)
                } else {
                    s.triu_inplace(&gx, diagonal)
                };
                check(r.map(|()| gx.clone()), want, &format!("{what} (in place)"));
            }
        }
    }
}

#[test]
fn overlapping_inputs_aliasing_outputs_and_empty() {
    let s = stream();
    let soc = soc();
    // A sliding window of 3 over 6 int32s.
    let base = ref_tensor(R::Int32, &[6], None, 5);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let g = upload(&s, &base);
    let gw = g.view(&[4, 3], &[1, 1], 0).unwrap();
    check(s.tril(&gw, 0), cpu_ref::tril(&soc, &w, 0), "window");
    // A stride-0 broadcast.
    let b = base.view(&[3, 6], &[0, 1], 0).unwrap();
    let gb = g.view(&[3, 6], &[0, 1], 0).unwrap();
    check(s.triu(&gb, 1), cpu_ref::triu(&soc, &b, 1), "broadcast");
    // out is x transposed over the same storage: the result is exact.
    let x = ref_tensor(R::Float32, &[4, 4], None, 6);
    let gx = upload(&s, &x);
    let want = cpu_ref::tril(&soc, &x, 0).unwrap();
    let out = gx.transpose(0, 1).unwrap();
    s.tril_into(&gx, 0, &out).unwrap();
    common::assert_same(&out, &want, "aliasing out");
    // Empty: nothing to do, still checked.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(s.tril(&e, 0).unwrap().shape(), &[0, 3]);
    s.triu_inplace(&e, 0).unwrap();
    s.triu_into(&e, 0, &e).unwrap();
}

#[test]
fn every_rule_names_operator_and_parameter() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    let v = Tensor::zeros(&s, DType::F32, &[3]).unwrap();
    invalid(s.tril(&v, 0).unwrap_err(), "tril", "self");
    invalid(s.triu_inplace(&v, 0).unwrap_err(), "triu", "self");
    let c = Tensor::zeros(&s, DType::C64, &[2, 2]).unwrap();
    assert_eq!(s.triu(&c, 0).unwrap_err().kind(), "unsupported_dtype");
    let o = Tensor::zeros(&s, DType::F64, &[2, 3]).unwrap();
    invalid(s.tril_into(&x, 0, &o).unwrap_err(), "tril", "out");
    let o = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    invalid(s.triu_into(&x, 0, &o).unwrap_err(), "triu", "out");
    let row = Tensor::zeros(&s, DType::F32, &[3]).unwrap();
    let twice = row.view(&[2, 3], &[0, 1], 0).unwrap();
    invalid(s.tril_into(&x, 0, &twice).unwrap_err(), "tril", "out");
    invalid(s.tril_inplace(&twice, 0).unwrap_err(), "tril", "self");
}
