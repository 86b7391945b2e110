//! Asking the model: one request with the conversation and the tools, one
//! reply (its text and its tool calls). Streams when the server offers it,
//! handing each piece of text to `on_text` as it arrives.

use serde_json::Value;

use crate::config::{Api, Config};
use crate::http;
use crate::sse;
use crate::{anthropic, openai};

/// A tool call the model asked for.
#[derive(Clone, Debug)]
pub struct ToolCall {
    /// The API's id for the call (its result names it).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
}

/// What the model answered.
#[derive(Default, Debug)]
pub struct Reply {
    /// Its text.
    pub text: String,
    /// Its tool calls, in order.
    pub calls: Vec<ToolCall>,
}

/// What the model is asked: the system prompt, the conversation so far (the
/// agent's own message format) and the tools (`tools::definitions`).
pub struct Question<'a> {
    /// The system prompt.
    pub system: &'a str,
    /// The messages, oldest first.
    pub history: &'a [Value],
    /// Each `{name, description, parameters}`.
    pub tools: &'a [Value],
}

/// One HTTP request to a model API.
pub struct ApiRequest {
    /// Where it goes.
    pub url: String,
    /// Its headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// Its JSON body.
    pub body: Value,
}

/// The headers of a request to a model API: a JSON body, a stream or JSON
/// accepted back (`"stream"` in the config), then `more` (the API's own).
pub fn json_headers(cfg: &Config, more: impl IntoIterator<Item = (&'static str, String)>) -> Vec<(String, String)> {
    let accept = if cfg.stream { "text/event-stream" } else { "application/json" };
    [("content-type", "application/json".to_string()), ("accept", accept.to_string())]
        .into_iter()
        .chain(more)
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

/// What reads one API's stream of events into a [`Reply`].
pub trait StreamReader {
    /// Takes one event; `Ok(true)` when the reply is complete.
    fn event(&mut self, event: &sse::Event, on_text: &mut dyn FnMut(&str)) -> Result<bool, String>;
    /// The reply read so far.
    fn finish(self: Box<Self>) -> Result<Reply, String>;
}

/// The first 200 characters of a text, on one line.
pub fn excerpt(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 200 {
        format!("{}…", line.chars().take(200).collect::<String>())
    } else {
        line
    }
}

/// The error message of an error body (`{"error": {"message"}}` in both APIs), or an excerpt.
fn error_text(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => match v["error"]["message"].as_str().or(v["error"].as_str()).or(v["message"].as_str()) {
            Some(m) => excerpt(m),
            None => excerpt(body),
        },
        Err(_) => excerpt(body),
    }
}

/// What to fix for an HTTP error status; `message` is the server's.
fn hint(status: u16, message: &str, cfg: &Config) -> String {
    let lower = message.to_ascii_lowercase();
    let too_long = ["context", "too long", "too many tokens", "maximum"].iter().any(|w| lower.contains(w));
    let token = match (&cfg.token_secret, &cfg.token_env) {
        (Some(secret), _) => format!("the secret {secret}"),
        (None, Some(env)) => env.clone(),
        (None, None) => "\"token_env\" or \"token_secret\"".to_string(),
    };
    match status {
        401 | 403 => format!("check the token in {token}"),
        404 => "check \"base_url\" and \"model\" in /config/agent.json".to_string(),
        400 | 413 | 422 if too_long => {
            "the conversation is too long for the model: lower \"history_turns\" or \"max_tool_result_chars\" in /config/agent.json".to_string()
        }
        400 | 422 => "check \"model\" and \"api\" in /config/agent.json".to_string(),
        429 => "the server limits requests: wait, or check the account".to_string(),
        _ if status >= 500 => "the server failed: try again later".to_string(),
        _ => "check /config/agent.json".to_string(),
    }
}

/// Asks the model (see [`Question`]) and reads the reply. The error is one line that says what to fix.
pub async fn ask(
    cfg: &Config,
    token: Option<&str>,
    question: &Question<'_>,
    on_text: &mut dyn FnMut(&str),
) -> Result<Reply, String> {
    let ApiRequest { url, headers, body } = match cfg.api {
        Api::OpenAi => openai::request(cfg, token, question),
        Api::Anthropic => anthropic::request(cfg, token, question),
    };
    let api = match cfg.api {
        Api::OpenAi => "chat-completions",
        Api::Anthropic => "messages",
    };
    let bytes = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    let timeout = std::time::Duration::from_secs(cfg.timeout_s);
    let mut response = http::post(&url, &headers, &bytes, timeout).await.map_err(|e| {
        if e == "ConnectionReadTimeout" || e == "ConnectionTimeout" {
            format!("the model at {url} did not answer within {} s (\"timeout_s\" in /config/agent.json): check that the server runs, or raise it", cfg.timeout_s)
        } else {
            format!("cannot reach the model at {url} ({e}): check \"base_url\" in /config/agent.json and that the server runs")
        }
    })?;
    if !(200..300).contains(&response.status) {
        let text = response.text().await.unwrap_or_default();
        let message = error_text(&text);
        return Err(format!(
            "the model server answered HTTP {} ({message}): {}",
            response.status,
            hint(response.status, &message, cfg)
        ));
    }
    let malformed = |why: String| {
        format!("the answer from {url} is not a {api} reply ({why}): check \"api\" and \"base_url\" in /config/agent.json")
    };
    if response.content_type.starts_with("text/event-stream") {
        let mut reader: Box<dyn StreamReader> = match cfg.api {
            Api::OpenAi => Box::new(openai::Stream::default()),
            Api::Anthropic => Box::new(anthropic::Stream::default()),
        };
        let mut parser = sse::Parser::default();
        let mut complete = false;
        while let Some(line) = response.line().await.map_err(|e| format!("{e}: try again"))? {
            if let Some(event) = parser.line(&line) {
                if reader.event(&event, on_text).map_err(malformed)? {
                    complete = true;
                    break;
                }
            }
        }
        if !complete {
            if let Some(event) = parser.finish() {
                reader.event(&event, on_text).map_err(malformed)?;
            }
        }
        return reader.finish().map_err(malformed);
    }
    let text = response.text().await.map_err(|e| format!("{e}: try again"))?;
    let value: Value = serde_json::from_str(&text).map_err(|_| malformed(format!("not JSON: {}", excerpt(&text))))?;
    let reply = match cfg.api {
        Api::OpenAi => openai::whole(&value),
        Api::Anthropic => anthropic::whole(&value),
    }
    .map_err(malformed)?;
    if !reply.text.is_empty() {
        on_text(&reply.text);
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_what_to_fix() {
        let cfg = Config::from_json(&serde_json::json!({"api": "openai", "base_url": "http://h", "model": "m", "token_env": "X_API_KEY"})).unwrap();
        assert!(hint(401, "bad key", &cfg).contains("X_API_KEY"));
        assert!(hint(400, "This model's maximum context length is 8192 tokens", &cfg).contains("history_turns"));
        assert!(hint(400, "unknown model", &cfg).contains("\"model\""));
        assert_eq!(error_text(r#"{"error": {"message": "no\nsuch   model"}}"#), "no such model");
    }
}
