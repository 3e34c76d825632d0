//! [`LoadError`]: why CANN could not be loaded, or an operator used.
//!
//! Shared vocabulary of the function table (`api`, whose operator
//! accessors report a missing operator) and the loader (`load`), so that
//! neither reaches into the other for it.

use std::fmt;
use std::path::PathBuf;

/// Why CANN could not be loaded, or an operator used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No searched folder holds the library.
    #[error(
        "CANN library {library} not found; searched: {}. Install the CANN toolkit and source its \
         set_env.sh, set ASCEND_HOME_PATH to the CANN root (the folder holding lib64/), or pass the \
         library folder as LoadConfig::lib_dir",
        PathList(searched)
    )]
    LibraryNotFound {
        /// The library file name.
        library: &'static str,
        /// Every folder searched, in order.
        searched: Vec<PathBuf>,
    },
    /// The library exists but the dynamic loader refused it.
    #[error(
        "cannot load {}: {source}. Its dependencies must be findable: source CANN's set_env.sh \
         (it sets LD_LIBRARY_PATH) or add its folder to LD_LIBRARY_PATH",
        path.display()
    )]
    Open {
        /// The library path.
        path: PathBuf,
        /// The loader's error.
        #[source]
        source: libloading::Error,
    },
    /// A required function is missing from its library.
    #[error(
        "{} does not export {symbol}; this CANN release is incomplete or too old for npu-ops \
         (CANN 8.0 or later is needed)",
        library.display()
    )]
    SymbolMissing {
        /// The missing C symbol.
        symbol: &'static str,
        /// The library searched.
        library: PathBuf,
    },
    /// An operator was used that this CANN (or implementation) lacks.
    #[error(
        "aclnn operator {operator} is not available: no operator library exports {symbol} \
         (searched: {}). Install a CANN release whose operator package provides it",
        PathList(searched)
    )]
    OperatorMissing {
        /// The aclnn operator name (`"Slice"`).
        operator: &'static str,
        /// Its first-phase symbol.
        symbol: &'static str,
        /// The operator libraries searched (empty for a linked implementation).
        searched: Vec<PathBuf>,
    },
}

struct PathList<'a>(&'a [PathBuf]);

impl fmt::Display for PathList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(nothing)");
        }
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", p.display())?;
        }
        Ok(())
    }
}
