//! What a service can act on, end to end on the simulator: a device fault
//! from an out-of-range device index is `is_device_fault()` (on every read
//! of what it spoiled and at the stream's synchronisation), the host-checked
//! forms are not, and the runtime's memory limit is `is_oom()` and
//! `is_retryable()` (issue 18, item 3).

use npu_ops::{Backend, DType, ErrorKind, Runtime, Tensor};

fn rt() -> Runtime {
    Runtime::new(Backend::Simulator).unwrap()
}

#[test]
fn an_out_of_range_device_index_is_a_device_fault() {
    let rt = rt();
    let s = rt.stream().unwrap();
    let x = Tensor::from_slice(&s, &[3], &[5i32, 6, 7]).unwrap();
    let idx = Tensor::from_slice(&s, &[2], &[0i64, 9]).unwrap();
    // Not checked on the host: the device finds it.
    let y = s.index_select(&x, 0, &idx).unwrap();
    let read = y.to_vec::<i32>().unwrap_err();
    assert_eq!(read.kind(), ErrorKind::IndexOutOfRange, "{read}");
    assert!(read.is_device_fault(), "{read:?}");
    assert!(!read.is_oom() && !read.is_retryable(), "{read:?}");
    assert_eq!(
        read.code(),
        Some(npu_ops::cann_sys::ACL_ERROR_RT_AICORE_EXCEPTION)
    );
    assert_eq!(
        read.code().and_then(npu_ops::status_name),
        Some("ACL_ERROR_RT_AICORE_EXCEPTION")
    );
    // The tensor keeps reporting it; so does the synchronisation, once.
    assert!(y.wait().unwrap_err().is_device_fault());
    let sync = s.synchronize().unwrap_err();
    assert!(sync.is_device_fault(), "{sync:?}");
    s.synchronize().unwrap();
    // The host-checked forms are the caller's error on every backend.
    let host = s.index_select_host(&x, 0, &[0, 9]).unwrap_err();
    assert_eq!(host.kind(), "index_out_of_range");
    assert!(!host.is_device_fault() && !host.is_retryable());
    assert_eq!(host.code(), None);
    let checked = s.index_select_checked(&x, 0, &idx).unwrap_err();
    assert_eq!(checked.kind(), "index_out_of_range");
    assert!(!checked.is_device_fault());
    s.synchronize().unwrap();
}

#[test]
fn the_memory_limit_is_oom_and_retryable() {
    let rt = rt();
    let s = rt.stream().unwrap();
    rt.set_memory_limit(Some(1 << 20));
    let e = Tensor::zeros(&s, DType::F32, &[1 << 20]).unwrap_err();
    assert_eq!(e.kind(), "out_of_memory", "{e}");
    assert!(e.is_oom() && e.is_retryable(), "{e:?}");
    assert!(!e.is_device_fault(), "{e:?}");
    // Retried once memory is available, it succeeds.
    rt.set_memory_limit(None);
    let t = Tensor::zeros(&s, DType::F32, &[1 << 20]).unwrap();
    assert_eq!(t.shape(), [1 << 20]);
    s.synchronize().unwrap();
}

#[test]
fn a_caller_error_is_neither() {
    let s = rt().stream().unwrap();
    let x = Tensor::from_slice(&s, &[2], &[1f32, 2.]).unwrap();
    let e = s.slice(&x, 3, 0, 1, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(!e.is_device_fault() && !e.is_oom() && !e.is_retryable());
    assert_eq!(e.code(), None);
}
