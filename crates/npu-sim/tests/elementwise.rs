//! Add and Mul (and their in-place forms) through the C ABI: every dtype
//! pair against cpu-ref bit for bit, views everywhere, the first phase's
//! order and codes, empty tensors, and faults of the memory checker.

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

fn dtypes() -> Vec<DType> {
    cpu_ref::supported_dtypes(Op::Add, Family::A2).to_vec()
}

/// The alphas worth trying for a promoted dtype (each castable to it).
fn alphas(p: DType) -> Vec<Scalar> {
    let mut v = vec![Scalar::Int(1), Scalar::Int(3), Scalar::Bool(false)];
    if p.is_float() || p.is_complex() {
        v.extend([Scalar::Float(-0.3), Scalar::Float(f64::INFINITY)]);
    }
    if p.is_complex() {
        v.push(Scalar::Complex(0.5, -2.0));
    }
    if p == DType::Int8 || p == DType::UInt8 {
        v.push(Scalar::Int(-255));
    }
    v
}

#[test]
#[serial]
fn add_and_mul_every_dtype_pair_match_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 1;
        for dx in dtypes() {
            for dy in dtypes() {
                seed += 1;
                // [3, 1, 4] with [5, 1]: broadcast both ways.
                let x = rand_tensor(dx, &[3, 1, 4], seed);
                let y = rand_tensor(dy, &[5, 1], seed * 7);
                let p = cpu_ref::promote(dx, dy).unwrap();
                let (gx, gy) = (upload(&x), upload(&y));
                for alpha in alphas(p) {
                    let want = cpu_ref::add(SOC, &x, &y, alpha).unwrap();
                    let out = output(p, want.shape());
                    let a = common::Scalar::of(alpha);
                    add(&gx.t, &gy.t, &a, &out.t, &s).unwrap();
                    assert_eq!(
                        out.buf.read(),
                        want.contiguous_bytes(),
                        "add {dx} {dy} alpha {alpha}"
                    );
                }
                let want = cpu_ref::mul(SOC, &x, &y).unwrap();
                let out = output(p, want.shape());
                mul(&gx.t, &gy.t, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "mul {dx} {dy}");
            }
        }
    });
}

#[test]
#[serial]
fn out_dtypes_are_cast_as_cpu_ref_does() {
    leak_checked(|| {
        let s = Stream::new();
        for dx in [DType::Float32, DType::Int32, DType::Bool, DType::Float16] {
            let x = rand_tensor(dx, &[6], 3);
            let p = dx;
            for od in dtypes() {
                if !cpu_ref::can_cast(p, od) {
                    continue;
                }
                let want = cpu_ref::add_cast(SOC, &x, &x, Scalar::Int(2), od).unwrap();
                let gx = upload(&x);
                let out = output(od, &[6]);
                let a = common::Scalar::of(Scalar::Int(2));
                add(&gx.t, &gx.t, &a, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{dx} -> {od}");
                let want = cpu_ref::mul_cast(SOC, &x, &x, od).unwrap();
                mul(&gx.t, &gx.t, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "mul {dx} -> {od}");
            }
        }
    });
}

#[test]
#[serial]
fn views_in_and_out_and_in_place() {
    leak_checked(|| {
        let s = Stream::new();
        for d in [
            DType::Float16,
            DType::Int64,
            DType::Complex64,
            DType::BFloat16,
        ] {
            // self: a transposed [4, 5]; other: a stride-0 broadcast row.
            let x = rand_tensor(d, &[5, 4], 11)
                .view(&[4, 5], &[1, 4], 0)
                .unwrap();
            let row = rand_tensor(d, &[5], 12);
            let y = row.view(&[4, 5], &[0, 1], 0).unwrap();
            let want = cpu_ref::add(SOC, &x, &y, Scalar::Int(3)).unwrap();
            let (gx, gy) = (upload(&x), upload(&y));
            // out through a transposed view.
            let out_buf = Buf::from(&vec![0u8; 20 * d.size()]);
            let out = view(acl_dtype(d), &[4, 5], &[1, 4], 0, out_buf.ptr, 20);
            let a = common::Scalar::of(Scalar::Int(3));
            add(&gx.t, &gy.t, &a, &out, &s).unwrap();
            let got = Tensor::from_bytes(d, &[5, 4], out_buf.read())
                .unwrap()
                .view(&[4, 5], &[1, 4], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d}");

            // In place, with other overlapping selfRef (its first row).
            let base = rand_tensor(d, &[3, 5], 13);
            let want = cpu_ref::add_inplace(
                SOC,
                &base,
                &base.view(&[5], &[1], 0).unwrap(),
                Scalar::Int(1),
            )
            .unwrap();
            let gb = upload(&base);
            let first_row = view(acl_dtype(d), &[5], &[1], 0, gb.buf.ptr, 15);
            let op = api().inplace_add().unwrap();
            let one = common::Scalar::of(Scalar::Int(1));
            // SAFETY: live handles, valid out-pointers.
            exec(
                |w, e| unsafe { (op.get_workspace_size)(gb.t.0, first_row.0, one.0, w, e) },
                op.run,
                &s,
            )
            .unwrap();
            assert_eq!(gb.buf.read(), want.contiguous_bytes(), "in place {d}");

            let want = cpu_ref::mul_inplace(SOC, &base, &row).unwrap();
            let gb = upload(&base);
            let gr = upload(&row);
            let op = api().inplace_mul().unwrap();
            // SAFETY: live handles, valid out-pointers.
            exec(
                |w, e| unsafe { (op.get_workspace_size)(gb.t.0, gr.t.0, w, e) },
                op.run,
                &s,
            )
            .unwrap();
            assert_eq!(gb.buf.read(), want.contiguous_bytes(), "mul in place {d}");
        }
    });
}

/// Dense operands of one dtype run without staging; an `out` exactly on
/// `self` or apart from it gives the same bytes as one partly over it
/// (staged: every input read before any output is written).
#[test]
#[serial]
fn dense_operands_with_out_on_apart_from_or_across_self() {
    leak_checked(|| {
        let s = Stream::new();
        for d in [
            DType::Float32,
            DType::Float16,
            DType::BFloat16,
            DType::Int32,
        ] {
            let n = 37usize;
            // self is the first n elements of a buffer of n + 3.
            let store = rand_tensor(d, &[n + 3], 21);
            let x = store.view(&[n], &[1], 0).unwrap();
            let y = rand_tensor(d, &[n], 22);
            let gy = upload(&y);
            for (shift, alpha) in [
                (0i64, Scalar::Int(1)),
                (0, Scalar::Int(2)),
                (1, Scalar::Int(1)),
                (3, Scalar::Int(-1)),
            ] {
                let want = cpu_ref::add(SOC, &x, &y, alpha).unwrap();
                let buf = Buf::from(store.storage_bytes());
                let e = (n + 3) as i64;
                let xv = view(acl_dtype(d), &[n as i64], &[1], 0, buf.ptr, e);
                let ov = view(acl_dtype(d), &[n as i64], &[1], shift, buf.ptr, e);
                add(&xv, &gy.t, &common::Scalar::of(alpha), &ov, &s).unwrap();
                let got = Tensor::from_bytes(d, &[n + 3], buf.read()).unwrap();
                let got = got.view(&[n], &[1], shift as usize).unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} out at {shift}, alpha {alpha:?}"
                );
            }
            // out apart (its own buffer); mul too.
            let gx = upload(&x);
            let out_buf = Buf::from(&vec![0u8; n * d.size()]);
            let ov = view(acl_dtype(d), &[n as i64], &[1], 0, out_buf.ptr, n as i64);
            add(&gx.t, &gy.t, &common::Scalar::of(Scalar::Int(1)), &ov, &s).unwrap();
            let want = cpu_ref::add(SOC, &x, &y, Scalar::Int(1)).unwrap();
            assert_eq!(out_buf.read(), want.contiguous_bytes(), "{d} apart");
        }
    });
}

/// The error of a first phase expected to fail.
trait Fails {
    fn fails(self) -> (i32, String);
}

impl Fails for Result<Planned, (i32, String)> {
    fn fails(self) -> (i32, String) {
        match self {
            Ok(_) => panic!("the first phase succeeded"),
            Err(e) => e,
        }
    }
}

fn first_add(x: &T, y: &T, a: *const aclScalar, o: &T) -> Result<Planned, (i32, String)> {
    let op = add_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, y.0, a, o.0, w, e) })
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let f32t = |shape: &[i64]| dense(aclDataType::ACL_FLOAT, shape, &buf);
        let (x, y, o) = (f32t(&[2, 3]), f32t(&[3]), f32t(&[2, 3]));
        let one = common::Scalar::of(Scalar::Int(1));
        let null = T(std::ptr::null_mut());
        let op = add_op();
        // Nulls, in argument order, each 161001.
        for (a, b, al, c) in [
            (&null, &y, one.0, &o),
            (&x, &null, one.0, &o),
            (&x, &y, std::ptr::null_mut(), &o),
            (&x, &y, one.0, &null),
        ] {
            assert_eq!(first_add(a, b, al, c).fails().0, ACLNN_ERR_PARAM_NULLPTR);
        }
        let mut ex = std::ptr::null_mut();
        // SAFETY: a null workspaceSize pointer is the case under test.
        let rc =
            unsafe { (op.get_workspace_size)(x.0, y.0, one.0, o.0, std::ptr::null_mut(), &mut ex) };
        assert_eq!(rc, ACLNN_ERR_PARAM_NULLPTR);
        // Dtypes: an unsupported other beats a bad alpha and a bad shape.
        let u16t = dense(aclDataType::ACL_UINT16, &[4], &buf);
        let e = first_add(&x, &u16t, one.0, &o).fails();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("other"), "{}", e.1);
        // alpha: a float alpha with int32 tensors, before shapes.
        let i32t = dense(aclDataType::ACL_INT32, &[2, 3], &buf);
        let bad_shape = dense(aclDataType::ACL_INT32, &[4], &buf);
        let half = common::Scalar::of(Scalar::Float(0.5));
        let e = first_add(&i32t, &bad_shape, half.0, &i32t).fails();
        assert!(e.1.contains("alpha"), "{}", e.1);
        // out's dtype: float into int32 is not a cast.
        let e = first_add(&x, &y, one.0, &i32t).fails();
        assert!(e.1.contains("cannot be cast"), "{}", e.1);
        // Broadcast, then out's shape.
        let e = first_add(&x, &f32t(&[4]), one.0, &o).fails();
        assert!(e.1.contains("broadcast"), "{}", e.1);
        let e = first_add(&x, &y, one.0, &f32t(&[3, 2])).fails();
        assert!(e.1.contains("broadcast shape"), "{}", e.1);
        // out overlapping itself.
        let bad_out = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 6);
        assert_eq!(
            first_add(&x, &y, one.0, &bad_out).fails().0,
            ACLNN_ERR_PARAM_INVALID
        );
        // Mul: out's dtype is checked with the inputs', before promotion.
        let mop = mul_op();
        let u16o = dense(aclDataType::ACL_UINT16, &[2, 3], &buf);
        // SAFETY: live handles, valid out-pointers.
        let e = plan(|w, e| unsafe { (mop.get_workspace_size)(x.0, y.0, u16o.0, w, e) }).fails();
        assert!(e.1.contains("out has data type"), "{}", e.1);
    });
}

#[test]
#[serial]
fn inplace_add_checks_the_broadcast_before_alpha() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let x = dense(aclDataType::ACL_FLOAT, &[3], &buf);
        let y = dense(aclDataType::ACL_FLOAT, &[2, 3], &buf);
        let op = api().inplace_add().unwrap();
        // SAFETY: live handles or null, valid out-pointers.
        let e = plan(|w, e| unsafe { (op.get_workspace_size)(x.0, y.0, std::ptr::null(), w, e) })
            .fails();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID, "{}", e.1);
        // With a good shape, the null alpha is reported.
        // SAFETY: as above.
        let e = plan(|w, e| unsafe { (op.get_workspace_size)(x.0, x.0, std::ptr::null(), w, e) })
            .fails();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{}", e.1);
    });
}

#[test]
#[serial]
fn empty_tensors_plan_no_workspace_and_still_run() {
    leak_checked(|| {
        let s = Stream::new();
        let buf = Buf::new(64);
        let x = dense(aclDataType::ACL_FLOAT, &[0, 3], &buf);
        let y = dense(aclDataType::ACL_FLOAT, &[1], &buf);
        let one = common::Scalar::of(Scalar::Int(1));
        let p = first_add(&x, &y, one.0, &x).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(add_op().run, &p, s.0), ACL_SUCCESS);
        let e = first_add(&x, &dense(aclDataType::ACL_FLOAT, &[2], &buf), one.0, &x).fails();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID, "0 with 2 does not broadcast");
    });
}

#[test]
#[serial]
fn products_without_the_kernel() {
    reinit("Ascend310P3");
    let buf = Buf::new(64);
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let one = common::Scalar::of(Scalar::Int(1));
    assert_eq!(
        first_add(&x, &x, one.0, &x).fails().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    let s = Stream::new();
    mul(&x, &x, &x, &s).unwrap();
    // bf16 is not on the inference series.
    let b = dense(aclDataType::ACL_BF16, &[2], &buf);
    let mop = mul_op();
    // SAFETY: live handles, valid out-pointers.
    let e = plan(|w, e| unsafe { (mop.get_workspace_size)(b.0, b.0, b.0, w, e) }).fails();
    assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
    drop((x, b, s));
    reinit("Ascend310B1");
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let mop = mul_op();
    // SAFETY: as above.
    let e = plan(|w, e| unsafe { (mop.get_workspace_size)(x.0, x.0, x.0, w, e) }).fails();
    assert_eq!(e.0, ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    drop(x);
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
            &[1 << 16],
            &[1],
            0,
            buf.ptr,
            1 << 16,
        );
        let out = Buf::new(1 << 18);
        let o = dense(aclDataType::ACL_FLOAT, &[1 << 16], &out);
        let one = common::Scalar::of(Scalar::Int(1));
        // Both phases by hand (common::launch synchronises, and so takes
        // the fault, before it frees the workspace).
        let p = first_add(&x, &x, one.0, &o).unwrap();
        let ws = Buf::new(p.ws as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (add_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        let msg = last_error();
        assert!(msg.contains("memcheck") && msg.contains("self"), "{msg}");
        assert_eq!(out.read(), vec![0u8; 1 << 18], "nothing was written");
        // The stream works again after the fault was reported.
        let y = dense(aclDataType::ACL_FLOAT, &[16], &buf);
        let o2 = dense(aclDataType::ACL_FLOAT, &[16], &out);
        add(&y, &y, &one, &o2, &s).unwrap();
    });
}

#[test]
#[serial]
fn repeatable_executor_takes_new_addresses() {
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Float32, &[8], 5);
        let y = rand_tensor(DType::Float32, &[8], 6);
        let (gx, gy) = (upload(&x), upload(&y));
        let out = output(DType::Float32, &[8]);
        let one = common::Scalar::of(Scalar::Float(2.0));
        let p = first_add(&gx.t, &gy.t, one.0, &out.t).unwrap();
        // SAFETY: a fresh executor.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        assert_eq!(launch(add_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        let want = cpu_ref::add(SOC, &x, &y, Scalar::Float(2.0)).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // Swap self and other.
        // SAFETY: live executor and tensors; addresses of live buffers.
        unsafe {
            let set = api().aclSetInputTensorAddr.unwrap();
            assert_eq!(set(p.ex, 0, gx.t.0, gy.buf.ptr), 0);
            assert_eq!(set(p.ex, 1, gy.t.0, gx.buf.ptr), 0);
        }
        assert_eq!(launch(add_op().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        let want = cpu_ref::add(SOC, &y, &x, Scalar::Float(2.0)).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}
