//! A plugin that breaks one rule of the SDK (see schema_flatten.stderr).

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct Plugin;

/// Extra fields.
#[schema]
struct Extra {
    /// A flag.
    flag: bool,
}

/// The params of `add`.
#[schema]
struct AddParams {
    /// The text.
    text: String,
    /// More.
    #[serde(flatten)]
    extra: Extra,
}

#[rpc]
impl Plugin {
    /// Add.
    fn add(&self, p: AddParams) -> Result<String> {
        Ok(p.text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
