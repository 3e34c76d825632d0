//! ViewCopy through the safe layer (spec section 34), against cpu-ref bit
//! for bit: every dtype, views in and out, in place, overlapping inputs,
//! aliasing outputs, every rule.

mod common;

use common::{check, dtype, ref_tensor, stream, upload};
use cpu_ref::DType as R;
use npu_ops::{DType, Error, Tensor, Window};

fn soc() -> String {
    common::rt().soc().to_string()
}

fn invalid(e: Error, param: &str) {
    match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), ("view_copy", param), "{e}"),
        other => panic!("expected invalid (view_copy, {param}), got {other}"),
    }
}

fn rw<'a>(w: Window<'a>) -> cpu_ref::Window<'a> {
    cpu_ref::Window {
        size: w.size,
        stride: w.stride,
        offset: w.offset,
    }
}

const WINDOWS: [(Window<'static>, Window<'static>); 6] = [
    (
        Window {
            size: &[2, 2],
            stride: &[5, 1],
            offset: 1,
        },
        Window {
            size: &[2, 2],
            stride: &[2, 1],
            offset: 0,
        },
    ),
    (
        Window {
            size: &[3, 4],
            stride: &[20, 1],
            offset: 7,
        },
        Window {
            size: &[3, 4],
            stride: &[0, 3],
            offset: 2,
        },
    ),
    (
        Window {
            size: &[4],
            stride: &[15],
            offset: 0,
        },
        Window {
            size: &[4],
            stride: &[1],
            offset: 56,
        },
    ),
    (
        Window {
            size: &[2, 3, 2],
            stride: &[1, 2, 30],
            offset: 0,
        },
        Window {
            size: &[2, 3, 2],
            stride: &[30, 5, 1],
            offset: 0,
        },
    ),
    (
        Window {
            size: &[0, 3],
            stride: &[1, 1],
            offset: 0,
        },
        Window {
            size: &[0, 3],
            stride: &[1, 1],
            offset: 0,
        },
    ),
    (
        Window {
            size: &[2, 2],
            stride: &[1, 1],
            offset: 0,
        },
        Window {
            size: &[2, 2],
            stride: &[1, 1],
            offset: 0,
        },
    ),
];

#[test]
fn every_dtype_matches_cpu_ref_fresh_into_and_in_place() {
    let s = stream();
    let soc = soc();
    let mut seed = 4400;
    for d in R::ALL {
        for perm in [None, Some(&[1usize, 0, 2][..])] {
            seed += 1;
            let dst = ref_tensor(d, &[3, 4, 5], perm, seed);
            let src = ref_tensor(d, &[3, 4, 5], perm, seed + 500);
            let (gd, gs) = (upload(&s, &dst), upload(&s, &src));
            for (dw, sw) in WINDOWS {
                let what = format!("view_copy {d} {perm:?} {dw:?} {sw:?}");
                let want = cpu_ref::view_copy(&soc, &dst, rw(dw), &src, rw(sw));
                check(s.view_copy(&gd, dw, &gs, sw), want.clone(), &what);
                let Ok(w) = &want else { continue };
                // Into a permuted view.
                let mut rev = w.shape().to_vec();
                rev.reverse();
                let store = Tensor::zeros(&s, dtype(d), &rev).unwrap();
                let order: Vec<i64> = (0..rev.len() as i64).rev().collect();
                let out = store.permute(&order).unwrap();
                let got = s
                    .view_copy_into(&gd, dw, &gs, sw, &out)
                    .map(|()| out.clone());
                check(got, want.clone(), &format!("{what} (into)"));
                // In place, on a copy of dst.
                let mine = upload(&s, &dst);
                let got = s
                    .view_copy_into(&mine, dw, &gs, sw, &mine)
                    .map(|()| mine.clone());
                check(got, want, &format!("{what} (in place)"));
            }
        }
    }
}

#[test]
fn overlapping_inputs_aliasing_outputs() {
    let s = stream();
    // src overlapping itself (a broadcast row): flat 1 2 3 1 2 3.
    let row = Tensor::from_slice(&s, &[3], &[1i32, 2, 3]).unwrap();
    let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
    let dst = Tensor::zeros(&s, DType::I32, &[4]).unwrap();
    let y = s
        .view_copy(
            &dst,
            Window::new(&[4], &[1], 0),
            &b,
            Window::new(&[4], &[1], 2),
        )
        .unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [3, 1, 2, 3]);
    // In place with src = dst: a shift reads the old values.
    let x = Tensor::from_slice(&s, &[6], &[0i32, 1, 2, 3, 4, 5]).unwrap();
    s.view_copy_into(
        &x,
        Window::new(&[5], &[1], 1),
        &x,
        Window::new(&[5], &[1], 0),
        &x,
    )
    .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [0, 0, 1, 2, 3, 4]);
    // out a view sharing dst's memory but not dst itself.
    let x = Tensor::from_slice(&s, &[8], &[0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    let (lo, hi) = (x.narrow(0, 0, 4).unwrap(), x.narrow(0, 2, 4).unwrap());
    let src = Tensor::from_slice(&s, &[1], &[9i32]).unwrap();
    s.view_copy_into(
        &lo,
        Window::new(&[1], &[1], 0),
        &src,
        Window::new(&[1], &[1], 0),
        &hi,
    )
    .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [0, 1, 9, 1, 2, 3, 6, 7]);
    // A zero in size with out sharing memory with a dst that overlaps
    // itself (found by the stress test: the copy of dst read what it wrote).
    let base = Tensor::from_slice(&s, &[8], &[0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    let over = base.view(&[2, 3], &[1, 1], 0).unwrap(); // 0 1 2 / 1 2 3
    let out = base.view(&[2, 3], &[3, 1], 2).unwrap(); // elements 2..8
    s.view_copy_into(
        &over,
        Window::new(&[0], &[1], 0),
        &src,
        Window::new(&[0], &[1], 0),
        &out,
    )
    .unwrap();
    assert_eq!(base.to_vec::<i32>().unwrap(), [0, 1, 0, 1, 2, 1, 2, 3]);
    // A zero in size: out is dst.
    let y = s
        .view_copy(
            &x,
            Window::new(&[0], &[1], 99),
            &src,
            Window::new(&[0], &[1], 99),
        )
        .unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), x.to_vec::<i32>().unwrap());
}

#[test]
fn every_rule_names_its_parameter() {
    let s = stream();
    let x = Tensor::zeros(&s, DType::F32, &[2, 3]).unwrap();
    let w = Window::new;
    let one = w(&[1], &[1], 0);
    invalid(
        s.view_copy(&x, one, &Tensor::zeros(&s, DType::I32, &[2]).unwrap(), one)
            .unwrap_err(),
        "src",
    );
    // (A tensor of rank 9 cannot be built in the safe layer.)
    for (dw, sw, param) in [
        (w(&[], &[], 0), w(&[], &[], 0), "dst_size"),
        (w(&[1; 9], &[1; 9], 0), w(&[1; 9], &[1; 9], 0), "dst_size"),
        (w(&[1], &[1, 1], 0), one, "dst_stride"),
        (one, w(&[1, 1], &[1], 0), "src_size"),
        (one, w(&[1], &[], 0), "src_stride"),
        (w(&[-1], &[-1], -1), one, "dst_size"),
        (w(&[1], &[-1], -1), one, "dst_stride"),
        (w(&[1], &[1], -1), w(&[-1], &[1], 0), "dst_offset"),
        (one, w(&[-1], &[-1], -1), "src_size"),
        (one, w(&[1], &[-1], -1), "src_stride"),
        (one, w(&[1], &[1], -1), "src_offset"),
        (w(&[2], &[1], 0), w(&[3], &[1], 0), "src_size"),
        (w(&[2], &[6], 0), w(&[2], &[9], 0), "dst_offset"),
        (w(&[2], &[1], 0), w(&[2], &[5], 1), "src_offset"),
        (
            w(&[i64::MAX; 8], &[i64::MAX; 8], 0),
            w(&[i64::MAX; 8], &[1; 8], 0),
            "dst_offset",
        ),
        (w(&[2, 2], &[1, 1], 0), w(&[2, 2], &[1, 1], 0), "dst_stride"),
        (
            w(&[i64::MAX], &[0], 0),
            w(&[i64::MAX], &[0], 0),
            "dst_stride",
        ),
    ] {
        invalid(s.view_copy(&x, dw, &x, sw).unwrap_err(), param);
    }
    for bad in [
        Tensor::zeros(&s, DType::F32, &[3, 2]).unwrap(),
        Tensor::zeros(&s, DType::I32, &[2, 3]).unwrap(),
        Tensor::zeros(&s, DType::F32, &[3])
            .unwrap()
            .view(&[2, 3], &[0, 1], 0)
            .unwrap(),
    ] {
        invalid(s.view_copy_into(&x, one, &x, one, &bad).unwrap_err(), "out");
    }
    // Empty tensors: only the lengths are checked (the metadata is not read).
    let e = Tensor::zeros(&s, DType::F32, &[0, 3]).unwrap();
    assert_eq!(
        s.view_copy(&e, w(&[5], &[-1], -9), &x, w(&[5], &[1], 99))
            .unwrap()
            .shape(),
        &[0, 3]
    );
    invalid(
        s.view_copy(&e, w(&[5], &[], 0), &x, one).unwrap_err(),
        "dst_stride",
    );
    let f64x = Tensor::zeros(&s, DType::F64, &[2]).unwrap();
    assert_eq!(
        s.view_copy(&f64x, one, &f64x, one)
            .unwrap_err()
            .kind()
            .as_str(),
        "unsupported_dtype"
    );
}
