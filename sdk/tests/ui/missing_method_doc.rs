//! A plugin that breaks one rule of the SDK (see missing_method_doc.stderr).

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
    fn add(&self, AddParams { text }: AddParams) -> Result<String> {
        Ok(text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
