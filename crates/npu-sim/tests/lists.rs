//! Tensor and scalar lists through the C ABI (CANN's aclCreateTensorList /
//! aclDestroyTensorList / aclGetTensorListSize references, and the scalar
//! twins): a list owns its members, and what would be a double free or a
//! dangling member on the device is a status here, never a crash.

use cann_sys::{
    aclDataType, aclFormat, aclScalar, aclScalarList, aclTensor, aclTensorList, aclnnStatus,
    ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS,
};
use npu_sim::*;
use serial_test::serial;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

mod misuse_support;
use misuse_support::{finalize, init, last_error, no_internal_errors};

fn tensor() -> *mut aclTensor {
    let shape = [2i64, 3];
    // SAFETY: the dims are valid for their counts; the data is never read.
    let t = unsafe {
        aclCreateTensor(
            shape.as_ptr(),
            2,
            aclDataType::ACL_FLOAT,
            null(),
            0,
            aclFormat::ACL_FORMAT_ND,
            shape.as_ptr(),
            2,
            0x1000 as *mut c_void,
        )
    };
    assert!(!t.is_null(), "{}", last_error());
    t
}

fn scalar(v: f32) -> *mut aclScalar {
    let mut v = v;
    // SAFETY: `v` is an f32, as the dtype says.
    let s = unsafe { aclCreateScalar((&mut v as *mut f32).cast(), aclDataType::ACL_FLOAT) };
    assert!(!s.is_null(), "{}", last_error());
    s
}

fn list_size(l: *const aclTensorList) -> (aclnnStatus, u64) {
    let mut n = u64::MAX;
    // SAFETY: `n` is writable; the list is looked up, never dereferenced.
    (unsafe { aclGetTensorListSize(l, &mut n) }, n)
}

#[test]
#[serial]
fn a_tensor_list_owns_its_tensors() {
    init();
    let ts = [tensor(), tensor(), tensor()];
    // SAFETY (whole block): arrays valid for their counts; handles looked up.
    unsafe {
        let l = aclCreateTensorList(ts.as_ptr().cast(), 3);
        assert!(!l.is_null(), "{}", last_error());
        assert_eq!(list_size(l), (ACLNN_SUCCESS, 3));
        assert_eq!(aclDestroyTensorList(l), ACLNN_SUCCESS);
        // The members went with the list: destroying one again is caught
        // (a double free on the device).
        for t in ts {
            assert_eq!(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
        }
        // And the list itself is gone.
        assert_eq!(list_size(l).0, ACLNN_ERR_PARAM_INVALID);
        assert_eq!(aclDestroyTensorList(l), ACLNN_ERR_PARAM_INVALID);
        assert!(last_error().contains("not a live list"), "{}", last_error());
        assert_eq!(aclDestroyTensorList(null()), ACLNN_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn bad_tensor_lists_are_refused_with_a_reason() {
    init();
    let t = tensor();
    // SAFETY (whole block): arrays valid for their counts (or NULL with
    // the count the test names); handles looked up, never dereferenced.
    unsafe {
        // size 0: CANN documents a positive size.
        assert!(aclCreateTensorList([t].as_ptr().cast(), 0).is_null());
        assert!(last_error().contains("size"), "{}", last_error());
        // NULL value with a size.
        assert!(aclCreateTensorList(null(), 2).is_null());
        assert!(last_error().contains("null value"), "{}", last_error());
        // A NULL member, a foreign value, a destroyed tensor.
        let gone = tensor();
        assert_eq!(aclDestroyTensor(gone), ACLNN_SUCCESS);
        let mut local = 0u64;
        for (bad, i) in [
            (null_mut::<aclTensor>(), 1),
            ((&mut local as *mut u64).cast::<aclTensor>(), 1),
            (gone, 1),
        ] {
            let members = [t, bad];
            assert!(aclCreateTensorList(members.as_ptr().cast(), 2).is_null());
            assert!(
                last_error().contains(&format!("value[{i}]")),
                "{}",
                last_error()
            );
        }
        // A scalar handle is not a tensor.
        let s = scalar(1.0);
        assert!(aclCreateTensorList([s as *const aclTensor].as_ptr(), 1).is_null());
        // Size queries: NULL list, NULL out-pointer, a tensor's handle.
        let mut n = 0u64;
        assert_eq!(
            aclGetTensorListSize(null(), &mut n),
            ACLNN_ERR_PARAM_NULLPTR
        );
        let l = aclCreateTensorList([t].as_ptr().cast(), 1);
        assert!(!l.is_null(), "{}", last_error());
        assert_eq!(aclGetTensorListSize(l, null_mut()), ACLNN_ERR_PARAM_NULLPTR);
        assert_eq!(
            aclGetTensorListSize(t as *const aclTensorList, &mut n),
            ACLNN_ERR_PARAM_INVALID
        );
        assert_eq!(aclDestroyTensorList(l), ACLNN_SUCCESS);
        assert_eq!(aclDestroyScalar(s), ACLNN_SUCCESS);
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn a_member_freed_twice_is_reported_and_nothing_leaks() {
    init();
    // SAFETY (whole block): arrays valid for their counts; handles looked up.
    unsafe {
        // Destroyed on its own while in a list: the list's destroy reports it.
        let (a, b) = (tensor(), tensor());
        let l = aclCreateTensorList([a, b].as_ptr().cast(), 2);
        assert_eq!(aclDestroyTensor(b), ACLNN_SUCCESS);
        assert_eq!(aclDestroyTensorList(l), ACLNN_ERR_PARAM_INVALID);
        assert!(last_error().contains("member 1"), "{}", last_error());
        assert!(last_error().contains("double free"), "{}", last_error());
        // ... and still destroyed the rest and the list.
        assert_eq!(aclDestroyTensor(a), ACLNN_ERR_PARAM_INVALID);
        assert_eq!(list_size(l).0, ACLNN_ERR_PARAM_INVALID);

        // One tensor in two lists: the second destroy reports it.
        let c = tensor();
        let l1 = aclCreateTensorList([c].as_ptr().cast(), 1);
        let l2 = aclCreateTensorList([c].as_ptr().cast(), 1);
        assert_eq!(aclDestroyTensorList(l1), ACLNN_SUCCESS);
        assert_eq!(aclDestroyTensorList(l2), ACLNN_ERR_PARAM_INVALID);
        assert!(last_error().contains("member 0"), "{}", last_error());

        // One tensor twice in a list (Cat of x with itself built wrongly).
        let d = tensor();
        let l3 = aclCreateTensorList([d, d].as_ptr().cast(), 2);
        assert!(!l3.is_null());
        assert_eq!(list_size(l3), (ACLNN_SUCCESS, 2));
        assert_eq!(aclDestroyTensorList(l3), ACLNN_ERR_PARAM_INVALID);
        assert!(last_error().contains("member 1"), "{}", last_error());
    }
    no_internal_errors();
    finalize();
}

#[test]
#[serial]
fn a_scalar_list_owns_its_scalars() {
    init();
    let ss = [scalar(1.0), scalar(2.5)];
    // SAFETY (whole block): arrays valid for their counts; handles looked up.
    unsafe {
        let l = aclCreateScalarList(ss.as_ptr().cast(), 2);
        assert!(!l.is_null(), "{}", last_error());
        let mut n = 0u64;
        assert_eq!(aclGetScalarListSize(l, &mut n), ACLNN_SUCCESS);
        assert_eq!(n, 2);
        assert_eq!(aclDestroyScalarList(l), ACLNN_SUCCESS);
        for s in ss {
            assert_eq!(aclDestroyScalar(s), ACLNN_ERR_PARAM_INVALID);
        }
        assert_eq!(aclGetScalarListSize(l, &mut n), ACLNN_ERR_PARAM_INVALID);
        assert!(aclCreateScalarList(null(), 1).is_null());
        assert!(aclCreateScalarList(ss.as_ptr().cast(), 0).is_null());
        // A tensor list's handle is not a scalar list.
        let t = tensor();
        let tl = aclCreateTensorList([t].as_ptr().cast(), 1);
        assert_eq!(
            aclDestroyScalarList(tl as *const aclScalarList),
            ACLNN_ERR_PARAM_INVALID
        );
        assert_eq!(aclDestroyTensorList(tl), ACLNN_SUCCESS);
        assert_eq!(aclDestroyScalarList(null()), ACLNN_SUCCESS);
    }
    no_internal_errors();
    finalize();
}
