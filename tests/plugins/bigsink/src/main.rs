//! bigsink: consumes `bigsource` through the client that `import!` generates,
//! for `tests/big_numbers_test.ts`.

use sausage_plugin::{Result, rpc, schema};

sausage_plugin::import!("bigsource"); // imports/bigsource.json

/// The plugin.
struct BigSink;

/// What the consumer got, as typed values and as their decimal text.
#[schema]
struct Seen {
    /// bigsource's `max`, typed.
    max: u64,
    /// bigsource's `extremes().min`, typed.
    min: i64,
    /// `max` in decimal, written by Rust.
    max_text: String,
    /// Whether bigsource got `u64::MAX` back exactly from `check`.
    checked: bool,
}

#[rpc]
impl BigSink {
    /// Calls bigsource's `max`, `extremes` and `check` through the typed client.
    async fn relay(&self) -> Result<Seen> {
        let max = bigsource::max().await?;
        let extremes = bigsource::extremes().await?;
        let checked = bigsource::check(bigsource::CheckParams { n: max }).await?;
        Ok(Seen { max, min: extremes.min, max_text: max.to_string(), checked })
    }
}

fn main() {
    sausage_plugin::run(BigSink);
}
