//! Embedding through the safe layer (spec section 23), against cpu-ref bit
//! for bit: every dtype, index ranks and dtypes, views in and out, aliasing
//! outputs, out-of-range indices, every rule.

mod common;

use common::{check, dtype, ref_tensor, stream, upload};
use cpu_ref::DType as R;
use npu_ops::{DType, Error, Tensor};

fn soc() -> String {
    common::rt().soc().to_string()
}

fn invalid(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("embedding", param), "{e}"),
        other => panic!("expected invalid (embedding, {param}), got {other}"),
    }
}

#[test]
fn every_dtype_and_form_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 200;
    for d in R::ALL {
        seed += 1;
        let what = format!("embedding {d}");
        let w = ref_tensor(d, &[5, 3], Some(&[1, 0]), seed);
        let gw = upload(&s, &w);
        let idx = cpu_ref::Tensor::from_slice(&[2, 3], &[4i32, 0, 4, 1, 2, 3]).unwrap();
        let gi = upload(&s, &idx);
        let want = cpu_ref::embedding(&soc, &w, &idx);
        let got = s.embedding(&gw, &gi).and_then(|t| {
            s.synchronize()?;
            Ok(t)
        });
        check(got, want.clone(), &what);
        if let Ok(want) = want {
            let store = Tensor::zeros(&s, dtype(d), &[3, 3, 2]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let r = s.embedding_into(&gw, &gi, &out).map(|()| out.clone());
            check(r, Ok(want), &format!("{what} (into)"));
        }
    }
}

#[test]
fn index_ranks_aliasing_and_out_of_range() {
    let s = stream();
    let soc = soc();
    let w = ref_tensor(R::Int64, &[4, 2], None, 7);
    let gw = upload(&s, &w);
    for idx in [
        cpu_ref::Tensor::from_slice(&[], &[3i64]).unwrap(),
        cpu_ref::Tensor::from_slice(&[0], &[0i64; 0]).unwrap(),
        cpu_ref::Tensor::from_slice(&[1, 2, 1], &[1i64, 3]).unwrap(),
    ] {
        let gi = upload(&s, &idx);
        check(
            s.embedding(&gw, &gi),
            cpu_ref::embedding(&soc, &w, &idx),
            "ranks",
        );
    }
    // out over weight's own storage: through a temporary.
    let i = Tensor::from_slice(&s, &[4], &[3i64, 2, 1, 0]).unwrap();
    let want = cpu_ref::embedding(
        &soc,
        &w,
        &cpu_ref::Tensor::from_slice(&[4], &[3i64, 2, 1, 0]).unwrap(),
    )
    .unwrap();
    s.embedding_into(&gw, &i, &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    // Out of range: on the device, at the next synchronisation.
    let bad = Tensor::from_slice(&s, &[2], &[0i32, 4]).unwrap();
    let e = s
        .embedding(&gw, &bad)
        .and_then(|t| t.to_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    // With nothing to move, still checked (on the host).
    let w0 = Tensor::zeros(&s, DType::F32, &[3, 0]).unwrap();
    let e = s.embedding(&w0, &bad).unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
}

#[test]
fn every_rule_names_operator_and_parameter() {
    let s = stream();
    let w = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2]).unwrap();
    let u = Tensor::zeros(&s, DType::U16, &[3, 2]).unwrap();
    assert_eq!(s.embedding(&u, &i).unwrap_err().kind(), "unsupported_dtype");
    invalid(
        s.embedding(&w, &Tensor::zeros(&s, DType::F32, &[2]).unwrap())
            .unwrap_err(),
        "indices",
    );
    invalid(
        s.embedding(&Tensor::zeros(&s, DType::F32, &[6]).unwrap(), &i)
            .unwrap_err(),
        "weight",
    );
    let deep = Tensor::zeros(&s, DType::I64, &[1; 8]).unwrap();
    invalid(s.embedding(&w, &deep).unwrap_err(), "indices");
    invalid(
        s.embedding_into(&w, &i, &Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid(
        s.embedding_into(&w, &i, &Tensor::zeros(&s, DType::F64, &[2, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
}
