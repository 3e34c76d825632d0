//! Build script for cann-sys.
//!
//! Always: exports the target triple to the crate's tests (they compile a
//! fake CANN with the C compiler for that target), and looks for a CANN
//! installation as the run-time loader does (`src/layout.rs`), passing the
//! folder found to dependent build scripts (`DEP_CANN_SYS_LIB_DIR`).
//!
//! With the `link` feature: links that CANN's runtime, meta and operator
//! libraries (the build fails, naming every folder searched, without one).
//!
//! With the `bindgen` feature: regenerates the bindings into `OUT_DIR` (the
//! crate then uses them instead of the checked-in `src/bindings.rs`):
//! - from a real CANN installation when `ASCEND_HOME_PATH` (or
//!   `ASCEND_TOOLKIT_HOME`) holds `include/acl/acl.h`: exactly the items the
//!   project's header declares are taken from the real headers, so any
//!   drift between `include/cann_sys.h` and the installed CANN fails to
//!   compile;
//! - otherwise from `include/cann_sys.h`. `CANN_SYS_BINDINGS_COPY_TO=path`
//!   also copies the result to `path` (used by `ci/check-bindings.sh`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=include/cann_sys.h");
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    println!("cargo:rustc-env=CANN_SYS_TARGET={target}");
    println!(
        "cargo:include={}",
        std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
            .join("include")
            .display()
    );
    discover();
    #[cfg(feature = "bindgen")]
    generate::run();
}

#[allow(dead_code)]
#[path = "src/layout.rs"]
mod layout;

/// Finds CANN for this target; links it with the `link` feature.
fn discover() {
    use std::path::PathBuf;
    let mut roots = Vec::new();
    for var in layout::ROOT_VARIABLES {
        println!("cargo:rerun-if-env-changed={var}");
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push(PathBuf::from(v));
        }
    }
    roots.extend(layout::DEFAULT_ROOTS.iter().map(PathBuf::from));
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").expect("cargo sets the target arch");
    let dirs = layout::library_dirs(None, roots, &arch);
    let found = layout::find_runtime(&dirs);
    if let Some((dir, _)) = &found {
        println!("cargo:lib_dir={}", dir.display());
    }
    if std::env::var_os("CARGO_FEATURE_LINK").is_none() {
        return;
    }
    let Some((dir, runtime)) = found else {
        let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        println!(
            "cargo::error=cann-sys: the `link` feature links CANN at build time, but no CANN \
             runtime library ({}) was found; searched: {}. Install the CANN toolkit and source its \
             set_env.sh, or set ASCEND_HOME_PATH to the CANN root (the folder holding lib64/)",
            layout::RUNTIME_LIBRARIES.join(" or "),
            searched.join(", ")
        );
        return;
    };
    let meta = dir.join(layout::META_LIBRARY);
    let ops = layout::operator_candidates(&dir);
    if !meta.is_file() || ops.is_empty() {
        println!(
            "cargo::error=cann-sys: the `link` feature found {} but {} lacks {}",
            runtime.display(),
            dir.display(),
            if meta.is_file() {
                "any aclnn operator library (libopapi_*.so, libopapi.so or libaclnn_*.so)"
            } else {
                layout::META_LIBRARY
            }
        );
        return;
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    for lib in std::iter::once(runtime).chain([meta]).chain(ops) {
        let file = lib.file_name().unwrap().to_string_lossy().into_owned();
        let name = file.trim_start_matches("lib").trim_end_matches(".so");
        println!("cargo:rustc-link-lib=dylib={name}");
    }
    println!("cargo:rustc-env=CANN_SYS_LINKED_DIR={}", dir.display());
}

#[cfg(feature = "bindgen")]
mod generate {
    use std::env;
    use std::fs;
    use std::path::{Path, PathBuf};

    /// The enums the project declares; bindgen renders them as newtypes.
    const ENUMS: &[&str] = &[
        "aclDataType",
        "aclFormat",
        "aclrtMemMallocPolicy",
        "aclrtMemcpyKind",
        "aclrtMemAttr",
        "aclrtEventRecordedStatus",
        "aclrtStreamStatus",
        "aclrtRunMode",
        "aclrtCallbackBlockType",
        "aclmdlRICaptureMode",
        "aclmdlRICaptureStatus",
        "aclmdlRITaskType",
        "aclCannAttr",
        "aclrtLastErrLevel",
        "aclrtErrorType",
        "aclrtAicoreErrorType",
        "aclrtDevFeatureType",
        "aclrtDevResLimitType",
        "aclrtStreamConfigAttr",
        "aclrtReduceKind",
        "aclrtRandomNumFuncType",
        "aclrtFloatOverflowMode",
        "aclrtDevAttr",
        "aclrtMemLocationType",
        "aclrtMallocAttrType",
        "aclRegisterCallbackType",
        "aclSysParamOpt",
        "aclrtGroupAttr",
        "aclrtSnapShotStage",
    ];

    /// Names declared by the project's header, read from its text so that
    /// the real-header mode takes exactly the same items.
    struct Declared {
        functions: Vec<String>,
        types: Vec<String>,
        constants: Vec<String>,
        aclnn_defines: Vec<String>,
    }

    fn ident_before_paren(line: &str) -> Option<String> {
        let open = line.find('(')?;
        let head = line[..open].trim_end();
        let start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &head[start..];
        (!name.is_empty()).then(|| name.to_string())
    }

    fn parse_header(text: &str) -> Declared {
        let mut d = Declared {
            functions: Vec::new(),
            types: Vec::new(),
            constants: Vec::new(),
            aclnn_defines: Vec::new(),
        };
        for raw in text.lines() {
            let line = raw.trim();
            if let Some(rest) = line.strip_prefix("#define ") {
                let name = rest.split_whitespace().next().unwrap_or("");
                if name.starts_with("ACL") {
                    d.constants.push(name.to_string());
                    if name.starts_with("ACLNN_") {
                        d.aclnn_defines.push(line.to_string());
                    }
                }
            } else if let Some(rest) = line.strip_prefix("static const int ") {
                d.constants
                    .push(rest.split([' ', '=']).next().unwrap().to_string());
            } else if let Some(rest) = line.strip_prefix("typedef ") {
                // A function-pointer type: `typedef R (*name)(args);`.
                if let Some(name) = rest.split_once("(*").and_then(|(_, r)| r.split_once(')')) {
                    d.types.push(name.0.trim().to_string());
                } else if let Some(name) = rest.trim_end_matches(';').split_whitespace().last() {
                    let name = name.trim_start_matches('*');
                    if !rest.starts_with("enum") {
                        d.types.push(name.to_string());
                    }
                }
            } else if let Some(rest) = line.strip_prefix("} ") {
                d.types.push(rest.trim_end_matches(';').to_string());
            } else if !line.starts_with("/*") && !line.starts_with('*') && line.contains('(') {
                // A function taking a `va_list` (acllogVaList) is left out:
                // the type differs by target, and the bindings are one file.
                if line.contains("va_list") {
                    continue;
                }
                if let Some(name) = ident_before_paren(line).filter(|n| n.starts_with("acl")) {
                    d.functions.push(name);
                }
            }
        }
        d
    }

    fn real_include_dir() -> Option<PathBuf> {
        for var in ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"] {
            if let Some(root) = env::var_os(var).filter(|v| !v.is_empty()) {
                let inc = PathBuf::from(root).join("include");
                if inc.join("acl").join("acl.h").is_file() {
                    return Some(inc);
                }
            }
        }
        None
    }

    /// A C++ translation unit that includes the real CANN headers, plus the
    /// aclnn status macros (opdev/op_errno.h is not installed publicly).
    fn real_wrapper(inc: &Path, declared: &Declared) -> String {
        let mut w = String::from("#include <acl/acl.h>\n#include <aclnn/acl_meta.h>\n");
        w.push_str("#include <aclnn/aclnn_base.h>\n");
        for op in [
            "aclnn_slice.h",
            "aclnn_index_select.h",
            "aclnn_copy.h",
            "aclnn_constant_pad_nd.h",
            "aclnn_add.h",
            "aclnn_mul.h",
            "aclnn_cat.h",
            "aclnn_stack.h",
            "aclnn_fill_scalar.h",
            "aclnn_zero.h",
            "aclnn_cast.h",
            "aclnn_permute.h",
            "aclnn_flip.h",
            "aclnn_roll.h",
            "aclnn_expand.h",
            "aclnn_repeat.h",
            "aclnn_slice_v2.h",
            "aclnn_slice_v3.h",
            "aclnn_strided_slice.h",
            "aclnn_as_strided.h",
            "aclnn_view_copy.h",
            "aclnn_strided_slice_assign_v2.h",
            "aclnn_tril.h",
            "aclnn_triu.h",
            "aclnn_split_tensor.h",
            "aclnn_split_with_size.h",
            "aclnn_embedding.h",
            "aclnn_gather_v2.h",
            "aclnn_gather.h",
            "aclnn_take.h",
            "aclnn_index_copy.h",
            "aclnn_gather_nd.h",
            "aclnn_masked_select.h",
            "aclnn_index.h",
            "aclnn_reflection_pad1d.h",
            "aclnn_reflection_pad2d.h",
            "aclnn_reflection_pad3d.h",
            "aclnn_replication_pad1d.h",
            "aclnn_replication_pad2d.h",
            "aclnn_replication_pad3d.h",
            "aclnn_circular_pad2d.h",
            "aclnn_circular_pad3d.h",
        ] {
            for dir in ["aclnnop", "aclnnop/level2"] {
                if inc.join(dir).join(op).is_file() {
                    w.push_str(&format!("#include <{dir}/{op}>\n"));
                    break;
                }
            }
        }
        if inc.join("base").join("acl_log.h").is_file() {
            w.push_str("#include <base/acl_log.h>\n");
        }
        for def in &declared.aclnn_defines {
            let name = def.split_whitespace().nth(1).unwrap();
            w.push_str(&format!("#ifndef {name}\n{def}\n#endif\n"));
        }
        w
    }

    pub fn run() {
        println!("cargo:rerun-if-env-changed=ASCEND_HOME_PATH");
        println!("cargo:rerun-if-env-changed=ASCEND_TOOLKIT_HOME");
        println!("cargo:rerun-if-env-changed=CANN_SYS_BINDINGS_COPY_TO");
        let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
        let header = manifest.join("include").join("cann_sys.h");
        let declared = parse_header(&fs::read_to_string(&header).expect("read cann_sys.h"));
        let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bindings.rs");

        let mut builder = bindgen::Builder::default()
            .use_core()
            .layout_tests(true)
            .generate_comments(false)
            .derive_default(false)
            .size_t_is_usize(true)
            .prepend_enum_name(false)
            .default_macro_constant_type(bindgen::MacroTypeVariation::Signed)
            .formatter(bindgen::Formatter::Rustfmt);
        for e in ENUMS {
            builder = builder.newtype_enum(e);
        }
        for f in &declared.functions {
            builder = builder.allowlist_function(f);
        }
        for t in &declared.types {
            builder = builder.allowlist_type(t);
        }
        for c in &declared.constants {
            builder = builder.allowlist_var(c);
        }
        let source = match real_include_dir() {
            Some(inc) => {
                println!(
                    "cargo:warning=cann-sys: generating bindings from {}",
                    inc.display()
                );
                builder
                    .header_contents("cann_real.hpp", &real_wrapper(&inc, &declared))
                    .clang_args(["-x", "c++", "-std=c++14"])
                    .clang_arg(format!("-I{}", inc.display()))
                    .clang_arg(format!("-I{}", inc.join("aclnn").display()))
            }
            None => builder
                .header(header.to_str().unwrap())
                .clang_args(["-x", "c", "-std=c11"]),
        };
        let bindings = source.generate().expect("bindgen failed");
        bindings.write_to_file(&out).expect("write bindings");
        if let Some(copy) = env::var_os("CANN_SYS_BINDINGS_COPY_TO").filter(|v| !v.is_empty()) {
            fs::copy(&out, copy).expect("copy bindings");
        }
    }
}
