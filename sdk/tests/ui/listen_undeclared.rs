//! A plugin that breaks one rule of the SDK (see listen_undeclared.stderr).

use sausage_plugin::{Result, listen, rpc};

/// The plugin.
struct Plugin;

/// An interface that the plugin does not declare as an endpoint.
struct Control;

#[rpc]
impl Control {
    /// Stop.
    fn stop(&self) -> Result<()> {
        Ok(())
    }
}

#[rpc]
impl Plugin {
    /// Start.
    async fn start(&self) -> Result<()> {
        listen("/self/control", Control).await
    }
}

fn main() {
    sausage_plugin::run(Plugin);
}
