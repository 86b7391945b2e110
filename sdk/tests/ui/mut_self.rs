//! A plugin that breaks one rule of the SDK (see mut_self.stderr).

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
    fn add(&mut self, p: AddParams) -> Result<String> {
        Ok(p.text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
