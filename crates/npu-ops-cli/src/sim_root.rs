//! `npu-ops sim install DIR`: the simulator laid out as a CANN
//! installation, so that aclnn programs written for CANN (its samples
//! included) build with CANN's documented lines and run on the simulator
//! unchanged.
//!
//! The root holds:
//! - `include/`: CANN's header layout (`acl/acl.h`, `aclnn/aclnn_base.h`,
//!   `aclnnop/aclnn_slice.h`, ...), generated from `cann_sys.h`
//!   ([`cann_sys::headers`]), plus `npu_sim.h` (the simulator's own entry
//!   points);
//! - `lib64/`: `libnpu_sim_c.so`, the simulator, and CANN's libraries
//!   (`libascendcl.so`, `libacl_rt.so`, `libnnopbase.so`,
//!   `libopapi_math.so`, `libopapi_nn.so`, and the legacy `libopapi.so`),
//!   each with its SONAME and exporting only what its CANN counterpart
//!   exports, so a program linked against the wrong libraries fails to link
//!   as it would on an NPU host. They are ELF filters of the simulator: the
//!   dynamic loader takes every symbol from `libnpu_sim_c.so`, one copy of
//!   the simulator's state however many libraries a program loads;
//! - `set_env.sh`: `ASCEND_HOME_PATH`, `ASCEND_TOOLKIT_HOME`,
//!   `ASCEND_OPP_PATH` and `LD_LIBRARY_PATH`, as CANN's script sets them,
//!   from the script's own folder when bash or zsh sources it (the root may
//!   be moved; not through a link to the script, whose folder is not the
//!   root), else from the root it was installed in, quoted: a path
//!   with spaces, quotes, `;` or `$( )` is only ever a path.
//!
//! Hostile paths: nothing is written through a symbolic link planted in
//! the root (a file of the layout that is a link is replaced, a folder that
//! is a link is refused by name), and the C sources are written in a
//! private temporary folder, created afresh and removed afterwards. A
//! folder of the layout (the root included) that another user owns, or
//! that every user may write in, is refused: someone else could swap it for
//! a link while the install writes.
//!
//! Building the libraries needs a C compiler (`CC`, default `cc`), as
//! building an aclnn program does.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulator's shared library (`crates/npu-sim-c`).
pub const CORE_LIBRARY: &str = "libnpu_sim_c.so";

/// How to install.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The simulator's shared library; default: `$NPU_SIM_LIB`, else next
    /// to this program (where `cargo build --release` at the workspace root
    /// puts both: `npu-ops-cli` and `npu-sim-c` are its default members).
    pub core: Option<PathBuf>,
    /// The C compiler; default `$CC`, else `cc`.
    pub cc: Option<String>,
}

/// What was installed.
#[derive(Clone, Debug)]
pub struct Installed {
    /// The root (absolute).
    pub root: PathBuf,
    /// Header files written, under `include/`.
    pub headers: Vec<String>,
    /// Libraries written under `lib64/`, with the symbols each exports.
    pub libraries: Vec<(String, usize)>,
}

/// Where the simulator's shared library is, by `opts` (see
/// [`Options::core`]).
pub fn find_core(opts: &Options) -> Result<PathBuf, String> {
    if let Some(p) = &opts.core {
        return existing(p);
    }
    if let Some(p) = std::env::var_os("NPU_SIM_LIB").filter(|v| !v.is_empty()) {
        return existing(Path::new(&p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this program: {e}"))?;
    // Next to the program, or (tests, examples) one folder up.
    let candidates: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(CORE_LIBRARY))
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "the simulator's shared library {CORE_LIBRARY} was not found (looked in {}); \
                 `cargo build --release` at the workspace root builds it beside this program \
                 (crates/npu-sim-c is a default member), or name it with --lib or NPU_SIM_LIB",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

fn existing(p: &Path) -> Result<PathBuf, String> {
    if p.is_file() {
        Ok(p.to_path_buf())
    } else {
        Err(format!("{} does not exist or is not a file", p.display()))
    }
}

fn io<'a>(what: &'a str, p: &'a Path) -> impl FnOnce(std::io::Error) -> String + 'a {
    move |e| format!("cannot {what} {}: {e}", p.display())
}

/// The folder `rel` under `root`, each part created if missing. A part
/// that is a symbolic link (or not a folder) is refused by name: nothing
/// is written through a link planted in the root. So is a folder that
/// someone else could change while the install writes in it
/// ([`trusted_folder`]).
fn folder(root: &Path, rel: &Path) -> Result<PathBuf, String> {
    let mut at = root.to_path_buf();
    trusted_folder(&at)?;
    for part in rel.components() {
        at.push(part);
        let mut created = false;
        loop {
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_dir() => break,
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(format!(
                        "{} is a symbolic link; the install writes through no link (remove \
                         it, or install elsewhere)",
                        at.display()
                    ))
                }
                Ok(_) => {
                    return Err(format!(
                        "{} exists and is not a folder (remove it, or install elsewhere)",
                        at.display()
                    ))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !created => {
                    match new_folder().create(&at) {
                        // Made here or meanwhile: inspected again.
                        Ok(()) => created = true,
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => created = true,
                        Err(e) => return Err(io("create", &at)(e)),
                    }
                }
                Err(e) => return Err(io("inspect", &at)(e)),
            }
        }
        trusted_folder(&at)?;
    }
    Ok(at)
}

/// How the install makes folders: `rwxr-xr-x` at most (the umask applies),
/// never writable by others whatever the umask.
fn new_folder() -> std::fs::DirBuilder {
    #[allow(unused_mut)]
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        b.mode(0o755);
    }
    b
}

/// Refuses a folder of the layout that another user could change while
/// the install writes in it (swapping a folder for a link, say): one owned
/// by someone other than this user or the superuser, or writable by every
/// user (as `/tmp` is).
fn trusted_folder(at: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let m = std::fs::symlink_metadata(at).map_err(io("inspect", at))?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if m.uid() != me && m.uid() != 0 {
            return Err(format!(
                "{} belongs to another user (uid {}), who could change it while the install \
                 writes there; install into a folder of your own",
                at.display(),
                m.uid()
            ));
        }
        if m.mode() & 0o002 != 0 {
            return Err(format!(
                "{} is writable by every user, who could change it while the install writes \
                 there; install into a folder of your own",
                at.display()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = at;
    Ok(())
}

/// Writes `file` (in the real folder `dir`) with what `fill` writes,
/// never through what is there: a new file of `dir` (created, never opened
/// if it exists) takes the name once written. A link of that name is
/// replaced, not followed; a program that maps the old file keeps it.
fn replace_file(
    dir: &Path,
    file: &Path,
    executable: bool,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), String> {
    let mut b = tempfile::Builder::new();
    b.prefix(".npu-sim-install-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // As any file is made (the umask applies), not private.
        b.permissions(std::fs::Permissions::from_mode(if executable {
            0o777
        } else {
            0o666
        }));
    }
    #[cfg(not(unix))]
    let _ = executable;
    let mut tmp = b.tempfile_in(dir).map_err(io("create a file in", dir))?;
    fill(tmp.as_file_mut()).map_err(io("write", file))?;
    tmp.persist(file).map_err(|e| io("write", file)(e.error))?;
    Ok(())
}

/// A path's bytes (as the shell sees them).
fn path_bytes(p: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        p.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        p.to_string_lossy().into_owned().into_bytes()
    }
}

/// `bytes` as one POSIX shell word that expands to exactly them: single
/// quotes, each `'` written `'\''`.
fn shell_word(bytes: &[u8]) -> Vec<u8> {
    let mut w = Vec::with_capacity(bytes.len() + 2);
    w.push(b'\'');
    for &b in bytes {
        if b == b'\'' {
            w.extend_from_slice(b"'\\''");
        } else {
            w.push(b);
        }
    }
    w.push(b'\'');
    w
}

/// `p` quoted for a POSIX shell (single quotes, `'` as `'\''`), for
/// messages that show a command to paste (lossy where `p` is not UTF-8).
pub fn shell_quoted(p: &Path) -> String {
    String::from_utf8_lossy(&shell_word(&path_bytes(p))).into_owned()
}

/// The text of `set_env.sh` for a root installed at `root`. The root is
/// computed when the script is sourced, from the script's own location
/// (bash, zsh), so the root can be moved; other shells use `root`,
/// quoted, as do bash and zsh when the script was reached through a
/// symbolic link to it or its folder holds no `lib64/libnpu_sim_c.so`
/// (a hard link or a copy elsewhere, a name found through `PATH`). No
/// part of a path is ever run as a command.
fn set_env_script(root: &Path) -> Vec<u8> {
    let mut s: Vec<u8> = Vec::new();
    s.extend_from_slice(
        b"# A simulated CANN installation (npu-ops sim install). Source it, as CANN's own\n\
          # set_env.sh: `source DIR/set_env.sh`. The root is the folder of this script\n\
          # (bash, zsh: the root may be moved), else the folder it was installed in.\n\
          _npu_sim_root=",
    );
    s.extend_from_slice(&shell_word(&path_bytes(root)));
    s.extend_from_slice(
        br#"
if [ -n "${BASH_VERSION:-}" ]; then
    eval '_npu_sim_self=${BASH_SOURCE[0]:-}'
elif [ -n "${ZSH_VERSION:-}" ]; then
    eval '_npu_sim_self=${(%):-%x}'
else
    _npu_sim_self=
fi
case "$_npu_sim_self" in
    */*) _npu_sim_dir=${_npu_sim_self%/*} ;;
    '') _npu_sim_dir= ;;
    *) _npu_sim_dir=. ;;
esac
# Only the script's own folder, and only a root: a link to the script (or
# a copy found through PATH or the current folder) leaves the installed root.
if [ -n "$_npu_sim_dir" ] && [ ! -L "$_npu_sim_self" ] && [ -f "$_npu_sim_dir/set_env.sh" ] \
    && [ -f "$_npu_sim_dir/lib64/libnpu_sim_c.so" ]; then
    # pwd's newline and an x guard a root whose name ends in newlines.
    if _npu_sim_dir=$(CDPATH= cd -- "$_npu_sim_dir" && pwd -P && printf x); then
        _npu_sim_root=${_npu_sim_dir%?x}
    fi
fi
export ASCEND_TOOLKIT_HOME="$_npu_sim_root"
export ASCEND_HOME_PATH="$_npu_sim_root"
export ASCEND_OPP_PATH="$_npu_sim_root/opp"
export LD_LIBRARY_PATH="$_npu_sim_root/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset _npu_sim_root _npu_sim_self _npu_sim_dir
"#,
    );
    s
}

/// Lays out `dir` as a CANN installation backed by the simulator (see the
/// module documentation). `dir` is created if needed; files of an earlier
/// install are replaced.
///
/// Nothing is written through a symbolic link: a file of the layout that
/// is a link is replaced by the file (its target is left alone), a folder
/// of the layout that is a link is refused with an error naming it, as is
/// one that another user owns or every user may write in. The C sources of
/// the libraries are written in a private temporary folder (random name,
/// owner only), removed afterwards.
pub fn install(dir: &Path, opts: &Options) -> Result<Installed, String> {
    let core = find_core(opts)?;
    new_folder()
        .recursive(true)
        .create(dir)
        .map_err(io("create", dir))?;
    let root = dir.canonicalize().map_err(io("resolve", dir))?;
    let include = folder(&root, Path::new("include"))?;
    let lib64 = folder(&root, Path::new("lib64"))?;
    folder(&root, Path::new("opp"))?;
    let mut headers = Vec::new();
    for h in cann_sys::headers::cann_headers() {
        let rel = Path::new("include").join(h.path);
        let parent = folder(&root, rel.parent().expect("a header has a folder"))?;
        replace_file(&parent, &root.join(&rel), false, |f| {
            f.write_all(h.text.as_bytes())
        })?;
        headers.push(h.path.to_string());
    }
    replace_file(&include, &include.join("npu_sim.h"), false, |f| {
        f.write_all(npu_sim::HEADER.as_bytes())
    })?;
    headers.push("npu_sim.h".into());

    // Replaced, not overwritten in place: a running program may map the
    // old.
    let core_dst = lib64.join(CORE_LIBRARY);
    let mut from = std::fs::File::open(&core).map_err(io("read", &core))?;
    replace_file(&lib64, &core_dst, true, |f| {
        std::io::copy(&mut from, f).map(|_| ())
    })?;

    let cc = opts
        .cc
        .clone()
        .or_else(|| std::env::var("CC").ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "cc".into());
    // A private folder (a fresh random name, owner only): nothing planted
    // in the temporary area is followed. Removed when dropped.
    let work = tempfile::Builder::new()
        .prefix("npu-sim-install-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let mut libraries = Vec::new();
    for (lib, symbols) in cann_sys::headers::library_exports() {
        let src = work.path().join(format!("{lib}.c"));
        let mut c = format!(
            "/* {lib} of a simulated CANN root: a filter of {CORE_LIBRARY}, which \
             provides every symbol at run time. */\n"
        );
        for s in &symbols {
            c.push_str(&format!("void {s}(void) {{}}\n"));
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&src)
            .and_then(|mut f| f.write_all(c.as_bytes()))
            .map_err(io("write", &src))?;
        let built = work.path().join(lib);
        let run = Command::new(&cc)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&built)
            .arg(&src)
            .arg(format!("-Wl,-soname,{lib}"))
            .arg(format!("-Wl,--filter={CORE_LIBRARY}"))
            .arg("-Wl,-rpath,$ORIGIN")
            .output()
            .map_err(|e| format!("cannot run the C compiler `{cc}` (set CC): {e}"))?;
        if !run.status.success() {
            return Err(format!(
                "building {lib} with `{cc}` failed: {}",
                String::from_utf8_lossy(&run.stderr).trim()
            ));
        }
        let mut from = std::fs::File::open(&built).map_err(io("read", &built))?;
        replace_file(&lib64, &lib64.join(lib), true, |f| {
            std::io::copy(&mut from, f).map(|_| ())
        })?;
        libraries.push((lib.to_string(), symbols.len()));
    }
    work.close()
        .map_err(|e| format!("cannot remove the temporary folder: {e}"))?;

    let env = root.join("set_env.sh");
    let script = set_env_script(&root);
    replace_file(&root, &env, false, |f| f.write_all(&script))?;
    Ok(Installed {
        root,
        headers,
        libraries,
    })
}
