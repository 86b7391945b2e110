//! A plugin that breaks one rule of the SDK (see missing_type_doc.stderr).

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct Plugin;

#[schema]
struct AddParams {
    /// The text.
    text: String,
}

#[rpc]
impl Plugin {
    /// Add.
    fn add(&self, AddParams { text }: AddParams) -> Result<String> {
        Ok(text)
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
