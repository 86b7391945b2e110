//! A plugin that breaks one rule of the SDK (see missing_field_doc.stderr).

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct Plugin;

/// The params of `add`.
#[schema]
struct AddParams {
    /// The text.
    text: String,
    count: u32,
}

#[rpc]
impl Plugin {
    /// Add.
    fn add(&self, AddParams { text, .. }: AddParams) -> Result<String> {
        Ok(text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
