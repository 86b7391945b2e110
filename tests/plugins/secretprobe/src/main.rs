//! secretprobe: reads a secret through `sausage_plugin::secret` and answers
//! what it got, the value or the error, for `tests/secrets_test.ts`. The same
//! component is installed under several plugin names: the core grants a
//! secret by the name of the calling process's plugin.

use sausage_plugin::{Result, rpc, schema};

/// The plugin.
struct SecretProbe;

/// The params of `read`.
#[schema]
struct ReadParams {
    /// The secret's name.
    name: String,
}

/// What `core.secret` answered: the value, or the error as JSON.
#[schema]
struct Outcome {
    /// The value, when the secret was granted.
    value: Option<String>,
    /// The JSON-RPC error (`code`, `message`, `data`), when it was refused.
    error: Option<serde_json::Value>,
}

#[rpc]
impl SecretProbe {
    /// Reads the secret `name` and answers the value or the error.
    async fn read(&self, ReadParams { name }: ReadParams) -> Result<Outcome> {
        Ok(match sausage_plugin::secret(&name).await {
            Ok(value) => Outcome { value: Some(value), error: None },
            Err(e) => Outcome { value: None, error: Some(e.to_json()) },
        })
    }
}

fn main() {
    sausage_plugin::run(SecretProbe);
}
