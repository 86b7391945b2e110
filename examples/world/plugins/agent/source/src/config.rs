//! `/config/agent.json`: which model to ask, where, and the limits of a turn.
//! Every problem with the file is one line that says what to fix.

use serde_json::Value;

/// The file this module reads.
pub const PATH: &str = "/config/agent.json";

/// A sample file, quoted by the error messages.
const SAMPLE: &str = r#"{"api": "openai", "base_url": "https://api.openai.com/v1", "model": "gpt-4.1", "token_env": "OPENAI_API_KEY"}"#;

/// The host passes the agent only a variable whose name ends so (PROTOCOL.md 4.7).
pub const TOKEN_SUFFIX: &str = "_API_KEY";

/// The API style of the model server.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Api {
    /// OpenAI-compatible chat completions (`<base_url>/chat/completions`).
    OpenAi,
    /// Anthropic's messages API (`<base_url>/messages`).
    Anthropic,
}

/// The agent's configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The API style.
    pub api: Api,
    /// The base URL, without a trailing slash (`https://api.openai.com/v1`).
    pub base_url: String,
    /// The model's name.
    pub model: String,
    /// The environment variable with the token; `None`: send no token (a local server).
    pub token_env: Option<String>,
    /// The secret with the token (`sausage secret set`, PROTOCOL.md 9.1), instead of `token_env`.
    pub token_secret: Option<String>,
    /// Tool rounds (a model reply with tool calls, and their results) in one turn.
    pub max_tool_rounds: usize,
    /// The longest answer, in tokens (Anthropic needs one; OpenAI only when set).
    pub max_tokens: Option<u64>,
    /// The earlier turns sent with each request.
    pub history_turns: usize,
    /// The longest tool result given to the model, in characters.
    pub max_tool_result_chars: usize,
    /// Ask for server-sent events.
    pub stream: bool,
    /// Seconds to wait for the server's first byte, and between bytes.
    pub timeout_s: u64,
}

const FIELDS: &[&str] = &[
    "api",
    "base_url",
    "model",
    "token_env",
    "token_secret",
    "max_tool_rounds",
    "max_tokens",
    "history_turns",
    "max_tool_result_chars",
    "stream",
    "timeout_s",
];

impl Config {
    /// Reads and checks [`PATH`].
    pub fn load() -> Result<Config, String> {
        let text = match std::fs::read_to_string(PATH) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("{PATH} is missing: write one, e.g. {SAMPLE}"));
            }
            Err(e) => return Err(format!("{PATH} cannot be read ({e})")),
        };
        // JSONC, as every config file (comments and trailing commas).
        let value: Value = sausage_plugin::jsonc::from_str(&text)
            .map_err(|e| format!("{}, e.g. {SAMPLE}", sausage_plugin::jsonc::syntax_error(PATH, &e)))?;
        Config::from_json(&value).map_err(|e| format!("{PATH}: {e}"))
    }

    /// Checks a parsed file.
    pub fn from_json(v: &Value) -> Result<Config, String> {
        let Some(obj) = v.as_object() else {
            return Err(format!("must be a JSON object, e.g. {SAMPLE}"));
        };
        if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(format!("unknown field \"{k}\" (the fields: {})", FIELDS.join(", ")));
        }
        let string = |k: &str| -> Result<Option<String>, String> {
            match obj.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
                Some(other) => Err(format!("\"{k}\" must be a non-empty string, not {other}")),
            }
        };
        let number = |k: &str, default: u64, max: u64| -> Result<u64, String> {
            match obj.get(k) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n >= 1 && n <= max) => {
                    Ok(n.as_u64().unwrap_or(default))
                }
                Some(other) => Err(format!("\"{k}\" must be a whole number from 1 to {max}, not {other}")),
            }
        };
        let api = match string("api")?.as_deref() {
            Some("openai") => Api::OpenAi,
            Some("anthropic") => Api::Anthropic,
            Some(other) => {
                return Err(format!("\"api\" must be \"openai\" or \"anthropic\", not \"{other}\""));
            }
            None => return Err(format!("\"api\" is missing (\"openai\" or \"anthropic\"), e.g. {SAMPLE}")),
        };
        let base_url = string("base_url")?.ok_or_else(|| {
            format!("\"base_url\" is missing, e.g. \"https://api.openai.com/v1\" or \"https://api.anthropic.com/v1\"")
        })?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(format!("\"base_url\" must start with http:// or https://, not \"{base_url}\""));
        }
        let model = string("model")?.ok_or("\"model\" is missing (the model's name)")?;
        let token_env = string("token_env")?;
        if let Some(name) = &token_env {
            if !name.ends_with(TOKEN_SUFFIX)
                || !name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                return Err(format!(
                    "\"token_env\" must name an environment variable in capitals ending in {TOKEN_SUFFIX} (e.g. OPENAI_API_KEY), not \"{name}\": the host passes the agent no other"
                ));
            }
        }
        let token_secret = string("token_secret")?;
        if let Some(name) = &token_secret {
            if token_env.is_some() {
                return Err("set one of \"token_env\" and \"token_secret\", not both".to_string());
            }
            let mut chars = name.chars();
            let first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            if !first || name.len() > 128 || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "\"token_secret\" must be a secret's name ([A-Za-z_][A-Za-z0-9_]{{0,127}}, e.g. OPENAI_API_KEY), not \"{name}\""
                ));
            }
        }
        let stream = match obj.get("stream") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(format!("\"stream\" must be true or false, not {other}")),
        };
        let max_tokens = match obj.get("max_tokens") {
            None | Some(Value::Null) => (api == Api::Anthropic).then_some(8192),
            Some(_) => Some(number("max_tokens", 8192, 1 << 20)?),
        };
        Ok(Config {
            api,
            base_url: base_url.trim_end_matches('/').to_string(),
            model,
            token_env,
            token_secret,
            max_tool_rounds: number("max_tool_rounds", 30, 1000)? as usize,
            max_tokens,
            history_turns: number("history_turns", 20, 10_000)? as usize,
            max_tool_result_chars: number("max_tool_result_chars", 40_000, 10_000_000)? as usize,
            stream,
            timeout_s: number("timeout_s", 300, 86_400)?,
        })
    }

    /// The token: from the secret `token_secret` names (`core.secret`), or from the
    /// environment variable `token_env` names; `None` when the file names neither.
    pub async fn token(&self) -> Result<Option<String>, String> {
        if let Some(name) = &self.token_secret {
            return match sausage_plugin::secret(name).await {
                Ok(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_string())),
                Ok(_) => Err(format!("the secret {name} (\"token_secret\" in {PATH}) is empty: set it again with `sausage secret set <world> {name}`")),
                Err(e) => Err(format!("the secret {name} (\"token_secret\" in {PATH}): {}", e.message())),
            };
        }
        let Some(name) = &self.token_env else { return Ok(None) };
        match std::env::var(name) {
            Ok(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_string())),
            _ => Err(format!(
                "the environment variable {name} (\"token_env\" in {PATH}) is not set: export it where sausage run starts, then send the message again"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_a_trailing_slash() {
        let c = Config::from_json(&json!({"api": "anthropic", "base_url": "http://h/v1/", "model": "m"})).unwrap();
        assert_eq!((c.api, c.base_url.as_str(), c.max_tokens), (Api::Anthropic, "http://h/v1", Some(8192)));
        assert_eq!((c.max_tool_rounds, c.history_turns, c.stream), (30, 20, true));
        assert!(c.token_env.is_none() && c.token_secret.is_none());
    }

    #[test]
    fn each_mistake_is_named() {
        let err = |v: Value| Config::from_json(&v).unwrap_err();
        assert!(err(json!([])).contains("must be a JSON object"));
        assert!(err(json!({"api": "x", "base_url": "http://h", "model": "m"})).contains("\"api\" must be"));
        assert!(err(json!({"api": "openai", "base_url": "h", "model": "m"})).contains("must start with http"));
        assert!(err(json!({"api": "openai", "base_url": "http://h"})).contains("\"model\" is missing"));
        assert!(err(json!({"api": "openai", "base_url": "http://h", "model": "m", "token_env": "PATH"})).contains("_API_KEY"));
        assert!(err(json!({"api": "openai", "base_url": "http://h", "model": "m", "token_secret": "a-b"})).contains("secret's name"));
        assert!(err(json!({"api": "openai", "base_url": "http://h", "model": "m", "token_env": "X_API_KEY", "token_secret": "X"})).contains("not both"));
        assert!(err(json!({"api": "openai", "base_url": "http://h", "model": "m", "max_tool_rounds": 0})).contains("from 1 to"));
        assert!(err(json!({"api": "openai", "base_url": "http://h", "model": "m", "x": 1})).contains("unknown field \"x\""));
    }
}
