//! Device identity (`acl_rt.h`): the user, logical and physical device ID
//! mappings, a device's UUID and its PCI bus ID.
//!
//! The simulator runs outside any container and reads no
//! `ASCEND_RT_VISIBLE_DEVICES`, the case where CANN's reference says the
//! three IDs coincide: user, logical and physical ID are all the device's
//! index. Each simulated device has a UUID derived from the SoC and its
//! index (the same in every run) and a PCI bus ID `0000:XX:00.0` whose bus
//! number is `0x01` plus its index.

use super::rt;
use crate::abi::fail;
use cann_sys::*;
use std::ffi::{c_char, CStr};

/// `id` as one of the runtime's devices, else
/// `ACL_ERROR_RT_INVALID_DEVICEID`.
fn valid(api: &str, id: i32) -> Result<u32, aclError> {
    let rt = rt()?;
    match u32::try_from(id) {
        Ok(d) if d < rt.config.devices => Ok(d),
        _ => Err(fail(
            ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "npu-sim: {api}: device {id} does not exist ({} device(s))",
                rt.config.devices
            ),
        )),
    }
}

/// One of the four ID mappings: the identity on valid device IDs.
fn map_id(api: &str, from: i32, to: *mut i32) -> aclError {
    crate::abi::guard(api, ACL_ERROR_RT_INTERNAL_ERROR, || {
        if to.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: {api}: null output pointer"),
            );
        }
        match valid(api, from) {
            Ok(d) => {
                // SAFETY: checked non-null; valid for a write by contract.
                unsafe { *to = d as i32 };
                ACL_SUCCESS
            }
            Err(c) => c,
        }
    })
}

/// `aclrtGetLogicDevIdByUserDevId`: the same ID (no visible-devices
/// remapping). A device that does not exist `ACL_ERROR_RT_INVALID_DEVICEID`;
/// NULL output `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `logic_dev_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetLogicDevIdByUserDevId(
    user_devid: i32,
    logic_dev_id: *mut i32,
) -> aclError {
    map_id("aclrtGetLogicDevIdByUserDevId", user_devid, logic_dev_id)
}

/// `aclrtGetUserDevIdByLogicDevId`: the inverse (the same ID).
///
/// # Safety
/// `user_devid` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetUserDevIdByLogicDevId(
    logic_dev_id: i32,
    user_devid: *mut i32,
) -> aclError {
    map_id("aclrtGetUserDevIdByLogicDevId", logic_dev_id, user_devid)
}

/// `aclrtGetPhyDevIdByUserDevId`: the same ID (no container).
///
/// # Safety
/// `phy_dev_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetPhyDevIdByUserDevId(
    user_dev_id: i32,
    phy_dev_id: *mut i32,
) -> aclError {
    map_id("aclrtGetPhyDevIdByUserDevId", user_dev_id, phy_dev_id)
}

/// `aclrtGetUserDevIdByPhyDevId`: the inverse (the same ID).
///
/// # Safety
/// `user_dev_id` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtGetUserDevIdByPhyDevId(
    phy_dev_id: i32,
    user_dev_id: *mut i32,
) -> aclError {
    map_id("aclrtGetUserDevIdByPhyDevId", phy_dev_id, user_dev_id)
}

/// FNV-1a, 64 bits, from `seed`.
fn fnv(seed: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(seed, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The UUID of device `d` of SoC `soc`: 16 bytes hashed from both, marked
/// as an RFC 9562 version 8 (vendor-defined) UUID.
pub(crate) fn uuid_of(soc: &str, d: u32) -> [u8; 16] {
    let name = format!("npu-sim/{soc}/device/{d}");
    let a = fnv(0xcbf2_9ce4_8422_2325, name.as_bytes());
    let b = fnv(a ^ 0x9e37_79b9_7f4a_7c15, name.as_bytes());
    let mut u = [0u8; 16];
    u[..8].copy_from_slice(&a.to_be_bytes());
    u[8..].copy_from_slice(&b.to_be_bytes());
    u[6] = (u[6] & 0x0f) | 0x80;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

/// `aclrtDeviceGetUuid`: the device's UUID, the same on every call and in
/// every run (for a SoC and device index), different for every device.
///
/// # Safety
/// `uuid` is null or valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetUuid(device_id: i32, uuid: *mut aclrtUuid) -> aclError {
    crate::abi::guard("aclrtDeviceGetUuid", ACL_ERROR_RT_INTERNAL_ERROR, || {
        if uuid.is_null() {
            return fail(
                ACL_ERROR_INVALID_PARAM,
                "npu-sim: aclrtDeviceGetUuid: null output pointer",
            );
        }
        let d = match valid("aclrtDeviceGetUuid", device_id) {
            Ok(d) => d,
            Err(c) => return c,
        };
        let soc = rt().map(|r| r.config.soc.clone()).unwrap_or_default();
        let u = uuid_of(&soc, d);
        // SAFETY: checked non-null; valid for a write by contract.
        let out = unsafe { &mut *uuid };
        for (o, b) in out.bytes.iter_mut().zip(u) {
            *o = b as c_char;
        }
        ACL_SUCCESS
    })
}

/// The PCI bus ID of device `d`.
fn bus_id(d: u32) -> String {
    format!("0000:{:02x}:00.0", 0x01 + d)
}

/// `aclrtDeviceGetPCIBusId`: writes `0000:XX:00.0` and its NUL (13 bytes)
/// to `pci_bus_id`. A device that does not exist
/// `ACL_ERROR_RT_INVALID_DEVICEID`; NULL buffer or a `len` too small
/// `ACL_ERROR_INVALID_PARAM` (nothing written).
///
/// # Safety
/// `pci_bus_id` is null or valid for `len` bytes of writes.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetPCIBusId(
    dev_id: i32,
    pci_bus_id: *mut c_char,
    len: i32,
) -> aclError {
    crate::abi::guard(
        "aclrtDeviceGetPCIBusId",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            let d = match valid("aclrtDeviceGetPCIBusId", dev_id) {
                Ok(d) => d,
                Err(c) => return c,
            };
            let id = bus_id(d);
            if pci_bus_id.is_null() || len < 0 || (len as usize) < id.len() + 1 {
                return fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "npu-sim: aclrtDeviceGetPCIBusId: the buffer must hold {} bytes (NULL or {len} given)",
                    id.len() + 1
                ),
            );
            }
            // SAFETY: checked non-null and at least id.len() + 1 bytes long.
            unsafe {
                std::ptr::copy_nonoverlapping(id.as_ptr().cast::<c_char>(), pci_bus_id, id.len());
                *pci_bus_id.add(id.len()) = 0;
            }
            ACL_SUCCESS
        },
    )
}

/// `aclrtDeviceGetByPCIBusId`: the device whose PCI bus ID this is
/// (case-insensitive; the domain may be left out, as `XX:00.0`). NULL
/// arguments, or an ID of no simulated device, `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `pci_bus_id` is null or a NUL-terminated string; `dev_id` is null or
/// valid for a write.
#[cfg_attr(feature = "cabi", no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetByPCIBusId(
    pci_bus_id: *const c_char,
    dev_id: *mut i32,
) -> aclError {
    crate::abi::guard(
        "aclrtDeviceGetByPCIBusId",
        ACL_ERROR_RT_INTERNAL_ERROR,
        || {
            if pci_bus_id.is_null() || dev_id.is_null() {
                return fail(
                    ACL_ERROR_INVALID_PARAM,
                    "npu-sim: aclrtDeviceGetByPCIBusId: null argument",
                );
            }
            let rt = match rt() {
                Ok(r) => r,
                Err(c) => return c,
            };
            // SAFETY: non-null, NUL-terminated by contract.
            let given = unsafe { CStr::from_ptr(pci_bus_id) }
                .to_string_lossy()
                .trim()
                .to_ascii_lowercase();
            let found = (0..rt.config.devices).find(|&d| {
                let id = bus_id(d);
                given == id || given == id["0000:".len()..]
            });
            match found {
            Some(d) => {
                // SAFETY: checked non-null.
                unsafe { *dev_id = d as i32 };
                ACL_SUCCESS
            }
            None => fail(
                ACL_ERROR_INVALID_PARAM,
                format!("npu-sim: aclrtDeviceGetByPCIBusId: {given:?} is the PCI bus ID of no device"),
            ),
        }
        },
    )
}
