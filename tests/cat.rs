//! Cat through the safe layer (spec section 10), against cpu-ref bit for
//! bit: every dtype, every dim, views as members (self-overlapping ones
//! included) and as out, casts into out, out sharing memory with a member,
//! dropped and empty members, and each rule's error kind.

mod common;

use common::{assert_same, check, dtype, ref_tensor, stream, upload};
use npu_ops::{DType, Tensor};
use serial_test::serial;

fn soc() -> String {
    common::rt().soc().to_string()
}

fn list() -> Vec<cpu_ref::DType> {
    let fam = cpu_ref::Family::from_soc(&soc()).expect("a known SoC");
    cpu_ref::supported_dtypes(cpu_ref::Op::Cat, fam).to_vec()
}

#[test]
#[serial]
fn cat_every_dtype_and_dim_matches_cpu_ref() {
    let s = stream();
    for d in list() {
        for dim in -3..3i64 {
            let k = dim.rem_euclid(3) as usize;
            let mut sh = [[2usize, 3, 2], [2, 3, 2], [2, 3, 2]];
            sh[1][k] = 1;
            sh[2][k] = 0;
            let xs = [
                ref_tensor(d, &sh[0], None, 1),
                ref_tensor(d, &sh[1], Some(&[2, 0, 1]), 2),
                ref_tensor(d, &sh[2], None, 3),
            ];
            let refs: Vec<&cpu_ref::Tensor> = vec![&xs[0], &xs[1], &xs[2], &xs[1]];
            let want = cpu_ref::cat(&soc(), &refs, dim);
            let ours: Vec<Tensor> = refs.iter().map(|x| upload(&s, x)).collect();
            let our_refs: Vec<&Tensor> = ours.iter().collect();
            check(s.cat(&our_refs, dim), want, &format!("{d} dim {dim}"));
        }
    }
}

#[test]
#[serial]
fn cat_views_casts_and_aliasing() {
    let s = stream();
    // A stride-0 (self-overlapping) member and a transposed one.
    let b = Tensor::from_slice(&s, &[3], &[1i32, 2, 3])
        .unwrap()
        .view(&[2, 3], &[0, 1], 0)
        .unwrap();
    let t = Tensor::from_slice(&s, &[3, 2], &[4i32, 5, 6, 7, 8, 9])
        .unwrap()
        .transpose(0, 1)
        .unwrap();
    let y = s.cat(&[&b, &t], 0).unwrap();
    assert_eq!(
        y.to_vec::<i32>().unwrap(),
        [1, 2, 3, 1, 2, 3, 4, 6, 8, 5, 7, 9]
    );
    // Into a transposed out, cast to f32.
    let o = Tensor::zeros(&s, DType::F32, &[3, 4]).unwrap();
    s.cat_into(&[&b, &t], 0, &o.transpose(0, 1).unwrap())
        .unwrap();
    assert_eq!(
        o.to_vec::<f32>().unwrap(),
        [1., 1., 4., 5., 2., 2., 6., 7., 3., 3., 8., 9.]
    );
    // Out is the members' own storage, halves swapped.
    let buf = Tensor::from_slice(&s, &[4], &[1i64, 2, 3, 4]).unwrap();
    let lo = buf.view(&[2], &[1], 0).unwrap();
    let hi = buf.view(&[2], &[1], 2).unwrap();
    s.cat_into(&[&hi, &lo], 0, &buf).unwrap();
    assert_eq!(buf.to_vec::<i64>().unwrap(), [3, 4, 1, 2]);
}

#[test]
#[serial]
fn cat_dropped_and_empty_members() {
    let s = stream();
    let z = Tensor::empty(&s, DType::U32, &[0]).unwrap();
    // Only dropped members: a 1-D empty result, no rule checked.
    let y = s.cat(&[&z, &z], 9).unwrap();
    assert_eq!((y.shape(), y.dtype()), (&[0usize][..], DType::U32));
    let o = Tensor::from_slice(&s, &[2], &[7i8, 7]).unwrap();
    s.cat_into(&[&z], 0, &o).unwrap();
    assert_eq!(o.to_vec::<i8>().unwrap(), [7, 7]);
    // A dropped member among others, and a member empty along dim.
    let a = upload(&s, &ref_tensor(cpu_ref::DType::Int8, &[2, 2], None, 4));
    let e = Tensor::empty(&s, DType::I8, &[2, 0]).unwrap();
    let y = s.cat(&[&z, &a, &e, &a], 1).unwrap();
    let ra = ref_tensor(cpu_ref::DType::Int8, &[2, 2], None, 4);
    let re = cpu_ref::Tensor::from_bytes(cpu_ref::DType::Int8, &[2, 0], vec![]).unwrap();
    let rz = cpu_ref::Tensor::from_bytes(cpu_ref::DType::UInt32, &[0], vec![]).unwrap();
    assert_same(
        &y,
        &cpu_ref::cat(&soc(), &[&rz, &ra, &re, &ra], 1).unwrap(),
        "dropped",
    );
    // Empty out: rules checked, nothing enqueued.
    let e0 = Tensor::empty(&s, DType::I8, &[0, 2]).unwrap();
    assert_eq!(s.cat(&[&e0, &e0], 0).unwrap().shape(), &[0, 2]);
    assert!(s.cat(&[&e0, &e0], 2).is_err());
    s.synchronize().unwrap();
}

#[test]
#[serial]
fn mixed_dtypes_match_cpu_ref() {
    let s = stream();
    let r = |d: cpu_ref::DType, sh: &[usize], seed| ref_tensor(d, sh, None, seed);
    use cpu_ref::DType as D;
    // Several members with elements (through the promoted dtype), a lone
    // one beside an empty member (straight), into new and cast outputs.
    let lists: Vec<Vec<cpu_ref::Tensor>> = vec![
        vec![r(D::Int32, &[2, 3], 1), r(D::Float16, &[1, 3], 2)],
        vec![
            r(D::Float16, &[2, 3], 3),
            r(D::BFloat16, &[2, 3], 4),
            r(D::Int8, &[1, 3], 5),
        ],
        vec![
            r(D::Int64, &[2, 3], 6),
            r(D::Bool, &[2, 3], 7),
            r(D::UInt8, &[1, 3], 8),
        ],
        vec![r(D::Int32, &[2, 3], 9), r(D::Float16, &[0, 3], 10)],
        vec![r(D::Complex64, &[2, 3], 11), r(D::Float32, &[2, 3], 12)],
    ];
    for (k, xs) in lists.iter().enumerate() {
        let refs: Vec<&cpu_ref::Tensor> = xs.iter().collect();
        let ours: Vec<Tensor> = xs.iter().map(|x| upload(&s, x)).collect();
        let our_refs: Vec<&Tensor> = ours.iter().collect();
        let want = cpu_ref::cat(&soc(), &refs, 0).unwrap();
        let got = s.cat(&our_refs, 0).unwrap();
        assert_eq!(got.dtype(), dtype(want.dtype()), "list {k}");
        assert_eq!(got.to_bytes().unwrap(), want.contiguous_bytes(), "list {k}");
        for to in [D::Float32, D::Float16, D::Int64, D::Complex64] {
            let w = cpu_ref::cat_cast(&soc(), &refs, 0, to);
            let out = Tensor::zeros(&s, dtype(to), want.shape()).unwrap();
            match (w, s.cat_into(&our_refs, 0, &out)) {
                (Ok(w), Ok(())) => assert_eq!(
                    out.to_bytes().unwrap(),
                    w.unwrap().contiguous_bytes(),
                    "list {k} into {to}"
                ),
                (Err(w), Err(e)) => assert_eq!(e.kind(), w.kind(), "list {k} into {to}"),
                (w, e) => panic!("list {k} into {to}: {w:?} / {e:?}"),
            }
        }
        if xs.iter().all(|x| x.shape() == xs[0].shape()) {
            let want = cpu_ref::stack(&soc(), &refs, 1).unwrap();
            let got = s.stack(&our_refs, 1).unwrap();
            assert_eq!(
                got.to_bytes().unwrap(),
                want.contiguous_bytes(),
                "stack {k}"
            );
        }
    }
}

#[test]
#[serial]
fn cat_errors_match_cpu_ref_kinds() {
    let s = stream();
    let r = |d: cpu_ref::DType, sh: &[usize]| ref_tensor(d, sh, None, 9);
    let cases: Vec<(Vec<cpu_ref::Tensor>, i64)> = vec![
        (vec![], 0),
        (
            vec![
                r(cpu_ref::DType::Complex64, &[2]),
                r(cpu_ref::DType::Float64, &[2]),
            ],
            0,
        ),
        (
            vec![
                r(cpu_ref::DType::Float32, &[2, 2]),
                r(cpu_ref::DType::Float32, &[2, 3]),
            ],
            0,
        ),
        (
            vec![
                r(cpu_ref::DType::Float32, &[2, 2]),
                r(cpu_ref::DType::Float32, &[4]),
            ],
            0,
        ),
        (vec![r(cpu_ref::DType::Float32, &[2, 2])], -3),
        (vec![r(cpu_ref::DType::Float32, &[])], 0),
        (vec![r(cpu_ref::DType::UInt16, &[2])], 0),
        (vec![r(cpu_ref::DType::Complex128, &[2])], 0),
    ];
    for (k, (xs, dim)) in cases.iter().enumerate() {
        let refs: Vec<&cpu_ref::Tensor> = xs.iter().collect();
        let ours: Vec<Tensor> = xs.iter().map(|x| upload(&s, x)).collect();
        let our_refs: Vec<&Tensor> = ours.iter().collect();
        let e = s.cat(&our_refs, *dim).expect_err("refused");
        let w = cpu_ref::cat(&soc(), &refs, *dim).expect_err("refused");
        assert_eq!(e.kind(), w.kind(), "case {k}: {e} / {w}");
        if let (
            npu_ops::Error::InvalidArgument { param, .. },
            cpu_ref::RefError::InvalidArgument { param: p2, .. },
        ) = (&e, &w)
        {
            assert_eq!(param, p2, "case {k}");
        }
    }
    let _ = dtype(cpu_ref::DType::Float32);
}

#[test]
#[serial]
fn prepared_cat_reuses_one_executor_and_keeps_the_rules() {
    let s = stream();
    let past = Tensor::from_slice(&s, &[2, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
    let step = Tensor::from_slice(&s, &[2, 1], &[7f32, 8.]).unwrap();
    let out = Tensor::empty(&s, DType::F32, &[2, 4]).unwrap();
    let p = s.prepare_cat(&[&past, &step], -1, &out).unwrap();
    if common::sim_only("prepared_cat_reuses_one_executor") {
        assert!(p.is_repeatable());
    }
    for k in 0..4 {
        let step = Tensor::from_slice(&s, &[2, 1], &[k as f32, -(k as f32)]).unwrap();
        let out2 = Tensor::empty(&s, DType::F32, &[2, 4]).unwrap();
        p.run(&[&past, &step], &out2).unwrap();
        assert_eq!(
            out2.to_vec::<f32>().unwrap(),
            [1., 2., 3., k as f32, 4., 5., 6., -(k as f32)]
        );
    }
    // Another layout, or another count of members, is refused.
    let e = p.run(&[&past], &out).unwrap_err();
    assert!(
        matches!(
            e,
            npu_ops::Error::InvalidArgument {
                op: "cat",
                param: "inputs",
                ..
            }
        ),
        "{e}"
    );
    let e = p
        .run(
            &[
                &past.transpose(0, 1).unwrap().transpose(0, 1).unwrap(),
                &past,
            ],
            &out,
        )
        .unwrap_err();
    assert_eq!(e.kind(), "invalid_argument");
    // Out sharing memory with a member: that run goes through a temporary.
    let buf = Tensor::from_slice(&s, &[2, 4], &[1f32, 2., 3., 0., 4., 5., 6., 0.]).unwrap();
    let head = buf.narrow(1, 0, 3).unwrap();
    let p2 = s.prepare_cat(&[&head, &step], 1, &out).unwrap();
    p2.run(&[&head, &step], &buf).unwrap();
    assert_eq!(
        buf.to_vec::<f32>().unwrap(),
        [1., 2., 3., 7., 4., 5., 6., 8.]
    );
    // An empty member: every run is a `cat_into`.
    let none = Tensor::empty(&s, DType::F32, &[0]).unwrap();
    let p3 = s.prepare_cat(&[&none, &past, &step], 1, &out).unwrap();
    assert!(!p3.is_repeatable());
    p3.run(&[&none, &past, &step], &out).unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        [1., 2., 3., 7., 4., 5., 6., 8.]
    );
    drop((p, p2, p3));
    s.synchronize().unwrap();
}

/// A steady-state KV-cache loop: no device allocation, no new executor
/// and no descriptor per run, and nothing left behind once dropped.
#[test]
#[serial]
fn prepared_cat_steady_state_and_no_leak() {
    if !common::sim_only("prepared_cat_steady_state_and_no_leak") {
        return;
    }
    let s = stream();
    let past = Tensor::from_slice(&s, &[2, 3], &[1i64, 2, 3, 4, 5, 6]).unwrap();
    let steps: Vec<Tensor> = (0..4)
        .map(|k: i64| Tensor::from_slice(&s, &[2, 1], &[k, 10 + k]).unwrap())
        .collect();
    let outs: Vec<Tensor> = (0..4)
        .map(|_| Tensor::empty(&s, DType::I64, &[2, 4]).unwrap())
        .collect();
    s.synchronize().unwrap();
    let start = npu_sim::stats();
    let p = s.prepare_cat(&[&past, &steps[0]], 1, &outs[0]).unwrap();
    p.run(&[&past, &steps[0]], &outs[0]).unwrap();
    s.synchronize().unwrap();
    let before = npu_sim::stats();
    for it in 0..200 {
        p.run(&[&past, &steps[it % 4]], &outs[it % 4]).unwrap();
    }
    s.synchronize().unwrap();
    let after = npu_sim::stats();
    assert_eq!(after.allocations, before.allocations);
    assert_eq!(after.executors, before.executors);
    assert_eq!(after.tensors, before.tensors);
    for (k, out) in outs.iter().enumerate() {
        let k = k as i64;
        assert_eq!(out.to_vec::<i64>().unwrap(), [1, 2, 3, k, 4, 5, 6, 10 + k]);
    }
    drop(p);
    s.synchronize().unwrap();
    let end = npu_sim::stats();
    assert_eq!(end.executors, start.executors, "the executor is destroyed");
    assert!(
        end.tensors <= start.tensors + 8,
        "the list and its members are destroyed"
    );
}

#[test]
#[serial]
fn stack_every_dtype_and_dim_matches_cpu_ref() {
    let s = stream();
    let fam = cpu_ref::Family::from_soc(&soc()).expect("a known SoC");
    for d in cpu_ref::supported_dtypes(cpu_ref::Op::Stack, fam).to_vec() {
        for dim in -3..3i64 {
            let a = ref_tensor(d, &[2, 3], None, 1);
            let b = ref_tensor(d, &[2, 3], Some(&[1, 0]), 2);
            let want = cpu_ref::stack(&soc(), &[&a, &b, &a], dim);
            let (da, db) = (upload(&s, &a), upload(&s, &b));
            check(
                s.stack(&[&da, &db, &da], dim),
                want,
                &format!("{d} dim {dim}"),
            );
        }
    }
}

#[test]
#[serial]
fn stack_views_casts_aliasing_and_errors() {
    let s = stream();
    // A stride-0 member; 0-D members.
    let b = Tensor::from_slice(&s, &[3], &[1i32, 2, 3])
        .unwrap()
        .view(&[2, 3], &[0, 1], 0)
        .unwrap();
    let y = s.stack(&[&b, &b], 1).unwrap();
    assert_eq!(y.shape(), &[2, 2, 3]);
    assert_eq!(
        y.to_vec::<i32>().unwrap(),
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]
    );
    let z = Tensor::from_slice(&s, &[], &[4i64]).unwrap();
    let o = Tensor::zeros(&s, DType::F64, &[3]).unwrap();
    s.stack_into(&[&z, &z, &z], 0, &o).unwrap();
    assert_eq!(o.to_vec::<f64>().unwrap(), [4., 4., 4.]);
    // Out is the members' own storage.
    let buf = Tensor::from_slice(&s, &[4], &[1u16, 2, 3, 4]).unwrap();
    let (lo, hi) = (
        buf.view(&[2], &[1], 0).unwrap(),
        buf.view(&[2], &[1], 2).unwrap(),
    );
    s.stack_into(&[&hi, &lo], 0, &buf.view(&[2, 2], &[2, 1], 0).unwrap())
        .unwrap();
    assert_eq!(buf.to_vec::<u16>().unwrap(), [3, 4, 1, 2]);
    // Errors, as cpu-ref's kinds.
    let f = Tensor::zeros(&s, DType::F32, &[2]).unwrap();
    let c = Tensor::zeros(&s, DType::C64, &[2]).unwrap();
    let d = Tensor::zeros(&s, DType::F64, &[2]).unwrap();
    let f3 = Tensor::zeros(&s, DType::F32, &[3]).unwrap();
    for (r, param) in [
        (s.stack(&[], 0), "tensors"),
        (s.stack(&[&c, &d], 0), "tensors"),
        (s.stack(&[&f, &f3], 0), "tensors"),
        (s.stack(&[&f, &f], 2), "dim"),
        (s.stack(&[&f, &f], -3), "dim"),
    ] {
        match r.unwrap_err() {
            npu_ops::Error::InvalidArgument { op, param: p, .. } => {
                assert_eq!((op, p), ("stack", param))
            }
            e => panic!("{e}"),
        }
    }
    s.synchronize().unwrap();
}
