//! A plugin that breaks one rule of the SDK (see two_params.stderr).

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
    fn add(&self, p: AddParams, times: u32) -> Result<String> {
        Ok(p.text.repeat(times as usize))
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
