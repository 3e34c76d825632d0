//! The slices family through the C ABI (SliceV2, SliceV3, AsStrided,
//! StridedSliceAssignV2): every dtype against
//! cpu-ref bit for bit, views in and out, out sharing self's memory, the
//! first phase's order and codes, empty tensors, products and device
//! faults.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

fn first_slice_v2(x: &T, a: [&IntArr; 4], o: &T) -> Result<Planned, (i32, String)> {
    let op = slice_v2_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, a[0].0, a[1].0, a[2].0, a[3].0, o.0, w, e) })
}

type Args<'a> = (&'a [i64], &'a [i64], &'a [i64], &'a [i64]);

const CASES: [Args<'static>; 6] = [
    (&[1, 1], &[3, 2], &[0, 1], &[1, 1]),
    (&[-1], &[i64::MAX], &[-1], &[2]),
    (
        &[i64::MIN, 1, 0],
        &[i64::MAX, -1, 5],
        &[2, 0, 1],
        &[3, 1, 2],
    ),
    (&[], &[], &[], &[]),
    (&[4], &[1], &[1], &[1]),
    (&[0], &[5], &[2], &[i64::MAX]),
];

#[test]
#[serial]
fn slice_v2_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 500;
        for &d in cpu_ref::supported_dtypes(Op::SliceV2, Family::A2) {
            for (st, en, ax, sp) in CASES {
                seed += 1;
                // self: [3, 4, 5] seen through a transpose of its first two dims.
                let x = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let want = cpu_ref::slice_v2(SOC, &x, st, en, ax, sp).unwrap();
                let gx = upload(&x);
                let arrs = [st, en, ax, sp].map(IntArr::new);
                let a = [&arrs[0], &arrs[1], &arrs[2], &arrs[3]];
                let out = output(d, want.shape());
                slice_v2(&gx.t, a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {st:?}");
                // Into a non-contiguous out (the transposed storage of the result).
                let sh: Vec<i64> = want.shape().iter().map(|&v| v as i64).collect();
                let n = want.numel();
                let ob = Buf::from(&vec![0u8; n.max(1) * d.size()]);
                let mut rev = sh.clone();
                rev.reverse();
                let mut stv = contiguous_strides(&rev);
                stv.reverse();
                let o = view(acl_dtype(d), &sh, &stv, 0, ob.ptr, n as i64);
                slice_v2(&gx.t, a, &o, &s).unwrap();
                let rev_u: Vec<usize> = rev.iter().map(|&v| v as usize).collect();
                let st_u: Vec<usize> = stv.iter().map(|&v| v as usize).collect();
                let got = Tensor::from_bytes(d, &rev_u, ob.read()[..n * d.size()].to_vec())
                    .unwrap()
                    .view(want.shape(), &st_u, 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} {st:?}"
                );
            }
        }
    });
}

#[test]
#[serial]
fn slice_v2_out_sharing_self_and_zero_d() {
    leak_checked(|| {
        let s = Stream::new();
        // out is the first rows of self's own buffer: staged.
        let x = rand_tensor(DType::Int32, &[8, 8], 3);
        let want = cpu_ref::slice_v2(SOC, &x, &[1, 0], &[8, 8], &[0, 1], &[2, 2]).unwrap();
        let g = upload(&x);
        let o = view(aclDataType::ACL_INT32, &[4, 4], &[4, 1], 0, g.buf.ptr, 64);
        let arrs = [&[1i64, 0][..], &[8, 8], &[0, 1], &[2, 2]].map(IntArr::new);
        let p = first_slice_v2(&g.t, [&arrs[0], &arrs[1], &arrs[2], &arrs[3]], &o).unwrap();
        assert!(p.ws >= 64, "staged through the workspace");
        assert_eq!(launch(slice_v2_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(g.buf.read()[..64], want.contiguous_bytes()[..]);
        // 0-D with empty arrays: a copy.
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[]);
        let e = IntArr::new(&[]);
        slice_v2(&gz.t, [&e, &e, &e, &e], &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), 9i64.to_le_bytes());
    });
}

#[test]
#[serial]
fn slice_v2_first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[1, 3]),
        );
        let arr = |v: &[i64]| IntArr::new(v);
        let (st, en, ax, sp) = (arr(&[1]), arr(&[2]), arr(&[0]), arr(&[1]));
        let no = IntArr(std::ptr::null_mut());
        let p = first_slice_v2(&x, [&st, &en, &ax, &sp], &o).unwrap();
        assert_eq!(launch(slice_v2_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        // Nulls, in CANN's order: self, out, then the arrays.
        let e = first_slice_v2(&null, [&no, &en, &ax, &sp], &o).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("self"),
            "{}",
            e.1
        );
        let e = first_slice_v2(&x, [&no, &en, &ax, &sp], &null).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("out"),
            "{}",
            e.1
        );
        for (i, name) in ["starts", "ends", "axes", "steps"].into_iter().enumerate() {
            let mut a = [&st, &en, &ax, &sp];
            a[i] = &no;
            let e = first_slice_v2(&x, a, &o).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains(name),
                "{}",
                e.1
            );
        }
        // Then 161002: out's dtype, self's dtype, the axes, the lengths, the
        // steps, out's shape, out writing twice.
        let e = first_slice_v2(
            &x,
            [&st, &en, &ax, &sp],
            &f(aclDataType::ACL_INT32, &[1, 3]),
        )
        .unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains("differs"),
            "{}",
            e.1
        );
        let i16x = f(aclDataType::ACL_INT16, &[2, 3]);
        let e = first_slice_v2(&i16x, [&st, &en, &ax, &sp], &i16x).unwrap_err();
        assert!(e.1.contains("not supported"), "{}", e.1);
        for bad in [arr(&[2]), arr(&[-3])] {
            let e = first_slice_v2(&x, [&st, &en, &bad, &sp], &o).unwrap_err();
            assert!(e.1.contains("outside"), "{}", e.1);
        }
        let two = arr(&[0, -2]);
        let e = first_slice_v2(&x, [&arr(&[0, 0]), &arr(&[1, 1]), &two, &arr(&[1, 1])], &o)
            .unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        for (i, name) in ["starts", "ends", "steps"].into_iter().enumerate() {
            let long = arr(&[1, 1]);
            let mut a = [&st, &en, &ax, &sp];
            a[[0, 1, 3][i]] = &long;
            let e = first_slice_v2(&x, a, &o).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains(name),
                "{}",
                e.1
            );
        }
        for bad in [arr(&[0]), arr(&[i64::MIN])] {
            let e = first_slice_v2(&x, [&st, &en, &ax, &bad], &o).unwrap_err();
            assert!(e.1.contains("at least 1"), "{}", e.1);
        }
        let e = first_slice_v2(
            &x,
            [&st, &en, &ax, &sp],
            &f(aclDataType::ACL_FLOAT, &[2, 3]),
        )
        .unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[1, 3], &[1, 0], 0, buf.ptr, 3);
        let e = first_slice_v2(&x, [&st, &en, &ax, &sp], &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
    });
}

#[test]
#[serial]
fn slice_v2_products() {
    reinit("Ascend910A");
    let buf = Buf::new(256);
    let e = IntArr::new(&[]);
    let b = dense(aclDataType::ACL_BF16, &[2], &buf);
    assert_eq!(
        first_slice_v2(&b, [&e, &e, &e, &e], &b).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    drop(b);
    for soc in ["Ascend310P3", "Ascend310B1"] {
        reinit(soc);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        assert_eq!(
            first_slice_v2(&x, [&e, &e, &e, &e], &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    drop((e, buf));
    reinit(SOC);
}

#[test]
#[serial]
fn slice_v2_empty_and_fault() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(4096);
        // An empty self: checked (out's shape too), then no work.
        let x = dense(aclDataType::ACL_FLOAT, &[0, 3], &buf);
        let o = dense(aclDataType::ACL_FLOAT, &[0, 1], &buf);
        let arrs = [&[1i64][..], &[2], &[1], &[1]].map(IntArr::new);
        let a = [&arrs[0], &arrs[1], &arrs[2], &arrs[3]];
        let p = first_slice_v2(&x, a, &o).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(slice_v2_op().run, &p, s.0), ACL_SUCCESS);
        let bad = dense(aclDataType::ACL_FLOAT, &[0, 3], &buf);
        assert!(first_slice_v2(&x, a, &bad).is_err());
        // A view past its allocation faults at sync, writing nothing.
        let small = Buf::new(64);
        let big = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            small.ptr,
            1 << 16,
        );
        let ob = Buf::new(1 << 18);
        let o2 = dense(aclDataType::ACL_FLOAT, &[128, 256], &ob);
        let arrs = [&[1i64][..], &[256], &[0], &[2]].map(IntArr::new);
        let p = first_slice_v2(&big, [&arrs[0], &arrs[1], &arrs[2], &arrs[3]], &o2).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (slice_v2_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        assert_eq!(ob.read(), vec![0u8; 1 << 18], "nothing was written");
    });
}

fn first_slice_v3(x: &T, begin: &IntArr, size: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = slice_v3_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, begin.0, size.0, o.0, w, e) })
}

#[test]
#[serial]
fn slice_v3_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 700;
        for &d in cpu_ref::supported_dtypes(Op::SliceV3, Family::A2) {
            for (b, z) in [
                (&[1i64, 0, 2][..], &[2i64, 4, 3][..]),
                (&[0, 0, 0], &[3, 4, 5]),
                (&[2, 3, 4], &[1, 1, 1]),
                (&[3, 1, 0], &[0, 2, 5]),
            ] {
                seed += 1;
                let x = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let want = cpu_ref::slice_v3(SOC, &x, b, z).unwrap();
                let gx = upload(&x);
                let (ba, za) = (IntArr::new(b), IntArr::new(z));
                let out = output(d, want.shape());
                let p = first_slice_v3(&gx.t, &ba, &za, &out.t).unwrap();
                let ws = Buf::new(p.ws.max(1) as usize);
                // SAFETY: a fresh executor and a workspace of the asked size.
                assert_eq!(unsafe { (slice_v3_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
                assert_eq!(s.sync(), ACL_SUCCESS);
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {b:?} {z:?}");
            }
        }
    });
}

#[test]
#[serial]
fn slice_v3_first_phase_errors_in_order_and_products() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let no = IntArr(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_FLOAT, &[2, 2]),
        );
        let (b, z) = (IntArr::new(&[1, 0]), IntArr::new(&[2, 2]));
        for (args, name) in [
            ((&null, &b, &z, &o), "x"),
            ((&x, &no, &z, &o), "begin"),
            ((&x, &b, &no, &o), "size"),
            ((&x, &b, &z, &null), "y"),
        ] {
            let e = first_slice_v3(args.0, args.1, args.2, args.3).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains(name),
                "{}",
                e.1
            );
        }
        let i64x = f(aclDataType::ACL_INT64, &[4, 3]);
        let e = first_slice_v3(&i64x, &b, &z, &i64x).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains("not supported"),
            "{}",
            e.1
        );
        let e = first_slice_v3(&x, &b, &z, &f(aclDataType::ACL_INT32, &[2, 2])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let zd = f(aclDataType::ACL_FLOAT, &[]);
        let e0 = IntArr::new(&[]);
        let e = first_slice_v3(&zd, &e0, &e0, &zd).unwrap_err();
        assert!(e.1.contains("0-D"), "{}", e.1);
        for (bb, zz, what) in [
            (&[1i64][..], &[2i64, 2][..], "begin has"),
            (&[1, 0], &[2], "size has"),
            (&[-1, 0], &[2, 2], "begin entry"),
            (&[5, 0], &[0, 2], "begin entry"),
            (&[3, 0], &[2, 2], "size entry"),
            (&[1, 0], &[i64::MAX, 2], "size entry"),
            (&[1, 0], &[2, -1], "size entry"),
        ] {
            let e = first_slice_v3(&x, &IntArr::new(bb), &IntArr::new(zz), &o).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains(what),
                "{what}: {}",
                e.1
            );
        }
        let e = first_slice_v3(&x, &b, &z, &f(aclDataType::ACL_FLOAT, &[2, 3])).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[2, 2], &[1, 0], 0, buf.ptr, 2);
        let e = first_slice_v3(&x, &b, &z, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        // An empty box: no work.
        let eo = f(aclDataType::ACL_FLOAT, &[0, 2]);
        let p = first_slice_v3(&x, &IntArr::new(&[4, 1]), &IntArr::new(&[0, 2]), &eo).unwrap();
        assert_eq!(p.ws, 0);
        let s = Stream::new();
        assert_eq!(launch(slice_v3_op().run, &p, s.0), ACL_SUCCESS);
    });
    for soc in ["Ascend910A", "Ascend910_9391", "Ascend310P3"] {
        reinit(soc);
        let buf = Buf::new(256);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        let a = IntArr::new(&[0]);
        assert_eq!(
            first_slice_v3(&x, &a, &a, &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    reinit(SOC);
}

fn first_as_strided(
    x: &T,
    size: &IntArr,
    stride: &IntArr,
    offset: &IntArr,
    o: &T,
) -> Result<Planned, (i32, String)> {
    let op = as_strided_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, size.0, stride.0, offset.0, o.0, w, e) })
}

fn run_planned(p: &Planned, s: &Stream) {
    let ws = Buf::new(p.ws.max(1) as usize);
    // SAFETY: a fresh executor and a workspace of the asked size.
    assert_eq!(unsafe { (as_strided_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
    assert_eq!(s.sync(), ACL_SUCCESS);
}

#[test]
#[serial]
fn as_strided_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 800;
        for &d in cpu_ref::supported_dtypes(Op::AsStridedAclnn, Family::A2) {
            for (size, stride, off) in [
                (&[2i64, 2][..], &[2i64, 3][..], 1i64),
                (&[3, 3], &[1, 1], 2),
                (&[4], &[0], 59),
                (&[2, 3, 2], &[20, 5, 1], 0),
            ] {
                seed += 1;
                // x: [3, 4, 5] seen through a transpose (flat order differs).
                for contiguous_x in [false, true] {
                    let base = rand_tensor(d, &[4, 3, 5], seed);
                    let x = if contiguous_x {
                        base
                    } else {
                        base.view(&[3, 4, 5], &[5, 15, 1], 0).unwrap()
                    };
                    let want = cpu_ref::as_strided_aclnn(SOC, &x, size, stride, off).unwrap();
                    let gx = upload(&x);
                    let out = output(d, want.shape());
                    let p = first_as_strided(
                        &gx.t,
                        &IntArr::new(size),
                        &IntArr::new(stride),
                        &IntArr::new(&[off]),
                        &out.t,
                    )
                    .unwrap();
                    run_planned(&p, &s);
                    assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {size:?}");
                }
            }
        }
        // out is x's own buffer: staged.
        let x = rand_tensor(DType::Int32, &[16], 5);
        let want = cpu_ref::as_strided_aclnn(SOC, &x, &[4, 4], &[1, 4], 0).unwrap();
        let g = upload(&x);
        let o = view(aclDataType::ACL_INT32, &[4, 4], &[4, 1], 0, g.buf.ptr, 16);
        let p = first_as_strided(
            &g.t,
            &IntArr::new(&[4, 4]),
            &IntArr::new(&[1, 4]),
            &IntArr::new(&[0]),
            &o,
        )
        .unwrap();
        assert!(p.ws >= 64);
        run_planned(&p, &s);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn as_strided_first_phase_errors_in_order_and_products() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let no = IntArr(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[10]),
            f(aclDataType::ACL_FLOAT, &[4]),
        );
        let (z, st, off) = (IntArr::new(&[4]), IntArr::new(&[2]), IntArr::new(&[1]));
        for (args, name) in [
            ((&null, &z, &st, &off, &o), "x"),
            ((&x, &no, &st, &off, &o), "size"),
            ((&x, &z, &no, &off, &o), "stride"),
            ((&x, &z, &st, &no, &o), "storageOffset"),
            ((&x, &z, &st, &off, &null), "out"),
        ] {
            let e = first_as_strided(args.0, args.1, args.2, args.3, args.4).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains(name),
                "{}",
                e.1
            );
        }
        let dx = f(aclDataType::ACL_DOUBLE, &[10]);
        let e = first_as_strided(&dx, &z, &st, &off, &dx).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains("not supported"),
            "{}",
            e.1
        );
        let e = first_as_strided(&x, &z, &st, &off, &f(aclDataType::ACL_INT32, &[4])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        for (zz, ss, oo, what) in [
            (&[][..], &[][..], &[1i64][..], "entries"),
            (&[4, 1], &[2][..], &[1][..], "entries"),
            (&[1; 9][..], &[1; 9][..], &[0][..], "entries"),
            (&[-4], &[2], &[1], "negative"),
            (&[4], &[-2], &[1], "negative"),
            (&[4], &[2], &[-1], "negative"),
            (&[4], &[2], &[1, 1], "exactly 1"),
            (&[4], &[2], &[], "exactly 1"),
            (&[4], &[3], &[1], "largest"),
            (&[4], &[i64::MAX], &[1], "largest"),
            (&[i64::MAX; 8], &[i64::MAX; 8], &[i64::MAX], "largest"),
            (&[4], &[0], &[i64::MAX], "largest"),
        ] {
            let e = first_as_strided(&x, &IntArr::new(zz), &IntArr::new(ss), &IntArr::new(oo), &o)
                .unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains(what),
                "{what}: {}",
                e.1
            );
        }
        let e = first_as_strided(&x, &z, &st, &off, &f(aclDataType::ACL_FLOAT, &[5])).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[4], &[0], 0, buf.ptr, 1);
        let e = first_as_strided(&x, &z, &st, &off, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        // An empty out: no bound, no work.
        let eo = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first_as_strided(
            &x,
            &IntArr::new(&[0, 3]),
            &IntArr::new(&[100, 100]),
            &IntArr::new(&[50]),
            &eo,
        )
        .unwrap();
        assert_eq!(p.ws, 0);
        let s = Stream::new();
        assert_eq!(launch(as_strided_op().run, &p, s.0), ACL_SUCCESS);
        // A view past its allocation faults at sync, writing nothing.
        let small = Buf::new(64);
        let big = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            small.ptr,
            1 << 16,
        );
        let ob = Buf::new(1 << 10);
        let o2 = dense(aclDataType::ACL_FLOAT, &[256], &ob);
        let p = first_as_strided(
            &big,
            &IntArr::new(&[256]),
            &IntArr::new(&[256]),
            &IntArr::new(&[0]),
            &o2,
        )
        .unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (as_strided_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        assert_eq!(ob.read(), vec![0u8; 1 << 10], "nothing was written");
    });
    for soc in ["Ascend910A", "Ascend910_9391", "Ascend310P3"] {
        reinit(soc);
        let buf = Buf::new(256);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        let a = IntArr::new(&[1]);
        let z = IntArr::new(&[0]);
        assert_eq!(
            first_as_strided(&x, &a, &a, &z, &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    reinit(SOC);
}

fn first_assign(var: &T, value: &T, a: [&IntArr; 4]) -> Result<Planned, (i32, String)> {
    let op = strided_slice_assign_v2_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe {
        (op.get_workspace_size)(var.0, value.0, a[0].0, a[1].0, a[2].0, a[3].0, w, e)
    })
}

fn run_assign(p: &Planned, s: &Stream) {
    let ws = Buf::new(p.ws.max(1) as usize);
    // SAFETY: a fresh executor and a workspace of the asked size.
    assert_eq!(
        unsafe { (strided_slice_assign_v2_op().run)(ws.ptr, p.ws, p.ex, s.0) },
        0
    );
    assert_eq!(s.sync(), ACL_SUCCESS);
}

#[test]
#[serial]
fn strided_slice_assign_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 1300;
        for &d in cpu_ref::supported_dtypes(Op::StridedSliceAssignV2, Family::A2) {
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
                // var: [3, 4, 5] through a transpose of its first two dims.
                let var = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let ranges =
                    cpu_ref::strided_slice_assign_ranges(var.shape(), b, e, st, axes).unwrap();
                let vshape: Vec<usize> = ranges.iter().map(|r| r.2).collect();
                let value = rand_tensor(d, &vshape, seed + 1000);
                let want =
                    cpu_ref::strided_slice_assign_v2(SOC, &var, &value, b, e, st, axes).unwrap();
                let gvar = upload(&var);
                let gval = upload(&value);
                let arrs = [IntArr::new(b), IntArr::new(e), IntArr::new(st)];
                let ax = axes.map_or(IntArr(std::ptr::null_mut()), IntArr::new);
                let p =
                    first_assign(&gvar.t, &gval.t, [&arrs[0], &arrs[1], &arrs[2], &ax]).unwrap();
                run_assign(&p, &s);
                let got = Tensor::from_bytes(d, &[4, 3, 5], gvar.buf.read())
                    .unwrap()
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} {b:?}");
            }
        }
        // inputValue is a view of varRef's own storage: staged.
        let var = rand_tensor(DType::Int32, &[8], 9);
        let value = cpu_ref::slice_v2(SOC, &var, &[0], &[4], &[0], &[1]).unwrap();
        let want =
            cpu_ref::strided_slice_assign_v2(SOC, &var, &value, &[4], &[8], &[1], None).unwrap();
        let g = upload(&var);
        let vv = view(aclDataType::ACL_INT32, &[4], &[1], 0, g.buf.ptr, 8);
        let arrs = [IntArr::new(&[4]), IntArr::new(&[8]), IntArr::new(&[1])];
        let no = IntArr(std::ptr::null_mut());
        let p = first_assign(&g.t, &vv, [&arrs[0], &arrs[1], &arrs[2], &no]).unwrap();
        assert!(p.ws >= 16, "staged");
        run_assign(&p, &s);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn strided_slice_assign_first_phase_errors_in_order_and_products() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let vb = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let no = IntArr(std::ptr::null_mut());
        let var = dense(aclDataType::ACL_FLOAT, &[4, 3], &buf);
        let val = dense(aclDataType::ACL_FLOAT, &[2, 2], &vb);
        let (b, e, st, ax) = (
            IntArr::new(&[1, 0]),
            IntArr::new(&[4, 2]),
            IntArr::new(&[2, 1]),
            IntArr::new(&[0, 1]),
        );
        for (i, name) in ["begin", "end", "strides"].into_iter().enumerate() {
            let mut a = [&b, &e, &st, &ax];
            a[i] = &no;
            let x = first_assign(&var, &val, a).unwrap_err();
            assert!(
                x.0 == ACLNN_ERR_PARAM_NULLPTR && x.1.contains(name),
                "{}",
                x.1
            );
        }
        let x = first_assign(&null, &val, [&b, &e, &st, &ax]).unwrap_err();
        assert!(
            x.0 == ACLNN_ERR_PARAM_NULLPTR && x.1.contains("varRef"),
            "{}",
            x.1
        );
        let x = first_assign(&var, &null, [&b, &e, &st, &ax]).unwrap_err();
        assert!(
            x.0 == ACLNN_ERR_PARAM_NULLPTR && x.1.contains("inputValue"),
            "{}",
            x.1
        );
        let i16v = dense(aclDataType::ACL_INT16, &[4, 3], &buf);
        let x = first_assign(&i16v, &i16v, [&b, &e, &st, &ax]).unwrap_err();
        assert!(
            x.0 == ACLNN_ERR_PARAM_INVALID && x.1.contains("not supported"),
            "{}",
            x.1
        );
        let x = first_assign(
            &var,
            &dense(aclDataType::ACL_INT32, &[2, 2], &vb),
            [&b, &e, &st, &ax],
        )
        .unwrap_err();
        assert!(x.1.contains("differs"), "{}", x.1);
        let arr = IntArr::new;
        for (bb, ee, ss, aa, what) in [
            (
                arr(&[0, 0, 0]),
                arr(&[1, 1, 1]),
                arr(&[1, 1, 1]),
                arr(&[0, 1, 0]),
                "entries",
            ),
            (
                arr(&[1, 0]),
                arr(&[4]),
                arr(&[2, 1]),
                arr(&[0, 1]),
                "entries",
            ),
            (
                arr(&[1, 0]),
                arr(&[4, 2]),
                arr(&[2, 1]),
                arr(&[0]),
                "axesOptional has",
            ),
            (
                arr(&[1, 0]),
                arr(&[4, 2]),
                arr(&[2, 1]),
                arr(&[0, 2]),
                "outside",
            ),
            (
                arr(&[1, 0]),
                arr(&[4, 2]),
                arr(&[2, 1]),
                arr(&[1, -1]),
                "twice",
            ),
            (
                arr(&[1, 0]),
                arr(&[4, 2]),
                arr(&[0, 1]),
                arr(&[0, 1]),
                "at least 1",
            ),
            (
                arr(&[1, 0]),
                arr(&[4, 2]),
                arr(&[2, 2]),
                arr(&[0, 1]),
                "at least 1",
            ),
            (
                arr(&[0, 0]),
                arr(&[4, 3]),
                arr(&[2, 1]),
                arr(&[0, 1]),
                "sliced shape",
            ),
        ] {
            let x = first_assign(&var, &val, [&bb, &ee, &ss, &aa]).unwrap_err();
            assert!(
                x.0 == ACLNN_ERR_PARAM_INVALID && x.1.contains(what),
                "{what}: {}",
                x.1
            );
        }
        let twice = view(aclDataType::ACL_FLOAT, &[4, 3], &[0, 1], 0, buf.ptr, 3);
        let x = first_assign(&twice, &val, [&b, &e, &st, &ax]).unwrap_err();
        assert!(x.1.contains("twice"), "{}", x.1);
        // An empty slice: no work.
        let ev = dense(aclDataType::ACL_FLOAT, &[0, 3], &vb);
        let p = first_assign(&var, &ev, [&arr(&[3]), &arr(&[1]), &arr(&[1]), &no]).unwrap();
        assert_eq!(p.ws, 0);
        let s = Stream::new();
        assert_eq!(
            launch(strided_slice_assign_v2_op().run, &p, s.0),
            ACL_SUCCESS
        );
    });
    for soc in ["Ascend910A", "Ascend310P3", "Ascend310B1"] {
        reinit(soc);
        let buf = Buf::new(256);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        let a = IntArr::new(&[]);
        let no = IntArr(std::ptr::null_mut());
        assert_eq!(
            first_assign(&x, &x, [&a, &a, &a, &no]).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    reinit(SOC);
}

/// Empty views with strides that no span check bounds (the span of an
/// empty view is nothing): SliceV3's start arithmetic saturates instead of
/// overflowing (a debug build panicked here; found by a review).
#[test]
#[serial]
fn slice_v3_empty_view_with_huge_strides_plans_empty() {
    leak_checked(|| {
        let buf = Buf::new(64);
        let x = view(
            aclDataType::ACL_FLOAT,
            &[0, 4],
            &[1, 1 << 62],
            0,
            buf.ptr,
            1,
        );
        let o = view(aclDataType::ACL_FLOAT, &[0, 1], &[1, 1], 0, buf.ptr, 1);
        let (b, z) = (IntArr::new(&[0, 3]), IntArr::new(&[0, 1]));
        let p = first_slice_v3(&x, &b, &z, &o).expect("an empty box plans");
        let s = Stream::new();
        assert_eq!(launch(api().slice_v3().unwrap().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), 0);
    });
}

fn first_strided_slice(x: &T, a: [&IntArr; 3], o: &T) -> Result<Planned, (i32, String)> {
    let op = api().strided_slice().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe {
        (op.get_workspace_size)(x.0, a[0].0, a[1].0, a[2].0, 0, 0, 0, 0, 0, o.0, w, e)
    })
}

#[test]
#[serial]
fn strided_slice_is_refused_as_on_every_product_but_ascend_950() {
    for soc in [
        "Ascend910B3",
        "Ascend910_9391",
        "Ascend910A",
        "Ascend310P3",
        "Ascend310B1",
    ] {
        reinit(soc);
        leak_checked(|| {
            let buf = Buf::new(256);
            let null = T(std::ptr::null_mut());
            let no = IntArr(std::ptr::null_mut());
            let (x, o) = (
                dense(aclDataType::ACL_FLOAT, &[4, 3], &buf),
                dense(aclDataType::ACL_FLOAT, &[2, 2], &buf),
            );
            let (b, e, st) = (
                IntArr::new(&[1, 1]),
                IntArr::new(&[3, 3]),
                IntArr::new(&[1, 1]),
            );
            // Nulls first, in CANN's order.
            for (args, name) in [
                ((&null, &b, &e, &st, &o), "self"),
                ((&x, &no, &e, &st, &o), "begin"),
                ((&x, &b, &no, &st, &o), "end"),
                ((&x, &b, &e, &no, &o), "strides"),
                ((&x, &b, &e, &st, &null), "out"),
            ] {
                let err =
                    first_strided_slice(args.0, [args.1, args.2, args.3], args.4).unwrap_err();
                assert!(
                    err.0 == ACLNN_ERR_PARAM_NULLPTR && err.1.contains(name),
                    "{}",
                    err.1
                );
            }
            // CANN's sample call: refused (161002), no executor written.
            let err = first_strided_slice(&x, [&b, &e, &st], &o).unwrap_err();
            assert!(
                err.0 == ACLNN_ERR_PARAM_INVALID && err.1.contains("ASCEND950"),
                "{soc}: {}",
                err.1
            );
            // The second phase refuses another operator's executor.
            let p = first_as_strided(
                &x,
                &IntArr::new(&[1]),
                &IntArr::new(&[1]),
                &IntArr::new(&[0]),
                &o,
            );
            if let Ok(p) = p {
                let s = Stream::new();
                // SAFETY: a live executor of another operator.
                let rc = unsafe {
                    (api().strided_slice().unwrap().run)(std::ptr::null_mut(), 0, p.ex, s.0)
                };
                assert_ne!(rc, ACL_SUCCESS);
                // SAFETY: the executor is still its first phase's.
                unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
            }
        });
    }
    reinit(SOC);
}
