#!/usr/bin/env bash
# The installation layout CANN's tools look for, on a simulated root
# (`npu-ops sim install`, through ci/sim-cann-root.sh): the root is copied
# (cp -r, to a path with spaces, quotes, `;` and `$( )`), and from the copy
#  - set_env.sh and bin/setenv.bash, sourced by bash, dash (and zsh where
#    installed), export the copy, and sourcing twice changes nothing;
#  - the version files read as torch_npu's collect_env and DeepSpeed's NPU
#    op builder read them (python3);
#  - with cmake installed, an aclnn sample (tests/aclnn/slice.cpp) builds
#    with CANN-style find logic (find_path / find_library under
#    ${ASCEND_HOME_PATH}/<arch>-linux) and runs, and an AscendC kernel
#    project stops at its first kernel target (ascendc.cmake refuses it), and a
#    host-only project that includes ascendc.cmake builds and runs.
# Usage: ci/install-layout.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install-layout: FAIL: $*" >&2; exit 1; }

root="$work/root"
bash ci/sim-cann-root.sh "$root" >/dev/null
arch="$(uname -m)-linux"
copy="$work/a copy; it's \$(touch pwned) \"of\" the root"
cp -r "$root" "$copy"

for f in set_env.sh bin/setenv.bash include/acl/acl.h include/aclnn/opdev/op_errno.h \
    lib64/libascendcl.so lib64/libnpu_sim_c.so "$arch/ascend_toolkit_install.info" \
    share/info/runtime/version.info runtime/version.info runtime/lib64/libascendcl.so \
    runtime/include/acl/acl.h compiler/lib64/libascendcl.so compiler/README; do
    [ -f "$copy/$f" ] || fail "$f is missing from the copy"
done
for l in include lib64 bin; do
    [ "$(readlink "$copy/$l")" = "$arch/$l" ] || fail "$l is not a link to $arch/$l"
done
for absent in toolkit compiler/bin compiler/version.info; do
    [ ! -e "$copy/$absent" ] || fail "$absent declares what the simulator does not have"
done
echo "== the layout: $arch/ with top-level links, version files, op_errno.h, runtime/, compiler/ (no compiler)"

# The nine variables, one per line.
show='printf "%s\n" "$ASCEND_HOME_PATH" "$ASCEND_TOOLKIT_HOME" "$ASCEND_OPP_PATH" "$ASCEND_AICPU_PATH" "$TOOLCHAIN_HOME" "$PATH" "$LD_LIBRARY_PATH" "$PYTHONPATH" "$CMAKE_PREFIX_PATH"'
shells="bash dash"
if command -v zsh >/dev/null; then shells="$shells zsh"; fi
for sh in $shells; do
    for script in set_env.sh bin/setenv.bash; do
        once=$(env -u ASCEND_HOME_PATH -u LD_LIBRARY_PATH "$sh" -c ". \"\$1/$script\"; $show" x "$copy")
        twice=$(env -u ASCEND_HOME_PATH -u LD_LIBRARY_PATH "$sh" -c ". \"\$1/$script\"; . \"\$1/$script\"; $show" x "$copy")
        [ "$once" = "$twice" ] || fail "$sh: $script sourced twice differs from once"
        [ "$(head -n 1 <<<"$once")" = "$copy" ] || fail "$sh: $script: ASCEND_HOME_PATH is not the copy: $once"
        grep -qxF "$copy/lib64" <<<"$once" || fail "$sh: $script: LD_LIBRARY_PATH is not the copy's lib64: $once"
    done
    echo "== $sh: set_env.sh and bin/setenv.bash from the copy export the copy; twice = once"
done
[ ! -e "$work/pwned" ] && [ ! -e "$top/pwned" ] || fail "a root name ran a command"

if command -v python3 >/dev/null; then
    # torch_npu (torch_npu/utils/collect_env.py, get_cann_version) and
    # DeepSpeed (op_builder/npu/builder.py, installed_cann_version): walk
    # realpath($ASCEND_HOME_PATH) for ascend_*_install.info; the first line
    # holding "version", after the last "=" (torch_npu: the last folder
    # found; DeepSpeed: the first).
    got=$(bash -c '. "$1/set_env.sh"; python3 - "$ASCEND_HOME_PATH"' x "$copy" <<'EOF'
import os, re, sys
home = os.path.realpath(sys.argv[1])
found = []
for dirpath, _, files in os.walk(home):
    infos = [f for f in files if re.match(r"ascend_.*_install\.info", f)]
    if infos:
        with open(os.path.join(dirpath, infos[0])) as f:
            for line in f:
                if line.find("version") != -1:
                    found.append(line.strip().split("=")[-1])
                    break
print(found[-1] if found else "not known", found[0] if found else "")
EOF
)
    want=$(sed -n 's/^version=//p' "$copy/$arch/ascend_toolkit_install.info")
    [ -n "$want" ] && [ "$got" = "$want $want" ] || fail "torch_npu / DeepSpeed read '$got', not $want"
    rt=$(sed -n 's/^Version=//p' "$copy/share/info/runtime/version.info")
    [ "$rt" = "$want" ] || fail "share/info/runtime/version.info says $rt"
    echo "== the version: $want, as torch_npu and DeepSpeed read it"
else
    echo "== python3 not installed: the version check as torch_npu reads it is skipped"
fi

if ! command -v cmake >/dev/null; then
    echo "== cmake not installed: the CMake build is skipped"
    echo "install-layout: the layout holds; set_env.sh works from a copy in $shells"
    exit 0
fi
# CMake lists split on ';': CMake builds from a copy without one, as they
# would from a real CANN.
croot="$work/cmake root"
cp -r "$root" "$croot"
proj="$work/project"
mkdir -p "$proj"
cat >"$proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(aclnn_slice_sample CXX)
if(NOT DEFINED ENV{ASCEND_HOME_PATH})
    message(FATAL_ERROR "source <root>/set_env.sh first")
endif()
set(ASCEND_HOME_PATH "$ENV{ASCEND_HOME_PATH}")
set(ASCEND_ARCH_DIR "${ASCEND_HOME_PATH}/${CMAKE_SYSTEM_PROCESSOR}-linux")
# As CANN's find modules: under <root>/<arch>-linux, then <root>.
find_path(ACL_INCLUDE_DIR acl/acl.h
    PATHS "${ASCEND_ARCH_DIR}/include" "${ASCEND_HOME_PATH}/include" NO_DEFAULT_PATH)
set(ACLNN_LIBRARIES)
foreach(lib opapi_math ascendcl nnopbase)
    find_library(ACLNN_${lib} NAMES ${lib}
        PATHS "${ASCEND_ARCH_DIR}/lib64" "${ASCEND_HOME_PATH}/lib64" NO_DEFAULT_PATH)
    if(NOT ACLNN_${lib})
        message(FATAL_ERROR "lib${lib}.so not found under ${ASCEND_ARCH_DIR}/lib64")
    endif()
    list(APPEND ACLNN_LIBRARIES "${ACLNN_${lib}}")
endforeach()
if(NOT ACL_INCLUDE_DIR)
    message(FATAL_ERROR "acl/acl.h not found under ${ASCEND_ARCH_DIR}/include")
endif()
message(STATUS "aclnn headers: ${ACL_INCLUDE_DIR}; libraries: ${ACLNN_LIBRARIES}")
add_executable(slice "${SAMPLES}/slice.cpp")
target_include_directories(slice PRIVATE "${ACL_INCLUDE_DIR}" "${ACL_INCLUDE_DIR}/aclnn")
target_link_libraries(slice PRIVATE ${ACLNN_LIBRARIES})
if(ASCENDC_KERNELS OR ASCENDC_HOST_ONLY)
    # As CANN's examples find it (their set_sample_env.sh looks under
    # <arch>-linux/tikcpp, kernel samples under compiler/ or tools/).
    if(EXISTS "${ASCEND_HOME_PATH}/compiler/tikcpp/ascendc_kernel_cmake")
        set(ASCENDC_CMAKE_DIR "${ASCEND_HOME_PATH}/compiler/tikcpp/ascendc_kernel_cmake")
    elseif(EXISTS "${ASCEND_HOME_PATH}/tools/tikcpp/ascendc_kernel_cmake")
        set(ASCENDC_CMAKE_DIR "${ASCEND_HOME_PATH}/tools/tikcpp/ascendc_kernel_cmake")
    else()
        message(FATAL_ERROR "ascendc_kernel_cmake does not exist ,please check whether the cann package is installed")
    endif()
    include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)
endif()
if(ASCENDC_KERNELS)
    ascendc_library(kernels STATIC "${SAMPLES}/slice.cpp")
endif()
EOF
(
    # shellcheck disable=SC1091
    source "$croot/set_env.sh"
    cmake -S "$proj" -B "$work/build" -DSAMPLES="$top/tests/aclnn" >"$work/cmake.log" 2>&1 \
        || { cat "$work/cmake.log"; fail "cmake configure"; }
    grep -qF "aclnn headers: $croot/$arch/include" "$work/cmake.log" \
        || { cat "$work/cmake.log"; fail "cmake did not find the headers under $arch/include"; }
    cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "cmake build"; }
    "$work/build/slice" | tail -n 1 | grep -qx "slice: ok" || fail "slice built with CMake failed"
    echo "== cmake: slice.cpp found under \$ASCEND_HOME_PATH/$arch, built and ran"
    if cmake -S "$proj" -B "$work/build-kernels" -DSAMPLES="$top/tests/aclnn" -DASCENDC_KERNELS=ON \
        >"$work/kernels.log" 2>&1; then
        fail "an AscendC kernel project configured against the simulated root"
    fi
    tr -s ' \n' ' ' <"$work/kernels.log" | grep -q "ascendc_library(kernels STATIC .*has no AscendC kernel toolchain" \
        || { cat "$work/kernels.log"; fail "kernel project: $(tail -n 3 "$work/kernels.log")"; }
    echo "== cmake: an AscendC kernel project stops at its first kernel target, saying the root has no toolchain"
    cmake -S "$proj" -B "$work/build-host" -DSAMPLES="$top/tests/aclnn" -DASCENDC_HOST_ONLY=ON \
        >"$work/host.log" 2>&1 || { cat "$work/host.log"; fail "a host-only project including ascendc.cmake"; }
    cmake --build "$work/build-host" >"$work/host-build.log" 2>&1 || { cat "$work/host-build.log"; fail "host-only build"; }
    "$work/build-host/slice" | tail -n 1 | grep -qx "slice: ok" || fail "slice built with ascendc.cmake included failed"
    echo "== cmake: a host-only project that includes ascendc.cmake (as CANN's examples do) builds and runs"
)
echo "install-layout: the layout holds; set_env.sh works from a copy in $shells; a CMake aclnn sample builds"
