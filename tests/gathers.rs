//! GatherV2 through the safe layer (spec section 24), against cpu-ref bit
//! for bit: every dtype, index ranks and dtypes along every dim, views in
//! and out, overlapping inputs, aliasing outputs, out-of-range indices,
//! every rule.

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
        } => assert_eq!((*o, *p), ("gather_v2", param), "{e}"),
        other => panic!("expected invalid (gather_v2, {param}), got {other}"),
    }
}

#[test]
fn every_dtype_and_form_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 300;
    for d in R::ALL {
        seed += 1;
        let what = format!("gather_v2 {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        let idx = cpu_ref::Tensor::from_slice(&[2, 3], &[2i32, 0, 2, 1, 0, 1]).unwrap();
        let gi = upload(&s, &idx);
        let want = cpu_ref::gather_v2(&soc, &x, -1, &idx);
        let got = s.gather_v2(&gx, -1, &gi).and_then(|t| {
            s.synchronize()?;
            Ok(t)
        });
        check(got, want.clone(), &what);
        if let Ok(want) = want {
            let store = Tensor::zeros(&s, dtype(d), &[3, 2, 4]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let r = s.gather_v2_into(&gx, -1, &gi, &out).map(|()| out.clone());
            check(r, Ok(want), &format!("{what} (into)"));
        }
    }
}

#[test]
fn index_ranks_dims_views_aliasing_and_out_of_range() {
    let s = stream();
    let soc = soc();
    let x = ref_tensor(R::Int32, &[2, 3, 4], None, 9);
    let gx = upload(&s, &x);
    for dim in -3..3i64 {
        for idx in [
            cpu_ref::Tensor::from_slice(&[], &[1i64]).unwrap(),
            cpu_ref::Tensor::from_slice(&[0], &[0i64; 0]).unwrap(),
            cpu_ref::Tensor::from_slice(&[2, 1, 2], &[1i64, 0, 1, 1]).unwrap(),
        ] {
            let gi = upload(&s, &idx);
            check(
                s.gather_v2(&gx, dim, &gi),
                cpu_ref::gather_v2(&soc, &x, dim, &idx),
                &format!("dim {dim} index {:?}", idx.shape()),
            );
        }
    }
    // A 0-D self.
    let x0 = cpu_ref::Tensor::scalar(9i32);
    let i1 = cpu_ref::Tensor::from_slice(&[1], &[0i64]).unwrap();
    check(
        s.gather_v2(&upload(&s, &x0), 0, &upload(&s, &i1)),
        cpu_ref::gather_v2(&soc, &x0, 0, &i1),
        "0-D self",
    );
    // A self-overlapping self (a stride-0 broadcast) and index.
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let bx = row.view(&[4, 3], &[0, 1], 0).unwrap();
    let bi = Tensor::from_slice(&s, &[1], &[2i64])
        .unwrap()
        .view(&[2, 2], &[0, 0], 0)
        .unwrap();
    let y = s.gather_v2(&bx, 1, &bi).unwrap();
    assert_eq!(y.shape(), &[4, 2, 2]);
    assert_eq!(y.to_vec::<i32>().unwrap(), [3; 16]);
    // out over self's own storage: through a temporary.
    let w = ref_tensor(R::Int64, &[4, 2], None, 7);
    let gw = upload(&s, &w);
    let ri = cpu_ref::Tensor::from_slice(&[4], &[3i64, 2, 1, 0]).unwrap();
    let want = cpu_ref::gather_v2(&soc, &w, 0, &ri).unwrap();
    s.gather_v2_into(&gw, 0, &upload(&s, &ri), &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    // Out of range: on the device, at the next synchronisation.
    let bad = Tensor::from_slice(&s, &[2], &[0i32, 2]).unwrap();
    let e = s
        .gather_v2(&gw, 1, &bad)
        .and_then(|t| t.to_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    let neg = Tensor::from_slice(&s, &[1], &[-1i64]).unwrap();
    let e = s
        .gather_v2(&gw, 0, &neg)
        .and_then(|t| t.to_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    // With nothing to move, still checked (on the host).
    let z = Tensor::zeros(&s, DType::F32, &[0, 2]).unwrap();
    let e = s.gather_v2(&z, 1, &bad).unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    let e = s.gather_v2(&z, 0, &neg).unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
}

#[test]
fn every_rule_names_operator_and_parameter() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2]).unwrap();
    let u = Tensor::zeros(&s, DType::U16, &[3, 2]).unwrap();
    assert_eq!(
        s.gather_v2(&u, 0, &i).unwrap_err().kind(),
        "unsupported_dtype"
    );
    invalid(
        s.gather_v2(&x, 0, &Tensor::zeros(&s, DType::F32, &[2]).unwrap())
            .unwrap_err(),
        "index",
    );
    for dim in [2, -3, i64::MIN, i64::MAX] {
        invalid(s.gather_v2(&x, dim, &i).unwrap_err(), "dim");
    }
    let deep = Tensor::zeros(&s, DType::I64, &[1; 8]).unwrap();
    invalid(s.gather_v2(&x, 0, &deep).unwrap_err(), "index");
    let x0 = Tensor::zeros(&s, DType::F32, &[]).unwrap();
    invalid(s.gather_v2(&x0, 0, &i).unwrap_err(), "index");
    invalid(s.gather_v2(&x0, 1, &i).unwrap_err(), "dim");
    invalid(
        s.gather_v2_into(&x, 0, &i, &Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid(
        s.gather_v2_into(&x, 0, &i, &Tensor::zeros(&s, DType::F64, &[2, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
    let twice = Tensor::zeros(&s, DType::F32, &[2])
        .unwrap()
        .view(&[2, 2], &[0, 1], 0)
        .unwrap();
    invalid(s.gather_v2_into(&x, 0, &i, &twice).unwrap_err(), "out");
}

fn invalid_g(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("gather", param), "{e}"),
        other => panic!("expected invalid (gather, {param}), got {other}"),
    }
}

#[test]
fn gather_every_dtype_and_form_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 400;
    for d in R::ALL {
        seed += 1;
        let what = format!("gather {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        for dim in [0i64, -1] {
            let n = if dim == 0 { 4 } else { 3 };
            let vals: Vec<i64> = (0..6).map(|k| (k * 5 + 1) % n).collect();
            let idx = cpu_ref::Tensor::from_slice(&[2, 3], &vals).unwrap();
            let gi = upload(&s, &idx);
            let want = cpu_ref::gather(&soc, &x, dim, &idx);
            let got = s.gather(&gx, dim, &gi).and_then(|t| {
                s.synchronize()?;
                Ok(t)
            });
            check(got, want.clone(), &what);
            if let Ok(want) = want {
                let store = Tensor::zeros(&s, dtype(d), &[3, 2]).unwrap();
                let out = store.permute(&[1, 0]).unwrap();
                let r = s.gather_into(&gx, dim, &gi, &out).map(|()| out.clone());
                check(r, Ok(want), &format!("{what} (into)"));
            }
        }
    }
}

#[test]
fn gather_views_0d_aliasing_and_out_of_range() {
    let s = stream();
    let soc = soc();
    let x = ref_tensor(R::Int32, &[2, 3, 4], None, 9);
    let gx = upload(&s, &x);
    for dim in -3..3i64 {
        let n = x.shape()[dim.rem_euclid(3) as usize] as i64;
        let vals: Vec<i64> = (0..12).map(|k| (k * 7 + 3) % n).collect();
        let idx = cpu_ref::Tensor::from_slice(&[1, 3, 4], &vals).unwrap();
        check(
            s.gather(&gx, dim, &upload(&s, &idx)),
            cpu_ref::gather(&soc, &x, dim, &idx),
            &format!("dim {dim}"),
        );
    }
    // 0-D self, 0-D index, an empty index.
    let x0 = cpu_ref::Tensor::scalar(9i32);
    let i2 = cpu_ref::Tensor::from_slice(&[2], &[0i64, 0]).unwrap();
    check(
        s.gather(&upload(&s, &x0), 0, &upload(&s, &i2)),
        cpu_ref::gather(&soc, &x0, 0, &i2),
        "0-D self",
    );
    let x1 = ref_tensor(R::Int8, &[3], None, 2);
    let i0 = cpu_ref::Tensor::scalar(2i32);
    check(
        s.gather(&upload(&s, &x1), -1, &upload(&s, &i0)),
        cpu_ref::gather(&soc, &x1, -1, &i0),
        "0-D index",
    );
    let ie = cpu_ref::Tensor::from_slice(&[0, 5, 1], &[0i64; 0]).unwrap();
    check(
        s.gather(&gx, 1, &upload(&s, &ie)),
        cpu_ref::gather(&soc, &x, 1, &ie),
        "empty index",
    );
    // A self-overlapping self and index (stride-0 broadcasts).
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let bx = row.view(&[4, 3], &[0, 1], 0).unwrap();
    let bi = Tensor::from_slice(&s, &[1], &[2i64])
        .unwrap()
        .view(&[2, 2], &[0, 0], 0)
        .unwrap();
    assert_eq!(
        s.gather(&bx, 1, &bi).unwrap().to_vec::<i32>().unwrap(),
        [3; 4]
    );
    // out over self's own storage: through a temporary.
    let w = ref_tensor(R::Int64, &[2, 2], None, 7);
    let gw = upload(&s, &w);
    let ri = cpu_ref::Tensor::from_slice(&[2, 2], &[1i64, 0, 0, 1]).unwrap();
    let want = cpu_ref::gather(&soc, &w, 1, &ri).unwrap();
    s.gather_into(&gw, 1, &upload(&s, &ri), &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    // Out of range (negative too): on the device, at the next synchronisation.
    for bad in [[0i64, 2], [-1, 0]] {
        let bi = Tensor::from_slice(&s, &[1, 2], &bad).unwrap();
        let e = s
            .gather(&gw, 1, &bi)
            .and_then(|t| t.to_bytes())
            .unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range", "{e}");
    }
}

#[test]
fn gather_every_rule_names_operator_and_parameter() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2, 2]).unwrap();
    let c = Tensor::zeros(&s, DType::C64, &[3, 2]).unwrap();
    assert_eq!(s.gather(&c, 0, &i).unwrap_err().kind(), "unsupported_dtype");
    invalid_g(
        s.gather(&x, 0, &Tensor::zeros(&s, DType::F32, &[2, 2]).unwrap())
            .unwrap_err(),
        "index",
    );
    invalid_g(
        s.gather(&x, 0, &Tensor::zeros(&s, DType::I64, &[2]).unwrap())
            .unwrap_err(),
        "index",
    );
    for dim in [2, -3, i64::MIN, i64::MAX] {
        invalid_g(s.gather(&x, dim, &i).unwrap_err(), "dim");
    }
    invalid_g(
        s.gather(&x, 0, &Tensor::zeros(&s, DType::I64, &[1, 3]).unwrap())
            .unwrap_err(),
        "index",
    );
    let x0 = Tensor::zeros(&s, DType::F32, &[0, 2]).unwrap();
    invalid_g(s.gather(&x0, 0, &i).unwrap_err(), "index");
    invalid_g(
        s.gather_into(&x, 0, &i, &Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid_g(
        s.gather_into(&x, 0, &i, &Tensor::zeros(&s, DType::F64, &[2, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
    let twice = Tensor::zeros(&s, DType::F32, &[2])
        .unwrap()
        .view(&[2, 2], &[0, 1], 0)
        .unwrap();
    invalid_g(s.gather_into(&x, 0, &i, &twice).unwrap_err(), "out");
}

fn invalid_t(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("take", param), "{e}"),
        other => panic!("expected invalid (take, {param}), got {other}"),
    }
}

#[test]
fn take_every_dtype_form_and_rule() {
    let s = stream();
    let soc = soc();
    let mut seed = 500;
    for d in R::ALL {
        seed += 1;
        let what = format!("take {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        let idx = cpu_ref::Tensor::from_slice(&[2, 3], &[11i32, 0, 5, 5, 7, 1]).unwrap();
        let gi = upload(&s, &idx);
        let want = cpu_ref::take(&soc, &x, &idx);
        let got = s.take(&gx, &gi).and_then(|t| {
            s.synchronize()?;
            Ok(t)
        });
        check(got, want.clone(), &what);
        if let Ok(want) = want {
            let store = Tensor::zeros(&s, dtype(d), &[3, 2]).unwrap();
            let out = store.permute(&[1, 0]).unwrap();
            let r = s.take_into(&gx, &gi, &out).map(|()| out.clone());
            check(r, Ok(want), &format!("{what} (into)"));
        }
    }
    // 0-D index and self, an empty index, a broadcast self, aliasing.
    let x0 = cpu_ref::Tensor::scalar(5i16);
    let i0 = cpu_ref::Tensor::scalar(0i64);
    check(
        s.take(&upload(&s, &x0), &upload(&s, &i0)),
        cpu_ref::take(&soc, &x0, &i0),
        "0-D",
    );
    let ie = cpu_ref::Tensor::from_slice(&[3, 0], &[0i32; 0]).unwrap();
    check(
        s.take(&upload(&s, &x0), &upload(&s, &ie)),
        cpu_ref::take(&soc, &x0, &ie),
        "empty index",
    );
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let bx = row.view(&[2, 3], &[0, 1], 0).unwrap();
    let bi = Tensor::from_slice(&s, &[3], &[5i64, 0, 4]).unwrap();
    assert_eq!(
        s.take(&bx, &bi).unwrap().to_vec::<i32>().unwrap(),
        [3, 1, 2]
    );
    let w = ref_tensor(R::Int64, &[4], None, 7);
    let gw = upload(&s, &w);
    let ri = cpu_ref::Tensor::from_slice(&[4], &[3i64, 2, 1, 0]).unwrap();
    let want = cpu_ref::take(&soc, &w, &ri).unwrap();
    s.take_into(&gw, &upload(&s, &ri), &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    for bad in [[0i64, 4], [-1, 0]] {
        let bi = Tensor::from_slice(&s, &[2], &bad).unwrap();
        let e = s.take(&gw, &bi).and_then(|t| t.to_bytes()).unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range", "{e}");
    }
    // Every rule.
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2]).unwrap();
    invalid_t(
        s.take(&x, &Tensor::zeros(&s, DType::F32, &[2]).unwrap())
            .unwrap_err(),
        "index",
    );
    invalid_t(
        s.take(&Tensor::zeros(&s, DType::F32, &[0, 2]).unwrap(), &i)
            .unwrap_err(),
        "index",
    );
    invalid_t(
        s.take_into(&x, &i, &Tensor::zeros(&s, DType::F32, &[2, 1]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid_t(
        s.take_into(&x, &i, &Tensor::zeros(&s, DType::I32, &[2]).unwrap())
            .unwrap_err(),
        "out",
    );
    let twice = Tensor::zeros(&s, DType::F32, &[1])
        .unwrap()
        .view(&[2], &[0], 0)
        .unwrap();
    invalid_t(s.take_into(&x, &i, &twice).unwrap_err(), "out");
}

fn invalid_ic(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("index_copy", param), "{e}"),
        other => panic!("expected invalid (index_copy, {param}), got {other}"),
    }
}

#[test]
fn index_copy_every_dtype_form_and_rule() {
    let s = stream();
    let soc = soc();
    let mut seed = 600;
    for d in R::ALL {
        seed += 1;
        let what = format!("index_copy {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let src = ref_tensor(d, &[4, 2], None, seed + 1);
        let idx = cpu_ref::Tensor::from_slice(&[2], &[2i32, 0]).unwrap();
        let (gx, gi, gs) = (upload(&s, &x), upload(&s, &idx), upload(&s, &src));
        let want = cpu_ref::index_copy(&soc, &x, -1, &idx, &src);
        let got = s.index_copy(&gx, -1, &gi, &gs).and_then(|t| {
            s.synchronize()?;
            Ok(t)
        });
        check(got, want.clone(), &what);
        if let Ok(want) = want {
            let store = Tensor::zeros(&s, dtype(d), &[3, 4]).unwrap();
            let out = store.permute(&[1, 0]).unwrap();
            let r = s
                .index_copy_into(&gx, -1, &gi, &gs, &out)
                .map(|()| out.clone());
            check(r, Ok(want.clone()), &format!("{what} (into)"));
            let r = s.index_copy_inplace(&gx, -1, &gi, &gs).map(|()| gx.clone());
            check(r, Ok(want), &format!("{what} (in place)"));
        }
    }
    // Repeats, 0-D tensors, an empty index, aliasing, broadcast inputs.
    let x = ref_tensor(R::Int32, &[3, 2], None, 3);
    let src = ref_tensor(R::Int32, &[2, 2], None, 4);
    let rep = cpu_ref::Tensor::from_slice(&[2], &[1i64, 1]).unwrap();
    check(
        s.index_copy(&upload(&s, &x), 0, &upload(&s, &rep), &upload(&s, &src)),
        cpu_ref::index_copy(&soc, &x, 0, &rep, &src),
        "repeats",
    );
    let x0 = cpu_ref::Tensor::scalar(1i16);
    let i0 = cpu_ref::Tensor::scalar(0i32);
    let s0 = cpu_ref::Tensor::scalar(5i16);
    check(
        s.index_copy(&upload(&s, &x0), 0, &upload(&s, &i0), &upload(&s, &s0)),
        cpu_ref::index_copy(&soc, &x0, 0, &i0, &s0),
        "0-D",
    );
    let ie = cpu_ref::Tensor::from_slice::<i64>(&[0], &[]).unwrap();
    let se = cpu_ref::Tensor::from_slice::<i32>(&[0, 2], &[]).unwrap();
    check(
        s.index_copy(&upload(&s, &x), 0, &upload(&s, &ie), &upload(&s, &se)),
        cpu_ref::index_copy(&soc, &x, 0, &ie, &se),
        "empty index",
    );
    // out over self (through a temporary); in place with a source cut from
    // self itself (copied first); a broadcast source.
    let gx = upload(&s, &x);
    let one = cpu_ref::Tensor::from_slice(&[1], &[2i64]).unwrap();
    let src1 = cpu_ref::Tensor::from_slice(&[1, 2], &[7i32, 8]).unwrap();
    let want = cpu_ref::index_copy(&soc, &x, 0, &one, &src1).unwrap();
    s.index_copy_into(&gx, 0, &upload(&s, &one), &upload(&s, &src1), &gx)
        .unwrap();
    common::assert_same(&gx, &want, "aliasing out");
    let gx = upload(&s, &x);
    let row0 = gx.narrow(0, 0, 1).unwrap();
    let want =
        cpu_ref::index_copy(&soc, &x, 0, &one, &x.view(&[1, 2], &[2, 1], 0).unwrap()).unwrap();
    s.index_copy_inplace(&gx, 0, &upload(&s, &one), &row0)
        .unwrap();
    common::assert_same(&gx, &want, "source from self");
    let b = Tensor::from_slice(&s, &[1], &[6i32])
        .unwrap()
        .view(&[1, 2], &[0, 0], 0)
        .unwrap();
    let gx = upload(&s, &x);
    let bref = cpu_ref::Tensor::from_slice(&[1, 2], &[6i32, 6]).unwrap();
    let want = cpu_ref::index_copy(&soc, &x, 0, &one, &bref).unwrap();
    s.index_copy_inplace(&gx, 0, &upload(&s, &one), &b).unwrap();
    common::assert_same(&gx, &want, "broadcast source");
    // Out of range: on the device; on the host when nothing moves.
    for bad in [[0i64, 3], [-1, 0]] {
        let bi = Tensor::from_slice(&s, &[2], &bad).unwrap();
        let e = s
            .index_copy(&upload(&s, &x), 0, &bi, &upload(&s, &src))
            .and_then(|t| t.to_bytes())
            .unwrap_err();
        assert_eq!(e.kind(), "index_out_of_range", "{e}");
    }
    let z = Tensor::zeros(&s, DType::I32, &[0, 2]).unwrap();
    let zi = Tensor::from_slice(&s, &[1], &[0i64]).unwrap();
    let zs = Tensor::zeros(&s, DType::I32, &[1, 2]).unwrap();
    assert_eq!(
        s.index_copy(&z, 0, &zi, &zs).unwrap_err().kind(),
        "index_out_of_range"
    );
    // Every rule.
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[1]).unwrap();
    let src = Tensor::zeros(&s, DType::F32, &[1, 2]).unwrap();
    assert_eq!(
        s.index_copy(
            &Tensor::zeros(&s, DType::U32, &[3, 2]).unwrap(),
            0,
            &i,
            &src
        )
        .unwrap_err()
        .kind(),
        "unsupported_dtype"
    );
    invalid_ic(
        s.index_copy(&x, 0, &Tensor::zeros(&s, DType::F32, &[1]).unwrap(), &src)
            .unwrap_err(),
        "index",
    );
    invalid_ic(
        s.index_copy(
            &x,
            0,
            &Tensor::zeros(&s, DType::I64, &[1, 1]).unwrap(),
            &src,
        )
        .unwrap_err(),
        "index",
    );
    invalid_ic(
        s.index_copy(&x, 0, &i, &Tensor::zeros(&s, DType::F64, &[1, 2]).unwrap())
            .unwrap_err(),
        "source",
    );
    invalid_ic(
        s.index_copy(&x, 0, &i, &Tensor::zeros(&s, DType::F32, &[2]).unwrap())
            .unwrap_err(),
        "source",
    );
    invalid_ic(s.index_copy(&x, 2, &i, &src).unwrap_err(), "dim");
    invalid_ic(
        s.index_copy(&x, 0, &i, &Tensor::zeros(&s, DType::F32, &[1, 3]).unwrap())
            .unwrap_err(),
        "source",
    );
    invalid_ic(
        s.index_copy_into(
            &x,
            0,
            &i,
            &src,
            &Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap(),
        )
        .unwrap_err(),
        "out",
    );
    let twice = Tensor::zeros(&s, DType::F32, &[2])
        .unwrap()
        .view(&[3, 2], &[0, 1], 0)
        .unwrap();
    invalid_ic(
        s.index_copy_into(&x, 0, &i, &src, &twice).unwrap_err(),
        "out",
    );
    invalid_ic(
        s.index_copy_inplace(&twice, 0, &i, &src).unwrap_err(),
        "self",
    );
}

fn invalid_nd(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("gather_nd", param), "{e}"),
        other => panic!("expected invalid (gather_nd, {param}), got {other}"),
    }
}

#[test]
fn gather_nd_every_dtype_form_and_rule() {
    let s = stream();
    let soc = soc();
    let mut seed = 700;
    for d in R::ALL {
        seed += 1;
        let what = format!("gather_nd {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        for (ishape, vals, neg) in [
            (vec![3usize, 1], vec![3i64, 0, 2], false),
            (vec![2, 2], vec![-1, 2, 0, -3], true),
        ] {
            let idx = cpu_ref::Tensor::from_slice(&ishape, &vals).unwrap();
            let gi = upload(&s, &idx);
            let want = cpu_ref::gather_nd(&soc, &x, &idx, neg);
            let got = s.gather_nd(&gx, &gi, neg).and_then(|t| {
                s.synchronize()?;
                Ok(t)
            });
            check(got, want.clone(), &what);
            if let Ok(want) = want {
                let shape = want.shape().to_vec();
                let rev: Vec<usize> = shape.iter().rev().copied().collect();
                let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
                let order: Vec<i64> = (0..shape.len() as i64).rev().collect();
                let out = store.permute(&order).unwrap();
                let r = s.gather_nd_into(&gx, &gi, neg, &out).map(|()| out.clone());
                check(r, Ok(want), &format!("{what} (into)"));
            }
        }
    }
    // Aliasing, out of range (device and host), every rule.
    let w = ref_tensor(R::Int64, &[4], None, 7);
    let gw = upload(&s, &w);
    let ri = cpu_ref::Tensor::from_slice(&[4, 1], &[3i64, 2, 1, 0]).unwrap();
    let want = cpu_ref::gather_nd(&soc, &w, &ri, false).unwrap();
    s.gather_nd_into(&gw, &upload(&s, &ri), false, &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    let bad = Tensor::from_slice(&s, &[1, 1], &[-1i64]).unwrap();
    let e = s
        .gather_nd(&gw, &bad, false)
        .and_then(|t| t.to_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    let z = Tensor::zeros(&s, DType::F32, &[2, 0]).unwrap();
    let zi = Tensor::from_slice(&s, &[1, 1], &[2i64]).unwrap();
    assert_eq!(
        s.gather_nd(&z, &zi, false).unwrap_err().kind(),
        "index_out_of_range"
    );
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2, 1]).unwrap();
    assert_eq!(
        s.gather_nd(&Tensor::zeros(&s, DType::F64, &[2]).unwrap(), &i, false)
            .unwrap_err()
            .kind(),
        "unsupported_dtype"
    );
    invalid_nd(
        s.gather_nd(&Tensor::zeros(&s, DType::F32, &[]).unwrap(), &i, false)
            .unwrap_err(),
        "self",
    );
    invalid_nd(
        s.gather_nd(&x, &Tensor::zeros(&s, DType::F32, &[2, 1]).unwrap(), false)
            .unwrap_err(),
        "indices",
    );
    invalid_nd(
        s.gather_nd(&x, &Tensor::zeros(&s, DType::I64, &[]).unwrap(), false)
            .unwrap_err(),
        "indices",
    );
    invalid_nd(
        s.gather_nd(&x, &Tensor::zeros(&s, DType::I64, &[1, 3]).unwrap(), false)
            .unwrap_err(),
        "indices",
    );
    invalid_nd(
        s.gather_nd_into(
            &x,
            &i,
            false,
            &Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap(),
        )
        .unwrap_err(),
        "out",
    );
}

fn invalid_ms(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("masked_select", param), "{e}"),
        other => panic!("expected invalid (masked_select, {param}), got {other}"),
    }
}

#[test]
fn masked_select_of_megabytes_shares_the_cores() {
    // Big enough for the two-pass kernel on both cores and for the host
    // count's chunks: a UINT8 mask with values other than 1, a mask
    // broadcast along rows, a transposed source; against cpu-ref.
    let s = stream();
    let soc = soc();
    for (k, d) in [R::Float16, R::Float32, R::Int64].into_iter().enumerate() {
        let x = ref_tensor(d, &[700, 600], Some(&[1, 0]), 900 + k as u64);
        let gx = upload(&s, &x);
        let bytes: Vec<u8> = (0..420_000u32)
            .map(|i| ((i.wrapping_mul(2_654_435_761) >> 29) as u8).wrapping_mul(37))
            .collect();
        for mask in [
            cpu_ref::Tensor::from_bytes(R::UInt8, &[700, 600], bytes.clone()).unwrap(),
            cpu_ref::Tensor::from_bytes(
                R::Bool,
                &[1, 600],
                bytes[..600].iter().map(|&b| u8::from(b > 100)).collect(),
            )
            .unwrap(),
        ] {
            let gm = upload(&s, &mask);
            let what = format!("masked_select {d} mask {:?}", mask.shape());
            let want = cpu_ref::masked_select(&soc, &x, &mask);
            check(s.masked_select(&gx, &gm), want.clone(), &what);
            let want = want.unwrap();
            let out = Tensor::zeros(&s, dtype(d), &[420_000]).unwrap();
            let n = s.masked_select_into(&gx, &gm, &out).unwrap();
            assert_eq!(n, want.numel(), "{what}");
            check(out.narrow(0, 0, n), Ok(want), &format!("{what} (into)"));
        }
    }
}

#[test]
fn masked_select_every_dtype_form_and_rule() {
    let s = stream();
    let soc = soc();
    let mut seed = 800;
    for d in R::ALL {
        seed += 1;
        let what = format!("masked_select {d}");
        let x = ref_tensor(d, &[4, 3], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        for mask in [
            cpu_ref::Tensor::from_bytes(
                R::Bool,
                &[4, 3],
                (0..12).map(|k| (k % 3 == 1) as u8).collect(),
            )
            .unwrap(),
            cpu_ref::Tensor::from_bytes(R::UInt8, &[4, 1], vec![1, 0, 9, 1]).unwrap(),
        ] {
            let gm = upload(&s, &mask);
            let want = cpu_ref::masked_select(&soc, &x, &mask);
            check(s.masked_select(&gx, &gm), want.clone(), &what);
            if let Ok(want) = want {
                let store = Tensor::zeros(&s, dtype(d), &[24]).unwrap();
                let out = store.view(&[12], &[2], 0).unwrap();
                let n = s.masked_select_into(&gx, &gm, &out).unwrap();
                assert_eq!(n, want.numel(), "{what}");
                check(out.narrow(0, 0, n), Ok(want), &format!("{what} (into)"));
            }
        }
    }
    // A broadcast (stride-0) mask view, a 0-D mask, an empty broadcast
    // shape, an aliasing out (its tail kept).
    let x = ref_tensor(R::Int32, &[2, 3], None, 3);
    let gx = upload(&s, &x);
    let row = Tensor::from_slice(&s, &[1], &[true]).unwrap();
    let bm = row.view(&[2, 3], &[0, 0], 0).unwrap();
    assert_eq!(s.masked_select(&gx, &bm).unwrap().numel(), 6);
    let m0 = Tensor::from_slice(&s, &[], &[false]).unwrap();
    assert_eq!(s.masked_select(&gx, &m0).unwrap().shape(), &[0]);
    let e = Tensor::zeros(&s, DType::I32, &[0, 3]).unwrap();
    let em = Tensor::from_slice(&s, &[3], &[true, true, true]).unwrap();
    assert_eq!(s.masked_select(&e, &em).unwrap().shape(), &[0]);
    let v = Tensor::from_slice(&s, &[4], &[1i32, 2, 3, 4]).unwrap();
    let vm = Tensor::from_slice(&s, &[4], &[false, true, false, true]).unwrap();
    assert_eq!(s.masked_select_into(&v, &vm, &v).unwrap(), 2);
    assert_eq!(v.to_vec::<i32>().unwrap(), [2, 4, 3, 4]);
    // Every rule.
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let m = Tensor::from_slice(&s, &[2], &[true, false]).unwrap();
    assert_eq!(
        s.masked_select(&Tensor::zeros(&s, DType::U16, &[2]).unwrap(), &m)
            .unwrap_err()
            .kind(),
        "unsupported_dtype"
    );
    invalid_ms(
        s.masked_select(&x, &Tensor::zeros(&s, DType::I8, &[2]).unwrap())
            .unwrap_err(),
        "mask",
    );
    invalid_ms(
        s.masked_select(&x, &Tensor::from_slice(&s, &[3], &[true; 3]).unwrap())
            .unwrap_err(),
        "mask",
    );
    invalid_ms(
        s.masked_select_into(&x, &m, &Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid_ms(
        s.masked_select_into(&x, &m, &Tensor::zeros(&s, DType::F64, &[6]).unwrap())
            .unwrap_err(),
        "out",
    );
}

/// Fuzz finding (`fuzz/regressions/ops/masked-select-broadcast-count-wrapped`):
/// the broadcast element count of stride-0 views of huge extents. A zero
/// extent makes it 0 whatever the others (no overflow on the way);
/// without one, a count past `i64::MAX` is refused naming `mask`, by
/// cpu-ref too. It was an unchecked product: a panic in debug builds, and
/// in release a count wrapped to 0, an empty `Ok` for a call the
/// simulator refuses.
#[test]
fn masked_select_broadcast_counts_never_wrap() {
    let s = stream();
    let one = Tensor::from_slice(&s, &[1], &[7f32]).unwrap();
    // [2^62, 1, 0] against a mask of [1, 8, 1]: broadcast to [2^62, 8,
    // 0], empty, although 2^62 * 8 overflows.
    let x = one.view(&[1 << 62, 1, 0], &[0, 0, 0], 0).unwrap();
    let m = Tensor::from_slice(&s, &[1, 8, 1], &[true; 8]).unwrap();
    let y = s.masked_select(&x, &m).unwrap();
    assert_eq!(y.shape(), &[0]);
    let out = Tensor::zeros(&s, DType::F32, &[0]).unwrap();
    assert_eq!(s.masked_select_into(&x, &m, &out).unwrap(), 0);
    assert_eq!(
        cpu_ref::masked_select_shape(&[1 << 62, 1, 0], &[1, 8, 1]).unwrap(),
        [1 << 62, 8, 0]
    );
    // [2^60, 1] against a mask of [1, 16]: 2^64 elements, refused.
    let x = one.view(&[1 << 60, 1], &[0, 0], 0).unwrap();
    let m = Tensor::from_slice(&s, &[1, 16], &[true; 16]).unwrap();
    invalid_ms(s.masked_select(&x, &m).unwrap_err(), "mask");
    invalid_ms(s.masked_select_into(&x, &m, &out).unwrap_err(), "mask");
    let e = cpu_ref::masked_select_shape(&[1 << 60, 1], &[1, 16]).unwrap_err();
    assert_eq!(
        (e.kind(), e.param()),
        ("invalid_argument", Some("mask")),
        "{e}"
    );
}
