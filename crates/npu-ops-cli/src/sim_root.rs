//! `npu-ops sim install DIR`: the simulator laid out as a CANN
//! installation, so that aclnn programs written for CANN (its samples
//! included) build with CANN's documented lines and run on the simulator
//! unchanged, and the tools that look for a CANN installation find one.
//!
//! As in CANN, the files are in `<arch>-linux/` ([`arch_dir`]:
//! `x86_64-linux`, `aarch64-linux`), and the top-level `include`, `lib64`
//! and `bin` are relative links to its folders (CANN's packages declare
//! them `install_softlink`), so a copied root (`cp -r`) holds its own. The
//! root holds:
//! - `include/`: CANN's header layout (`acl/acl.h`, `aclnn/aclnn_base.h`,
//!   `aclnnop/aclnn_slice.h`, ...), generated from `cann_sys.h`
//!   ([`cann_sys::headers`]); `aclnn/opdev/op_errno.h` with
//!   `ACLNN_SUCCESS` and the `ACLNN_ERR_*` codes, from cann-sys's bindings
//!   ([`ACLNN_CODES`]); `npu_sim.h` (the simulator's own entry points);
//! - `lib64/`: `libnpu_sim_c.so`, the simulator, and CANN's libraries
//!   (`libascendcl.so`, `libacl_rt.so`, `libnnopbase.so`,
//!   `libopapi_math.so`, `libopapi_nn.so`, the legacy `libopapi.so`, and
//!   the log library `libascendalog.so` of `base/acl_log.h`),
//!   each with its SONAME and exporting only what its CANN counterpart
//!   exports, so a program linked against the wrong libraries fails to link
//!   as it would on an NPU host. They are ELF filters of the simulator: the
//!   dynamic loader takes every symbol from `libnpu_sim_c.so`, one copy of
//!   the simulator's state however many libraries a program loads;
//! - the version files, all with [`CANN_VERSION`]:
//!   `<arch>-linux/ascend_toolkit_install.info` (`key=value` lines,
//!   `version=` the first that holds the word: torch_npu's `collect_env`
//!   and DeepSpeed's NPU op builder walk `$ASCEND_HOME_PATH` for
//!   `ascend_*_install.info` and take that line's value after `=`),
//!   `share/info/<package>/version.info` for [`VERSION_PACKAGES`] and
//!   `runtime/version.info` (`Version=` first, as CANN's packaging writes
//!   it);
//! - `runtime/` (`include`, `lib64`) and `compiler/` (`lib64`), links to
//!   the same headers and libraries, for older tools that look there;
//! - `set_env.sh` (and `bin/setenv.bash`, which CANN's runtime examples
//!   source, sourcing it): the variables CANN's `set_env.sh` sets, with
//!   CANN's values: `ASCEND_HOME_PATH`, `ASCEND_TOOLKIT_HOME`,
//!   `ASCEND_OPP_PATH`, `ASCEND_AICPU_PATH`, `TOOLCHAIN_HOME`, and the
//!   root's entry first, once, in `PATH` (`bin`), `LD_LIBRARY_PATH`
//!   (`lib64`), `PYTHONPATH` (`python/site-packages`) and
//!   `CMAKE_PREFIX_PATH` (`lib64/cmake`): sourced twice, nothing changes.
//!   The root is the script's own folder: bash and zsh name the sourced
//!   file; other shells (dash, ash) do not, and there, on Linux, the
//!   script is the shell's highest-numbered descriptor open on a file of
//!   its name (`/proc/$$/fd`). The fallback, where neither works (a
//!   subshell of dash, another system) or the script's folder is no root
//!   (a link to the script, a copy outside a root), is the folder it was
//!   installed in, quoted: a path with spaces, quotes, `;` or `$( )` is
//!   only ever a path. A root whose path holds a `:` leaves the lists
//!   alone, with a warning (a list cannot hold it).
//!
//! The root tells the truth: it declares what the simulator implements and
//! no more. No folder is made for what it lacks (`toolkit/`,
//! `python/site-packages/`, `lib64/cmake/`: CANN ships no package config
//! for these libraries; the variables name them as CANN's do); no
//! compiler: `compiler/` holds `lib64` and a `README` that says there is
//! no AscendC or TBE toolchain (no `ccec`, `bisheng`, `ascendc`), and no
//! stub answers in their place. One file is there for host code:
//! `<arch>-linux/tikcpp/ascendc_kernel_cmake/ascendc.cmake` (and
//! `compiler/tikcpp`, a link to that `tikcpp`), because CANN's runtime
//! examples find SOC_VERSION and their CMake setup through it and include
//! it even when they build host code only. It defines AscendC's CMake
//! functions (`ascendc_library`, `ascendc_fatbin_library`, ...) so that
//! each stops the configuration with a message saying the root has no
//! kernel toolchain: a host-only project builds, a kernel project fails at
//! its first kernel target, by name.
//!
//! Hostile paths: nothing is written through a symbolic link planted in
//! the root (a file or link of the layout that is a link is replaced, a
//! folder that is a link is refused by name, as is a folder where the
//! layout has a link), and the C sources are written in a private
//! temporary folder, created afresh and removed afterwards. A folder of
//! the layout (the root included) that another user owns, or that every
//! user may write in, is refused: someone else could swap it for a link
//! while the install writes.
//!
//! Building the libraries needs a C compiler (`CC`, default `cc`), as
//! building an aclnn program does.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulator's shared library (`crates/npu-sim-c`).
pub const CORE_LIBRARY: &str = "libnpu_sim_c.so";

/// The CANN version the simulated root declares, in its version files
/// (`<arch>-linux/ascend_toolkit_install.info`,
/// `share/info/<package>/version.info`, `runtime/version.info`): the
/// simulator's own, which `aclsysGetVersionStr` returns, so the root and
/// the library never disagree.
pub use npu_sim::CANN_VERSION;

/// The packages of `share/info/` the root declares, each with a
/// `version.info`: CANN's runtime (`libascendcl.so`, `libacl_rt.so`) and
/// the operator packages whose libraries the root holds
/// (`libopapi_math.so`, `libopapi_nn.so`), named as CANN's packages
/// install themselves (`share/info/runtime`, `share/info/ops_transformer`,
/// ...). Nothing for a compiler, toolkit or `opp` kernel package: the
/// root has none.
pub const VERSION_PACKAGES: &[&str] = &["runtime", "ops_math", "ops_nn"];

/// Where CANN keeps its aclnn status codes, under `include/`.
pub const OP_ERRNO_H: &str = "aclnn/opdev/op_errno.h";

macro_rules! aclnn_codes {
    ($($name:ident),* $(,)?) => {
        /// CANN's aclnn status codes, `(name, value)`, as `op_errno.h`
        /// declares them: the values are cann-sys's bindings, so the
        /// header says what the simulator returns.
        pub const ACLNN_CODES: &[(&str, i32)] =
            &[$((stringify!($name), cann_sys::bindings::$name)),*];
    };
}

aclnn_codes!(
    ACLNN_SUCCESS,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_RUNTIME_ERROR,
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_INFERSHAPE_ERROR,
    ACLNN_ERR_INNER_TILING_ERROR,
    ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
    ACLNN_ERR_INNER_CREATE_EXECUTOR,
    ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR,
    ACLNN_ERR_INNER_NULLPTR,
    ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE,
    ACLNN_ERR_INNER_KEY_CONFILICT,
    ACLNN_ERR_INNER_KEY_CONFLICT,
    ACLNN_ERR_INNER_INVALID_IMPL_MODE,
    ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND,
    ACLNN_ERR_INNER_LOAD_JSON_FAILED,
    ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND,
    ACLNN_ERR_INNER_JSON_FORMAT_INVALID,
    ACLNN_ERR_INNER_JSON_DTYPE_INVALID,
    ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND,
    ACLNN_ERR_INNER_OP_FILE_INVALID,
    ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND,
    ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH,
    ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE,
    ACLNN_ERR_INNER_INPUT_JSON_IS_NULL,
    ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID,
    ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID,
);

/// The folder of the root that holds its files, named as CANN names it
/// for this machine: `x86_64-linux`, `aarch64-linux`.
pub fn arch_dir() -> String {
    format!("{}-linux", std::env::consts::ARCH)
}

/// The text of `include/aclnn/opdev/op_errno.h`: `ACLNN_SUCCESS` and the
/// `ACLNN_ERR_*` codes ([`ACLNN_CODES`]), C and C++.
pub fn op_errno_h() -> String {
    let guard = "NPU_SIM_CANN_ACLNN_OPDEV_OP_ERRNO_H";
    let mut t = format!(
        "/*\n * {OP_ERRNO_H} - CANN's aclnn status codes, as npu-ops's simulator\n \
         * returns them, generated from cann-sys's bindings (do not edit).\n \
         */\n#ifndef {guard}\n#define {guard}\n\n"
    );
    for (name, value) in ACLNN_CODES {
        t.push_str(&format!("#define {name:<44} {value}\n"));
    }
    t.push_str(&format!("\n#endif /* {guard} */\n"));
    t
}

/// The text of `<arch>-linux/ascend_toolkit_install.info`, in the form
/// of CANN's (`key=value` lines): `version=` is the first line that holds
/// the word `version`, which is the line torch_npu's `collect_env` and
/// DeepSpeed's NPU op builder take. No `path=`: the root may be moved.
pub fn toolkit_install_info() -> String {
    format!(
        "package_name=Ascend-cann-toolkit\nversion={CANN_VERSION}\narch={}\nos=linux\n\
         simulated_by=npu-ops sim install\n",
        std::env::consts::ARCH
    )
}

/// The text of a package's `version.info` (`share/info/<package>/`,
/// `runtime/`), in the form CANN's packaging writes: `Version=` first.
pub fn version_info() -> String {
    format!("Version={CANN_VERSION}\n")
}

/// `<arch>-linux/tikcpp/ascendc_kernel_cmake/ascendc.cmake`: AscendC's
/// CMake functions, each refusing to build device code (see the module
/// doc).
pub const ASCENDC_CMAKE: &str = r#"# ascendc.cmake of a simulated CANN root (npu-ops sim install).
#
# The root runs host code and CANN's built-in aclnn operators on the CPU.
# It has no AscendC kernel toolchain (no bisheng, ccec or ascendc), so the
# functions that build device code stop the configuration here, by name.
# Including this file is enough for host-only projects, which CANN's
# examples include it from.
set(NPU_SIM_ASCENDC_STUB TRUE)
function(_npu_sim_no_kernels fn)
    list(JOIN ARGN " " args)
    message(FATAL_ERROR
        "${fn}(${args}): this CANN root is npu-ops's simulator (npu-ops sim install): "
        "it runs host code and CANN's built-in aclnn operators only and has no AscendC "
        "kernel toolchain (bisheng, ccec). Build device kernels against a real CANN toolkit.")
endfunction()
function(ascendc_library)
    _npu_sim_no_kernels(ascendc_library ${ARGV})
endfunction()
function(ascendc_fatbin_library)
    _npu_sim_no_kernels(ascendc_fatbin_library ${ARGV})
endfunction()
function(ascendc_include_directories)
    _npu_sim_no_kernels(ascendc_include_directories ${ARGV})
endfunction()
function(ascendc_compile_definitions)
    _npu_sim_no_kernels(ascendc_compile_definitions ${ARGV})
endfunction()
function(ascendc_compile_options)
    _npu_sim_no_kernels(ascendc_compile_options ${ARGV})
endfunction()
function(ascendc_link_libraries)
    _npu_sim_no_kernels(ascendc_link_libraries ${ARGV})
endfunction()
function(ascendc_pack_kernel)
    _npu_sim_no_kernels(ascendc_pack_kernel ${ARGV})
endfunction()
"#;

/// `compiler/README`: what the folder holds, and what it does not.
const COMPILER_README: &str = "\
compiler/ of a simulated CANN root (npu-ops sim install)

lib64 is the root's lib64: the simulator's libraries (libascendcl.so,
libnnopbase.so, libopapi_math.so, ...), for tools that look for CANN's
libraries here.

There is no compiler here. The root simulates CANN's runtime and its aclnn
operators on the CPU; it has no AscendC or TBE kernel toolchain: no ccec,
bisheng or ascendc, no tikicpulib, no compiler version.info. tikcpp/ holds
only ascendc_kernel_cmake/ascendc.cmake, for host code that includes it:
its ascendc_library, ascendc_fatbin_library, ... stop the configuration
with a message. A project that compiles device kernels (ascendc_library,
<<<>>> launches, custom operators) fails there or at its own check for the
toolchain: build it against a real CANN toolkit.
";

/// Makes `dir/name` a symbolic link to `target` (relative, so that a
/// copied root holds its own), replacing what is there if it is a file or
/// a link (never followed), by renaming a new link over it. A folder
/// there is refused, by name: the layout has a link where an install of
/// an earlier npu-ops had a folder, and the install removes no folder.
fn replace_link(dir: &Path, name: &str, target: &Path) -> Result<(), String> {
    let at = dir.join(name);
    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_dir()) {
        return Err(format!(
            "{} is a folder, where CANN's layout has a link to {} (an install by an earlier \
             npu-ops had a folder there): remove it, or install elsewhere",
            at.display(),
            target.display()
        ));
    }
    #[cfg(unix)]
    {
        let link = tempfile::Builder::new()
            .prefix(".npu-sim-install-")
            .suffix(".tmp")
            .make_in(dir, |p| std::os::unix::fs::symlink(target, p))
            .map_err(io("create a link in", dir))?;
        link.persist(&at).map_err(|e| io("write", &at)(e.error))?;
        Ok(())
    }
    #[cfg(not(unix))]
    Err(format!(
        "cannot link {} here: not a unix system",
        at.display()
    ))
}

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

/// The shell text that finds the root a sourced script is in and leaves
/// it in `_npu_sim_root`: the script is `name`, in the folder `sub` of the
/// root (`""`: the root itself). bash and zsh name the sourced file
/// (`BASH_SOURCE`, `%x`); other shells (dash, ash) do not, and there, on
/// Linux, the script is the highest-numbered descriptor of the shell
/// (`/proc/$$/fd`) open on a file of that name: dash keeps the file it
/// reads open (a subshell's `$$` is its parent's: a subshell finds
/// nothing). A script that is a symbolic link, or a folder that holds no
/// root (a link to the script, a hard link or copy outside a root, a name
/// found through `PATH`), is not taken: the root it was installed in,
/// quoted, is. No part of a path is ever run as a command.
fn find_root_script(root: &Path, sub: &str, name: &str) -> Vec<u8> {
    // The folder the script is in, less `/sub`, is the root.
    let strip = if sub.is_empty() {
        String::new()
    } else {
        format!(
            "        case $_npu_sim_dir in\n            \
             */{sub}) _npu_sim_dir=${{_npu_sim_dir%/{sub}}} ;;\n            \
             *) _npu_sim_dir= ;;\n        esac\n"
        )
    };
    let text = r#"
_npu_sim_self=
if [ -n "${BASH_VERSION:-}" ]; then
    eval '_npu_sim_self=${BASH_SOURCE[0]:-}'
elif [ -n "${ZSH_VERSION:-}" ]; then
    # $0 is the sourced file unless emulating sh; %x shows a newline as \n.
    eval 'if [[ -o function_argzero ]]; then _npu_sim_self=$0; else _npu_sim_self=${(%):-%x}; fi'
else
    # No name for the sourced file: the highest-numbered descriptor of
    # this shell open on a file called @NAME@ is this script (Linux).
    _npu_sim_max=-1
    for _npu_sim_fd in /proc/$$/fd/*; do
        _npu_sim_n=${_npu_sim_fd##*/}
        case $_npu_sim_n in
            '' | *[!0-9]*) continue ;;
        esac
        if [ "$_npu_sim_n" -gt "$_npu_sim_max" ] \
            && _npu_sim_to=$(readlink -- "$_npu_sim_fd" 2>/dev/null && printf x); then
            _npu_sim_to=${_npu_sim_to%?x}
            case $_npu_sim_to in
                /*/@NAME@)
                    _npu_sim_self=$_npu_sim_to
                    _npu_sim_max=$_npu_sim_n
                    ;;
            esac
        fi
    done
fi
case "$_npu_sim_self" in
    */*) _npu_sim_dir=${_npu_sim_self%/*} ;;
    '') _npu_sim_dir= ;;
    *) _npu_sim_dir=. ;;
esac
# Only the script's own folder, and only in a root: a link to the script
# (or a copy found through PATH or the current folder) leaves the
# installed root.
if [ -n "$_npu_sim_dir" ] && [ ! -L "$_npu_sim_self" ] && [ -f "$_npu_sim_dir/@NAME@" ]; then
    # pwd's newline and an x guard a root whose name ends in newlines.
    if _npu_sim_dir=$(CDPATH= cd -P -- "$_npu_sim_dir" && pwd -P && printf x); then
        _npu_sim_dir=${_npu_sim_dir%?x}
@STRIP@        if [ -n "$_npu_sim_dir" ] && [ -f "$_npu_sim_dir/set_env.sh" ] \
            && [ -f "$_npu_sim_dir/lib64/@CORE@" ]; then
            _npu_sim_root=$_npu_sim_dir
        fi
    fi
fi
unset _npu_sim_self _npu_sim_dir _npu_sim_max _npu_sim_fd _npu_sim_n _npu_sim_to
"#
    .replace("@STRIP@", &strip)
    .replace("@NAME@", name)
    .replace("@CORE@", CORE_LIBRARY);
    let mut s: Vec<u8> = b"_npu_sim_root=".to_vec();
    s.extend_from_slice(&shell_word(&path_bytes(root)));
    s.extend_from_slice(text.as_bytes());
    s
}

/// The text of `set_env.sh` for a root installed at `root`: the
/// variables CANN's `set_env.sh` sets, with CANN's values, for the root
/// found by [`find_root_script`] (the root may be moved or copied). The
/// lists (`PATH`, `LD_LIBRARY_PATH`, `PYTHONPATH`, `CMAKE_PREFIX_PATH`)
/// get the root's entry first and once: sourced twice, nothing changes.
/// A root whose path holds a `:`, which such lists cannot hold, leaves
/// them alone, with a warning.
fn set_env_script(root: &Path) -> Vec<u8> {
    let mut s: Vec<u8> =
        b"# A simulated CANN installation (npu-ops sim install). Source it, as CANN's own\n\
          # set_env.sh: `. DIR/set_env.sh` (bash, zsh, sh). The root is the folder of\n\
          # this script, else the folder it was installed in.\n"
            .to_vec();
    s.extend_from_slice(&find_root_script(root, "", "set_env.sh"));
    s.extend_from_slice(
        br#"export ASCEND_HOME_PATH="$_npu_sim_root"
export ASCEND_TOOLKIT_HOME="$_npu_sim_root"
export ASCEND_OPP_PATH="$_npu_sim_root/opp"
export ASCEND_AICPU_PATH="$_npu_sim_root"
# As CANN's; the root has no toolkit folder (no tools, no tikicpulib).
export TOOLCHAIN_HOME="$_npu_sim_root/toolkit"
# _npu_sim_entry first in the colon list _npu_sim_list, once; the list's
# other entries (empty ones included) keep their order.
_npu_sim_prepend() {
    _npu_sim_rest=$_npu_sim_list
    _npu_sim_list=$_npu_sim_entry
    _npu_sim_more=1
    if [ -z "$_npu_sim_rest" ]; then
        _npu_sim_more=0
    fi
    while [ "$_npu_sim_more" = 1 ]; do
        case $_npu_sim_rest in
            *:*)
                _npu_sim_item=${_npu_sim_rest%%:*}
                _npu_sim_rest=${_npu_sim_rest#*:}
                ;;
            *)
                _npu_sim_item=$_npu_sim_rest
                _npu_sim_more=0
                ;;
        esac
        if [ "x$_npu_sim_item" != "x$_npu_sim_entry" ]; then
            _npu_sim_list=$_npu_sim_list:$_npu_sim_item
        fi
    done
}
case $_npu_sim_root in
    *:*)
        printf 'npu-ops sim: %s has a ":", which PATH-like lists cannot hold: PATH, LD_LIBRARY_PATH, PYTHONPATH and CMAKE_PREFIX_PATH are left as they were\n' "$_npu_sim_root" >&2
        ;;
    *)
        _npu_sim_list=${PATH:-}
        _npu_sim_entry=$_npu_sim_root/bin
        _npu_sim_prepend
        PATH=$_npu_sim_list
        export PATH
        _npu_sim_list=${LD_LIBRARY_PATH:-}
        _npu_sim_entry=$_npu_sim_root/lib64
        _npu_sim_prepend
        LD_LIBRARY_PATH=$_npu_sim_list
        export LD_LIBRARY_PATH
        # As CANN's; the root has no Python package (no pyACL, no te/tbe).
        _npu_sim_list=${PYTHONPATH:-}
        _npu_sim_entry=$_npu_sim_root/python/site-packages
        _npu_sim_prepend
        PYTHONPATH=$_npu_sim_list
        export PYTHONPATH
        # As CANN's; CANN ships no package config for these libraries.
        _npu_sim_list=${CMAKE_PREFIX_PATH:-}
        _npu_sim_entry=$_npu_sim_root/lib64/cmake
        _npu_sim_prepend
        CMAKE_PREFIX_PATH=$_npu_sim_list
        export CMAKE_PREFIX_PATH
        ;;
esac
unset -f _npu_sim_prepend
unset _npu_sim_root _npu_sim_list _npu_sim_entry _npu_sim_rest _npu_sim_more _npu_sim_item
"#,
    );
    s
}

/// The text of `bin/setenv.bash` (`<arch>-linux/bin/setenv.bash`, as
/// CANN's runtime package has it), which CANN's runtime examples source:
/// it finds its root as `set_env.sh` does ([`find_root_script`]) and
/// sources that root's `set_env.sh`.
fn setenv_bash_script(root: &Path, arch: &str) -> Vec<u8> {
    let mut s: Vec<u8> =
        b"# A simulated CANN installation (npu-ops sim install): sources the root's\n\
          # set_env.sh, as CANN's bin/setenv.bash sets up its root.\n"
            .to_vec();
    s.extend_from_slice(&find_root_script(
        root,
        &format!("{arch}/bin"),
        "setenv.bash",
    ));
    s.extend_from_slice(
        br#"_npu_sim_setenv=$_npu_sim_root/set_env.sh
unset _npu_sim_root
. "$_npu_sim_setenv"
unset _npu_sim_setenv
"#,
    );
    s
}

/// Lays out `dir` as a CANN installation backed by the simulator (see the
/// module documentation). `dir` is created if needed; files of an earlier
/// install are replaced.
///
/// Nothing is written through a symbolic link: a file of the layout that
/// is a link is replaced by the file (its target is left alone), as is a
/// link of the layout (`include`, `lib64`, ...: replaced, never
/// followed); a folder of the layout that is a link is refused with an
/// error naming it, as is one that another user owns or every user may
/// write in, and a folder where the layout has a link (`include/` of an
/// install before the `<arch>-linux/` tree). The C sources of the
/// libraries are written in a private temporary folder (random name,
/// owner only), removed afterwards.
pub fn install(dir: &Path, opts: &Options) -> Result<Installed, String> {
    let core = find_core(opts)?;
    new_folder()
        .recursive(true)
        .create(dir)
        .map_err(io("create", dir))?;
    let root = dir.canonicalize().map_err(io("resolve", dir))?;
    let arch = arch_dir();
    let arch_path = Path::new(&arch);
    // CANN's layout: the files in `<arch>-linux/`, links to its folders
    // at the top (its packages' `install_softlink`).
    let include = folder(&root, &arch_path.join("include"))?;
    let lib64 = folder(&root, &arch_path.join("lib64"))?;
    let bin = folder(&root, &arch_path.join("bin"))?;
    folder(&root, Path::new("opp"))?;
    let mut headers = Vec::new();
    let mut texts: Vec<(String, String)> = cann_sys::headers::cann_headers()
        .into_iter()
        .map(|h| (h.path.to_string(), h.text))
        .collect();
    texts.push((OP_ERRNO_H.to_string(), op_errno_h()));
    for (path, text) in texts {
        let rel = arch_path.join("include").join(&path);
        let parent = folder(&root, rel.parent().expect("a header has a folder"))?;
        replace_file(&parent, &root.join(&rel), false, |f| {
            f.write_all(text.as_bytes())
        })?;
        headers.push(path);
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

    // The version files tools read (formats: the module documentation).
    let arch_root = folder(&root, arch_path)?;
    replace_file(
        &arch_root,
        &arch_root.join("ascend_toolkit_install.info"),
        false,
        |f| f.write_all(toolkit_install_info().as_bytes()),
    )?;
    for package in VERSION_PACKAGES {
        let at = folder(&root, &Path::new("share/info").join(package))?;
        replace_file(&at, &at.join("version.info"), false, |f| {
            f.write_all(version_info().as_bytes())
        })?;
    }

    // The top-level folders are links into `<arch>-linux/`, as in CANN,
    // and so are the `runtime/` and `compiler/` folders older tools look
    // in: the same headers and libraries, nothing else.
    for (name, to) in [("include", "include"), ("lib64", "lib64"), ("bin", "bin")] {
        replace_link(&root, name, &arch_path.join(to))?;
    }
    let runtime = folder(&root, Path::new("runtime"))?;
    replace_link(
        &runtime,
        "include",
        &Path::new("..").join(&arch).join("include"),
    )?;
    replace_link(
        &runtime,
        "lib64",
        &Path::new("..").join(&arch).join("lib64"),
    )?;
    replace_file(&runtime, &runtime.join("version.info"), false, |f| {
        f.write_all(version_info().as_bytes())
    })?;
    let cmake_dir = folder(&root, &Path::new(&arch).join("tikcpp/ascendc_kernel_cmake"))?;
    replace_file(&cmake_dir, &cmake_dir.join("ascendc.cmake"), false, |f| {
        f.write_all(ASCENDC_CMAKE.as_bytes())
    })?;
    let compiler = folder(&root, Path::new("compiler"))?;
    replace_link(
        &compiler,
        "lib64",
        &Path::new("..").join(&arch).join("lib64"),
    )?;
    replace_link(
        &compiler,
        "tikcpp",
        &Path::new("..").join(&arch).join("tikcpp"),
    )?;
    replace_file(&compiler, &compiler.join("README"), false, |f| {
        f.write_all(COMPILER_README.as_bytes())
    })?;

    let setenv = setenv_bash_script(&root, &arch);
    replace_file(&bin, &bin.join("setenv.bash"), false, |f| {
        f.write_all(&setenv)
    })?;
    let env = root.join("set_env.sh");
    let script = set_env_script(&root);
    replace_file(&root, &env, false, |f| f.write_all(&script))?;
    Ok(Installed {
        root,
        headers,
        libraries,
    })
}
