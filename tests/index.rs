//! Index through the safe layer (spec section 30), against cpu-ref bit for
//! bit: every dtype, both index dtypes broadcast together, empty members
//! (adjacent indexed dims or not), negative values, views in and out,
//! aliasing outputs, out-of-range values (device and host), every rule.

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
        } => assert_eq!((*o, *p), ("index", param), "{e}"),
        other => panic!("expected invalid (index, {param}), got {other}"),
    }
}

fn i64s(shape: &[usize], v: &[i64]) -> cpu_ref::Tensor {
    cpu_ref::Tensor::from_slice(shape, v).unwrap()
}

#[test]
fn index_every_dtype_form_and_rule() {
    let s = stream();
    let soc = soc();
    let mut seed = 900;
    let none = i64s(&[0], &[]);
    let a = i64s(&[2, 1], &[0, -1]);
    let b = cpu_ref::Tensor::from_slice(&[3], &[3i32, 0, -4]).unwrap();
    let c = i64s(&[], &[1]);
    let lists: Vec<Vec<&cpu_ref::Tensor>> = vec![
        vec![&b],
        vec![&none, &b],
        vec![&a, &b],
        vec![&a, &none, &c],
        vec![&none, &b, &c],
    ];
    for d in R::ALL {
        seed += 1;
        let what = format!("index {d}");
        // self: a permuted [3, 4, 2] view.
        let x = ref_tensor(d, &[4, 4, 2], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for members in &lists {
            let gm: Vec<Tensor> = members.iter().map(|m| upload(&s, m)).collect();
            let gr: Vec<&Tensor> = gm.iter().collect();
            let want = cpu_ref::index(&soc, &x, members);
            let got = s.index(&gx, &gr).and_then(|t| {
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
                let r = s.index_into(&gx, &gr, &out).map(|()| out.clone());
                check(r, Ok(want), &format!("{what} (into)"));
            }
        }
    }
    // Bool masks (read back, expanded to int64 coordinates), a view as a
    // mask, against cpu-ref.
    let x = ref_tensor(R::Float32, &[3, 4, 2], None, 11);
    let gx = upload(&s, &x);
    let m = |shape: &[usize], v: &[u8]| {
        cpu_ref::Tensor::from_bytes(R::Bool, shape, v.to_vec()).unwrap()
    };
    let m2 = m(&[3, 4], &[1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0]);
    let m1 = m(&[4], &[0, 1, 0, 1]);
    let none_m = m(&[3], &[0, 0, 0]);
    let mt = m(&[4, 3], &[1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0])
        .view(&[3, 4], &[1, 3], 0)
        .unwrap();
    let pick = i64s(&[2], &[1, -1]);
    for members in [
        vec![&m2],
        vec![&none, &m1],
        vec![&pick, &m1],
        vec![&m2, &pick],
        vec![&none_m],
        vec![&mt],
    ] {
        let gm: Vec<Tensor> = members.iter().map(|t| upload(&s, t)).collect();
        let gr: Vec<&Tensor> = gm.iter().collect();
        let want = cpu_ref::index(&soc, &x, &members);
        let got = s.index(&gx, &gr).and_then(|t| {
            s.synchronize()?;
            Ok(t)
        });
        check(got, want.clone(), "index bool");
        if let Ok(want) = want {
            let out = Tensor::zeros(&s, DType::F32, want.shape()).unwrap();
            let r = s.index_into(&gx, &gr, &out).map(|()| out.clone());
            check(r, Ok(want), "index bool (into)");
        }
    }
    // Aliasing: out is self.
    let w = ref_tensor(R::Int64, &[4], None, 7);
    let gw = upload(&s, &w);
    let ri = i64s(&[4], &[3, 2, 1, 0]);
    let want = cpu_ref::index(&soc, &w, &[&ri]).unwrap();
    s.index_into(&gw, &[&upload(&s, &ri)], &gw).unwrap();
    common::assert_same(&gw, &want, "aliasing");
    // Out of range: on the device, and on the host when nothing moves.
    let bad = Tensor::from_slice(&s, &[1], &[-5i64]).unwrap();
    let e = s
        .index(&gw, &[&bad])
        .and_then(|t| t.to_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), "index_out_of_range", "{e}");
    let z = Tensor::zeros(&s, DType::F32, &[2, 0]).unwrap();
    let zi = Tensor::from_slice(&s, &[1], &[2i64]).unwrap();
    assert_eq!(
        s.index(&z, &[&zi]).unwrap_err().kind(),
        "index_out_of_range"
    );
    assert_eq!(
        s.index(&z, &[&Tensor::from_slice(&s, &[1], &[1i64]).unwrap()])
            .unwrap()
            .shape(),
        &[1, 0]
    );
    // Every rule, in order.
    let x = Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap();
    let i = Tensor::zeros(&s, DType::I64, &[2]).unwrap();
    assert_eq!(
        s.index(&Tensor::zeros(&s, DType::C64, &[2]).unwrap(), &[&i])
            .unwrap_err()
            .kind(),
        "unsupported_dtype"
    );
    invalid(
        s.index(&x, &[&Tensor::zeros(&s, DType::F32, &[2]).unwrap()])
            .unwrap_err(),
        "indices",
    );
    // A mask not of the shape of the dims it covers ([3, 2]: dim 0 is 3).
    invalid(
        s.index(&x, &[&Tensor::zeros(&s, DType::Bool, &[2]).unwrap()])
            .unwrap_err(),
        "indices",
    );
    invalid(s.index(&x, &[]).unwrap_err(), "indices");
    invalid(s.index(&x, &[&i, &i, &i]).unwrap_err(), "indices");
    invalid(
        s.index(&x, &[&i, &Tensor::zeros(&s, DType::I32, &[3]).unwrap()])
            .unwrap_err(),
        "indices",
    );
    let i8d = Tensor::zeros(&s, DType::I64, &[1; 8]).unwrap();
    invalid(s.index(&x, &[&i8d]).unwrap_err(), "indices");
    invalid(
        s.index_into(&x, &[&i], &Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap())
            .unwrap_err(),
        "out",
    );
    invalid(
        s.index_into(&x, &[&i], &Tensor::zeros(&s, DType::F64, &[2, 2]).unwrap())
            .unwrap_err(),
        "out",
    );
}
