//! A plugin that breaks one rule of the SDK (see params_by_reference.stderr).

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct Plugin;

/// The params of `add`.
#[schema]
struct AddParams {
    /// The text.
    text: String,
}

#[rpc]
impl Plugin {
    /// Add.
    fn add(&self, p: &AddParams) -> Result<String> {
        Ok(p.text.clone())
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
