//! The tools against hostile paths: `npu-ops sim install` (its temporary
//! area, the files it writes in its root, `set_env.sh` for any root path)
//! and `npu-ops conformance --record` (recorded names that never collide,
//! no write through a link planted in the record folder).

use npu_ops_cli::conformance;
use npu_ops_cli::sim_root::{self, Options};
use serial_test::serial;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_npu-ops");

const GOOD: &str = r#"{"id": "ok", "op": "slice", "input": {"dtype": "float32", "shape": [3], "data": [1, 2, 3]}, "params": {"dim": 0, "start": 1, "end": 3, "step": 1}, "expect": {"dtype": "float32", "shape": [2], "data": [2, 3]}}"#;

/// `GOOD` under another id.
fn good(id: &str) -> String {
    GOOD.replace("\"ok\"", &format!("{id:?}"))
}

fn npu_ops(args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .env_remove("NPU_SIM_DEVICES")
        .env_remove("NPU_SIM_SOC")
        .env_remove("NPU_OPS_BACKEND")
        .output()
        .expect("npu-ops runs")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

fn is_regular(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file())
}

/// The ids of the cases recorded under `rec`.
fn recorded_ids(rec: &Path) -> BTreeSet<String> {
    let (back, bad) = conformance::load(&[rec.to_path_buf()]);
    assert!(bad.is_empty(), "{bad:?}");
    back.into_iter().map(|c| c.id).collect()
}

// ---------------------------------------------------------------------
// --record
// ---------------------------------------------------------------------

#[test]
fn recorded_names_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    // `a.jsonl` twice takes `a-2.jsonl`, which a third source is named:
    // in either order, every source keeps its own file.
    let a1 = write(&src, "d1/a.jsonl", &format!("{}\n", good("one")));
    let a2 = write(&src, "d2/a.jsonl", &format!("{}\n", good("two")));
    let a3 = write(&src, "d3/a-2.jsonl", &format!("{}\n", good("three")));
    // A name without `.jsonl` that gets it, and case-only differences
    // (one file on a case-insensitive file system).
    let a4 = write(&src, "d4/a", &format!("{}\n", good("four")));
    let a5 = write(&src, "d5/A.jsonl", &format!("{}\n", good("five")));
    for (n, order) in [
        [&a1, &a2, &a3, &a4, &a5],
        [&a3, &a1, &a2, &a5, &a4],
        [&a4, &a3, &a2, &a1, &a5],
    ]
    .iter()
    .enumerate()
    {
        let rec = dir.path().join(format!("rec{n}"));
        let mut args = vec!["conformance", "--backend", "sim", "--record", s(&rec)];
        args.extend(order.iter().map(|p| s(p)));
        let out = npu_ops(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("recorded 5 cases in 5 file(s)"),
            "{}",
            text(&out)
        );
        let files: BTreeSet<String> = std::fs::read_dir(&rec)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
            .collect();
        assert_eq!(files.len(), 5, "{files:?}");
        assert_eq!(
            recorded_ids(&rec),
            ["one", "two", "three", "four", "five"]
                .map(String::from)
                .into(),
            "order {n}"
        );
    }
}

#[test]
fn recording_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let a = write(&src, "a.jsonl", &format!("{}\n", good("one")));
    let b = write(&src, "b.jsonl", &format!("{}\n", good("two")));
    let outside = dir.path().join("outside");
    let victim = write(&outside, "victim", "precious\n");
    let rec = dir.path().join("rec");
    std::fs::create_dir_all(&rec).unwrap();
    // A link to a file, and a dangling link (writing through it would
    // create its target).
    symlink(&victim, rec.join("a.jsonl")).unwrap();
    symlink(outside.join("created"), rec.join("b.jsonl")).unwrap();
    let out = npu_ops(&[
        "conformance",
        "--backend",
        "sim",
        "--record",
        s(&rec),
        s(&a),
        s(&b),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("recorded 2 cases in 2 file(s)"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(!outside.join("created").exists(), "written through a link");
    for f in ["a.jsonl", "b.jsonl"] {
        assert!(is_regular(&rec.join(f)), "{f} replaced by the recording");
    }
    assert_eq!(recorded_ids(&rec), ["one", "two"].map(String::from).into());
    // No temporary file left behind.
    assert_eq!(std::fs::read_dir(&rec).unwrap().count(), 2);
}

#[test]
fn recording_never_replaces_a_file_being_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let a1 = write(&src, "d1/a-2.jsonl", &format!("{}\n", good("one")));
    let a3 = write(&src, "d3/a-2.jsonl", &format!("{}\n", good("three")));
    // Recording into d3: d1's file takes `a-2.jsonl` there, which is the
    // other source, read by this run (its own recording is `a-2-2.jsonl`).
    let rec = src.join("d3");
    let out = npu_ops(&[
        "conformance",
        "--backend",
        "sim",
        "--record",
        s(&rec),
        s(&a1),
        s(&a3),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("would replace"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&a3).unwrap(),
        format!("{}\n", good("three"))
    );
    assert!(out.stdout.is_empty(), "no case ran");
}

// ---------------------------------------------------------------------
// sim install
// ---------------------------------------------------------------------

/// A stand-in C compiler: writes the `-o` file (the tests of the layout
/// need no real libraries).
fn fake_cc(dir: &Path) -> String {
    let cc = write(
        dir,
        "fake-cc",
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = -o ]; then printf 'not a library' > \"$2\"; fi\n  shift\ndone\n",
    );
    Command::new("chmod").arg("+x").arg(&cc).status().unwrap();
    cc.to_str().unwrap().to_string()
}

/// A stand-in for the simulator's library.
fn fake_core(dir: &Path) -> PathBuf {
    write(dir, "core/libnpu_sim_c.so", "not a library")
}

fn options(dir: &Path, real_cc: bool) -> Options {
    Options {
        core: Some(fake_core(dir)),
        cc: (!real_cc).then(|| fake_cc(dir)),
    }
}

/// The variables `set_env.sh` sets, as `shell` sees them after sourcing
/// `script` (run in `cwd`, with `LD_LIBRARY_PATH` as given).
fn sourced(shell: &str, cwd: &Path, script: &Path, ld: Option<&str>) -> (Vec<OsString>, Output) {
    let mut c = Command::new(shell);
    c.arg("-c")
        .arg(
            ". \"$1\" && printf '%s\\0' \"$ASCEND_HOME_PATH\" \"$ASCEND_TOOLKIT_HOME\" \
             \"$ASCEND_OPP_PATH\" \"$LD_LIBRARY_PATH\"",
        )
        .arg("sh")
        .arg(script)
        .current_dir(cwd)
        .env_remove("ASCEND_HOME_PATH")
        .env_remove("ASCEND_TOOLKIT_HOME")
        .env_remove("ASCEND_OPP_PATH");
    match ld {
        Some(v) => c.env("LD_LIBRARY_PATH", v),
        None => c.env_remove("LD_LIBRARY_PATH"),
    };
    let out = c.output().unwrap();
    let vars = out
        .stdout
        .split(|&b| b == 0)
        .filter(|v| !v.is_empty())
        .map(|v| OsString::from_vec(v.to_vec()))
        .collect();
    (vars, out)
}

fn join(root: &Path, tail: &str) -> OsString {
    let mut v = root.as_os_str().to_os_string();
    v.push(tail);
    v
}

#[test]
#[serial]
fn set_env_sh_runs_nothing_and_exports_the_root_for_any_path() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let opts = options(&base, false);
    let names: [&[u8]; 9] = [
        b"with space",
        b"semi;colon",
        b"$(touch pwned-XYZ)",
        b"`touch pwned-XYZ`",
        b"it's",
        b"q\"uote\\ $HOME ${HOME}",
        b"new\nline; touch pwned-XYZ",
        b"tab\tstar*? [x] #hash ~",
        b"latin1-\xe9-not-utf8",
    ];
    for name in names {
        let name = std::ffi::OsStr::from_bytes(name);
        let root = base.join(name);
        let done = sim_root::install(&root, &opts).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        assert_eq!(done.root, root);
        let script = root.join("set_env.sh");
        let want = |ld_tail: &str| {
            vec![
                root.clone().into_os_string(),
                root.clone().into_os_string(),
                join(&root, "/opp"),
                join(&root, &format!("/lib64{ld_tail}")),
            ]
        };
        for shell in ["bash", "sh"] {
            let (vars, out) = sourced(shell, &base, &script, None);
            assert!(out.status.success(), "{shell} {name:?}: {}", text(&out));
            assert_eq!(vars, want(""), "{shell} {name:?}: {}", text(&out));
            let (vars, out) = sourced(shell, &base, &script, Some("/x y/lib"));
            assert_eq!(vars, want(":/x y/lib"), "{shell} {name:?}: {}", text(&out));
            assert!(
                !base.join("pwned-XYZ").exists(),
                "{shell} {name:?} ran a command"
            );
            assert!(
                !root.join("pwned-XYZ").exists(),
                "{shell} {name:?} ran a command"
            );
        }
        // Sourced by a relative path from another folder (bash knows it).
        let mut rel = PathBuf::from(".");
        rel.push(name);
        rel.push("set_env.sh");
        let (vars, out) = sourced("bash", &base, &rel, None);
        assert_eq!(vars, want(""), "{name:?} relative: {}", text(&out));
    }
    // bash computes the root from where the script is: a moved root still
    // works.
    let old = base.join("it's");
    let moved = base.join("moved $(touch pwned-XYZ)");
    std::fs::rename(&old, &moved).unwrap();
    let (vars, out) = sourced("bash", &base, &moved.join("set_env.sh"), None);
    assert_eq!(
        vars,
        vec![
            moved.clone().into_os_string(),
            moved.clone().into_os_string(),
            join(&moved, "/opp"),
            join(&moved, "/lib64"),
        ],
        "{}",
        text(&out)
    );
    assert!(!base.join("pwned-XYZ").exists());
}

#[test]
#[serial]
fn install_never_writes_through_links_planted_in_its_root() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let outside = base.join("outside");
    let victim = write(&outside, "victim", "precious\n");
    let root = base.join("root");
    let arch = sim_root::arch_dir();
    // Files of the layout planted as links to a file outside, and as
    // dangling links.
    let planted: Vec<String> = [
        "set_env.sh",
        "@/include/acl/acl.h",
        "@/include/aclnn/opdev/op_errno.h",
        "@/include/npu_sim.h",
        "@/lib64/libascendcl.so",
        "@/lib64/libnpu_sim_c.so",
        "@/bin/setenv.bash",
        "@/ascend_toolkit_install.info",
        "share/info/runtime/version.info",
        "runtime/version.info",
        "compiler/README",
    ]
    .iter()
    .map(|p| p.replace('@', &arch))
    .collect();
    for (i, p) in planted.iter().enumerate() {
        let at = root.join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(&victim, &at).unwrap();
        let dangling = root.join(format!("{p}.dangling"));
        symlink(outside.join(format!("created-{i}")), dangling).unwrap();
    }
    symlink(
        outside.join("created-lib"),
        root.join(&arch).join("lib64/libopapi.so"),
    )
    .unwrap();
    // The links of the layout planted to a folder outside: replaced,
    // never followed.
    for l in ["include", "lib64", "bin", "runtime/lib64", "compiler/lib64"] {
        symlink(&outside, root.join(l)).unwrap();
    }
    let done = sim_root::install(&root, &options(&base, true)).unwrap();
    assert_eq!(done.root, root);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        1,
        "nothing created outside"
    );
    let libopapi = format!("{arch}/lib64/libopapi.so");
    for p in planted.iter().chain([&libopapi]) {
        assert!(is_regular(&root.join(p)), "{p} is a file of the install");
    }
    for (l, to) in [
        ("include", format!("{arch}/include")),
        ("lib64", format!("{arch}/lib64")),
        ("bin", format!("{arch}/bin")),
        ("runtime/lib64", format!("../{arch}/lib64")),
        ("compiler/lib64", format!("../{arch}/lib64")),
    ] {
        assert_eq!(
            std::fs::read_link(root.join(l)).unwrap(),
            Path::new(&to),
            "{l}"
        );
    }
    let h = std::fs::read_to_string(root.join("include/acl/acl.h")).unwrap();
    assert!(h.contains("NPU_SIM_CANN_ACL_ACL_H"), "{h}");
    // The libraries were built, and are what a linker reads.
    let lib = std::fs::read(root.join("lib64/libascendcl.so")).unwrap();
    assert_eq!(&lib[..4], b"\x7fELF");

    // A folder of the layout that is a link is refused, by name, and
    // nothing is written through it.
    let folders: Vec<String> = [
        "@",
        "@/include",
        "@/include/aclnnop",
        "@/lib64",
        "@/bin",
        "opp",
        "share/info",
        "runtime",
        "compiler",
    ]
    .iter()
    .map(|p| p.replace('@', &arch))
    .collect();
    for folder in &folders {
        let root = base.join(format!("root-{}", folder.replace('/', "-")));
        let target = base.join(format!("target-{}", folder.replace('/', "-")));
        std::fs::create_dir_all(&target).unwrap();
        let at = root.join(folder);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(&target, &at).unwrap();
        let e = sim_root::install(&root, &options(&base, false)).unwrap_err();
        assert!(e.contains(s(&at)) && e.contains("link"), "{folder}: {e}");
        assert!(is_link(&at));
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            0,
            "{folder}: {e}"
        );
    }
    // Where the layout has a link, a folder (an earlier install's
    // `include/`) is refused by name, and left as it was.
    let root = base.join("root-earlier");
    let kept = write(&root, "include/acl/acl.h", "an earlier header\n");
    let e = sim_root::install(&root, &options(&base, false)).unwrap_err();
    assert!(
        e.contains(s(&root.join("include"))) && e.contains("folder"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(kept).unwrap(),
        "an earlier header\n"
    );
}

#[test]
#[serial]
fn install_refuses_folders_others_may_change() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    // Writable by every user (the root itself, or a folder of the layout).
    let arch = sim_root::arch_dir();
    let lib64 = format!("{arch}/lib64");
    let acl = format!("{arch}/include/acl");
    for folder in ["", lib64.as_str(), acl.as_str()] {
        let root = base.join(format!("open-{}", folder.replace('/', "-")));
        let at = if folder.is_empty() {
            root.clone()
        } else {
            root.join(folder)
        };
        std::fs::create_dir_all(&at).unwrap();
        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let e = sim_root::install(&root, &options(&base, false)).unwrap_err();
        assert!(e.contains(s(&at)) && e.contains("every user"), "{e}");
    }
    // Another user's (only the superuser can make one).
    let me = std::fs::metadata(&base).unwrap().uid();
    if me == 0 {
        let root = base.join("theirs");
        std::fs::create_dir_all(root.join("opp")).unwrap();
        std::os::unix::fs::chown(root.join("opp"), Some(4242), None).unwrap();
        let e = sim_root::install(&root, &options(&base, false)).unwrap_err();
        assert!(
            e.contains(s(&root.join("opp"))) && e.contains("another user"),
            "{e}"
        );
    }
    // Folders the install makes are never writable by others, whatever
    // the umask; a folder of its own installs.
    let root = base.join("mine");
    sim_root::install(&root, &options(&base, false)).unwrap();
    for f in [
        "",
        &arch,
        &format!("{arch}/include"),
        &format!("{arch}/include/aclnnop"),
        &lib64,
        &format!("{arch}/bin"),
        "opp",
        "share/info/runtime",
        "runtime",
        "compiler",
    ] {
        let mode = std::fs::metadata(root.join(f)).unwrap().mode();
        assert_eq!(mode & 0o022, 0, "{f}: {mode:o}");
    }
}

#[test]
#[serial]
fn install_ignores_links_planted_in_the_temporary_area() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let victim = write(&base, "victim", "precious\n");
    let tmp = base.join("tmp");
    // Where a predictable temporary folder would be, every source planted
    // as a link to the victim.
    let predictable = tmp.join(format!("npu-sim-install-{}", std::process::id()));
    std::fs::create_dir_all(&predictable).unwrap();
    for (lib, _) in cann_sys::headers::library_exports() {
        symlink(&victim, predictable.join(format!("{lib}.c"))).unwrap();
    }
    let opts = options(&base, false);
    let old = std::env::var_os("TMPDIR");
    std::env::set_var("TMPDIR", &tmp);
    let r = sim_root::install(&base.join("root"), &opts);
    match old {
        Some(v) => std::env::set_var("TMPDIR", v),
        None => std::env::remove_var("TMPDIR"),
    }
    r.unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    // The private area is gone; the planted folder is left as it was.
    // (Only the install's own names are looked at: other tests of this
    // binary, run meanwhile, may make their temporary folders here while
    // TMPDIR points at it.)
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.contains("npu-sim-install")
        })
        .collect();
    assert_eq!(left, vec![predictable.clone()]);
    for (lib, _) in cann_sys::headers::library_exports() {
        assert!(is_link(&predictable.join(format!("{lib}.c"))));
    }
}

/// `set_env.sh` reached through a symbolic link to it (`ln -s ROOT/set_env.sh
/// ~/bin/`), or found by name in a folder that is not a root, exports the
/// installed root, never the folder the link or name is in (bash took the
/// link's folder as the root, and so its `lib64` for `LD_LIBRARY_PATH`).
#[test]
#[serial]
fn set_env_sh_through_a_link_exports_the_installed_root() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    sim_root::install(&root, &options(&base, false)).unwrap();
    let other = base.join("other");
    std::fs::create_dir(&other).unwrap();
    symlink(root.join("set_env.sh"), other.join("set_env.sh")).unwrap();
    let want = vec![
        root.clone().into_os_string(),
        root.clone().into_os_string(),
        join(&root, "/opp"),
        join(&root, "/lib64"),
    ];
    for shell in ["bash", "sh"] {
        // By its path, by a relative one and (bash: dash's `.` searches
        // only PATH) by its bare name from the link's folder.
        let bare = (&other, PathBuf::from("set_env.sh"));
        for (cwd, script) in [
            (&base, other.join("set_env.sh")),
            (&other, PathBuf::from("./set_env.sh")),
        ]
        .into_iter()
        .chain((shell == "bash").then_some(bare))
        {
            let (vars, out) = sourced(shell, cwd, &script, None);
            assert!(out.status.success(), "{shell}: {}", text(&out));
            assert_eq!(vars, want, "{shell} {}: {}", script.display(), text(&out));
        }
    }
    // A hard link (or a copy) in a folder that is not a root: the same.
    std::fs::remove_file(other.join("set_env.sh")).unwrap();
    std::fs::hard_link(root.join("set_env.sh"), other.join("set_env.sh")).unwrap();
    let (vars, out) = sourced("bash", &base, &other.join("set_env.sh"), None);
    assert_eq!(vars, want, "hard link: {}", text(&out));
    // The root itself, sourced by its bare name from inside it, still
    // works (a moved root: set_env_sh_runs_nothing_and_exports_the_root_for_any_path).
    let (vars, out) = sourced("bash", &root, Path::new("set_env.sh"), None);
    assert_eq!(vars, want, "bare name: {}", text(&out));
}
