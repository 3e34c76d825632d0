//! The slices-and-views family through the C ABI (Permute): every dtype
//! against cpu-ref bit for bit, views in and out, out sharing self's
//! memory, the first phase's order and codes, empty tensors, products and
//! device faults.

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

fn first_permute(x: &T, dims: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = permute_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, dims.0, o.0, w, e) })
}

#[test]
#[serial]
fn permute_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 10;
        for &d in cpu_ref::supported_dtypes(Op::Permute, Family::A2) {
            for dims in [&[2i64, 0, 1][..], &[1, 0, 2], &[-1, -2, -3], &[0, 1, 2]] {
                seed += 1;
                // self: [3, 4, 5] seen through a transpose of its first two dims.
                let x = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let want = cpu_ref::permute(SOC, &x, dims).unwrap();
                let gx = upload(&x);
                let a = IntArr::new(dims);
                let out = output(d, want.shape());
                permute(&gx.t, &a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {dims:?}");
                // Into a non-contiguous out (the transposed storage of the result).
                let sh: Vec<i64> = want.shape().iter().map(|&v| v as i64).collect();
                let n = want.numel();
                let ob = Buf::from(&vec![0u8; n * d.size()]);
                let (st, rev) = {
                    let mut rev = sh.clone();
                    rev.reverse();
                    let mut st = contiguous_strides(&rev);
                    st.reverse();
                    (st, rev)
                };
                let o = view(acl_dtype(d), &sh, &st, 0, ob.ptr, n as i64);
                permute(&gx.t, &a, &o, &s).unwrap();
                let rev_u: Vec<usize> = rev.iter().map(|&v| v as usize).collect();
                let st_u: Vec<usize> = st.iter().map(|&v| v as usize).collect();
                let got = Tensor::from_bytes(d, &rev_u, ob.read())
                    .unwrap()
                    .view(want.shape(), &st_u, 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} {dims:?}"
                );
            }
        }
    });
}

#[test]
#[serial]
fn permute_out_sharing_self_broadcast_self_and_big_transposes() {
    leak_checked(|| {
        let s = Stream::new();
        // A square transpose in place: out is self's buffer.
        let x = rand_tensor(DType::Int32, &[8, 8], 3);
        let want = cpu_ref::permute(SOC, &x, &[1, 0]).unwrap();
        let g = upload(&x);
        let a = IntArr::new(&[1, 0]);
        let p = first_permute(&g.t, &a, &g.t).unwrap();
        assert!(p.ws >= 256, "staged through the workspace");
        assert_eq!(launch(permute_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
        // A stride-0 self.
        let row = rand_tensor(DType::Float16, &[3], 4);
        let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
        let want = cpu_ref::permute(SOC, &b, &[1, 0]).unwrap();
        let gb = upload(&b);
        let out = output(DType::Float16, &[3, 2]);
        permute(&gb.t, &a, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // Large enough for the block transposes and the helpers.
        for d in [
            DType::Int8,
            DType::Float16,
            DType::Float32,
            DType::Float64,
            DType::Complex128,
        ] {
            let x = rand_tensor(d, &[257, 129, 3], 7);
            for dims in [[1i64, 0, 2], [2, 1, 0], [0, 2, 1]] {
                let want = cpu_ref::permute(SOC, &x, &dims).unwrap();
                let gx = upload(&x);
                let a = IntArr::new(&dims);
                let out = output(d, want.shape());
                permute(&gx.t, &a, &out.t, &s).unwrap();
                assert!(out.buf.read() == want.contiguous_bytes(), "{d} {dims:?}");
            }
        }
        // 0-D.
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[]);
        permute(&gz.t, &IntArr::new(&[]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), 9i64.to_le_bytes());
    });
}

#[test]
#[serial]
fn permute_first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[3, 2]),
        );
        let a = IntArr::new(&[1, 0]);
        let no_dims = IntArr(std::ptr::null_mut());
        let e = first_permute(&null, &a, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        let e = first_permute(&x, &no_dims, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        assert!(e.1.contains("dims"), "{}", e.1);
        let e = first_permute(&x, &a, &null).unwrap_err();
        assert!(e.1.contains("out"), "{}", e.1);
        // A dead int array.
        let dead = IntArr::new(&[1, 0]);
        let p = dead.0;
        drop(dead);
        let e = first_permute(&x, &IntArr(p), &o);
        std::mem::forget(IntArr(p));
        let e = e.unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("int array"), "{}", e.1);
        // dtypes: self's, then out's, then the two differing.
        let o_str = f(aclDataType::ACL_STRING, &[3, 2]);
        let e = first_permute(&x, &a, &o_str).unwrap_err();
        assert!(e.1.contains("out has data type"), "{}", e.1);
        let e = first_permute(&x, &a, &f(aclDataType::ACL_INT32, &[3, 2])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        // Ranks, dims' length, range, repeats, shape, writing twice.
        let e = first_permute(&x, &a, &f(aclDataType::ACL_FLOAT, &[6])).unwrap_err();
        assert!(e.1.contains("rank"), "{}", e.1);
        let e = first_permute(&x, &IntArr::new(&[0]), &o).unwrap_err();
        assert!(e.1.contains("entries"), "{}", e.1);
        let e = first_permute(&x, &IntArr::new(&[2, 0]), &o).unwrap_err();
        assert!(e.1.contains("outside"), "{}", e.1);
        let e = first_permute(&x, &IntArr::new(&[-1, 1]), &o).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        let e = first_permute(&x, &IntArr::new(&[0, 1]), &o).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[3, 2], &[0, 1], 0, buf.ptr, 2);
        let e = first_permute(&x, &a, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        // Empty: no workspace; the shape still checked.
        let s = Stream::new();
        let ex = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first_permute(&ex, &a, &f(aclDataType::ACL_FLOAT, &[3, 0])).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(permute_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(
            first_permute(&ex, &a, &o).unwrap_err().0,
            ACLNN_ERR_PARAM_INVALID
        );
    });
}

#[test]
#[serial]
fn permute_products() {
    reinit("Ascend910A");
    let buf = Buf::new(256);
    let a = IntArr::new(&[0]);
    let c = dense(aclDataType::ACL_COMPLEX128, &[2], &buf);
    assert_eq!(
        first_permute(&c, &a, &c).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    let b = dense(aclDataType::ACL_BF16, &[2], &buf);
    assert_eq!(
        first_permute(&b, &a, &b).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    let u = dense(aclDataType::ACL_UINT64, &[2], &buf);
    let o = Buf::new(64);
    let uo = dense(aclDataType::ACL_UINT64, &[2], &o);
    let s = Stream::new();
    permute(&u, &a, &uo, &s).unwrap();
    drop((c, b, u, uo, s));
    for soc in ["Ascend310P3", "Ascend310B1"] {
        reinit(soc);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        assert_eq!(
            first_permute(&x, &a, &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    drop((a, buf));
    reinit(SOC);
}

#[test]
#[serial]
fn permute_of_a_view_past_its_allocation_faults_at_sync() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64); // 16 floats
        let x = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            buf.ptr,
            1 << 16,
        );
        let out = Buf::new(1 << 18);
        let o = dense(aclDataType::ACL_FLOAT, &[256, 256], &out);
        let a = IntArr::new(&[1, 0]);
        // Both phases by hand (common::launch synchronises, and so takes
        // the fault, before it frees the workspace).
        let p = first_permute(&x, &a, &o).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (permute_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck") && msg.contains("self"), "{msg}");
        assert_eq!(out.read(), vec![0u8; 1 << 18], "nothing was written");
    });
}

fn first_flip(x: &T, dims: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = flip_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, dims.0, o.0, w, e) })
}

#[test]
#[serial]
fn flip_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 100;
        for &d in cpu_ref::supported_dtypes(Op::Flip, Family::A2) {
            for dims in [&[0i64][..], &[-1], &[2, 0], &[0, 1, 2], &[], &[1]] {
                seed += 1;
                let x = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let want = cpu_ref::flip(SOC, &x, dims).unwrap();
                let gx = upload(&x);
                let a = IntArr::new(dims);
                let out = output(d, &[3, 4, 5]);
                flip(&gx.t, &a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {dims:?}");
                // Into a transposed out.
                let ob = Buf::from(&vec![0u8; 60 * d.size()]);
                let o = view(acl_dtype(d), &[3, 4, 5], &[1, 15, 3], 0, ob.ptr, 60);
                flip(&gx.t, &a, &o, &s).unwrap();
                let got = Tensor::from_bytes(d, &[4, 5, 3], ob.read())
                    .unwrap()
                    .view(&[3, 4, 5], &[1, 15, 3], 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} {dims:?}"
                );
            }
        }
    });
}

#[test]
#[serial]
fn flip_in_place_broadcast_big_and_zero_d() {
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Int32, &[8, 8], 3);
        let want = cpu_ref::flip(SOC, &x, &[0, 1]).unwrap();
        let g = upload(&x);
        let a = IntArr::new(&[0, 1]);
        let p = first_flip(&g.t, &a, &g.t).unwrap();
        assert!(p.ws >= 256, "staged through the workspace");
        assert_eq!(launch(flip_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
        // A stride-0 self.
        let row = rand_tensor(DType::Float16, &[3], 4);
        let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
        let want = cpu_ref::flip(SOC, &b, &[1]).unwrap();
        let gb = upload(&b);
        let out = output(DType::Float16, &[2, 3]);
        flip(&gb.t, &IntArr::new(&[1]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // Large enough for the helpers, every pattern of flipped dims.
        for d in [
            DType::Int8,
            DType::Float16,
            DType::Float32,
            DType::Complex128,
        ] {
            let x = rand_tensor(d, &[257, 129, 3], 7);
            for dims in [&[0i64][..], &[1], &[2], &[0, 2], &[0, 1, 2]] {
                let want = cpu_ref::flip(SOC, &x, dims).unwrap();
                let gx = upload(&x);
                let out = output(d, &[257, 129, 3]);
                flip(&gx.t, &IntArr::new(dims), &out.t, &s).unwrap();
                assert!(out.buf.read() == want.contiguous_bytes(), "{d} {dims:?}");
            }
        }
        // 0-D.
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[]);
        flip(&gz.t, &IntArr::new(&[-1]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), 9i64.to_le_bytes());
    });
}

#[test]
#[serial]
fn flip_first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        let a = IntArr::new(&[1]);
        assert_eq!(
            first_flip(&null, &a, &o).unwrap_err().0,
            ACLNN_ERR_PARAM_NULLPTR
        );
        let e = first_flip(&x, &IntArr(std::ptr::null_mut()), &o).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("dims"),
            "{}",
            e.1
        );
        // out's dtype differing comes before self's dtype.
        let u16x = f(aclDataType::ACL_UINT16, &[2, 3]);
        let e = first_flip(&u16x, &a, &o).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = first_flip(&u16x, &a, &u16x).unwrap_err();
        assert!(e.1.contains("not supported"), "{}", e.1);
        let e = first_flip(&x, &a, &f(aclDataType::ACL_FLOAT, &[3, 2])).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let e = first_flip(&x, &IntArr::new(&[2]), &o).unwrap_err();
        assert!(e.1.contains("outside"), "{}", e.1);
        let e = first_flip(&x, &IntArr::new(&[1, -1]), &o).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 3);
        let e = first_flip(&x, &a, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        // Empty: no workspace.
        let s = Stream::new();
        let ex = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first_flip(&ex, &a, &ex).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(flip_op().run, &p, s.0), ACL_SUCCESS);
    });
}

#[test]
#[serial]
fn flip_products_and_fault() {
    for soc in ["Ascend910A", "Ascend310P3", "Ascend310B1"] {
        reinit(soc);
        let buf = Buf::new(64);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        assert_eq!(
            first_flip(&x, &IntArr::new(&[0]), &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    reinit(SOC);
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64); // 16 floats
        let x = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            buf.ptr,
            1 << 16,
        );
        let out = Buf::new(1 << 18);
        let o = dense(aclDataType::ACL_FLOAT, &[256, 256], &out);
        let p = first_flip(&x, &IntArr::new(&[0]), &o).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (flip_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck") && msg.contains("self"), "{msg}");
        assert_eq!(out.read(), vec![0u8; 1 << 18], "nothing was written");
    });
}

fn first_roll(x: &T, shifts: &IntArr, dims: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = roll_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, shifts.0, dims.0, o.0, w, e) })
}

#[test]
#[serial]
fn roll_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 200;
        let params: [(&[i64], &[i64]); 7] = [
            (&[1], &[0]),
            (&[-2], &[-1]),
            (&[1, 7], &[0, 2]),
            (&[3, -1, 2], &[0, 1, 2]),
            (&[5], &[]),
            (&[1, 2], &[1, 1]),
            (&[i64::MIN], &[2]),
        ];
        for &d in cpu_ref::supported_dtypes(Op::Roll, Family::A2) {
            for (shifts, dims) in params {
                seed += 1;
                let x = rand_tensor(d, &[4, 3, 5], seed)
                    .view(&[3, 4, 5], &[5, 15, 1], 0)
                    .unwrap();
                let want = cpu_ref::roll(SOC, &x, shifts, dims).unwrap();
                let gx = upload(&x);
                let (sa, da) = (IntArr::new(shifts), IntArr::new(dims));
                let out = output(d, &[3, 4, 5]);
                roll(&gx.t, &sa, &da, &out.t, &s).unwrap();
                assert_eq!(
                    out.buf.read(),
                    want.contiguous_bytes(),
                    "{d} {shifts:?} {dims:?}"
                );
                // A contiguous x, and a transposed out.
                let xc = x.to_contiguous();
                let want = cpu_ref::roll(SOC, &xc, shifts, dims).unwrap();
                let gc = upload(&xc);
                let ob = Buf::from(&vec![0u8; 60 * d.size()]);
                let o = view(acl_dtype(d), &[3, 4, 5], &[1, 15, 3], 0, ob.ptr, 60);
                roll(&gc.t, &sa, &da, &o, &s).unwrap();
                let got = Tensor::from_bytes(d, &[4, 5, 3], ob.read())
                    .unwrap()
                    .view(&[3, 4, 5], &[1, 15, 3], 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} {shifts:?} {dims:?}"
                );
            }
        }
    });
}

#[test]
#[serial]
fn roll_in_place_big_zero_d_and_errors() {
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Int32, &[8, 8], 3);
        let want = cpu_ref::roll(SOC, &x, &[3, 5], &[0, 1]).unwrap();
        let g = upload(&x);
        let (sa, da) = (IntArr::new(&[3, 5]), IntArr::new(&[0, 1]));
        let p = first_roll(&g.t, &sa, &da, &g.t).unwrap();
        assert!(p.ws >= 256, "staged through the workspace");
        assert_eq!(launch(roll_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
        for d in [DType::Int8, DType::Float32, DType::Int64] {
            let x = rand_tensor(d, &[257, 129, 3], 7);
            for (shifts, dims) in [
                (&[100i64][..], &[0i64][..]),
                (&[-7, 1], &[1, 2]),
                (&[12345], &[]),
                // Four boxes, interleaved along rows: run together.
                (&[100, -50], &[0, 1]),
            ] {
                let want = cpu_ref::roll(SOC, &x, shifts, dims).unwrap();
                let gx = upload(&x);
                let out = output(d, &[257, 129, 3]);
                roll(&gx.t, &IntArr::new(shifts), &IntArr::new(dims), &out.t, &s).unwrap();
                assert!(
                    out.buf.read() == want.contiguous_bytes(),
                    "{d} {shifts:?} {dims:?}"
                );
            }
        }
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[]);
        roll(&gz.t, &IntArr::new(&[4]), &IntArr::new(&[]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), 9i64.to_le_bytes());
        // The first phase's codes, in order.
        let buf = Buf::new(4096);
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        let null = IntArr(std::ptr::null_mut());
        let (one, zero_d) = (IntArr::new(&[1]), IntArr::new(&[0]));
        let e = first_roll(&x, &null, &zero_d, &o).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("shifts"),
            "{}",
            e.1
        );
        let e = first_roll(&f(aclDataType::ACL_INT16, &[2, 3]), &one, &zero_d, &o).unwrap_err();
        assert!(e.1.contains("not supported"), "{}", e.1);
        let e = first_roll(&x, &one, &zero_d, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = first_roll(&x, &one, &zero_d, &f(aclDataType::ACL_FLOAT, &[3, 2])).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let e = first_roll(&x, &IntArr::new(&[1, 2]), &zero_d, &o).unwrap_err();
        assert!(e.1.contains("must match"), "{}", e.1);
        let e = first_roll(&x, &IntArr::new(&[1, 2]), &IntArr::new(&[]), &o).unwrap_err();
        assert!(e.1.contains("one entry"), "{}", e.1);
        let e = first_roll(&x, &one, &IntArr::new(&[2]), &o).unwrap_err();
        assert!(e.1.contains("outside"), "{}", e.1);
        let sc = f(aclDataType::ACL_FLOAT, &[]);
        let e = first_roll(&sc, &one, &zero_d, &sc).unwrap_err();
        assert!(e.1.contains("0-D"), "{}", e.1);
        // Empty: dims not range-checked, no workspace.
        let ex = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first_roll(&ex, &one, &IntArr::new(&[9]), &ex).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(roll_op().run, &p, s.0), ACL_SUCCESS);
    });
}

#[test]
#[serial]
fn roll_products_and_fault() {
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let (a, b) = (IntArr::new(&[1]), IntArr::new(&[0]));
    assert_eq!(
        first_roll(&x, &a, &b, &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop(x);
    reinit("Ascend910A");
    let x = dense(aclDataType::ACL_BF16, &[2], &buf);
    assert_eq!(
        first_roll(&x, &a, &b, &x).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    drop((x, a, b, buf));
    reinit(SOC);
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64); // 16 floats
        let x = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            buf.ptr,
            1 << 16,
        );
        let out = Buf::new(1 << 18);
        let o = dense(aclDataType::ACL_FLOAT, &[256, 256], &out);
        let p = first_roll(&x, &IntArr::new(&[1]), &IntArr::new(&[0]), &o).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (roll_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck") && msg.contains('x'), "{msg}");
        assert_eq!(out.read(), vec![0u8; 1 << 18], "nothing was written");
    });
}

fn first_expand(x: &T, size: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = expand_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, size.0, o.0, w, e) })
}

#[test]
#[serial]
fn expand_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 300;
        for &d in cpu_ref::supported_dtypes(Op::Expand, Family::A2) {
            for size in [
                &[3i64, 4, 5][..],
                &[2, 3, 4, 5],
                &[3, 4, 1],
                &[7, 1, 3, 4, 5],
            ] {
                seed += 1;
                // self: [3, 4, 1] seen through a transpose of a [4, 3, 1] storage.
                let x = rand_tensor(d, &[4, 3, 1], seed)
                    .view(&[3, 4, 1], &[1, 3, 1], 0)
                    .unwrap();
                let want = cpu_ref::expand(SOC, &x, size);
                let gx = upload(&x);
                let a = IntArr::new(size);
                let Ok(want) = want else {
                    assert_eq!(
                        first_expand(&gx.t, &a, &gx.t).unwrap_err().0,
                        ACLNN_ERR_PARAM_INVALID
                    );
                    continue;
                };
                let out = output(d, want.shape());
                expand(&gx.t, &a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {size:?}");
            }
        }
    });
}

#[test]
#[serial]
fn expand_codes_zero_d_empty_and_fault() {
    leak_checked(|| {
        let s = Stream::new();
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[]);
        expand(&gz.t, &IntArr::new(&[]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), 9i64.to_le_bytes());
        let out = output(DType::Int64, &[3]);
        expand(&gz.t, &IntArr::new(&[3]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), [9i64.to_le_bytes(); 3].concat());
        let buf = Buf::new(4096);
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 1]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        let a = IntArr::new(&[2, 3]);
        let e = first_expand(&x, &IntArr(std::ptr::null_mut()), &o).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("size"),
            "{}",
            e.1
        );
        let e = first_expand(&x, &a, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let i16x = f(aclDataType::ACL_INT16, &[2, 1]);
        let e = first_expand(&i16x, &a, &i16x).unwrap_err();
        assert!(e.1.contains("not supported"), "{}", e.1);
        let e = first_expand(&x, &IntArr::new(&[3]), &o).unwrap_err();
        assert!(e.1.contains("entries"), "{}", e.1);
        let e = first_expand(&x, &IntArr::new(&[2, -1]), &o).unwrap_err();
        assert!(e.1.contains("negative"), "{}", e.1);
        let e = first_expand(&x, &IntArr::new(&[3, 3]), &o).unwrap_err();
        assert!(e.1.contains("does not match"), "{}", e.1);
        let e = first_expand(&x, &IntArr::new(&[2, 4]), &o).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let twice = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 3);
        let e = first_expand(&x, &a, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        // Broadcast to an empty output: no work.
        let eo = f(aclDataType::ACL_FLOAT, &[2, 0]);
        let p = first_expand(&x, &IntArr::new(&[2, 0]), &eo).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(expand_op().run, &p, s.0), ACL_SUCCESS);
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
        let ob = Buf::new(1 << 19);
        let o2 = dense(aclDataType::ACL_FLOAT, &[2, 256, 256], &ob);
        let p = first_expand(&big, &IntArr::new(&[2, 256, 256]), &o2).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (expand_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        assert_eq!(ob.read(), vec![0u8; 1 << 19], "nothing was written");
    });
}

fn first_repeat(x: &T, reps: &IntArr, o: &T) -> Result<Planned, (i32, String)> {
    let op = repeat_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, reps.0, o.0, w, e) })
}

#[test]
#[serial]
fn repeat_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 400;
        for &d in cpu_ref::supported_dtypes(Op::Repeat, Family::A2) {
            for reps in [
                &[2i64, 4][..],
                &[2, 4, 2],
                &[1, 1],
                &[3, 1, 2, 1, 2],
                &[2, 0],
            ] {
                seed += 1;
                let x = rand_tensor(d, &[2, 3], seed)
                    .view(&[3, 2], &[1, 3], 0)
                    .unwrap();
                let want = cpu_ref::repeat(SOC, &x, reps).unwrap();
                let gx = upload(&x);
                let a = IntArr::new(reps);
                let out = output(d, want.shape());
                repeat(&gx.t, &a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {reps:?}");
            }
        }
        // A tiled view of more than 8 dims: 8 repeats of a rank-8 self.
        let x = rand_tensor(DType::Int16, &[2; 8], 9);
        let want = cpu_ref::repeat(SOC, &x, &[2; 8]).unwrap();
        let gx = upload(&x);
        let out = output(DType::Int16, want.shape());
        repeat(&gx.t, &IntArr::new(&[2; 8]), &out.t, &s).unwrap();
        assert!(out.buf.read() == want.contiguous_bytes());
        // In place into a transposed out sharing self's buffer.
        let x = rand_tensor(DType::Int32, &[2, 2], 4);
        let want = cpu_ref::repeat(SOC, &x, &[2, 1]).unwrap();
        let b = Buf::from(&[x.storage_bytes(), &[0u8; 8 * 4]].concat());
        let gx = view(aclDataType::ACL_INT32, &[2, 2], &[2, 1], 0, b.ptr, 12);
        let o = view(aclDataType::ACL_INT32, &[4, 2], &[1, 4], 4, b.ptr, 12);
        let p = first_repeat(&gx, &IntArr::new(&[2, 1]), &o).unwrap();
        assert!(p.ws > 0);
        assert_eq!(launch(repeat_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        let got = Tensor::from_bytes(DType::Int32, &[12], b.read())
            .unwrap()
            .view(&[4, 2], &[1, 4], 4)
            .unwrap();
        assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn repeat_codes_zero_d_and_products() {
    leak_checked(|| {
        let s = Stream::new();
        let z = Tensor::scalar(9i64);
        let gz = upload(&z);
        let out = output(DType::Int64, &[3]);
        repeat(&gz.t, &IntArr::new(&[3]), &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), [9i64.to_le_bytes(); 3].concat());
        let buf = Buf::new(4096);
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[4, 3]),
        );
        let a = IntArr::new(&[2, 1]);
        let e = first_repeat(&x, &IntArr(std::ptr::null_mut()), &o).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains("repeats"),
            "{}",
            e.1
        );
        let e = first_repeat(&x, &a, &f(aclDataType::ACL_INT32, &[4, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = first_repeat(&x, &IntArr::new(&[2]), &o).unwrap_err();
        assert!(e.1.contains("entries"), "{}", e.1);
        let e = first_repeat(&x, &IntArr::new(&[2, -1]), &o).unwrap_err();
        assert!(e.1.contains("negative"), "{}", e.1);
        let e = first_repeat(&x, &IntArr::new(&[i64::MAX, 1]), &o).unwrap_err();
        assert!(e.1.contains("overflows"), "{}", e.1);
        let e = first_repeat(&x, &IntArr::new(&[1, 2]), &o).unwrap_err();
        assert!(e.1.contains("must be"), "{}", e.1);
        let eo = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first_repeat(&x, &IntArr::new(&[0, 1]), &eo).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(repeat_op().run, &p, s.0), ACL_SUCCESS);
    });
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    assert_eq!(
        first_repeat(&x, &IntArr::new(&[1]), &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, buf));
    reinit(SOC);
}
