//! `aclrtGetSocName` works with no `aclInit`, as CANN's does (CANN's sample
//! CMake setup calls it first, to find `SOC_VERSION`), and names the same
//! SoC before, during and after an initialisation: `NPU_SIM_SOC`, or the
//! default. Its own binary: nothing here may initialise first.

use cann_sys::*;
use std::ffi::CStr;

fn soc(api: &Api) -> Option<(usize, String)> {
    // SAFETY: plain C call; the result is NULL or a NUL-terminated string
    // CANN documents as valid for the process.
    let p = unsafe { (api.aclrtGetSocName)() };
    (!p.is_null()).then(|| {
        (
            p as usize,
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        )
    })
}

fn last_error(api: &Api) -> String {
    // SAFETY: plain C call; NULL or a NUL-terminated string.
    let p = unsafe { (api.aclGetRecentErrMsg)() };
    if p.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

// One test: the steps share the process-wide runtime and environment.
#[test]
fn soc_name_needs_no_init_and_stays_consistent() {
    let api = npu_sim::api();
    // SAFETY (every block below): environment changes in this single-test
    // binary; plain C calls with valid arguments.
    unsafe { std::env::remove_var("NPU_SIM_SOC") };

    // Before any aclInit: the default SoC, as the one aclInit would pick.
    let (first, name) = soc(&api).expect("a SoC name with no aclInit");
    assert_eq!(name, "Ascend910B3");
    assert_eq!(
        soc(&api).map(|s| s.0),
        Some(first),
        "the same string each time"
    );

    // NPU_SIM_SOC chooses it, still with no aclInit.
    unsafe { std::env::set_var("NPU_SIM_SOC", "Ascend310P3") };
    assert_eq!(soc(&api).map(|s| s.1).as_deref(), Some("Ascend310P3"));

    // An unknown SoC is no SoC (aclInit refuses it too), with the reason.
    unsafe { std::env::set_var("NPU_SIM_SOC", "Ascend999") };
    assert_eq!(soc(&api), None);
    assert!(
        last_error(&api).contains("Ascend999"),
        "{}",
        last_error(&api)
    );
    assert_eq!(
        unsafe { (api.aclInit)(std::ptr::null()) },
        ACL_ERROR_RT_SOC_VERSION
    );

    // Initialised: the runtime's SoC, whatever the environment says later.
    unsafe { std::env::set_var("NPU_SIM_SOC", "Ascend910_9391") };
    assert_eq!(
        unsafe { (api.aclInit)(std::ptr::null()) },
        ACL_SUCCESS,
        "{}",
        last_error(&api)
    );
    let (during, name) = soc(&api).unwrap();
    assert_eq!(name, "Ascend910_9391");
    unsafe { std::env::set_var("NPU_SIM_SOC", "Ascend310P3") };
    assert_eq!(soc(&api).map(|s| s.1).as_deref(), Some("Ascend910_9391"));

    // Finalised: back to what NPU_SIM_SOC (or the default) says, and the
    // strings handed out before stay readable.
    assert_eq!(unsafe { (api.aclFinalize)() }, ACL_SUCCESS);
    assert_eq!(soc(&api).map(|s| s.1).as_deref(), Some("Ascend310P3"));
    let kept = unsafe { CStr::from_ptr(during as *const std::ffi::c_char) };
    assert_eq!(kept.to_str().unwrap(), "Ascend910_9391");
    unsafe { std::env::remove_var("NPU_SIM_SOC") };
    assert_eq!(soc(&api).map(|s| s.1).as_deref(), Some("Ascend910B3"));
}
