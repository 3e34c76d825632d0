//! The slices family through the safe layer (SliceV2, spec section 31),
//! against cpu-ref bit for bit: every dtype, views in and out, overlapping
//! inputs, aliasing outputs, every rule.

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

type Args<'a> = (&'a [i64], &'a [i64], &'a [i64], &'a [i64]);

const CASES: [Args<'static>; 5] = [
    (&[1, 1], &[3, 2], &[0, 1], &[1, 1]),
    (&[-1], &[i64::MAX], &[-1], &[2]),
    (
        &[i64::MIN, 1, 0],
        &[i64::MAX, -1, 5],
        &[2, 0, 1],
        &[3, 1, 2],
    ),
    (&[], &[], &[], &[]),
    (&[4], &[1], &[1], &[i64::MAX]),
];

#[test]
fn slice_v2_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 900;
    for d in R::ALL {
        seed += 1;
        // [3, 4, 5] seen through a permutation of its storage.
        let x = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for (st, en, ax, sp) in CASES {
            let what = format!("slice_v2 {d} {st:?} {en:?} {ax:?} {sp:?}");
            let want = cpu_ref::slice_v2(&soc, &x, st, en, ax, sp);
            check(s.slice_v2(&gx, st, en, ax, sp), want.clone(), &what);
            let Ok(w) = &want else { continue };
            let mut rev = w.shape().to_vec();
            rev.reverse();
            let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
            let order: Vec<i64> = (0..rev.len() as i64).rev().collect();
            let out = store.permute(&order).unwrap();
            let got = s
                .slice_v2_into(&gx, st, en, ax, sp, &out)
                .map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn slice_v2_overlapping_inputs_aliasing_zero_d_and_rules() {
    let s = stream();
    // A stride-0 self (overlapping itself) is materialised first.
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    assert_eq!(
        s.slice_v2(&b, &[1], &[3], &[1], &[1])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        [2, 3, 2, 3]
    );
    // out shares x's storage: the odd elements into the first half.
    let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
    s.slice_v2_into(&x, &[1], &[6], &[0], &[2], &x.narrow(0, 0, 3).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 3, 5, 3, 4, 5]);
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    assert_eq!(
        s.slice_v2(&z, &[], &[], &[], &[])
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [5]
    );
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(
        s.slice_v2(&e, &[1], &[2], &[1], &[1]).unwrap().shape(),
        [0, 1]
    );
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for (st, en, ax, sp, param) in [
        (&[0i64][..], &[1i64][..], &[2i64][..], &[1i64][..], "axes"),
        (&[0], &[1], &[i64::MIN], &[1], "axes"),
        (&[0, 0], &[1, 1], &[1, -1], &[1, 1], "axes"),
        (&[], &[1], &[1], &[1], "starts"),
        (&[0], &[1, 2], &[1], &[1], "ends"),
        (&[0], &[1], &[1], &[], "steps"),
        (&[0], &[1], &[1], &[0], "steps"),
        (&[0], &[1], &[1], &[i64::MIN], "steps"),
    ] {
        invalid(
            s.slice_v2(&x, st, en, ax, sp).unwrap_err(),
            "slice_v2",
            param,
        );
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2, 1]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[1])
            .unwrap()
            .view(&[2, 1], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(
            s.slice_v2_into(&x, &[0], &[1], &[1], &[1], &bad)
                .unwrap_err(),
            "slice_v2",
            "out",
        );
    }
    let i16x = Tensor::zeros(&s, DType::I16, &[2]).unwrap();
    assert_eq!(
        s.slice_v2(&i16x, &[], &[], &[], &[])
            .unwrap_err()
            .kind()
            .as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn slice_v3_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 1900;
    for d in R::ALL {
        seed += 1;
        let x = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for (b, z) in [
            (&[1i64, 0, 2][..], &[2i64, 4, 3][..]),
            (&[0, 0, 0], &[3, 4, 5]),
            (&[3, 1, 0], &[0, 2, 5]),
            (&[2, 3, 4], &[1, 1, 2]),
        ] {
            let what = format!("slice_v3 {d} {b:?} {z:?}");
            let want = cpu_ref::slice_v3(&soc, &x, b, z);
            check(s.slice_v3(&gx, b, z), want.clone(), &what);
            let Ok(w) = &want else { continue };
            let mut rev = w.shape().to_vec();
            rev.reverse();
            let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let got = s.slice_v3_into(&gx, b, z, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn slice_v3_overlapping_inputs_aliasing_and_rules() {
    let s = stream();
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    assert_eq!(
        s.slice_v3(&b, &[1, 1], &[1, 2])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        [2, 3]
    );
    let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
    s.slice_v3_into(&x, &[2], &[4], &x.narrow(0, 0, 4).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [2, 3, 4, 5, 4, 5]);
    let z = Tensor::from_slice(&s, &[], &[5i32]).unwrap();
    invalid(s.slice_v3(&z, &[], &[]).unwrap_err(), "slice_v3", "self");
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for (b, z, param) in [
        (&[0i64][..], &[1i64, 1][..], "begin"),
        (&[0, 0], &[1], "size"),
        (&[-1, 0], &[1, 1], "begin"),
        (&[3, 0], &[0, 1], "begin"),
        (&[i64::MIN, 0], &[1, 1], "begin"),
        (&[1, 0], &[2, 1], "size"),
        (&[1, 0], &[-1, 1], "size"),
        (&[1, 0], &[i64::MAX, 1], "size"),
    ] {
        invalid(s.slice_v3(&x, b, z).unwrap_err(), "slice_v3", param);
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[1, 2]).unwrap(),
    ] {
        invalid(
            s.slice_v3_into(&x, &[0, 0], &[1, 2], &bad).unwrap_err(),
            "slice_v3",
            "out",
        );
    }
    let i64x = Tensor::zeros(&s, DType::I64, &[2]).unwrap();
    assert_eq!(
        s.slice_v3(&i64x, &[0], &[1]).unwrap_err().kind().as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn as_strided_aclnn_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 2900;
    for d in R::ALL {
        seed += 1;
        for perm in [None, Some(&[1usize, 0, 2][..])] {
            let x = ref_tensor(d, &[3, 4, 5], perm, seed);
            let gx = upload(&s, &x);
            for (size, stride, off) in [
                (&[2i64, 2][..], &[2i64, 3][..], 1i64),
                (&[3, 3], &[1, 1], 2),
                (&[4], &[0], 59),
                (&[2, 3, 2], &[20, 5, 1], 0),
                (&[0, 3], &[99, 99], 99),
                (&[2], &[30], 30),
            ] {
                let what = format!("as_strided_aclnn {d} {perm:?} {size:?} {stride:?} {off}");
                let want = cpu_ref::as_strided_aclnn(&soc, &x, size, stride, off);
                check(
                    s.as_strided_aclnn(&gx, size, stride, off),
                    want.clone(),
                    &what,
                );
                let Ok(w) = &want else { continue };
                let mut rev = w.shape().to_vec();
                rev.reverse();
                let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
                let order: Vec<i64> = (0..rev.len() as i64).rev().collect();
                let out = store.permute(&order).unwrap();
                let got = s
                    .as_strided_aclnn_into(&gx, size, stride, off, &out)
                    .map(|()| out.clone());
                check(got, want, &format!("{what} (into)"));
            }
        }
    }
}

#[test]
fn as_strided_aclnn_overlapping_inputs_aliasing_and_rules() {
    let s = stream();
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap(); // flat: 1 2 3 1 2 3
    assert_eq!(
        s.as_strided_aclnn(&b, &[3], &[2], 1)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        [2, 1, 3]
    );
    let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
    s.as_strided_aclnn_into(&x, &[3], &[2], 1, &x.narrow(0, 0, 3).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 3, 5, 3, 4, 5]);
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for (size, stride, off, param) in [
        (&[][..], &[][..], 0i64, "size"),
        (&[1; 9][..], &[1; 9][..], 0, "size"),
        (&[1], &[1, 1], 0, "stride"),
        (&[-1], &[-1], 0, "size"),
        (&[1], &[-1], -1, "stride"),
        (&[1], &[1], -1, "offset"),
        (&[2], &[5], 1, "offset"),
        (&[i64::MAX], &[i64::MAX], 0, "offset"),
        (&[1], &[0], i64::MAX, "offset"),
        (&[i64::MAX], &[0], 0, "size"),
    ] {
        invalid(
            s.as_strided_aclnn(&x, size, stride, off).unwrap_err(),
            "as_strided_aclnn",
            param,
        );
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[3]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[1])
            .unwrap()
            .view(&[2], &[0], 0)
            .unwrap(),
    ] {
        invalid(
            s.as_strided_aclnn_into(&x, &[2], &[1], 0, &bad)
                .unwrap_err(),
            "as_strided_aclnn",
            "out",
        );
    }
    let f64x = Tensor::zeros(&s, DType::F64, &[2]).unwrap();
    assert_eq!(
        s.as_strided_aclnn(&f64x, &[1], &[1], 0)
            .unwrap_err()
            .kind()
            .as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn strided_slice_assign_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 3900;
    for d in R::ALL {
        for (b, e, st, axes) in [
            (
                &[1i64, 0][..],
                &[4i64, 2][..],
                &[2i64, 1][..],
                Some(&[0i64, 1][..]),
            ),
            (&[-2], &[i64::MAX], &[1], Some(&[-1][..])),
            (&[0, i64::MIN], &[3, 2], &[2, 1], None),
            (&[3], &[1], &[1], None),
        ] {
            seed += 1;
            let what = format!("strided_slice_assign_v2 {d} {b:?} {e:?} {st:?} {axes:?}");
            let var = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
            let Ok(ranges) = cpu_ref::strided_slice_assign_ranges(var.shape(), b, e, st, axes)
            else {
                unreachable!()
            };
            let vshape: Vec<usize> = ranges.iter().map(|r| r.2).collect();
            let value = ref_tensor(d, &vshape, None, seed + 7);
            let want = cpu_ref::strided_slice_assign_v2(&soc, &var, &value, b, e, st, axes);
            let gvar = upload(&s, &var);
            let gval = upload(&s, &value);
            let got = s
                .strided_slice_assign_v2(&gvar, &gval, b, e, st, axes)
                .map(|()| gvar.clone());
            check(got, want, &what);
        }
    }
}

#[test]
fn strided_slice_assign_aliasing_overlapping_and_rules() {
    let s = stream();
    // value is var's own first half: read first.
    let var = Tensor::from_slice(&s, &[8], &[0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    s.strided_slice_assign_v2(&var, &var.narrow(0, 0, 4).unwrap(), &[4], &[8], &[1], None)
        .unwrap();
    assert_eq!(var.to_vec::<i32>().unwrap(), [0, 1, 2, 3, 0, 1, 2, 3]);
    // A stride-0 value.
    let row = Tensor::from_slice(&s, &[3], &[7i32, 8, 9]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    let var = Tensor::zeros(&s, DType::I32, &[4, 3]).unwrap();
    s.strided_slice_assign_v2(&var, &b, &[0], &[4], &[2], None)
        .unwrap();
    assert_eq!(
        var.to_vec::<i32>().unwrap(),
        [7, 8, 9, 0, 0, 0, 7, 8, 9, 0, 0, 0]
    );
    let v = Tensor::zeros(&s, DType::F32, &[1, 3]).unwrap();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    type Case<'a> = (&'a [i64], &'a [i64], &'a [i64], Option<&'a [i64]>, &'a str);
    let cases: [Case; 9] = [
        (&[0, 0, 0], &[1, 1, 1], &[1, 1, 1], None, "begin"),
        (&[0], &[], &[1], None, "end"),
        (&[0], &[1], &[1, 1], None, "strides"),
        (&[0], &[1], &[1], Some(&[]), "axes"),
        (&[0], &[1], &[1], Some(&[2]), "axes"),
        (&[0, 0], &[1, 1], &[1, 1], Some(&[1, -1]), "axes"),
        (&[0], &[1], &[0], None, "strides"),
        (&[0], &[3], &[2], Some(&[1]), "strides"),
        (&[0], &[2], &[1], None, "value"),
    ];
    for (b, e, st, axes, param) in cases {
        invalid(
            s.strided_slice_assign_v2(&x, &v, b, e, st, axes)
                .unwrap_err(),
            "strided_slice_assign_v2",
            param,
        );
    }
    invalid(
        s.strided_slice_assign_v2(
            &x,
            &Tensor::zeros(&s, DType::I32, &[1, 3]).unwrap(),
            &[0],
            &[1],
            &[1],
            None,
        )
        .unwrap_err(),
        "strided_slice_assign_v2",
        "value",
    );
    let twice = Tensor::zeros(&s, DType::F32, &[3])
        .unwrap()
        .view(&[2, 3], &[0, 1], 0)
        .unwrap();
    invalid(
        s.strided_slice_assign_v2(&twice, &v, &[0], &[1], &[1], None)
            .unwrap_err(),
        "strided_slice_assign_v2",
        "self",
    );
    let i16x = Tensor::zeros(&s, DType::I16, &[2]).unwrap();
    assert_eq!(
        s.strided_slice_assign_v2(&i16x, &i16x, &[], &[], &[], None)
            .unwrap_err()
            .kind()
            .as_str(),
        "unsupported_dtype"
    );
}
