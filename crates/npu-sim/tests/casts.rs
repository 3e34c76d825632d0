//! Cast through the C ABI: every dtype pair against cpu-ref bit for bit
//! (random bytes: NaN payloads, infinities, subnormals), views in and
//! out, out sharing self's memory, the first phase's order and codes,
//! empty tensors and products.

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

#[test]
#[serial]
fn every_dtype_pair_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let list = cpu_ref::supported_dtypes(Op::Cast, Family::A2).to_vec();
        let mut seed = 1;
        for &dx in &list {
            for &dy in &list {
                seed += 1;
                // self: a transposed [5, 4]; out: a transposed view too.
                let x = rand_tensor(dx, &[4, 5], seed)
                    .view(&[5, 4], &[1, 5], 0)
                    .unwrap();
                let want = cpu_ref::cast(SOC, &x, dy).unwrap();
                let gx = upload(&x);
                let out_buf = Buf::from(&vec![0u8; 20 * dy.size()]);
                let out = view(acl_dtype(dy), &[5, 4], &[1, 5], 0, out_buf.ptr, 20);
                cast(&gx.t, acl_dtype(dy), &out, &s).unwrap();
                let got = Tensor::from_bytes(dy, &[4, 5], out_buf.read())
                    .unwrap()
                    .view(&[5, 4], &[1, 5], 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{dx} -> {dy}"
                );
            }
        }
    });
}

/// Contiguous casts large enough to be cut into rows for both cores (a
/// 1 MiB cast ran on one thread until its rows were cut as 8-byte
/// elements): the pairs the bench times, and an odd length.
#[test]
#[serial]
fn large_contiguous_casts_split_across_cores_match_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        for (dx, dy, n) in [
            (DType::Int32, DType::Float32, 1usize << 18),
            (DType::Float32, DType::Float16, 1 << 19),
            (DType::Int32, DType::Int64, 1 << 17),
            (DType::Float64, DType::BFloat16, 3 * 37 * 1231),
        ] {
            let x = rand_tensor(dx, &[n], n as u64);
            let want = cpu_ref::cast(SOC, &x, dy).unwrap();
            let gx = upload(&x);
            let out = output(dy, &[n]);
            cast(&gx.t, acl_dtype(dy), &out.t, &s).unwrap();
            assert!(
                out.buf.read() == want.contiguous_bytes(),
                "{dx} -> {dy} ({n})"
            );
        }
    });
}

#[test]
#[serial]
fn out_sharing_self_and_broadcast_self() {
    leak_checked(|| {
        let s = Stream::new();
        // int32 -> float32 in the same buffer.
        let x = rand_tensor(DType::Int32, &[16], 3);
        let want = cpu_ref::cast(SOC, &x, DType::Float32).unwrap();
        let g = upload(&x);
        let o = dense(aclDataType::ACL_FLOAT, &[16], &g.buf);
        cast(&g.t, aclDataType::ACL_FLOAT, &o, &s).unwrap();
        assert_eq!(g.buf.read(), want.contiguous_bytes());
        // A stride-0 self.
        let row = rand_tensor(DType::Float16, &[3], 4);
        let b = row.view(&[2, 3], &[0, 1], 0).unwrap();
        let want = cpu_ref::cast(SOC, &b, DType::Int64).unwrap();
        let gb = upload(&b);
        let out = output(DType::Int64, &[2, 3]);
        cast(&gb.t, aclDataType::ACL_INT64, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

fn first(x: &T, d: aclDataType, o: &T) -> Result<Planned, (i32, String)> {
    let op = cast_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, d, o.0, w, e) })
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, o) = (
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_INT32, &[2, 3]),
        );
        let e = first(&null, aclDataType::ACL_INT32, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        let e = first(&x, aclDataType::ACL_INT32, &null).unwrap_err();
        assert!(e.1.contains("out"), "{}", e.1);
        // An unknown dtype argument, then out's dtype differing from it.
        let e = first(&x, aclDataType::ACL_STRING, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("param dtype"), "{}", e.1);
        let e = first(&x, aclDataType::ACL_INT64, &o).unwrap_err();
        assert!(e.1.contains("not dtype"), "{}", e.1);
        // Shapes, then out writing twice.
        let e = first(
            &x,
            aclDataType::ACL_INT32,
            &f(aclDataType::ACL_INT32, &[3, 2]),
        )
        .unwrap_err();
        assert!(e.1.contains("must be self's"), "{}", e.1);
        let twice = view(aclDataType::ACL_INT32, &[2, 3], &[0, 1], 0, buf.ptr, 3);
        assert_eq!(
            first(&x, aclDataType::ACL_INT32, &twice).unwrap_err().0,
            ACLNN_ERR_PARAM_INVALID
        );
        // Empty: no workspace, still run.
        let s = Stream::new();
        let (ex, eo) = (
            f(aclDataType::ACL_FLOAT, &[0, 3]),
            f(aclDataType::ACL_BOOL, &[0, 3]),
        );
        let p = first(&ex, aclDataType::ACL_BOOL, &eo).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(cast_op().run, &p, s.0), ACL_SUCCESS);
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend910A");
    let buf = Buf::new(64);
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let b = dense(aclDataType::ACL_BF16, &[2], &buf);
    assert_eq!(
        first(&x, aclDataType::ACL_BF16, &b).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    assert_eq!(
        first(&b, aclDataType::ACL_FLOAT, &x).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    let u = dense(aclDataType::ACL_UINT64, &[2], &buf);
    let s = Stream::new();
    cast(&x, aclDataType::ACL_UINT64, &u, &s).unwrap();
    drop((x, b, u, s));
    reinit("Ascend310B1");
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    assert_eq!(
        first(&x, aclDataType::ACL_FLOAT, &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop(x);
    drop(buf);
    reinit(SOC);
}
