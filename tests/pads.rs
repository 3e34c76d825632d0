//! The reflection, replication and circular pads through the safe layer
//! (spec sections 16 and 17), against cpu-ref bit for bit: every operator
//! and dtype, views in and out, overlapping inputs, aliasing outputs, and
//! every rule (the error kind and parameter cpu-ref gives).

mod common;

use common::{check, ref_tensor, stream, upload};
use cpu_ref::{DType as R, Op};
use npu_ops::{Error, Stream, Tensor};

const OPS: [Op; 8] = [
    Op::ReflectionPad1d,
    Op::ReflectionPad2d,
    Op::ReflectionPad3d,
    Op::ReplicationPad1d,
    Op::ReplicationPad2d,
    Op::ReplicationPad3d,
    Op::CircularPad2d,
    Op::CircularPad3d,
];

fn soc() -> String {
    common::rt().soc().to_string()
}

/// The safe-layer method of `op` (its `_into` form when `out` is given).
fn call(
    s: &Stream,
    op: Op,
    x: &Tensor,
    p: &[i64],
    out: Option<&Tensor>,
) -> npu_ops::Result<Tensor> {
    let Some(out) = out else {
        return match op {
            Op::ReflectionPad1d => s.reflection_pad1d(x, p),
            Op::ReflectionPad2d => s.reflection_pad2d(x, p),
            Op::ReflectionPad3d => s.reflection_pad3d(x, p),
            Op::ReplicationPad1d => s.replication_pad1d(x, p),
            Op::ReplicationPad2d => s.replication_pad2d(x, p),
            Op::ReplicationPad3d => s.replication_pad3d(x, p),
            Op::CircularPad2d => s.circular_pad2d(x, p),
            _ => s.circular_pad3d(x, p),
        };
    };
    match op {
        Op::ReflectionPad1d => s.reflection_pad1d_into(x, p, out),
        Op::ReflectionPad2d => s.reflection_pad2d_into(x, p, out),
        Op::ReflectionPad3d => s.reflection_pad3d_into(x, p, out),
        Op::ReplicationPad1d => s.replication_pad1d_into(x, p, out),
        Op::ReplicationPad2d => s.replication_pad2d_into(x, p, out),
        Op::ReplicationPad3d => s.replication_pad3d_into(x, p, out),
        Op::CircularPad2d => s.circular_pad2d_into(x, p, out),
        _ => s.circular_pad3d_into(x, p, out),
    }
    .map(|()| out.clone())
}

#[test]
fn every_operator_and_dtype_matches_cpu_ref() {
    let s = stream();
    let soc = soc();
    let mut seed = 70;
    for op in OPS {
        let (_, k) = cpu_ref::pad_kind(op).unwrap();
        let shape: Vec<usize> = [2, 3, 4, 3, 2][..k + 2].to_vec();
        let perm: Vec<usize> = (0..k + 2).rev().collect();
        let padding: Vec<i64> = (0..2 * k as i64).map(|v| v % 2 + 1).collect();
        for d in R::ALL {
            seed += 1;
            let x = ref_tensor(d, &shape, Some(&perm), seed);
            let gx = upload(&s, &x);
            let what = format!("{} {d}", op.name());
            let want = cpu_ref::pad(op, &soc, &x, &padding);
            check(call(&s, op, &gx, &padding, None), want.clone(), &what);
            if let Ok(w) = &want {
                // Into a permuted view of the padded shape.
                let ps: Vec<usize> = perm.iter().map(|&i| w.shape()[i]).collect();
                let store = Tensor::zeros(&s, common::dtype(d), &ps).unwrap();
                let pi: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
                let out = store.permute(&pi).unwrap();
                check(
                    call(&s, op, &gx, &padding, Some(&out)),
                    want,
                    &format!("{what} (into)"),
                );
            }
        }
    }
}

#[test]
fn random_parameters_give_cpu_refs_errors() {
    let s = stream();
    let soc = soc();
    let mut state = 12345u64;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    for _ in 0..300 {
        let op = OPS[next(8) as usize];
        let rank = 1 + next(5) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| next(4) as usize).collect();
        let len = next(8) as usize;
        let padding: Vec<i64> = (0..len).map(|_| next(7) as i64 - 1).collect();
        let x = ref_tensor(R::Float32, &shape, None, next(100));
        let gx = upload(&s, &x);
        let want = cpu_ref::pad(op, &soc, &x, &padding);
        let got = call(&s, op, &gx, &padding, None);
        if let (Err(Error::InvalidArgument { param, .. }), Err(w)) = (&got, &want) {
            assert_eq!(
                Some(*param),
                w.param(),
                "{} {shape:?} {padding:?}",
                op.name()
            );
        }
        check(got, want, &format!("{} {shape:?} {padding:?}", op.name()));
    }
}

#[test]
fn overlapping_inputs_and_aliasing_outputs() {
    let s = stream();
    let soc = soc();
    // A stride-0 row broadcast to 3 rows (overlapping itself).
    let row = ref_tensor(R::Int32, &[4], None, 9);
    let b = row.view(&[1, 3, 4], &[0, 0, 1], 0).unwrap();
    let gb = upload(&s, &row).view(&[1, 3, 4], &[0, 0, 1], 0).unwrap();
    check(
        s.reflection_pad2d(&gb, &[2, 3, 1, 2]),
        cpu_ref::reflection_pad2d(&soc, &b, &[2, 3, 1, 2]),
        "broadcast self",
    );
    // out over x's own storage: as if x were read first.
    let x = Tensor::from_slice(&s, &[12], &[0i32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).unwrap();
    let src = x
        .narrow(0, 0, 4)
        .unwrap()
        .view(&[1, 4], &[4, 1], 0)
        .unwrap();
    let out = x.view(&[1, 7], &[7, 1], 0).unwrap();
    s.replication_pad1d_into(&src, &[1, 2], &out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [0, 0, 1, 2, 3, 3, 3]);
}

#[test]
fn every_rule_names_op_and_param() {
    let s = stream();
    let x = Tensor::from_slice(&s, &[1, 2, 3], &[1f32; 6]).unwrap();
    let inv = |e: Error, op: &str, param: &str| match &e {
        Error::InvalidArgument {
            op: o, param: p, ..
        } => assert_eq!((*o, *p), (op, param), "{e}"),
        other => panic!("expected invalid ({op}, {param}), got {other}"),
    };
    inv(
        s.reflection_pad1d(&x, &[1, 1, 1]).unwrap_err(),
        "reflection_pad1d",
        "padding",
    );
    inv(
        s.reflection_pad3d(&x, &[0; 6]).unwrap_err(),
        "reflection_pad3d",
        "self",
    );
    inv(
        s.replication_pad2d(&x, &[0, 0, -1, 0]).unwrap_err(),
        "replication_pad2d",
        "padding",
    );
    inv(
        s.circular_pad2d(&x, &[3, 0, 0, 0]).unwrap_err(),
        "circular_pad2d",
        "padding",
    );
    let e = Tensor::zeros(&s, npu_ops::DType::F32, &[1, 0, 3]).unwrap();
    inv(
        s.replication_pad1d(&e, &[1, 1]).unwrap_err(),
        "replication_pad1d",
        "self",
    );
    let out = Tensor::zeros(&s, npu_ops::DType::F32, &[1, 2, 4]).unwrap();
    inv(
        s.reflection_pad1d_into(&x, &[1, 1], &out).unwrap_err(),
        "reflection_pad1d",
        "out",
    );
    let o16 = Tensor::zeros(&s, npu_ops::DType::F16, &[1, 2, 5]).unwrap();
    inv(
        s.reflection_pad1d_into(&x, &[1, 1], &o16).unwrap_err(),
        "reflection_pad1d",
        "out",
    );
    // A zero batch: nothing to do.
    let z = Tensor::zeros(&s, npu_ops::DType::F32, &[0, 2, 3]).unwrap();
    assert_eq!(
        s.replication_pad1d(&z, &[1, 1]).unwrap().shape(),
        &[0, 2, 5]
    );
}
