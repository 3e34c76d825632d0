//! InplaceFillScalar and InplaceZero through the C ABI: every dtype and
//! value kind against cpu-ref bit for bit, views with gaps (which keep
//! their bytes), the first phase's order and codes, empty tensors,
//! products, executors and faults of the memory checker.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Scalar, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

fn values() -> Vec<Scalar> {
    vec![
        Scalar::Bool(true),
        Scalar::Int(-3),
        Scalar::Int(300),
        Scalar::UInt(7),
        Scalar::Float(0.1),
        Scalar::Float(-1e300),
        Scalar::Float(f64::from_bits(0xfff0_0000_0000_0001)),
        Scalar::Complex(1.5, -0.25),
    ]
}

/// The storage of `x` after writing `want` (contiguous) through its view.
fn written(x: &Tensor, want: &Tensor) -> Vec<u8> {
    let mut bytes = x.storage_bytes().to_vec();
    let es = x.dtype().size();
    let shape = x.shape();
    let n = x.numel();
    for k in 0..n {
        let mut rem = k;
        let mut off = x.offset();
        for d in (0..shape.len()).rev() {
            off += (rem % shape[d]) * x.strides()[d];
            rem /= shape[d];
        }
        bytes[off * es..(off + 1) * es].copy_from_slice(want.flat_element_bytes(k));
    }
    bytes
}

#[test]
#[serial]
fn every_dtype_and_value_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 1;
        for d in cpu_ref::supported_dtypes(Op::Zero, Family::A2) {
            seed += 1;
            // A [3, 4] transposed view of a [4, 5] storage: gaps in column 4.
            let base = rand_tensor(*d, &[4, 5], seed);
            let x = base.view(&[3, 4], &[1, 5], 1).unwrap();
            for v in values() {
                let want = cpu_ref::fill_scalar(SOC, &x, v);
                let g = upload(&x);
                let a = common::Scalar::of(v);
                match (want, fill_scalar(&g.t, &a, &s)) {
                    (Ok(w), Ok(())) => assert_eq!(g.buf.read(), written(&x, &w), "{d} {v}"),
                    (Err(e), Err((stage, code, _))) => {
                        assert_eq!(
                            (stage, code),
                            ("plan", ACLNN_ERR_PARAM_INVALID),
                            "{d} {v}: {e}"
                        )
                    }
                    (w, g) => panic!("{d} {v}: cpu-ref {w:?}, simulator {g:?}"),
                }
            }
            let want = cpu_ref::zero(SOC, &x).unwrap();
            let g = upload(&x);
            zero(&g.t, &s).unwrap();
            assert_eq!(g.buf.read(), written(&x, &want), "zero {d}");
            // Contiguous, and 0-D.
            for x in [rand_tensor(*d, &[2, 3], seed), rand_tensor(*d, &[], seed)] {
                let g = upload(&x);
                zero(&g.t, &s).unwrap();
                assert_eq!(g.buf.read(), vec![0; x.numel() * d.size()], "zero {d}");
            }
        }
    });
}

fn first_fill(x: &T, v: *const aclScalar) -> Result<Planned, (i32, String)> {
    let op = fill_scalar_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, v, w, e) })
}

fn first_zero(x: &T) -> Result<Planned, (i32, String)> {
    let op = zero_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, w, e) })
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let one = common::Scalar::of(Scalar::Int(1));
        let half = common::Scalar::of(Scalar::Float(0.5));
        let x = dense(aclDataType::ACL_INT32, &[2, 3], &buf);
        // Nulls first, in argument order.
        let e = first_fill(&null, std::ptr::null()).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        assert!(e.1.contains("selfRef"), "{}", e.1);
        let e = first_fill(&x, std::ptr::null()).unwrap_err();
        assert!(e.1.contains("value"), "{}", e.1);
        assert_eq!(first_zero(&null).unwrap_err().0, ACLNN_ERR_PARAM_NULLPTR);
        let mut ex = std::ptr::null_mut();
        // SAFETY: a null workspaceSize pointer is the case under test.
        let rc = unsafe { (zero_op().get_workspace_size)(x.0, std::ptr::null_mut(), &mut ex) };
        assert_eq!(rc, ACLNN_ERR_PARAM_NULLPTR);
        // The dtype (UINT16: Zero's, not FillScalar's) before the value.
        let u16t = dense(aclDataType::ACL_UINT16, &[4], &buf);
        let e = first_fill(&u16t, half.0).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("selfRef has data type"), "{}", e.1);
        let p = first_zero(&u16t).unwrap();
        // SAFETY: a fresh one-shot executor, never run.
        unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) };
        // A float value into int32, before the structure.
        let rank9 = dense(aclDataType::ACL_INT32, &[1; 9], &buf);
        let e = first_fill(&rank9, half.0).unwrap_err();
        assert!(e.1.contains("value of data type"), "{}", e.1);
        let e = first_fill(&rank9, one.0).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert_eq!(first_zero(&rank9).unwrap_err().0, ACLNN_ERR_PARAM_INVALID);
        // selfRef writing one element twice.
        let bcast = view(aclDataType::ACL_INT32, &[2, 3], &[0, 1], 0, buf.ptr, 3);
        let e = first_zero(&bcast).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        assert_eq!(
            first_fill(&bcast, one.0).unwrap_err().0,
            ACLNN_ERR_PARAM_INVALID
        );
    });
}

#[test]
#[serial]
fn empty_tensors_and_executors() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64);
        let e = dense(aclDataType::ACL_FLOAT, &[0, 3], &buf);
        let one = common::Scalar::of(Scalar::Int(1));
        let p = first_fill(&e, one.0).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(fill_scalar_op().run, &p, s.0), ACL_SUCCESS);
        let p = first_zero(&e).unwrap();
        assert_eq!(launch(zero_op().run, &p, s.0), ACL_SUCCESS);
        // FillScalar holds its converted value: not repeatable; Zero is.
        let x = dense(aclDataType::ACL_FLOAT, &[4], &buf);
        let p = first_fill(&x, one.0).unwrap();
        let rep = api().aclSetAclOpExecutorRepeatable.unwrap();
        // SAFETY: a fresh executor.
        assert_ne!(unsafe { rep(p.ex) }, 0);
        assert_eq!(launch(fill_scalar_op().run, &p, s.0), ACL_SUCCESS);
        let p = first_zero(&x).unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(unsafe { rep(p.ex) }, 0);
        buf.write(&[0xff; 64]);
        assert_eq!(launch(zero_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), 0);
        assert_eq!(&buf.read()[..16], &[0; 16]);
        let other = Buf::from(&[0xffu8; 16]);
        // SAFETY: live executor and tensor; a live buffer's address.
        assert_eq!(
            unsafe { (api().aclSetOutputTensorAddr.unwrap())(p.ex, 0, x.0, other.ptr) },
            0
        );
        assert_eq!(launch(zero_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), 0);
        assert_eq!(other.read(), [0; 16]);
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}

#[test]
#[serial]
fn products_without_the_kernel_or_dtype() {
    reinit("Ascend310P3");
    let buf = Buf::new(64);
    let s = Stream::new();
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    zero(&x, &s).unwrap();
    let b = dense(aclDataType::ACL_BF16, &[2], &buf);
    assert_eq!(first_zero(&b).unwrap_err().0, ACLNN_ERR_PARAM_INVALID);
    drop((x, b, s));
    reinit("Ascend310B1");
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let one = common::Scalar::of(Scalar::Int(1));
    assert_eq!(
        first_fill(&x, one.0).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    assert_eq!(
        first_zero(&x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, one));
    drop(buf);
    reinit(SOC);
}

#[test]
#[serial]
fn a_view_past_its_allocation_faults_at_sync() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64); // 16 floats
        let x = view(
            aclDataType::ACL_FLOAT,
            &[1 << 10],
            &[1],
            0,
            buf.ptr,
            1 << 10,
        );
        let p = first_zero(&x).unwrap();
        assert_eq!(p.ws, 0);
        // SAFETY: a fresh executor, no workspace.
        assert_eq!(
            unsafe { (zero_op().run)(std::ptr::null_mut(), 0, p.ex, s.0) },
            0
        );
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck"), "{msg}");
        let y = dense(aclDataType::ACL_FLOAT, &[16], &buf);
        zero(&y, &s).unwrap();
    });
}
