//! Finding and opening an installed CANN at run time.

use crate::api::{Api, Loaded, Origin, OPERATORS};
use core::ffi::c_void;
use libloading::Library;
use std::env;
use std::path::{Path, PathBuf};

use crate::layout::{library_dirs, operator_candidates};
pub use crate::layout::{
    DEFAULT_ROOTS, LEGACY_OPERATOR_LIBRARIES, META_LIBRARY, ROOT_VARIABLES, RUNTIME_LIBRARIES,
    UMBRELLA_OPERATOR_LIBRARY,
};
// `LoadError` lives in `error` (below `api`, which reports missing operators
// with it); re-exported from its old path.
pub use crate::error::LoadError;

/// Where [`Api::load`] looks for CANN.
///
/// Folders are searched in this order, and the first one holding a runtime
/// library is used for every library:
/// 1. [`LoadConfig::lib_dir`], if set;
/// 2. `$ASCEND_HOME_PATH/lib64`, then `$ASCEND_HOME_PATH/<arch>-linux/lib64`;
/// 3. the same under `$ASCEND_TOOLKIT_HOME`;
/// 4. the same under each default root ([`DEFAULT_ROOTS`], or
///    [`LoadConfig::default_roots`]).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct LoadConfig {
    /// A folder holding the libraries themselves (searched first).
    pub lib_dir: Option<PathBuf>,
    /// Replaces [`DEFAULT_ROOTS`] when set (an empty list searches none).
    pub default_roots: Option<Vec<PathBuf>>,
}

impl LoadConfig {
    /// The default search: environment, then the default roots.
    pub fn new() -> LoadConfig {
        LoadConfig::default()
    }

    /// Searches `dir` (a folder holding `libascendcl.so`, ...) first.
    pub fn with_lib_dir(mut self, dir: impl Into<PathBuf>) -> LoadConfig {
        self.lib_dir = Some(dir.into());
        self
    }

    /// Replaces the default roots (each searched as `<root>/lib64` and
    /// `<root>/<arch>-linux/lib64`).
    pub fn with_default_roots(mut self, roots: Vec<PathBuf>) -> LoadConfig {
        self.default_roots = Some(roots);
        self
    }

    /// The folders searched, in order, without duplicates, as the
    /// environment is now.
    pub fn search_dirs(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = ROOT_VARIABLES
            .iter()
            .filter_map(|v| env::var_os(v).filter(|s| !s.is_empty()).map(PathBuf::from))
            .collect();
        match &self.default_roots {
            Some(r) => roots.extend(r.iter().cloned()),
            None => roots.extend(DEFAULT_ROOTS.iter().map(PathBuf::from)),
        }
        library_dirs(self.lib_dir.as_deref(), roots, env::consts::ARCH)
    }
}

fn open(path: &Path) -> Result<Library, LoadError> {
    // SAFETY: opening a library runs its initialisers; CANN's libraries (and
    // implementations of the same ABI) are designed to be loaded this way.
    unsafe { Library::new(path) }.map_err(|source| LoadError::Open {
        path: path.to_path_buf(),
        source,
    })
}

fn symbol(lib: &Library, name: &str) -> Option<*const c_void> {
    // SAFETY: the symbol is read as an untyped address only; it is given a
    // type by `Api::resolve`, which matches the C declaration of that name.
    let sym = unsafe { lib.get::<*const c_void>(name) }.ok()?;
    let ptr = *sym;
    (!ptr.is_null()).then_some(ptr)
}

impl Api {
    /// Finds CANN as [`LoadConfig`] describes and resolves every function.
    ///
    /// Runtime symbols come from `libascendcl.so` (or `libacl_rt.so`),
    /// tensor and executor symbols from `libnnopbase.so`, both from the
    /// first folder that holds a runtime library. Each operator comes from
    /// the first operator library of that folder that exports it; operator
    /// libraries are opened only while an operator is still unresolved.
    /// This does not initialise CANN (`aclInit` is the caller's call).
    ///
    /// # Trust
    ///
    /// This function is safe, as dynamic linking is: a library found under
    /// one of CANN's file names (in a folder the config or the environment
    /// names, as `LD_LIBRARY_PATH` names one for the dynamic linker) is
    /// trusted to be CANN, or another implementation of CANN's C ABI such
    /// as the simulator's `libnpu_sim_c.so`. Opening it runs its
    /// initialisers, and each symbol is given the type of the C function
    /// of that name. A library that exports those names with other meanings
    /// breaks the program as it would if it were linked in (with the `link`
    /// feature, or by the dynamic linker); making one is outside safe Rust
    /// (a `#![forbid(unsafe_code)]` crate cannot export `#[no_mangle]`
    /// symbols). The `Api` it returns is one of the trusted tables that
    /// [`Api`]'s "Trust" section names.
    pub fn load(config: &LoadConfig) -> Result<Api, LoadError> {
        let searched = config.search_dirs();
        let Some((dir, runtime_path)) = crate::layout::find_runtime(&searched) else {
            return Err(LoadError::LibraryNotFound {
                library: RUNTIME_LIBRARIES[0],
                searched,
            });
        };
        let meta_path = dir.join(META_LIBRARY);
        if !meta_path.is_file() {
            return Err(LoadError::LibraryNotFound {
                library: META_LIBRARY,
                searched: vec![dir],
            });
        }
        let runtime = open(&runtime_path)?;
        let meta = open(&meta_path)?;
        let mut opened = vec![runtime_path.clone(), meta_path.clone()];

        // Resolve operators first, opening operator libraries lazily.
        let candidates = operator_candidates(&dir);
        let mut op_libs: Vec<(PathBuf, Library)> = Vec::new();
        let mut resolved: Vec<(&'static str, *const c_void, *const c_void, PathBuf)> = Vec::new();
        for op in OPERATORS {
            let mut hit = op_libs.iter().find_map(|(p, l)| {
                Some((
                    symbol(l, op.get_workspace_size)?,
                    symbol(l, op.run)?,
                    p.clone(),
                ))
            });
            for path in &candidates {
                if hit.is_some() {
                    break;
                }
                if op_libs.iter().any(|(p, _)| p == path) {
                    continue;
                }
                let lib = open(path)?;
                opened.push(path.clone());
                if let (Some(w), Some(r)) =
                    (symbol(&lib, op.get_workspace_size), symbol(&lib, op.run))
                {
                    hit = Some((w, r, path.clone()));
                }
                op_libs.push((path.clone(), lib));
            }
            if let Some((w, r, p)) = hit {
                resolved.push((op.get_workspace_size, w, r, p));
            }
        }

        let required = |lib: &Library, path: &Path, name: &'static str| {
            symbol(lib, name).ok_or_else(|| LoadError::SymbolMissing {
                symbol: name,
                library: path.to_path_buf(),
            })
        };
        let rt = |name| required(&runtime, &runtime_path, name);
        let rt_opt = |name| symbol(&runtime, name);
        let nn = |name| required(&meta, &meta_path, name);
        let nn_opt = |name| symbol(&meta, name);
        let op = |ws: &'static str, _run: &'static str| {
            resolved.iter().find(|r| r.0 == ws).map(|r| (r.1, r.2))
        };
        let operator_sources = resolved
            .iter()
            .map(|(ws, _, _, p)| {
                let name = OPERATORS
                    .iter()
                    .find(|o| o.get_workspace_size == *ws)
                    .unwrap()
                    .name;
                (name, p.clone())
            })
            .collect();
        // Placeholder origin while resolving; the real one owns the handles.
        let api = Api::resolve(rt, rt_opt, nn, nn_opt, op, Origin::linked("loading"))?;
        let mut libraries = vec![runtime, meta];
        libraries.extend(op_libs.into_iter().map(|(_, l)| l));
        Ok(Api {
            origin: Origin::loaded(Loaded {
                dir,
                opened,
                operator_candidates: candidates,
                operator_sources,
                _libraries: libraries,
            }),
            ..api
        })
    }
}
