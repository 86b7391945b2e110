//! bigsource: answers integers beyond 2^53, for `tests/big_numbers_test.ts`.

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct BigSource;

/// The extremes of the 64-bit integers.
#[schema]
struct Extremes {
    /// `u64::MAX`.
    max: u64,
    /// `i64::MIN`.
    min: i64,
}

/// The params of `check`.
#[schema]
struct CheckParams {
    /// Must be `u64::MAX`.
    n: u64,
}

#[rpc]
impl BigSource {
    /// `u64::MAX`, 18446744073709551615.
    fn max(&self) -> Result<u64> {
        Ok(u64::MAX)
    }

    /// `u64::MAX` and `i64::MIN` together.
    fn extremes(&self) -> Result<Extremes> {
        Ok(Extremes { max: u64::MAX, min: i64::MIN })
    }

    /// True when `n` arrived as `u64::MAX` exactly.
    fn check(&self, CheckParams { n }: CheckParams) -> Result<bool> {
        Ok(n == u64::MAX)
    }
}

fn main() {
    sausage_plugin::run(BigSource);
}
