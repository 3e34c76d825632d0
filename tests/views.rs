//! The slices-and-views family through the safe layer (Permute, spec
//! section 18), against cpu-ref bit for bit: every dtype, views in and
//! out, overlapping inputs, aliasing outputs, every rule.

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
fn permute_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 70;
    for d in R::ALL {
        seed += 1;
        let x = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for dims in [[2i64, 0, 1], [1, 0, 2], [-1, -3, -2], [0, 1, 2]] {
            let what = format!("permute {d} {dims:?}");
            let want = cpu_ref::permute(&soc, &x, &dims);
            check(s.permute(&gx, &dims), want.clone(), &what);
            // Into a view with reversed dims.
            let shape = want.as_ref().unwrap().shape().to_vec();
            let mut rev = shape.clone();
            rev.reverse();
            let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let got = s.permute_into(&gx, &dims, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn permute_overlapping_inputs_aliasing_outputs_empty_and_zero_d() {
    let s = stream();
    let soc = soc();
    // A sliding window of 3 over 6 float32s.
    let base = ref_tensor(R::Float32, &[6], None, 5);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let g = upload(&s, &base);
    let gw = g.view(&[4, 3], &[1, 1], 0).unwrap();
    check(
        s.permute(&gw, &[1, 0]),
        cpu_ref::permute(&soc, &w, &[1, 0]),
        "window",
    );
    // out is x itself: a square transpose in place.
    let x = Tensor::from_slice(&s, &[2, 2], &[1i32, 2, 3, 4]).unwrap();
    s.permute_into(&x, &[1, 0], &x).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 3, 2, 4]);
    // Empty and 0-D.
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(s.permute(&e, &[1, 0]).unwrap().shape(), &[3, 0]);
    invalid(
        s.permute_into(
            &e,
            &[1, 0],
            &Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap(),
        )
        .unwrap_err(),
        "permute",
        "out",
    );
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    assert_eq!(s.permute(&z, &[]).unwrap().to_vec::<i64>().unwrap(), [5]);
}

#[test]
fn permute_every_rule_in_order() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for dims in [&[0i64][..], &[0, 2], &[i64::MIN, 0], &[-1, 1], &[0, 1, 2]] {
        invalid(s.permute(&x, dims).unwrap_err(), "permute", "dims");
    }
    let bad_shape = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    invalid(
        s.permute_into(&x, &[1, 0], &bad_shape).unwrap_err(),
        "permute",
        "out",
    );
    let bad_dtype = Tensor::zeros(&s, DType::I32, &[3, 2]).unwrap();
    invalid(
        s.permute_into(&x, &[1, 0], &bad_dtype).unwrap_err(),
        "permute",
        "out",
    );
    let row = Tensor::zeros(&s, DType::F32, &[2]).unwrap();
    let twice = row.view(&[3, 2], &[0, 1], 0).unwrap();
    invalid(
        s.permute_into(&x, &[1, 0], &twice).unwrap_err(),
        "permute",
        "out",
    );
    // dims are checked before out.
    invalid(
        s.permute_into(&x, &[0, 0], &bad_dtype).unwrap_err(),
        "permute",
        "dims",
    );
}

/// A stream on an A2 SoC (Flip exists on A2 and A3 only), when the
/// default runtime is not one.
fn flip_soc_ok() -> bool {
    matches!(
        common::rt().family(),
        Some(npu_ops::Family::A2 | npu_ops::Family::A3) | None
    )
}

#[test]
fn flip_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 90;
    for d in R::ALL {
        seed += 1;
        let x = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for dims in [&[0i64][..], &[-1], &[2, 0], &[0, 1, 2], &[]] {
            let what = format!("flip {d} {dims:?}");
            let want = cpu_ref::flip(&soc, &x, dims);
            check(s.flip(&gx, dims), want.clone(), &what);
            if want.is_err() {
                continue;
            }
            let store = Tensor::zeros(&s, dtype(d), &[5, 4, 3]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let got = s.flip_into(&gx, dims, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn flip_overlapping_inputs_aliasing_outputs_empty_and_zero_d() {
    if !flip_soc_ok() {
        return;
    }
    let s = stream();
    let soc = soc();
    let base = ref_tensor(R::Float32, &[6], None, 5);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let g = upload(&s, &base);
    let gw = g.view(&[4, 3], &[1, 1], 0).unwrap();
    check(
        s.flip(&gw, &[0, 1]),
        cpu_ref::flip(&soc, &w, &[0, 1]),
        "window",
    );
    // out is x itself, and out a shifted window of x's storage.
    let x = Tensor::from_slice(&s, &[5], &[1i32, 2, 3, 4, 5]).unwrap();
    s.flip_into(&x, &[0], &x).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [5, 4, 3, 2, 1]);
    s.flip_into(
        &x.narrow(0, 0, 4).unwrap(),
        &[0],
        &x.narrow(0, 1, 4).unwrap(),
    )
    .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [5, 2, 3, 4, 5]);
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(s.flip(&e, &[1]).unwrap().shape(), &[0, 3]);
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    assert_eq!(s.flip(&z, &[-1]).unwrap().to_vec::<i64>().unwrap(), [5]);
}

#[test]
fn flip_every_rule_in_order() {
    if !flip_soc_ok() {
        return;
    }
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for dims in [&[2i64][..], &[-3], &[i64::MIN], &[1, -1], &[0, 0]] {
        invalid(s.flip(&x, dims).unwrap_err(), "flip", "dims");
    }
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    invalid(s.flip(&z, &[1]).unwrap_err(), "flip", "dims");
    for bad in [
        Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[3])
            .unwrap()
            .view(&[2, 3], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(s.flip_into(&x, &[0], &bad).unwrap_err(), "flip", "out");
    }
    invalid(
        s.flip_into(&x, &[5], &Tensor::zeros(&s, DType::I32, &[2, 3]).unwrap())
            .unwrap_err(),
        "flip",
        "dims",
    );
    let u = Tensor::zeros(&s, DType::U16, &[2]).unwrap();
    assert_eq!(
        s.flip(&u, &[0]).unwrap_err().kind().as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn roll_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 120;
    let params: [(&[i64], &[i64]); 6] = [
        (&[1], &[0]),
        (&[-2], &[-1]),
        (&[1, 7], &[0, 2]),
        (&[5], &[]),
        (&[1, 2], &[1, 1]),
        (&[i64::MAX], &[2]),
    ];
    for d in R::ALL {
        seed += 1;
        let x = ref_tensor(d, &[3, 4, 5], Some(&[1, 0, 2]), seed);
        let gx = upload(&s, &x);
        for (shifts, dims) in params {
            let what = format!("roll {d} {shifts:?} {dims:?}");
            let want = cpu_ref::roll(&soc, &x, shifts, dims);
            check(s.roll(&gx, shifts, dims), want.clone(), &what);
            if want.is_err() {
                continue;
            }
            let store = Tensor::zeros(&s, dtype(d), &[5, 4, 3]).unwrap();
            let out = store.permute(&[2, 1, 0]).unwrap();
            let got = s.roll_into(&gx, shifts, dims, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn roll_overlapping_inputs_aliasing_outputs_empty_and_rules() {
    let s = stream();
    let soc = soc();
    let base = ref_tensor(R::Float32, &[6], None, 5);
    let w = base.view(&[4, 3], &[1, 1], 0).unwrap();
    let g = upload(&s, &base);
    let gw = g.view(&[4, 3], &[1, 1], 0).unwrap();
    check(
        s.roll(&gw, &[1, 1], &[0, 1]),
        cpu_ref::roll(&soc, &w, &[1, 1], &[0, 1]),
        "window",
    );
    let x = Tensor::from_slice(&s, &[5], &[1i32, 2, 3, 4, 5]).unwrap();
    s.roll_into(&x, &[2], &[0], &x).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [4, 5, 1, 2, 3]);
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(s.roll(&e, &[1], &[7]).unwrap().shape(), &[0, 3]);
    let z = Tensor::from_slice(&s, &[], &[5i32]).unwrap();
    assert_eq!(s.roll(&z, &[3], &[]).unwrap().to_vec::<i32>().unwrap(), [5]);
    invalid(s.roll(&z, &[3], &[0]).unwrap_err(), "roll", "dims");
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    invalid(s.roll(&x, &[1, 2], &[0]).unwrap_err(), "roll", "shifts");
    invalid(s.roll(&x, &[1, 2], &[]).unwrap_err(), "roll", "shifts");
    invalid(s.roll(&x, &[1], &[2]).unwrap_err(), "roll", "dims");
    invalid(s.roll(&x, &[1], &[i64::MIN]).unwrap_err(), "roll", "dims");
    for bad in [
        Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[3])
            .unwrap()
            .view(&[2, 3], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(
            s.roll_into(&x, &[1], &[0], &bad).unwrap_err(),
            "roll",
            "out",
        );
    }
    let i16x = Tensor::zeros(&s, DType::I16, &[2]).unwrap();
    assert_eq!(
        s.roll(&i16x, &[1], &[0]).unwrap_err().kind().as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn expand_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 150;
    for d in R::ALL {
        seed += 1;
        // [3, 1, 5] seen through a permutation of its storage.
        let x = ref_tensor(d, &[3, 1, 5], Some(&[2, 0, 1]), seed);
        let gx = upload(&s, &x);
        for size in [&[3i64, 4, 5][..], &[2, 3, 1, 5], &[3, 0, 5], &[3, 4, 6]] {
            let what = format!("expand {d} {size:?}");
            let want = cpu_ref::expand(&soc, &x, size);
            check(s.expand(&gx, size), want.clone(), &what);
            let Ok(w) = &want else { continue };
            let mut rev = w.shape().to_vec();
            rev.reverse();
            let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
            let order: Vec<i64> = (0..rev.len() as i64).rev().collect();
            let out = store.permute(&order).unwrap();
            let got = s.expand_into(&gx, size, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn expand_broadcast_inputs_aliasing_zero_d_and_rules() {
    let s = stream();
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    assert_eq!(
        s.expand(&b, &[2, 2, 3]).unwrap().to_vec::<i32>().unwrap(),
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]
    );
    // out shares x's storage: [1] expanded into the whole buffer.
    let x = Tensor::from_slice(&s, &[4], &[7i32, 0, 0, 0]).unwrap();
    s.expand_into(&x.narrow(0, 0, 1).unwrap(), &[4], &x)
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [7; 4]);
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    assert_eq!(s.expand(&z, &[]).unwrap().to_vec::<i64>().unwrap(), [5]);
    assert_eq!(s.expand(&z, &[2]).unwrap().to_vec::<i64>().unwrap(), [5, 5]);
    let x = Tensor::zeros(&s, DType::F32, &[2, 1]).unwrap();
    for size in [&[2i64][..], &[1; 9], &[2, -1], &[3, 3], &[i64::MIN, 2, 1]] {
        invalid(s.expand(&x, size).unwrap_err(), "expand", "size");
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[3])
            .unwrap()
            .view(&[2, 3], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(
            s.expand_into(&x, &[2, 3], &bad).unwrap_err(),
            "expand",
            "out",
        );
    }
    let i16x = Tensor::zeros(&s, DType::I16, &[2]).unwrap();
    assert_eq!(
        s.expand(&i16x, &[2]).unwrap_err().kind().as_str(),
        "unsupported_dtype"
    );
}

#[test]
fn repeat_every_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 180;
    for d in R::ALL {
        seed += 1;
        let x = ref_tensor(d, &[3, 2], Some(&[1, 0]), seed);
        let gx = upload(&s, &x);
        for reps in [&[2i64, 4][..], &[2, 4, 2], &[1, 1], &[0, 3], &[2, 1, 1, 3]] {
            let what = format!("repeat {d} {reps:?}");
            let want = cpu_ref::repeat(&soc, &x, reps);
            check(s.repeat(&gx, reps), want.clone(), &what);
            let Ok(w) = &want else { continue };
            let mut rev = w.shape().to_vec();
            rev.reverse();
            let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
            let order: Vec<i64> = (0..rev.len() as i64).rev().collect();
            let out = store.permute(&order).unwrap();
            let got = s.repeat_into(&gx, reps, &out).map(|()| out.clone());
            check(got, want, &format!("{what} (into)"));
        }
    }
}

#[test]
fn repeat_overlapping_aliasing_zero_d_and_rules() {
    let s = stream();
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    assert_eq!(
        s.repeat(&b, &[1, 2]).unwrap().to_vec::<i32>().unwrap(),
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]
    );
    let x = Tensor::from_slice(&s, &[4], &[7i32, 8, 0, 0]).unwrap();
    s.repeat_into(&x.narrow(0, 0, 2).unwrap(), &[2], &x)
        .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [7, 8, 7, 8]);
    let z = Tensor::from_slice(&s, &[], &[5i64]).unwrap();
    assert_eq!(s.repeat(&z, &[2]).unwrap().to_vec::<i64>().unwrap(), [5, 5]);
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    for reps in [
        &[2i64][..],
        &[1; 9],
        &[1, -1],
        &[i64::MAX, 2],
        &[1 << 40, 1 << 40],
    ] {
        invalid(s.repeat(&x, reps).unwrap_err(), "repeat", "repeats");
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[4, 3]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[3])
            .unwrap()
            .view(&[4, 3], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(
            s.repeat_into(&x, &[2, 1], &bad).unwrap_err(),
            "repeat",
            "out",
        );
    }
}

/// Repeat of a rank-8 `self` with every dim and every repeat above 1 (16
/// split dims: the plan once made one copy per outer index), against
/// cpu-ref, from a transposed view.
#[test]
fn repeat_of_rank_eight_with_every_dim_repeated() {
    let s = stream();
    let x = ref_tensor(
        R::Int16,
        &[2, 3, 2, 2, 3, 2, 2, 2],
        Some(&[7, 6, 5, 4, 3, 2, 1, 0]),
        11,
    );
    let reps = [2i64, 2, 3, 2, 2, 2, 3, 2];
    let want = cpu_ref::repeat(&soc(), &x, &reps);
    let got = s.repeat(&upload(&s, &x), &reps);
    check(got, want, "repeat rank 8");
}
