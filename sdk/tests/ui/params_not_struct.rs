//! A plugin that breaks one rule of the SDK (see params_not_struct.stderr).

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
    fn add(&self, text: String) -> Result<String> {
        Ok(text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
