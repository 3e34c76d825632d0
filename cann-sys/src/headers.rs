//! CANN's header layout, generated from the project's one header
//! (`include/cann_sys.h`), whose parts are marked with the CANN header that
//! declares them (`/* @cann acl/acl_rt.h */`, ...; `/* @cann - */` for
//! what no public CANN header declares, such as the aclnn status macros).
//!
//! [`cann_headers`] gives the files a C or C++ aclnn program includes
//! (`acl/acl.h`, `aclnn/aclnn_base.h`, `aclnnop/aclnn_slice.h`, ...), each
//! declaring what CANN's declares that this project implements, and no
//! more; [`library_exports`] gives which library exports which function,
//! as on a CANN installation. Both derive from the same marks, so the
//! layout, the libraries and the bindings cannot drift apart.
//!
//! A declaration is copied as written, attributes included: where CANN
//! declares a function weak (`acllogRecord` in `base/acl_log.h`, which
//! programs test against NULL), `cann_sys.h` puts `__attribute__((weak))`
//! after its parameters, where the name is still the identifier before the
//! first parenthesis.

/// The project's header, as built into this crate.
pub const CANN_SYS_H: &str = include_str!("../include/cann_sys.h");

/// One generated header file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Its path under `include/` (`"acl/acl_rt.h"`).
    pub path: &'static str,
    /// Its text.
    pub text: String,
}

/// Every header of the layout, with the headers each includes (quoted
/// includes, relative to the including file or to `include/`; a name in
/// `<>` is a system header).
const LAYOUT: &[(&str, &[&str])] = &[
    ("base/log_types.h", &[]),
    ("base/acl_log.h", &["<stdarg.h>", "log_types.h"]),
    ("acl/error_codes/rt_error_codes.h", &[]),
    ("acl/acl_base.h", &["error_codes/rt_error_codes.h"]),
    ("acl/acl_rt_allocator.h", &["acl_base.h"]),
    ("acl/acl_rt.h", &["acl_base.h", "acl_rt_allocator.h"]),
    ("acl/acl.h", &["acl_rt.h"]),
    ("aclnn/acl_meta.h", &["acl/acl_base.h"]),
    ("aclnn/aclnn_base.h", &["acl_meta.h"]),
    ("aclnnop/aclnn_util.h", &[]),
    (
        "aclnnop/aclnn_slice.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_index_select.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_copy.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_constant_pad_nd.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_add.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_mul.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_cat.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_stack.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_fill_scalar.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_zero.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_cast.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_permute.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_flip.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_roll.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_expand.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_repeat.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    // CANN ships aclnn_repeat.h under level2/ as well (CANN's own Repeat
    // sample includes either): the second path includes the first.
    ("aclnnop/level2/aclnn_repeat.h", &["../aclnn_repeat.h"]),
    (
        "aclnnop/aclnn_slice_v2.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_slice_v3.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_strided_slice.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_as_strided.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_view_copy.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_strided_slice_assign_v2.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_tril.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_triu.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_split_tensor.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_split_with_size.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_embedding.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_gather_v2.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_gather.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_take.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_index_copy.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_gather_nd.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_masked_select.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_index.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_reflection_pad1d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_reflection_pad2d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_reflection_pad3d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_replication_pad1d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_replication_pad2d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_replication_pad3d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_circular_pad2d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
    (
        "aclnnop/aclnn_circular_pad3d.h",
        &["aclnn/aclnn_base.h", "aclnn_util.h"],
    ),
];

/// The libraries of a CANN installation and the headers whose functions
/// each exports (`libacl_rt.so` is CANN 9's name for the runtime;
/// `libopapi.so` the deprecated umbrella of every operator).
const LIBRARIES: &[(&str, &[&str])] = &[
    ("libascendcl.so", &["acl/"]),
    ("libacl_rt.so", &["acl/"]),
    ("libnnopbase.so", &["aclnn/"]),
    (
        "libopapi_math.so",
        &[
            "aclnnop/aclnn_slice.h",
            "aclnnop/aclnn_copy.h",
            "aclnnop/aclnn_constant_pad_nd.h",
            "aclnnop/aclnn_add.h",
            "aclnnop/aclnn_mul.h",
            "aclnnop/aclnn_cat.h",
            "aclnnop/aclnn_stack.h",
            "aclnnop/aclnn_fill_scalar.h",
            "aclnnop/aclnn_zero.h",
            "aclnnop/aclnn_cast.h",
            "aclnnop/aclnn_permute.h",
            "aclnnop/aclnn_roll.h",
            "aclnnop/aclnn_expand.h",
            "aclnnop/aclnn_repeat.h",
            "aclnnop/aclnn_slice_v2.h",
            "aclnnop/aclnn_slice_v3.h",
            "aclnnop/aclnn_strided_slice.h",
            "aclnnop/aclnn_as_strided.h",
            "aclnnop/aclnn_view_copy.h",
            "aclnnop/aclnn_strided_slice_assign_v2.h",
            "aclnnop/aclnn_masked_select.h",
            "aclnnop/aclnn_tril.h",
            "aclnnop/aclnn_triu.h",
            "aclnnop/aclnn_split_tensor.h",
            "aclnnop/aclnn_split_with_size.h",
            "aclnnop/aclnn_reflection_pad1d.h",
            "aclnnop/aclnn_reflection_pad2d.h",
            "aclnnop/aclnn_reflection_pad3d.h",
            "aclnnop/aclnn_replication_pad1d.h",
            "aclnnop/aclnn_replication_pad2d.h",
            "aclnnop/aclnn_replication_pad3d.h",
            "aclnnop/aclnn_circular_pad2d.h",
            "aclnnop/aclnn_circular_pad3d.h",
        ],
    ),
    (
        "libopapi_nn.so",
        &[
            "aclnnop/aclnn_index_select.h",
            "aclnnop/aclnn_flip.h",
            "aclnnop/aclnn_embedding.h",
            "aclnnop/aclnn_gather_v2.h",
            "aclnnop/aclnn_gather.h",
            "aclnnop/aclnn_take.h",
            "aclnnop/aclnn_index_copy.h",
            "aclnnop/aclnn_gather_nd.h",
            "aclnnop/aclnn_index.h",
        ],
    ),
    ("libopapi.so", &["aclnnop/"]),
    ("libascendalog.so", &["base/acl_log.h"]),
];

/// The marked parts of `cann_sys.h`: (CANN header, lines), in order.
fn parts() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut parts: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    let mut current: Option<&'static str> = None;
    for line in CANN_SYS_H.lines() {
        let t = line.trim();
        if let Some(mark) = t
            .strip_prefix("/* @cann ")
            .and_then(|r| r.strip_suffix(" */"))
        {
            current = match mark {
                "end" | "-" => None,
                path => Some(path),
            };
            if let Some(p) = current {
                parts.push((p, Vec::new()));
            }
            continue;
        }
        if current.is_some() {
            parts.last_mut().expect("a part is open").1.push(line);
        }
    }
    parts
}

/// Whether `line` starts the declaration of a function (its name is the
/// identifier before the first parenthesis, and starts with `acl`).
fn declared_function(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if t.starts_with('#')
        || t.starts_with("typedef")
        || t.starts_with("static")
        || t.starts_with("/*")
        || t.starts_with('*')
    {
        return None;
    }
    let open = t.find('(')?;
    let head = t[..open].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &head[start..];
    (name.starts_with("acl") && start > 0).then_some(name)
}

fn guard(path: &str) -> String {
    let mut g = String::from("NPU_SIM_CANN_");
    for c in path.chars() {
        g.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    g
}

/// CANN's header layout, generated from `cann_sys.h`'s marks.
///
/// ```
/// let headers = cann_sys::headers::cann_headers();
/// let slice = headers.iter().find(|h| h.path == "aclnnop/aclnn_slice.h").unwrap();
/// assert!(slice.text.contains("ACLNN_API aclnnStatus aclnnSliceGetWorkspaceSize("));
/// assert!(!slice.text.contains("aclnnIndexSelect"));
/// ```
pub fn cann_headers() -> Vec<Header> {
    let parts = parts();
    LAYOUT
        .iter()
        .map(|&(path, includes)| {
            let g = guard(path);
            let mut t = format!(
                "/*\n * {path} - the part of CANN's {path} that npu-ops's simulator\n \
                 * implements, generated from cann-sys/include/cann_sys.h (do not edit).\n \
                 */\n#ifndef {g}\n#define {g}\n\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n"
            );
            for inc in includes {
                if inc.starts_with('<') {
                    t.push_str(&format!("#include {inc}\n"));
                } else {
                    t.push_str(&format!("#include \"{inc}\"\n"));
                }
            }
            if path == "aclnnop/aclnn_util.h" {
                t.push_str(
                    "\n#if defined(__GNUC__) || defined(__clang__)\n\
                     #define ACLNN_API __attribute__((visibility(\"default\")))\n\
                     #else\n#define ACLNN_API\n#endif\n",
                );
            }
            let body: Vec<&str> = parts
                .iter()
                .filter(|(p, _)| *p == path)
                .flat_map(|(_, lines)| lines.iter().copied())
                .collect();
            if !body.is_empty() {
                let op = path.starts_with("aclnnop/");
                t.push_str("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
                for line in body {
                    if op && declared_function(line).is_some() {
                        t.push_str("ACLNN_API ");
                    }
                    t.push_str(line);
                    t.push('\n');
                }
                t.push_str("#ifdef __cplusplus\n}\n#endif\n");
            }
            t.push_str(&format!("\n#endif /* {g} */\n"));
            Header { path, text: t }
        })
        .collect()
}

/// The functions each CANN library exports (of those declared here):
/// `(library file name, function names)`.
///
/// ```
/// let libs = cann_sys::headers::library_exports();
/// let nn = &libs.iter().find(|(l, _)| *l == "libopapi_nn.so").unwrap().1;
/// assert_eq!(nn[..2], ["aclnnIndexSelectGetWorkspaceSize", "aclnnIndexSelect"]);
/// assert!(nn.contains(&"aclnnFlip") && nn.contains(&"aclnnEmbedding"));
/// assert!(nn.contains(&"aclnnGatherV2") && nn.contains(&"aclnnGather"));
/// ```
pub fn library_exports() -> Vec<(&'static str, Vec<&'static str>)> {
    let parts = parts();
    LIBRARIES
        .iter()
        .map(|&(lib, headers)| {
            let mut names: Vec<&'static str> = Vec::new();
            for (path, lines) in &parts {
                if !headers.iter().any(|h| path.starts_with(h)) {
                    continue;
                }
                for line in lines {
                    if let Some(n) = declared_function(line) {
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                }
            }
            (lib, names)
        })
        .collect()
}

/// Every function `cann_sys.h` declares, wherever it is marked.
pub fn declared_functions() -> Vec<&'static str> {
    CANN_SYS_H.lines().filter_map(declared_function).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_lands_in_exactly_one_header_and_its_libraries() {
        let headers = cann_headers();
        let fns = declared_functions();
        assert!(fns.len() >= 45, "{}", fns.len());
        for f in &fns {
            let decl = format!(" {f}(");
            let n = headers
                .iter()
                .filter(|h| h.text.contains(&decl) || h.text.contains(&format!("*{f}(")))
                .count();
            assert_eq!(n, 1, "{f} is declared in {n} generated headers");
        }
        let libs = library_exports();
        let ascendcl = &libs.iter().find(|l| l.0 == "libascendcl.so").unwrap().1;
        for s in crate::RUNTIME_SYMBOLS
            .iter()
            .chain(crate::RUNTIME_OPTIONAL_SYMBOLS)
        {
            assert!(ascendcl.contains(s), "{s} not exported by libascendcl.so");
        }
        let nnopbase = &libs.iter().find(|l| l.0 == "libnnopbase.so").unwrap().1;
        for s in crate::META_SYMBOLS.iter().chain(crate::REUSE_SYMBOLS) {
            assert!(nnopbase.contains(s), "{s} not exported by libnnopbase.so");
            assert!(!ascendcl.contains(s));
        }
        let umbrella = &libs.iter().find(|l| l.0 == "libopapi.so").unwrap().1;
        for op in crate::OPERATORS {
            assert!(umbrella.contains(&op.get_workspace_size) && umbrella.contains(&op.run));
            let split = libs
                .iter()
                .filter(|l| l.0.starts_with("libopapi_") && l.1.contains(&op.run))
                .count();
            assert_eq!(split, 1, "{} in one split library", op.name);
        }
    }

    #[test]
    fn repeat_header_is_also_at_its_level2_path() {
        let headers = cann_headers();
        let l2 = headers
            .iter()
            .find(|h| h.path == "aclnnop/level2/aclnn_repeat.h")
            .expect("the level2 path is generated");
        assert!(l2.text.contains("#include \"../aclnn_repeat.h\""));
        assert!(!l2.text.contains("aclnnRepeatGetWorkspaceSize("));
        let main = headers
            .iter()
            .find(|h| h.path == "aclnnop/aclnn_repeat.h")
            .unwrap();
        assert!(main.text.contains("aclnnRepeatGetWorkspaceSize("));
    }

    #[test]
    fn operator_headers_declare_only_their_operators() {
        for h in cann_headers() {
            if let Some(op) = h.path.strip_prefix("aclnnop/aclnn_") {
                let fns: Vec<&str> = h.text.lines().filter_map(declared_function).collect();
                if op == "util.h" {
                    assert!(fns.is_empty());
                    continue;
                }
                // One operator, or a few of one family (aclnn_add.h holds
                // Add and InplaceAdd): first phase then second, each pair.
                assert!(
                    !fns.is_empty() && fns.len().is_multiple_of(2),
                    "{}: {fns:?}",
                    h.path
                );
                for pair in fns.chunks(2) {
                    let run = pair[0].strip_suffix("GetWorkspaceSize");
                    assert_eq!(run, Some(pair[1]), "{}: {fns:?}", h.path);
                }
                assert!(h.text.contains("ACLNN_API aclnnStatus"), "{}", h.path);
            }
        }
    }
}
