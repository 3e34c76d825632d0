//! SplitTensor and SplitWithSize through the safe layer (spec section 12),
//! against cpu-ref bit for bit: every dtype, views in and out, outputs in
//! several storages or meeting `self`, every rule.

mod common;

use common::{assert_same, dtype, ref_tensor, stream, upload};
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

fn same_list(
    got: npu_ops::Result<Vec<Tensor>>,
    want: Result<Vec<cpu_ref::Tensor>, cpu_ref::RefError>,
    what: &str,
) {
    match (got, want) {
        (Ok(g), Ok(w)) => {
            assert_eq!(g.len(), w.len(), "{what}: count");
            for (k, (g, w)) in g.iter().zip(&w).enumerate() {
                assert_same(g, w, &format!("{what}: piece {k}"));
            }
        }
        (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{what}: got {g}, reference says {w}"),
        (Ok(g), Err(w)) => panic!("{what}: got {} pieces, reference says {w}", g.len()),
        (Err(g), Ok(w)) => panic!("{what}: got {g}, reference gives {} pieces", w.len()),
    }
}

#[test]
fn every_dtype_and_form_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 90;
    for d in R::ALL {
        for dim in [-1i64, 0, 1, 2, 3] {
            seed += 1;
            let what = format!("{d} dim {dim}");
            let x = ref_tensor(d, &[3, 4, 5], Some(&[2, 0, 1]), seed);
            let gx = upload(&s, &x);
            same_list(
                s.split_tensor(&gx, 2, dim),
                cpu_ref::split_tensor(&soc, &x, 2, dim),
                &format!("{what} sections"),
            );
            let sizes = [1i64, 0, 2];
            let want = cpu_ref::split_with_size(&soc, &x, &sizes, dim);
            same_list(
                s.split_with_size(&gx, &sizes, dim),
                want.clone(),
                &format!("{what} sizes"),
            );
            // Into views of several storages.
            if let Ok(w) = want {
                let outs: Vec<Tensor> = w
                    .iter()
                    .map(|p| {
                        let mut rev = p.shape().to_vec();
                        rev.reverse();
                        let st = Tensor::zeros(&s, dtype(d), &rev).unwrap();
                        let perm: Vec<i64> = (0..rev.len() as i64).rev().collect();
                        st.permute(&perm).unwrap()
                    })
                    .collect();
                s.split_with_size_into(&gx, &sizes, dim, &outs).unwrap();
                for (k, (o, p)) in outs.iter().zip(&w).enumerate() {
                    assert_same(o, p, &format!("{what} into {k}"));
                }
            }
        }
    }
}

#[test]
fn outputs_meeting_self_overlapping_inputs_and_empty() {
    let s = stream();
    let soc = soc();
    // Pieces written over self's own storage, swapped.
    let x = ref_tensor(R::Int32, &[8], None, 3);
    let want = cpu_ref::split_tensor(&soc, &x, 4, 0).unwrap();
    let g = upload(&s, &x);
    let outs = [g.narrow(0, 4, 4).unwrap(), g.narrow(0, 0, 4).unwrap()];
    s.split_tensor_into(&g, 4, 0, &outs).unwrap();
    assert_same(&outs[0], &want[0], "swapped 0");
    assert_same(&outs[1], &want[1], "swapped 1");
    // A sliding window as self.
    let base = ref_tensor(R::Float32, &[6], None, 4);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let gw = upload(&s, &base).view(&[4, 3], &[1, 1], 0).unwrap();
    same_list(
        s.split_with_size(&gw, &[3, 1], 0),
        cpu_ref::split_with_size(&soc, &w, &[3, 1], 0),
        "window",
    );
    // Empty: one empty piece for sections 0.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    let p = s.split_tensor(&e, 0, 0).unwrap();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].shape(), &[0, 3]);
}

#[test]
fn every_rule_names_operator_and_parameter() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    let z = Tensor::from_slice(&s, &[], &[1f32]).unwrap();
    invalid(
        s.split_tensor(&z, 1, 0).unwrap_err(),
        "split_tensor",
        "self",
    );
    invalid(s.split_tensor(&x, 1, 2).unwrap_err(), "split_tensor", "dim");
    invalid(
        s.split_tensor(&x, 0, 1).unwrap_err(),
        "split_tensor",
        "split_sections",
    );
    invalid(
        s.split_with_size(&x, &[], 1).unwrap_err(),
        "split_with_size",
        "split_size",
    );
    invalid(
        s.split_with_size(&x, &[4, -1], 1).unwrap_err(),
        "split_with_size",
        "split_size",
    );
    invalid(
        s.split_with_size(&x, &[1, 1], 1).unwrap_err(),
        "split_with_size",
        "split_size",
    );
    let d = Tensor::zeros(&s, DType::F64, &[33]).unwrap();
    invalid(
        s.split_with_size(&d, &[1; 33], 0).unwrap_err(),
        "split_with_size",
        "split_size",
    );
    assert_eq!(s.split_with_size(&x, &[1, 2], 1).unwrap().len(), 2);
    // The _into forms: count, shape, dtype, overlap, outputs meeting.
    let a = Tensor::zeros(&s, DType::F32, &[2, 2]).unwrap();
    let b = Tensor::zeros(&s, DType::F32, &[2, 1]).unwrap();
    invalid(
        s.split_tensor_into(&x, 2, 1, std::slice::from_ref(&a))
            .unwrap_err(),
        "split_tensor",
        "out",
    );
    invalid(
        s.split_tensor_into(&x, 2, 1, &[b.clone(), a.clone()])
            .unwrap_err(),
        "split_tensor",
        "out",
    );
    let i = Tensor::zeros(&s, DType::I32, &[2, 2]).unwrap();
    invalid(
        s.split_tensor_into(&x, 2, 1, &[i, b.clone()]).unwrap_err(),
        "split_tensor",
        "out",
    );
    let row = Tensor::zeros(&s, DType::F32, &[2]).unwrap();
    let twice = row.view(&[2, 2], &[0, 1], 0).unwrap();
    invalid(
        s.split_tensor_into(&x, 2, 1, &[twice, b.clone()])
            .unwrap_err(),
        "split_tensor",
        "out",
    );
    let store = Tensor::zeros(&s, DType::F32, &[4]).unwrap();
    let m0 = store.view(&[2, 2], &[2, 1], 0).unwrap();
    let m1 = store.view(&[2, 1], &[1, 1], 1).unwrap();
    invalid(
        s.split_tensor_into(&x, 2, 1, &[m0, m1]).unwrap_err(),
        "split_tensor",
        "out",
    );
    s.split_tensor_into(&x, 2, 1, &[a, b]).unwrap();
}

/// An extent of 2^40 (a stride-0 view) split by 1: a typed error, never
/// a list of 2^40 pieces built first (the process aborted); the `_into`
/// form refuses the count against its outputs first.
#[test]
fn a_huge_extent_split_by_one_is_a_typed_error() {
    let s = stream();
    let one = upload(&s, &ref_tensor(R::Float32, &[1], None, 3));
    let huge = one.view(&[1 << 40], &[0], 0).unwrap();
    let e = s.split_tensor(&huge, 1, 0).unwrap_err();
    assert_eq!(e.kind(), npu_ops::ErrorKind::OutOfMemory, "{e}");
    let out = Tensor::zeros(&s, DType::F32, &[1]).unwrap();
    invalid(
        s.split_tensor_into(&huge, 1, 0, &[out]).unwrap_err(),
        "split_tensor",
        "out",
    );
}
