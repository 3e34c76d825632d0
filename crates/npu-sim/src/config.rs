//! The simulator's configuration, read from the environment at
//! initialisation (`NPU_SIM_SOC`, `NPU_SIM_DEVICES`, `NPU_SIM_MEM`,
//! `NPU_SIM_THREADS`), and the byte sizes those variables are written in.

use crate::soc::{self, Family};

/// Configuration read from the environment at initialisation.
#[derive(Clone, Debug)]
pub struct Config {
    /// SoC name (`NPU_SIM_SOC`).
    pub soc: String,
    /// Its family.
    pub family: Family,
    /// Device count (`NPU_SIM_DEVICES`).
    pub devices: u32,
    /// Memory per device in bytes (`NPU_SIM_MEM`).
    pub mem: u64,
    /// Kernel worker threads (`NPU_SIM_THREADS`).
    pub threads: usize,
}

/// Parses a byte size such as `16G`, `512M`, `4096`.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        (i, 't' | 'T') => (&s[..i], 1 << 40),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// The SoC `NPU_SIM_SOC` names (the default when it is unset or empty) and
/// its family; an unknown name is an error message. What `aclInit` uses,
/// and what `aclrtGetSocName` reports when no runtime is initialised.
pub fn soc_from_env() -> Result<(String, Family), String> {
    let soc = std::env::var("NPU_SIM_SOC")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| soc::DEFAULT_SOC.to_string());
    let family = soc::family_of(&soc).ok_or_else(|| {
        format!(
            "NPU_SIM_SOC={soc:?} is not a SoC the simulator knows; use one of: {}",
            soc::soc_names().collect::<Vec<_>>().join(", ")
        )
    })?;
    Ok((soc, family))
}

impl Config {
    /// Reads `NPU_SIM_SOC`, `NPU_SIM_DEVICES`, `NPU_SIM_MEM`,
    /// `NPU_SIM_THREADS`; an unknown or malformed value is an error message.
    pub fn from_env() -> Result<Config, String> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        let (soc, family) = soc_from_env()?;
        let devices = match var("NPU_SIM_DEVICES") {
            None => 1,
            Some(v) => v
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|d| (1..=64).contains(d))
                .ok_or_else(|| {
                    format!("NPU_SIM_DEVICES={v:?} must be a whole number from 1 to 64")
                })?,
        };
        let mem = match var("NPU_SIM_MEM") {
            None => 16 << 30,
            Some(v) => parse_size(&v)
                .filter(|m| (1 << 20..=1 << 40).contains(m))
                .ok_or_else(|| {
                    format!("NPU_SIM_MEM={v:?} must be a size from 1M to 1T (e.g. 16G)")
                })?,
        };
        let threads = match var("NPU_SIM_THREADS") {
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|t| (1..=256).contains(t))
                .ok_or_else(|| {
                    format!("NPU_SIM_THREADS={v:?} must be a whole number from 1 to 256")
                })?,
        };
        Ok(Config {
            soc,
            family,
            devices,
            mem,
            threads,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("16G"), Some(16 << 30));
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }
}
