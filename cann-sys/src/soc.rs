//! SoC names as `aclrtGetSocName` reports them, and the product family
//! each belongs to: the one table the simulator and the safe layer share
//! (the reference crate keeps its own, written from the operator contract
//! alone, and tests compare the two).

/// Product families (the operator contract, `docs/ops.md`, last section).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Family {
    /// Atlas training series (Ascend910A and relatives, plain `Ascend910B`).
    Training,
    /// Atlas A2 (`Ascend910B1` .. `Ascend910B4-1`).
    A2,
    /// Atlas A3 (`Ascend910_93xx`).
    A3,
    /// Atlas inference series (`Ascend310P*`).
    Inference,
    /// Atlas 200I/500 A2 (`Ascend310B*`).
    Atlas200I500A2,
}

/// Every SoC name this project knows, with its family.
pub const SOCS: &[(&str, Family)] = &[
    ("Ascend910A", Family::Training),
    ("Ascend910ProA", Family::Training),
    ("Ascend910PremiumA", Family::Training),
    ("Ascend910ProB", Family::Training),
    ("Ascend910B", Family::Training),
    ("Ascend910B1", Family::A2),
    ("Ascend910B2", Family::A2),
    ("Ascend910B2C", Family::A2),
    ("Ascend910B3", Family::A2),
    ("Ascend910B4", Family::A2),
    ("Ascend910B4-1", Family::A2),
    ("Ascend910_9391", Family::A3),
    ("Ascend910_9392", Family::A3),
    ("Ascend910_9381", Family::A3),
    ("Ascend910_9382", Family::A3),
    ("Ascend910_9372", Family::A3),
    ("Ascend910_9362", Family::A3),
    ("Ascend910_9363", Family::A3),
    ("Ascend310P1", Family::Inference),
    ("Ascend310P2", Family::Inference),
    ("Ascend310P3", Family::Inference),
    ("Ascend310P4", Family::Inference),
    ("Ascend310P5", Family::Inference),
    ("Ascend310P7", Family::Inference),
    ("Ascend310B1", Family::Atlas200I500A2),
    ("Ascend310B2", Family::Atlas200I500A2),
    ("Ascend310B3", Family::Atlas200I500A2),
    ("Ascend310B4", Family::Atlas200I500A2),
];

impl Family {
    /// The family of a SoC name, exactly as `aclrtGetSocName` spells it
    /// (case matters; unknown names are `None`).
    ///
    /// ```
    /// use cann_sys::soc::Family;
    /// assert_eq!(Family::of_soc("Ascend910B"), Some(Family::Training));
    /// assert_eq!(Family::of_soc("Ascend910B3"), Some(Family::A2));
    /// assert_eq!(Family::of_soc("ascend910b3"), None);
    /// ```
    pub fn of_soc(soc: &str) -> Option<Family> {
        SOCS.iter().find(|(n, _)| *n == soc).map(|(_, f)| *f)
    }

    /// The SoC names of this family.
    pub fn soc_names(self) -> impl Iterator<Item = &'static str> {
        SOCS.iter()
            .filter(move |(_, f)| *f == self)
            .map(|(n, _)| *n)
    }

    /// Whether the family's operators move bfloat16 (Atlas A2 and A3 only).
    pub fn has_bf16(self) -> bool {
        matches!(self, Family::A2 | Family::A3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_family_has_one() {
        for (i, (a, _)) in SOCS.iter().enumerate() {
            assert!(SOCS[i + 1..].iter().all(|(b, _)| a != b), "{a} twice");
        }
        for f in [
            Family::Training,
            Family::A2,
            Family::A3,
            Family::Inference,
            Family::Atlas200I500A2,
        ] {
            assert!(f.soc_names().next().is_some(), "{f:?}");
        }
        assert_eq!(Family::of_soc("Ascend310P6"), None);
        assert_eq!(Family::of_soc("Ascend910B4-1"), Some(Family::A2));
    }
}
