//! Build script of `npu-ops`: reports the CANN installation found at build
//! time (cann-sys searches as the run-time loader does, and with the `link`
//! feature links it) to the crate, for [`npu_ops::build_info`]. Never
//! required: without CANN the crate builds, and loads CANN at run time.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let dir = std::env::var("DEP_CANN_SYS_LIB_DIR").unwrap_or_default();
    println!("cargo:rustc-env=NPU_OPS_BUILD_CANN_LIB_DIR={dir}");
}
