//! A plugin that breaks one rule of the SDK (see no_result.stderr).

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
    fn add(&self, p: AddParams) {
        let _ = p;
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
