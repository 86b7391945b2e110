//! Secrets (section 9 of the protocol, `core.secret`): values such as an API
//! key that live outside the world, in a file of the world's owner, and that
//! only the plugins `config/secrets.json` names may read.

use serde::Deserialize;
use serde_json::json;

use crate::call::typed_call;
use crate::error::Result;

#[derive(Deserialize)]
struct Value {
    value: String,
}

/// The value of the secret `name` (`core.secret`), for this process's
/// plugin. The owner sets it with `sausage secret set <world> <name>` and
/// grants it in `config/secrets.json`; a set takes effect at the next call.
///
/// Fails with -32602 for a name that is not `[A-Za-z_][A-Za-z0-9_]{0,127}`,
/// and -32006 when this plugin may not read it or it is not set (the error's
/// `data` says which: `{"secret", "plugin", "reason"}`).
///
/// Keep the value out of logs, files and answers: anything that reads the
/// world can read those.
///
/// ```ignore
/// let key = sausage_plugin::secret("OPENAI_API_KEY").await?;
/// let auth = format!("Bearer {key}");
/// ```
pub async fn secret(name: &str) -> Result<String> {
    let answer: Value = typed_call("core.secret", json!({ "name": name })).await?;
    Ok(answer.value)
}
