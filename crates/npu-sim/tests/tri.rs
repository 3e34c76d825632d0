//! Tril and Triu (and their in-place twins) through the C ABI: every dtype
//! against cpu-ref bit for bit, views in and out, in place on contiguous
//! and strided tensors, out sharing self's memory, the first phase's order
//! and codes, empty tensors and products.

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

fn reference(lower: bool, x: &Tensor, diagonal: i64) -> Tensor {
    if lower {
        cpu_ref::tril(SOC, x, diagonal).unwrap()
    } else {
        cpu_ref::triu(SOC, x, diagonal).unwrap()
    }
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 7;
        for lower in [true, false] {
            for &d in cpu_ref::supported_dtypes(Op::Tril, Family::A2) {
                for diagonal in [i64::MIN, -2, 0, 1, 3, i64::MAX] {
                    seed += 1;
                    // self: a transposed [2, 5, 4]; out: transposed too.
                    let x = rand_tensor(d, &[2, 4, 5], seed)
                        .view(&[2, 5, 4], &[20, 1, 5], 0)
                        .unwrap();
                    let want = reference(lower, &x, diagonal);
                    let gx = upload(&x);
                    let out_buf = Buf::from(&vec![0u8; 40 * d.size()]);
                    let out = view(acl_dtype(d), &[2, 5, 4], &[20, 1, 5], 0, out_buf.ptr, 40);
                    tri(lower, &gx.t, diagonal, &out, &s).unwrap();
                    let got = Tensor::from_bytes(d, &[2, 4, 5], out_buf.read())
                        .unwrap()
                        .view(&[2, 5, 4], &[20, 1, 5], 0)
                        .unwrap();
                    assert_eq!(
                        got.contiguous_bytes(),
                        want.contiguous_bytes(),
                        "{d} lower {lower} diagonal {diagonal}"
                    );
                }
            }
        }
    });
}

#[test]
#[serial]
fn in_place_contiguous_strided_and_shared() {
    leak_checked(|| {
        let s = Stream::new();
        for lower in [true, false] {
            // Contiguous: masked where it lies.
            let x = rand_tensor(DType::Float32, &[3, 4, 6], 11);
            let want = reference(lower, &x, -1);
            let g = upload(&x);
            tri_inplace(lower, &g.t, -1, &s).unwrap();
            assert_eq!(g.buf.read(), want.contiguous_bytes());
            // A transposed selfRef: through the workspace.
            let base = rand_tensor(DType::Int16, &[5, 3], 12);
            let v = base.view(&[3, 5], &[1, 3], 0).unwrap();
            let want = reference(lower, &v, 1);
            let buf = Buf::from(&base.contiguous_bytes());
            let t = view(aclDataType::ACL_INT16, &[3, 5], &[1, 3], 0, buf.ptr, 15);
            tri_inplace(lower, &t, 1, &s).unwrap();
            let got = Tensor::from_bytes(DType::Int16, &[5, 3], buf.read())
                .unwrap()
                .view(&[3, 5], &[1, 3], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
            // out is self's memory, seen transposed: staged, so exact.
            let x = rand_tensor(DType::Int32, &[4, 4], 13);
            let want = reference(lower, &x, 0);
            let g = upload(&x);
            let o = view(aclDataType::ACL_INT32, &[4, 4], &[1, 4], 0, g.buf.ptr, 16);
            tri(lower, &g.t, 0, &o, &s).unwrap();
            let got = Tensor::from_bytes(DType::Int32, &[4, 4], g.buf.read())
                .unwrap()
                .view(&[4, 4], &[1, 4], 0)
                .unwrap()
                .contiguous_bytes();
            // out[i][j] (through the transposed view) = tril(x)[i][j].
            assert_eq!(got, want.contiguous_bytes());
            // A stride-0 self into a dense out.
            let row = rand_tensor(DType::Float16, &[4], 14);
            let b = row.view(&[3, 4], &[0, 1], 0).unwrap();
            let want = reference(lower, &b, 0);
            let gb = upload(&b);
            let out = output(DType::Float16, &[3, 4]);
            tri(lower, &gb.t, 0, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes());
        }
    });
}

fn first(lower: bool, x: &T, diagonal: i64, o: &T) -> Result<Planned, (i32, String)> {
    let a = api();
    let get = if lower {
        a.tril().unwrap().get_workspace_size
    } else {
        a.triu().unwrap().get_workspace_size
    };
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { get(x.0, diagonal, o.0, w, e) })
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        for lower in [true, false] {
            let (x, o) = (
                f(aclDataType::ACL_FLOAT, &[2, 3]),
                f(aclDataType::ACL_FLOAT, &[2, 3]),
            );
            // workspaceSize and executor first, then the tensors.
            let get = if lower {
                api().tril().unwrap().get_workspace_size
            } else {
                api().triu().unwrap().get_workspace_size
            };
            let mut ex = std::ptr::null_mut();
            // SAFETY: a null workspaceSize is reported, never written.
            let rc = unsafe { get(null.0, 0, null.0, std::ptr::null_mut(), &mut ex) };
            assert_eq!(rc, ACLNN_ERR_PARAM_NULLPTR);
            assert!(last_error().contains("workspaceSize"), "{}", last_error());
            let e = first(lower, &null, 0, &o).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
            assert!(e.1.contains("self"), "{}", e.1);
            let e = first(lower, &x, 0, &null).unwrap_err();
            assert!(e.1.contains("out"), "{}", e.1);
            // self's dtype, out's dtype, then the rank, then out's shape.
            let c = f(aclDataType::ACL_COMPLEX64, &[2, 3]);
            let e = first(lower, &c, 0, &c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
            assert!(e.1.contains("self has data type"), "{}", e.1);
            let e = first(lower, &x, 0, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
            assert!(e.1.contains("differs"), "{}", e.1);
            let e = first(
                lower,
                &f(aclDataType::ACL_FLOAT, &[6]),
                0,
                &f(aclDataType::ACL_FLOAT, &[7]),
            )
            .unwrap_err();
            assert!(e.1.contains("rank 1"), "{}", e.1);
            let e = first(lower, &x, 0, &f(aclDataType::ACL_FLOAT, &[3, 2])).unwrap_err();
            assert!(e.1.contains("must be self's"), "{}", e.1);
            let twice = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 3);
            let e = first(lower, &x, 0, &twice).unwrap_err();
            assert!(e.1.contains("twice"), "{}", e.1);
            // Empty: no workspace, still run.
            let s = Stream::new();
            let ex = f(aclDataType::ACL_FLOAT, &[0, 3]);
            let p = first(lower, &ex, 5, &ex).unwrap();
            assert_eq!(p.ws, 0);
            let run = if lower {
                api().tril().unwrap().run
            } else {
                api().triu().unwrap().run
            };
            assert_eq!(launch(run, &p, s.0), ACL_SUCCESS);
        }
        // In place: a self-overlapping selfRef, a rank below 2.
        let s = Stream::new();
        let twice = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 3);
        let e = tri_inplace(true, &twice, 0, &s).unwrap_err();
        assert_eq!((e.0, e.1), ("plan", ACLNN_ERR_PARAM_INVALID));
        assert!(e.2.contains("selfRef"), "{}", e.2);
        let one = f(aclDataType::ACL_FLOAT, &[4]);
        let e = tri_inplace(false, &one, 0, &s).unwrap_err();
        assert!(e.2.contains("rank 1"), "{}", e.2);
        let e = tri_inplace(false, &null, 0, &s).unwrap_err();
        assert_eq!(e.1, ACLNN_ERR_PARAM_NULLPTR);
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend910A");
    let buf = Buf::new(64);
    let b = dense(aclDataType::ACL_BF16, &[2, 2], &buf);
    assert_eq!(
        first(true, &b, 0, &b).unwrap_err().0,
        ACLNN_ERR_PARAM_INVALID
    );
    let u = dense(aclDataType::ACL_UINT64, &[2, 2], &buf);
    let s = Stream::new();
    tri(false, &u, 0, &u, &s).unwrap();
    drop((b, u, s));
    reinit("Ascend310B1");
    let x = dense(aclDataType::ACL_FLOAT, &[2, 2], &buf);
    assert_eq!(
        first(true, &x, 0, &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop(x);
    drop(buf);
    reinit(SOC);
}

/// An empty in-place target that overlaps itself writes nothing and is
/// not refused (ops.md §15), as the safe layer does.
#[test]
#[serial]
fn an_empty_self_overlapping_target_is_not_refused() {
    leak_checked(|| {
        let buf = Buf::new(64);
        let x = view(aclDataType::ACL_FLOAT, &[0, 3], &[1, 0], 0, buf.ptr, 1);
        let op = api().inplace_tril().unwrap();
        let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
        // SAFETY: live handles, valid out-pointers.
        let code = unsafe { (op.get_workspace_size)(x.0, 0, &mut ws, &mut ex) };
        assert_eq!(code, 0, "{}", last_error());
        let s = Stream::new();
        // SAFETY: the executor just planned (no workspace).
        assert_eq!(unsafe { (op.run)(std::ptr::null_mut(), 0, ex, s.0) }, 0);
        assert_eq!(s.sync(), 0);
    });
}
