//! The simulator as a shared library, under CANN's library names in a
//! folder laid out like CANN's `lib64/`: loaded by `cann_sys::Api::load`
//! (the path real CANN takes) and linked by a C program written like the
//! aclnn documentation's Slice sample.

use cann_sys::*;
use serial_test::serial;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulator's shared library (`crates/npu-sim-c`), built here (into its own target folder, so as not
/// to wait on the outer build's lock); later runs find it up to date.
fn cdylib() -> PathBuf {
    static LIB: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let target = exe.ancestors().nth(3).unwrap().join("npu-sim-cdylib");
        let out = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "npu-ops-sim-c",
                "--lib",
                "--message-format=json",
                "--target-dir",
            ])
            .arg(&target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo");
        assert!(
            out.status.success(),
            "building the cdylib: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let path = text
            .split('"')
            .find(|s| s.ends_with("/libnpu_sim_c.so"))
            .expect("cargo reports the cdylib");
        PathBuf::from(path)
    })
    .clone()
}

/// A CANN-like root: `lib64/` holding the simulator under the real names,
/// `include/` holding the project's header and the simulator's.
fn fake_root(dir: &Path) -> PathBuf {
    let lib64 = dir.join("lib64");
    std::fs::create_dir_all(&lib64).unwrap();
    for name in [
        "libascendcl.so",
        "libnnopbase.so",
        "libopapi_math.so",
        "libopapi_nn.so",
    ] {
        std::os::unix::fs::symlink(cdylib(), lib64.join(name)).unwrap();
    }
    let inc = dir.join("include");
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::copy(
        Path::new(cann_sys::HEADER_DIR).join("cann_sys.h"),
        inc.join("cann_sys.h"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("include/npu_sim.h"),
        inc.join("npu_sim.h"),
    )
    .unwrap();
    dir.to_path_buf()
}

#[test]
#[serial]
fn api_load_finds_the_simulator_through_ascend_home_path() {
    let t = tempfile::TempDir::new().unwrap();
    let root = fake_root(t.path());
    // SAFETY: serial test.
    unsafe { std::env::set_var("ASCEND_HOME_PATH", &root) };
    let api = Api::load(&LoadConfig::new().with_default_roots(vec![]));
    // SAFETY: as above.
    unsafe { std::env::remove_var("ASCEND_HOME_PATH") };
    let api = api.unwrap();
    assert_eq!(
        api.origin().library_dir(),
        Some(root.join("lib64").as_path())
    );
    assert_eq!(api.available_operators().len(), 47);
    // One library exports everything, so the first operator library opened
    // (math) answers for every operator.
    assert_eq!(
        api.origin().operator_library("IndexSelect"),
        Some(root.join("lib64/libopapi_math.so").as_path())
    );
    assert!(api.has_executor_reuse());
    // SAFETY: C calls through the loaded library with valid arguments.
    unsafe {
        assert_eq!((api.aclInit)(std::ptr::null()), 0);
        assert_eq!((api.aclrtSetDevice)(0), 0);
        let soc = std::ffi::CStr::from_ptr((api.aclrtGetSocName)());
        assert_eq!(soc.to_str().unwrap(), "Ascend910B3");
        let host: Vec<u8> = (0..12).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let (mut x, mut o) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(
            (api.aclrtMalloc)(&mut x, 48, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST),
            0
        );
        assert_eq!(
            (api.aclrtMalloc)(&mut o, 24, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST),
            0
        );
        assert_eq!(
            (api.aclrtMemcpy)(
                x,
                48,
                host.as_ptr().cast(),
                48,
                aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE
            ),
            0
        );
        let (xs, os, st) = ([4i64, 3], [2i64, 3], [3i64, 1]);
        let tx = (api.aclCreateTensor)(
            xs.as_ptr(),
            2,
            aclDataType::ACL_FLOAT,
            st.as_ptr(),
            0,
            aclFormat::ACL_FORMAT_ND,
            xs.as_ptr(),
            2,
            x,
        );
        let to = (api.aclCreateTensor)(
            os.as_ptr(),
            2,
            aclDataType::ACL_FLOAT,
            st.as_ptr(),
            0,
            aclFormat::ACL_FORMAT_ND,
            os.as_ptr(),
            2,
            o,
        );
        let slice = api.slice().unwrap();
        let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
        assert_eq!(
            (slice.get_workspace_size)(tx, 0, 2, 4, 1, to, &mut ws, &mut ex),
            0
        );
        assert_eq!(
            (slice.run)(std::ptr::null_mut(), 0, ex, std::ptr::null_mut()),
            0
        );
        assert_eq!((api.aclrtSynchronizeStream)(std::ptr::null_mut()), 0);
        let mut back = vec![0u8; 24];
        assert_eq!(
            (api.aclrtMemcpy)(
                back.as_mut_ptr().cast(),
                24,
                o,
                24,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST
            ),
            0
        );
        assert_eq!(back, host[24..].to_vec());
        assert_eq!((api.aclDestroyTensor)(tx), 0);
        assert_eq!((api.aclDestroyTensor)(to), 0);
        assert_eq!((api.aclrtFree)(x), 0);
        assert_eq!((api.aclrtFree)(o), 0);
        assert_eq!((api.aclFinalize)(), 0);
    }
    // This process's linked-in simulator is a different instance: untouched.
    assert!(npu_sim::stats().is_clean());
}

const SAMPLE: &str = r#"
/* Slice, as the aclnn documentation's sample runs it. */
#include <stdio.h>
#include <string.h>
#include "cann_sys.h"
#include "npu_sim.h"

#define CHECK(expr)                                                              \
    do {                                                                         \
        int rc_ = (int)(expr);                                                   \
        if (rc_ != 0) {                                                          \
            const char *m_ = aclGetRecentErrMsg();                               \
            printf("%s failed: %d: %s\n", #expr, rc_, m_ ? m_ : "");            \
            return 1;                                                            \
        }                                                                        \
    } while (0)

static aclTensor *create_tensor(const int64_t *shape, uint64_t rank, void *dev) {
    int64_t strides[8];
    strides[rank - 1] = 1;
    for (int64_t i = (int64_t)rank - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    return aclCreateTensor(shape, rank, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, rank, dev);
}

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));

    int64_t self_shape[] = {4, 3}, out_shape[] = {2, 3};
    float self_host[12], out_host[6];
    for (int i = 0; i < 12; i++) self_host[i] = (float)i;
    void *self_dev = NULL, *out_dev = NULL;
    CHECK(aclrtMalloc(&self_dev, sizeof self_host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&out_dev, sizeof out_host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(self_dev, sizeof self_host, self_host, sizeof self_host, ACL_MEMCPY_HOST_TO_DEVICE));
    aclTensor *self = create_tensor(self_shape, 2, self_dev);
    aclTensor *out = create_tensor(out_shape, 2, out_dev);

    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSliceGetWorkspaceSize(self, 0, 1, 4, 2, out, &workspace_size, &executor));
    void *workspace = NULL;
    if (workspace_size > 0) CHECK(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnSlice(workspace, workspace_size, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(out_host, sizeof out_host, out_dev, sizeof out_host, ACL_MEMCPY_DEVICE_TO_HOST));

    const float want[6] = {3, 4, 5, 9, 10, 11};
    if (memcmp(out_host, want, sizeof want) != 0) {
        printf("wrong result\n");
        return 1;
    }
    CHECK(aclDestroyTensor(self));
    CHECK(aclDestroyTensor(out));
    if (workspace) CHECK(aclrtFree(workspace));
    CHECK(aclrtFree(self_dev));
    CHECK(aclrtFree(out_dev));
    CHECK(aclrtDestroyStream(stream));
    NpuSimStats s;
    CHECK(npuSimGetStats(&s));
    if (s.allocations || s.tensors || s.executors || s.streams) {
        printf("leak\n");
        return 1;
    }
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("slice ok: %g %g %g %g %g %g\n", out_host[0], out_host[1], out_host[2], out_host[3], out_host[4], out_host[5]);
    return 0;
}
"#;

#[test]
fn a_c_program_runs_the_aclnn_slice_sample_against_the_simulator() {
    let t = tempfile::TempDir::new().unwrap();
    let root = fake_root(t.path());
    let src = t.path().join("slice_sample.c");
    std::fs::write(&src, SAMPLE).unwrap();
    let exe = t.path().join("slice_sample");
    let target = env!("NPU_SIM_TARGET");
    let lib64 = root.join("lib64");
    let status = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .get_compiler()
        .to_command()
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(&src)
        .arg(format!("-L{}", lib64.display()))
        .args(["-lascendcl", "-lnnopbase", "-lopapi_math", "-lopapi_nn"])
        .arg(format!("-Wl,-rpath,{}", lib64.display()))
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success(), "compiling the sample");
    let out = Command::new(&exe)
        .env_remove("NPU_SIM_SOC")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), "slice ok: 3 4 5 9 10 11");
}
