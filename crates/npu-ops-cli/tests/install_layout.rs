//! The installation layout that CANN's tools look for, as `npu-ops sim
//! install` lays it out: the `<arch>-linux/` tree and its top-level links,
//! `set_env.sh` and `bin/setenv.bash` (from a copied root, in bash, zsh
//! and sh; sourced twice; hostile root names), the version files parsed as
//! torch_npu and DeepSpeed parse them, `op_errno.h`, `runtime/` and
//! `compiler/`, and what the root must not declare.

use npu_ops_cli::sim_root::{self, Options, ACLNN_CODES, CANN_VERSION, VERSION_PACKAGES};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The variables CANN's `set_env.sh` sets, in the order the scripts below
/// print them.
const VARS: [&str; 9] = [
    "ASCEND_HOME_PATH",
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_OPP_PATH",
    "ASCEND_AICPU_PATH",
    "TOOLCHAIN_HOME",
    "PATH",
    "LD_LIBRARY_PATH",
    "PYTHONPATH",
    "CMAKE_PREFIX_PATH",
];

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// Options with stand-ins for the C compiler and the simulator's library
/// (the layout's tests need no real libraries).
fn options(dir: &Path) -> Options {
    let cc = write(
        dir,
        "fake-cc",
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = -o ]; then printf 'not a library' > \"$2\"; fi\n  shift\ndone\n",
    );
    Command::new("chmod").arg("+x").arg(&cc).status().unwrap();
    Options {
        core: Some(write(dir, "core/libnpu_sim_c.so", "not a library")),
        cc: Some(cc.to_str().unwrap().to_string()),
    }
}

/// A fresh root, installed in `base/name`.
fn installed(base: &Path, name: &str) -> PathBuf {
    let root = base.join(name);
    let done = sim_root::install(&root, &options(base)).unwrap();
    assert_eq!(done.root, root);
    root
}

/// `cp -r from to`, as a user copies a root (links stay links).
fn copy(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

fn has(shell: &str) -> bool {
    Command::new(shell)
        .arg("-c")
        .arg("true")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The shells that source the scripts: bash, sh (dash here) and zsh where
/// installed.
fn shells() -> Vec<&'static str> {
    let mut v = vec!["bash", "sh"];
    if has("zsh") {
        v.push("zsh");
    }
    v
}

/// The environment a test starts from: the variables unset, but `PATH`
/// (the shells need it) and those given.
fn clean(c: &mut Command, env: &[(&str, &str)]) {
    for v in VARS.iter().filter(|v| **v != "PATH") {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
}

/// The variables after `shell` sources `scripts` in turn (each by its
/// path, run in `cwd`), with the environment `env`.
fn sourced(
    shell: &str,
    cwd: &Path,
    scripts: &[&Path],
    env: &[(&str, &str)],
) -> (Vec<OsString>, Output) {
    let mut body = String::new();
    for i in 0..scripts.len() {
        body.push_str(&format!(". \"${}\" || exit 9\n", i + 1));
    }
    body.push_str("printf '%s\\0'");
    for v in VARS {
        body.push_str(&format!(" \"${{{v}-unset}}\""));
    }
    body.push('\n');
    let mut c = Command::new(shell);
    c.arg("-c")
        .arg(body)
        .arg(shell)
        .args(scripts)
        .current_dir(cwd);
    clean(&mut c, env);
    let out = c.output().unwrap();
    let mut vars: Vec<OsString> = out
        .stdout
        .split(|&b| b == 0)
        .map(|v| OsString::from_vec(v.to_vec()))
        .collect();
    vars.pop(); // after the last NUL
    (vars, out)
}

fn join(root: &Path, tail: &str) -> OsString {
    let mut v = root.as_os_str().to_os_string();
    v.push(tail);
    v
}

/// What the nine variables must be for `root`, given the lists' values
/// before (`None`: unset).
fn expected(root: &Path, path: &str, before: &[Option<&str>; 3]) -> Vec<OsString> {
    let list = |entry: OsString, old: Option<&str>| {
        let mut v = entry;
        if let Some(o) = old.filter(|o| !o.is_empty()) {
            v.push(":");
            v.push(o);
        }
        v
    };
    vec![
        root.as_os_str().to_os_string(),
        root.as_os_str().to_os_string(),
        join(root, "/opp"),
        root.as_os_str().to_os_string(),
        join(root, "/toolkit"),
        list(join(root, "/bin"), Some(path)),
        list(join(root, "/lib64"), before[0]),
        list(join(root, "/python/site-packages"), before[1]),
        list(join(root, "/lib64/cmake"), before[2]),
    ]
}

fn path_var() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
}

// ---------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------

#[test]
fn the_layout_holds_cann_folders_links_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let arch = sim_root::arch_dir();
    assert_eq!(arch, format!("{}-linux", std::env::consts::ARCH));
    let link = |l: &str| std::fs::read_link(root.join(l)).unwrap();
    // The files are in <arch>-linux/, the top-level folders link there
    // (relative: a copy holds its own), as CANN's packages install them.
    assert_eq!(link("include"), Path::new(&arch).join("include"));
    assert_eq!(link("lib64"), Path::new(&arch).join("lib64"));
    assert_eq!(link("bin"), Path::new(&arch).join("bin"));
    // Older tools' folders: the same headers and libraries.
    let up = Path::new("..").join(&arch);
    assert_eq!(link("runtime/include"), up.join("include"));
    assert_eq!(link("runtime/lib64"), up.join("lib64"));
    assert_eq!(link("compiler/lib64"), up.join("lib64"));
    for f in [
        "include/acl/acl.h",
        "include/aclnn/aclnn_base.h",
        "include/aclnnop/aclnn_slice.h",
        "include/aclnn/opdev/op_errno.h",
        "include/npu_sim.h",
        "lib64/libascendcl.so",
        "lib64/libacl_rt.so",
        "lib64/libnnopbase.so",
        "lib64/libopapi_math.so",
        "lib64/libnpu_sim_c.so",
        "runtime/include/acl/acl.h",
        "runtime/lib64/libascendcl.so",
        "compiler/lib64/libascendcl.so",
        "bin/setenv.bash",
        "set_env.sh",
    ] {
        assert!(root.join(f).is_file(), "{f}");
    }
    let real = root.join(&arch);
    for f in [
        "include/acl/acl.h",
        "lib64/libascendcl.so",
        "bin/setenv.bash",
    ] {
        let m = std::fs::symlink_metadata(real.join(f)).unwrap();
        assert!(m.file_type().is_file(), "{arch}/{f} is the file itself");
    }
    assert!(root.join("opp").is_dir());

    // The version files, exactly.
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap();
    assert_eq!(
        read(&format!("{arch}/ascend_toolkit_install.info")),
        format!(
            "package_name=Ascend-cann-toolkit\nversion={CANN_VERSION}\narch={}\nos=linux\n\
             simulated_by=npu-ops sim install\n",
            std::env::consts::ARCH
        )
    );
    assert_eq!(VERSION_PACKAGES, ["runtime", "ops_math", "ops_nn"]);
    for p in VERSION_PACKAGES {
        assert_eq!(
            read(&format!("share/info/{p}/version.info")),
            format!("Version={CANN_VERSION}\n")
        );
    }
    assert_eq!(
        read("runtime/version.info"),
        format!("Version={CANN_VERSION}\n")
    );
    // One version file per package the root has, and no other.
    let packages: Vec<_> = std::fs::read_dir(root.join("share/info"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(packages.len(), VERSION_PACKAGES.len(), "{packages:?}");
}

/// The root declares only what the simulator implements: no compiler, no
/// toolkit, no Python package, no CMake package, no stub in `bin/`; its
/// only AscendC file is the `ascendc.cmake` whose functions refuse kernels.
#[test]
fn the_layout_declares_no_toolchain() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let arch = sim_root::arch_dir();
    for absent in [
        "toolkit",
        "tools",
        "python",
        "lib64/cmake",
        "compiler/version.info",
        "compiler/bin",
        "compiler/ccec_compiler",
        "tools/tikcpp",
        "tikcpp",
        "compiler/tikcpp/tikicpulib",
        "opp/version.info",
        "toolkit/tools/tikicpulib",
    ] {
        assert!(
            std::fs::symlink_metadata(root.join(absent)).is_err(),
            "{absent} exists"
        );
    }
    let bin: Vec<_> = std::fs::read_dir(root.join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(bin, [OsStr::new("setenv.bash")]);
    let compiler: Vec<_> = {
        let mut v: Vec<_> = std::fs::read_dir(root.join("compiler"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(compiler, ["README", "lib64", "tikcpp"]);
    assert_eq!(
        std::fs::read_link(root.join("compiler/tikcpp")).unwrap(),
        Path::new("..").join(&arch).join("tikcpp")
    );
    let readme = std::fs::read_to_string(root.join("compiler/README")).unwrap();
    for word in ["no compiler", "ccec", "bisheng", "ascendc", "tikcpp"] {
        assert!(readme.contains(word), "{word}: {readme}");
    }
    // tikcpp/ holds ascendc.cmake and nothing else, and every function of
    // it that would build device code stops the configuration.
    let mut files = Vec::new();
    for e in files_under(&root.join(&arch).join("tikcpp")) {
        files.push(e.strip_prefix(root.join(&arch)).unwrap().to_path_buf());
    }
    assert_eq!(
        files,
        [Path::new("tikcpp/ascendc_kernel_cmake/ascendc.cmake")]
    );
    let cmake =
        std::fs::read_to_string(root.join("compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake"))
            .unwrap();
    assert_eq!(cmake, sim_root::ASCENDC_CMAKE);
    for f in [
        "ascendc_library",
        "ascendc_fatbin_library",
        "ascendc_include_directories",
    ] {
        assert!(
            cmake.contains(&format!(
                "function({f})\n    _npu_sim_no_kernels({f} ${{ARGV}})"
            )),
            "{f}"
        );
    }
    assert!(cmake.contains("message(FATAL_ERROR"));
    assert!(cmake.contains("no AscendC"));
}

/// Every file (not folder) under `dir`, depth first, sorted.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if std::fs::symlink_metadata(&p).unwrap().is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `op_errno.h` declares every aclnn code of `cann_sys.h`, with its value,
/// and compiles alone as C and C++.
#[test]
fn op_errno_h_declares_every_aclnn_code() {
    // cann_sys.h's `#define ACLNN_*` lines, read as text: the list the
    // header is generated from must not miss one.
    let defined: Vec<(String, i32)> = cann_sys::headers::CANN_SYS_H
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            if w.next() != Some("#define") {
                return None;
            }
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .filter(|(n, _)| n.starts_with("ACLNN_"))
        .collect();
    assert!(defined.iter().any(|(n, _)| n == "ACLNN_SUCCESS"));
    let codes: Vec<(String, i32)> = ACLNN_CODES
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    assert_eq!(codes, defined);

    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let h = std::fs::read_to_string(root.join("include/aclnn/opdev/op_errno.h")).unwrap();
    assert_eq!(h, sim_root::op_errno_h());
    for (n, v) in &defined {
        let line = h
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(n))
            .unwrap_or_else(|| panic!("{n} missing"));
        assert_eq!(line.split_whitespace().nth(2), Some(v.to_string().as_str()));
    }
    // Alone, as C and C++, and the values as the compiler sees them.
    let mut src = String::from("#include \"aclnn/opdev/op_errno.h\"\n");
    for (n, v) in &defined {
        src.push_str(&format!("_Static_assert({n} == {v}, \"{n}\");\n"));
    }
    src.push_str("int main(void) { return ACLNN_SUCCESS; }\n");
    let c = write(&base, "t.c", &src);
    let cpp = write(
        &base,
        "t.cpp",
        &src.replace("_Static_assert", "static_assert"),
    );
    for (compiler, file, std) in [("cc", &c, "-std=c11"), ("c++", &cpp, "-std=c++11")] {
        let out = Command::new(compiler)
            .args([
                std,
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-fsyntax-only",
            ])
            .arg("-I")
            .arg(root.join("include"))
            .arg(file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{compiler}: {}", text(&out));
    }
}

// ---------------------------------------------------------------------
// The version, as the tools read it
// ---------------------------------------------------------------------

/// The folders of `top`, as Python's `os.walk(top)` visits them: top-down,
/// not into links to folders.
fn walk(top: &Path) -> Vec<PathBuf> {
    let mut out = vec![top.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        let mut subs: Vec<PathBuf> = std::fs::read_dir(&out[i])
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| std::fs::symlink_metadata(p).unwrap().file_type().is_dir())
            .collect();
        subs.sort();
        out.extend(subs);
        i += 1;
    }
    out
}

/// The version in an `ascend_*_install.info` file, by torch_npu's and
/// DeepSpeed's rule: the first line that holds `version` anywhere, its
/// text after the last `=`, stripped.
fn install_info_version(file: &Path) -> Option<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .find(|l| l.contains("version"))
        .map(|l| l.trim().rsplit('=').next().unwrap().to_string())
}

/// The `ascend_*_install.info` files of one folder (Python's
/// `re.match(r"ascend_.*_install\.info", name)`: anchored at the start
/// only).
fn install_infos(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.strip_prefix("ascend_")
                .and_then(|r| r.find("_install.info"))
                .is_some()
                && !std::fs::symlink_metadata(p).unwrap().is_dir()
        })
        .collect();
    v.sort();
    v
}

/// torch_npu's `torch_npu.utils.collect_env.get_cann_version` (what
/// `torch.version.cann` holds): walks `realpath($ASCEND_HOME_PATH)`, and
/// every folder with such a file sets the version from its first one (the
/// last folder wins); "not known" without one.
fn torch_npu_cann_version(home: &Path) -> String {
    let mut v = "not known".to_string();
    for d in walk(&home.canonicalize().unwrap()) {
        if let Some(f) = install_infos(&d).first() {
            if let Some(found) = install_info_version(&f.canonicalize().unwrap()) {
                v = found;
            }
        }
    }
    v
}

/// DeepSpeed's `NPUOpBuilder.installed_cann_version`: the same walk, the
/// first folder with such a file gives the version; "" without one.
fn deepspeed_cann_version(home: &Path) -> String {
    for d in walk(&home.canonicalize().unwrap()) {
        if let Some(f) = install_infos(&d).first() {
            if let Some(v) = install_info_version(f) {
                return v;
            }
        }
    }
    String::new()
}

/// A `version.info`'s version: the value of its `Version=` line (what
/// `grep '^Version='` and `grep -w Version | awk -F= '{print $2}'` give).
fn version_info_version(file: &Path) -> Option<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Version=").map(str::to_string))
}

/// torch_npu accepts a CANN version >= 8.5 as `a.b.c` (or with a
/// `-alpha`/`-beta`/`-rc` suffix) and an older one as `a.b.RCd`, `a.b.c`,
/// ...: the simulated version is one it compares.
fn torch_npu_accepts(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn the_version_reads_as_torch_npu_and_deepspeed_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    // From a copy, through the ASCEND_HOME_PATH its set_env.sh exports.
    let copied = base.join("copy of a version");
    copy(&root, &copied);
    let (vars, out) = sourced("bash", &base, &[&copied.join("set_env.sh")], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let home = PathBuf::from(&vars[0]);
    assert_eq!(home, copied);
    assert!(torch_npu_accepts(CANN_VERSION), "{CANN_VERSION}");
    assert_eq!(torch_npu_cann_version(&home), CANN_VERSION);
    assert_eq!(deepspeed_cann_version(&home), CANN_VERSION);
    for p in VERSION_PACKAGES {
        let f = home.join("share/info").join(p).join("version.info");
        assert_eq!(
            version_info_version(&f).as_deref(),
            Some(CANN_VERSION),
            "{p}"
        );
    }
    assert_eq!(
        version_info_version(&home.join("runtime/version.info")).as_deref(),
        Some(CANN_VERSION)
    );
    // The install files were read at <arch>-linux/, the one CANN's docs
    // name, and nowhere else.
    let infos: Vec<PathBuf> = walk(&home).iter().flat_map(|d| install_infos(d)).collect();
    assert_eq!(
        infos,
        [home
            .join(sim_root::arch_dir())
            .join("ascend_toolkit_install.info")]
    );
}

// ---------------------------------------------------------------------
// set_env.sh and bin/setenv.bash
// ---------------------------------------------------------------------

#[test]
fn set_env_sh_from_a_copied_root_points_at_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let copied = base.join("elsewhere/copy");
    std::fs::create_dir_all(copied.parent().unwrap()).unwrap();
    copy(&root, &copied);
    // The original may even be gone.
    std::fs::remove_dir_all(&root).unwrap();
    let path = path_var();
    let script = copied.join("set_env.sh");
    for shell in shells() {
        let (vars, out) = sourced(shell, &base, &[&script], &[]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        assert_eq!(
            vars,
            expected(&copied, &path, &[None, None, None]),
            "{shell}: {}",
            text(&out)
        );
        // By a relative path, from the copy's parent.
        let (vars, out) = sourced(
            shell,
            &base.join("elsewhere"),
            &[Path::new("./copy/set_env.sh")],
            &[],
        );
        assert_eq!(vars[0], copied.as_os_str(), "{shell}: {}", text(&out));
    }
}

#[test]
fn set_env_sh_sourced_twice_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let script = root.join("set_env.sh");
    let path = path_var();
    // Lists that already hold entries (an empty one, which means the
    // current folder, included), and the root's own entry elsewhere.
    let ld = format!("/x y/lib::{}/lib64:/z", root.display());
    let env = [
        ("LD_LIBRARY_PATH", ld.as_str()),
        ("PYTHONPATH", "/p"),
        ("CMAKE_PREFIX_PATH", ""),
    ];
    for shell in shells() {
        let (once, out) = sourced(shell, &base, &[&script], &env);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let want = expected(&root, &path, &[Some("/x y/lib::/z"), Some("/p"), None]);
        assert_eq!(once, want, "{shell}: {}", text(&out));
        let (twice, out) = sourced(shell, &base, &[&script, &script], &env);
        assert_eq!(twice, once, "{shell}: {}", text(&out));
        // bin/setenv.bash after set_env.sh: still the same.
        let setenv = root.join("bin/setenv.bash");
        let (after, out) = sourced(shell, &base, &[&script, &setenv], &env);
        assert_eq!(after, once, "{shell}: {}", text(&out));
        // It defines nothing else: no variable or function of its own is
        // left in the shell.
        let mut c = Command::new(shell);
        c.arg("-c")
            .arg(". \"$1\"; set; typeset -f 2>/dev/null || true")
            .arg(shell)
            .arg(&script);
        clean(&mut c, &[]);
        let out = c.output().unwrap();
        assert!(
            !String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.starts_with("_npu_sim")),
            "{shell}: {}",
            text(&out)
        );
    }
}

#[test]
fn bin_setenv_bash_sets_up_its_root() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let copied = base.join("copied");
    copy(&root, &copied);
    let path = path_var();
    for shell in shells() {
        for r in [&root, &copied] {
            // As CANN's runtime examples source it: $ASCEND_INSTALL_PATH/bin/setenv.bash.
            let (vars, out) = sourced(shell, &base, &[&r.join("bin/setenv.bash")], &[]);
            assert!(out.status.success(), "{shell}: {}", text(&out));
            assert_eq!(
                vars,
                expected(r, &path, &[None, None, None]),
                "{shell}: {}",
                text(&out)
            );
        }
    }
}

/// dash names no sourced file: in a subshell, where `$$` is the parent's,
/// the script cannot find itself and takes the folder it was installed in
/// (the documented fallback).
#[test]
fn dash_in_a_subshell_takes_the_installed_root() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let copied = base.join("copied");
    copy(&root, &copied);
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("( . \"$1\"; printf '%s' \"$ASCEND_HOME_PATH\" )")
        .arg("sh")
        .arg(copied.join("set_env.sh"));
    clean(&mut c, &[]);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let got = OsStr::from_bytes(&out.stdout);
    if has("dash") && std::fs::canonicalize("/bin/sh").is_ok_and(|p| p.ends_with("dash")) {
        assert_eq!(got, root.as_os_str(), "{}", text(&out));
    } else {
        assert!(got == root.as_os_str() || got == copied.as_os_str());
    }
}

#[test]
fn hostile_root_names_are_only_ever_paths() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = installed(&base, "root");
    let path = path_var();
    let names: [&[u8]; 8] = [
        b"with space",
        b"semi;colon",
        b"$(touch pwned-XYZ)",
        b"`touch pwned-XYZ`",
        b"it's \"quoted\" \\ $HOME",
        b"new\nline; touch pwned-XYZ",
        b"star*? [x] #hash ~",
        b"latin1-\xe9-not-utf8",
    ];
    for name in names {
        let copied = base.join(OsStr::from_bytes(name));
        copy(&root, &copied);
        for shell in shells() {
            for script in ["set_env.sh", "bin/setenv.bash"] {
                let (vars, out) = sourced(shell, &base, &[&copied.join(script)], &[]);
                assert!(out.status.success(), "{shell} {name:?}: {}", text(&out));
                assert_eq!(
                    vars,
                    expected(&copied, &path, &[None, None, None]),
                    "{shell} {name:?} {script}: {}",
                    text(&out)
                );
            }
        }
        assert!(!base.join("pwned-XYZ").exists(), "{name:?} ran a command");
        assert!(!copied.join("pwned-XYZ").exists(), "{name:?} ran a command");
    }
    // A `:` cannot be in a PATH-like list: the lists are left alone, with
    // a warning; the single paths are set.
    let copied = base.join("co:lon");
    copy(&root, &copied);
    for shell in shells() {
        let env = [("LD_LIBRARY_PATH", "/l")];
        let (vars, out) = sourced(shell, &base, &[&copied.join("set_env.sh")], &env);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        assert_eq!(vars[0], copied.as_os_str());
        assert_eq!(vars[5], OsStr::new(&path), "{shell}");
        assert_eq!(vars[6], OsStr::new("/l"), "{shell}");
        assert_eq!(vars[7], OsStr::new("unset"), "{shell}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("has a \":\""),
            "{shell}: {}",
            text(&out)
        );
    }
}
