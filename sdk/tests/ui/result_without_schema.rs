//! A plugin that breaks one rule of the SDK (see result_without_schema.stderr).

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct Plugin;

/// The params of `add`.
#[schema]
struct AddParams {
    /// The text.
    text: String,
}

/// Not a #[schema] type.
#[derive(sausage_plugin::serde::Serialize)]
#[serde(crate = "sausage_plugin::serde")]
struct Added {
    count: usize,
}

#[rpc]
impl Plugin {
    /// Add.
    fn add(&self, _p: AddParams) -> Result<Added> {
        Ok(Added { count: 1 })
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
