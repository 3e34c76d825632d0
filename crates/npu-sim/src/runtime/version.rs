//! CANN package versions (`acl_rt.h`): `aclsysGetVersionStr`,
//! `aclsysGetVersionNum`, answered for the packages of the simulated CANN
//! with [`CANN_VERSION`].
//!
//! Real CANN reads `$ASCEND_HOME_PATH/share/info/<package>/version.info`
//! (its `Version=` line), also trying the name with `-` and `_` swapped, and
//! fails with `ACL_ERROR_INVALID_FILE` for a package that is not installed.
//! The number is `major * 10^7 + minor * 10^5 + patch * 10^3`, less 300, 200
//! or 100 for an alpha, beta or rc pre-release, plus its number.

use crate::abi::fail;
use crate::runtime::cstr;
use cann_sys::*;
use std::ffi::c_char;

/// The CANN version the simulator presents itself as (what
/// `aclsysGetVersionStr` returns for its packages; a simulated CANN root's
/// version files should carry the same).
pub const CANN_VERSION: &str = "9.0.0";

/// The CANN packages the simulator stands for (the names
/// `aclsysGetVersionStr` knows, as in `share/info/<package>/`): the
/// runtime, the aclnn base and the two operator packages.
pub const CANN_PACKAGES: &[&str] = &["runtime", "opbase", "ops-math", "ops-nn"];

/// `version` as CANN numbers it (`"8.5.0"` is 80500000, `"8.5.0.rc1"`
/// 80499901); `None` if it is not of CANN's form.
pub fn version_num(version: &str) -> Option<i32> {
    let mut parts = version.splitn(3, '.');
    let major: i32 = parts.next()?.parse().ok()?;
    let minor: i32 = parts.next()?.parse().ok()?;
    let rest = parts.next()?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let patch: i32 = rest[..digits].parse().ok()?;
    let base = major
        .checked_mul(10_000_000)?
        .checked_add(minor.checked_mul(100_000)?)?
        .checked_add(patch.checked_mul(1000)?)?;
    let suffix = rest[digits..].to_ascii_lowercase();
    if suffix.is_empty() {
        return Some(base);
    }
    let (at, weight, len) = [("alpha", 300, 5), ("beta", 200, 4), ("rc", 100, 2)]
        .iter()
        .find_map(|&(k, w, l)| suffix.find(k).map(|i| (i, w, l)))?;
    if at > 1 || !suffix[..at].chars().all(|c| c == '.' || c == '-') {
        return None;
    }
    let num = suffix[at + len..].trim_start_matches(['.', '-']);
    let pre: i32 = if num.is_empty() { 0 } else { num.parse().ok()? };
    base.checked_sub(weight)?.checked_add(pre)
}

/// The package's version, if the simulated CANN has it (`-` and `_` are
/// interchangeable, as CANN's lookup tries both).
fn package_version(name: &str) -> Option<&'static str> {
    let alt = name.replace('_', "-");
    CANN_PACKAGES
        .iter()
        .any(|p| *p == name || *p == alt)
        .then_some(CANN_VERSION)
}

fn lookup(api: &str, pkg: *mut c_char) -> Result<&'static str, aclError> {
    let name = cstr(pkg);
    package_version(&name).ok_or_else(|| {
        fail(
            ACL_ERROR_INVALID_FILE,
            format!(
                "npu-sim: {api}: no version file for package \"{name}\": the simulated CANN \
                 {CANN_VERSION} has {}",
                CANN_PACKAGES.join(", ")
            ),
        )
    })
}

/// `aclsysGetVersionStr`: the version of CANN package `pkg_name` (NUL
/// terminated, shorter than `ACL_PKG_VERSION_MAX_SIZE`) into `version_str`.
/// Errors: a null pointer `ACL_ERROR_INVALID_PARAM`; a package the
/// simulated CANN lacks `ACL_ERROR_INVALID_FILE` (as CANN, whose version
/// file is then missing). Needs no `aclInit`.
///
/// # Safety
/// `pkg_name` is null or NUL-terminated; `version_str` is null or valid for
/// `ACL_PKG_VERSION_MAX_SIZE` bytes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclsysGetVersionStr(
    pkg_name: *mut c_char,
    version_str: *mut c_char,
) -> aclError {
    crate::abi::guard(
        "aclsysGetVersionStr",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if version_str.is_null() || pkg_name.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclsysGetVersionStr: {} is null",
                        if version_str.is_null() {
                            "versionStr"
                        } else {
                            "pkgName"
                        }
                    ),
                );
            }
            let v = match lookup("aclsysGetVersionStr", pkg_name) {
                Ok(v) => v,
                Err(c) => return c,
            };
            debug_assert!(v.len() < ACL_PKG_VERSION_MAX_SIZE as usize);
            // SAFETY: non-null, room for ACL_PKG_VERSION_MAX_SIZE bytes (the
            // caller's contract); the version and its NUL fit.
            unsafe {
                std::ptr::copy_nonoverlapping(v.as_ptr(), version_str.cast::<u8>(), v.len());
                *version_str.add(v.len()) = 0;
            }
            ACL_SUCCESS
        },
    )
}

/// `aclsysGetVersionNum`: the version of CANN package `pkg_name` as a
/// number (see the module documentation; 9.0.0 is 90000000). Errors as
/// `aclsysGetVersionStr`.
///
/// # Safety
/// `pkg_name` is null or NUL-terminated; `version_num` is null or valid for
/// a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclsysGetVersionNum(
    pkg_name: *mut c_char,
    version_num_out: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclsysGetVersionNum",
        cann_sys::ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if version_num_out.is_null() || pkg_name.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    format!(
                        "npu-sim: aclsysGetVersionNum: {} is null",
                        if version_num_out.is_null() {
                            "versionNum"
                        } else {
                            "pkgName"
                        }
                    ),
                );
            }
            let v = match lookup("aclsysGetVersionNum", pkg_name) {
                Ok(v) => v,
                Err(c) => return c,
            };
            let Some(n) = version_num(v) else {
                return fail(
                    ACL_ERROR_INTERNAL_ERROR,
                    format!("npu-sim: aclsysGetVersionNum: cannot number version {v}"),
                );
            };
            // SAFETY: checked non-null.
            unsafe { *version_num_out = n };
            ACL_SUCCESS
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_numbered_as_cann_numbers_them() {
        assert_eq!(version_num(CANN_VERSION), Some(90_000_000));
        assert_eq!(version_num("8.5.0"), Some(80_500_000));
        assert_eq!(version_num("8.5.1.rc1"), Some(80_501_000 - 100 + 1));
        assert_eq!(version_num("9.0.0-beta.2"), Some(90_000_000 - 200 + 2));
        assert_eq!(version_num("8.3.RC1"), None);
        assert_eq!(version_num("8.5.0..alpha1"), None);
        assert_eq!(version_num("x"), None);
    }

    #[test]
    fn dashes_and_underscores_name_the_same_package() {
        assert_eq!(package_version("ops_math"), Some(CANN_VERSION));
        assert_eq!(package_version("runtime"), Some(CANN_VERSION));
        assert_eq!(package_version("driver"), None);
    }
}
