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

#[test]
fn prepared_runs_match_cpu_ref_and_keep_the_rules() {
    let s = stream();
    let soc = soc();
    // A transposed weight view, an int32 index, a strided out: the layouts
    // prepared once; each run brings new buffers (new index values).
    let w = ref_tensor(R::Float16, &[6, 4], Some(&[1, 0]), 31);
    let gw = upload(&s, &w);
    let store = Tensor::zeros(&s, DType::F16, &[4, 3]).unwrap();
    let out = store.permute(&[1, 0]).unwrap();
    let i0 = Tensor::from_slice(&s, &[3], &[0i32, 5, 2]).unwrap();
    let p = s.prepare_embedding(&gw, &i0, &out).unwrap();
    assert!(p.is_repeatable());
    for (k, vals) in [[0i32, 5, 2], [1, 1, 4], [5, 0, 3]].iter().enumerate() {
        let i = Tensor::from_slice(&s, &[3], vals).unwrap();
        let o_store = Tensor::zeros(&s, DType::F16, &[4, 3]).unwrap();
        let o = o_store.permute(&[1, 0]).unwrap();
        p.run(&gw, &i, &o).unwrap();
        let want = cpu_ref::embedding(&soc, &w, &cpu_ref::Tensor::from_slice(&[3], vals).unwrap());
        common::assert_same(&o, &want.unwrap(), &format!("run {k}"));
    }
    // An index out of range: the device's report at the synchronisation.
    let bad = Tensor::from_slice(&s, &[3], &[0i32, 6, 1]).unwrap();
    p.run(&gw, &bad, &out).unwrap();
    assert_eq!(s.synchronize().unwrap_err().kind(), "index_out_of_range");
    // out over the weight: through embedding_into's temporary, same result.
    let w2 = ref_tensor(R::Float16, &[3, 3], None, 32);
    let g2 = upload(&s, &w2);
    let i3 = Tensor::from_slice(&s, &[3], &[2i32, 0, 1]).unwrap();
    let q = s.prepare_embedding(&g2, &i3, &g2).unwrap();
    q.run(&g2, &i3, &g2).unwrap();
    let want = cpu_ref::embedding(
        &soc,
        &w2,
        &cpu_ref::Tensor::from_slice(&[3], &[2i32, 0, 1]).unwrap(),
    );
    common::assert_same(&g2, &want.unwrap(), "aliasing run");
    // Preparing checks embedding_into's rules, in its order; a run checks
    // the layouts.
    let f = Tensor::zeros(&s, DType::F32, &[3]).unwrap();
    invalid(
        s.prepare_embedding(&gw, &f, &out).err().expect("refused"),
        "indices",
    );
    let wrong = Tensor::zeros(&s, DType::F16, &[3, 5]).unwrap();
    invalid(
        s.prepare_embedding(&gw, &i0, &wrong)
            .err()
            .expect("refused"),
        "out",
    );
    let other_layout = Tensor::zeros(&s, DType::F16, &[3, 4]).unwrap();
    assert_eq!(
        p.run(&gw, &i0, &other_layout).unwrap_err().kind(),
        "invalid_argument"
    );
}
