//! OpenAI-compatible chat completions (`POST <base_url>/chat/completions`):
//! the request, its stream of `data:` chunks, and a whole (unstreamed) reply.

use serde_json::{Value, json};

use crate::config::Config;
use crate::model::{ApiRequest, Question, Reply, StreamReader, ToolCall, json_headers};
use crate::sse::Event;

/// The request that asks `question`.
pub fn request(cfg: &Config, token: Option<&str>, question: &Question<'_>) -> ApiRequest {
    let Question { system, history, tools } = *question;
    let mut messages = vec![json!({"role": "system", "content": system})];
    for m in history {
        messages.push(match m["role"].as_str() {
            Some("assistant") => {
                let calls: Vec<Value> = m["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        json!({"id": c["id"], "type": "function",
                               "function": {"name": c["name"], "arguments": c["arguments"]}})
                    })
                    .collect();
                let text = m["content"].as_str().unwrap_or("");
                let mut out = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    out["tool_calls"] = json!(calls);
                }
                out
            }
            Some("tool") => json!({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]}),
            _ => json!({"role": "user", "content": m["content"]}),
        });
    }
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| json!({"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}}))
        .collect();
    let mut body = json!({"model": cfg.model, "messages": messages, "tools": tools, "stream": cfg.stream});
    if let Some(n) = cfg.max_tokens {
        body["max_tokens"] = json!(n);
    }
    let headers = json_headers(cfg, token.map(|t| ("authorization", format!("Bearer {t}"))));
    ApiRequest { url: format!("{}/chat/completions", cfg.base_url), headers, body }
}

/// A streamed reply being read.
#[derive(Default)]
pub struct Stream {
    text: String,
    calls: Vec<ToolCall>,
    chunks: usize,
}

impl StreamReader for Stream {
    fn event(&mut self, event: &Event, on_text: &mut dyn FnMut(&str)) -> Result<bool, String> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        let v: Value = serde_json::from_str(data).map_err(|_| format!("a chunk is not JSON: {}", crate::model::excerpt(data)))?;
        if let Some(e) = v.get("error") {
            let m = e["message"].as_str().map(str::to_string).unwrap_or_else(|| e.to_string());
            return Err(format!("the server sent an error: {}", crate::model::excerpt(&m)));
        }
        let Some(choice) = v["choices"].get(0) else {
            return Ok(false); // e.g. a usage chunk
        };
        self.chunks += 1;
        let delta = &choice["delta"];
        if let Some(t) = delta["content"].as_str() {
            if !t.is_empty() {
                self.text.push_str(t);
                on_text(t);
            }
        }
        for c in delta["tool_calls"].as_array().into_iter().flatten() {
            let i = c["index"].as_u64().unwrap_or(self.calls.len() as u64) as usize;
            while self.calls.len() <= i {
                self.calls.push(ToolCall { id: String::new(), name: String::new(), arguments: String::new() });
            }
            let call = &mut self.calls[i];
            if let Some(id) = c["id"].as_str() {
                call.id = id.to_string();
            }
            if let Some(n) = c["function"]["name"].as_str() {
                call.name.push_str(n);
            }
            if let Some(a) = c["function"]["arguments"].as_str() {
                call.arguments.push_str(a);
            }
        }
        Ok(false)
    }

    fn finish(self: Box<Self>) -> Result<Reply, String> {
        if self.chunks == 0 {
            return Err("the stream had no choices".to_string());
        }
        checked(Reply { text: self.text, calls: self.calls })
    }
}

/// Every call needs a name; a missing id gets one.
fn checked(mut reply: Reply) -> Result<Reply, String> {
    for (i, c) in reply.calls.iter_mut().enumerate() {
        if c.name.is_empty() {
            return Err("a tool call has no name".to_string());
        }
        if c.id.is_empty() {
            c.id = format!("call_{i}");
        }
    }
    Ok(reply)
}

/// Reads an unstreamed reply.
pub fn whole(v: &Value) -> Result<Reply, String> {
    let msg = v["choices"].get(0).map(|c| &c["message"]).filter(|m| m.is_object()).ok_or("no choices[0].message")?;
    let calls = msg["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| ToolCall {
            id: c["id"].as_str().unwrap_or("").to_string(),
            name: c["function"]["name"].as_str().unwrap_or("").to_string(),
            arguments: match &c["function"]["arguments"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        })
        .collect();
    checked(Reply { text: msg["content"].as_str().unwrap_or("").to_string(), calls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> Event {
        Event { name: String::new(), data: data.to_string() }
    }

    #[test]
    fn a_stream_assembles_text_and_tool_calls_from_pieces() {
        let mut s = Box::new(Stream::default());
        let mut said = String::new();
        let chunks = [
            r#"{"choices":[{"index":0,"delta":{"content":"Hi "}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"there"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"list_dir","arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"/\"}"}}]}}]}"#,
        ];
        for c in chunks {
            assert!(!s.event(&event(c), &mut |t| said.push_str(t)).unwrap());
        }
        assert!(s.event(&event("[DONE]"), &mut |_| {}).unwrap());
        let reply = s.finish().unwrap();
        assert_eq!((said.as_str(), reply.text.as_str()), ("Hi there", "Hi there"));
        assert_eq!(reply.calls[0].id, "c1");
        assert_eq!(reply.calls[0].arguments, r#"{"path":"/"}"#);
    }

    #[test]
    fn an_error_chunk_is_an_error() {
        let mut s = Stream::default();
        let e = s.event(&event(r#"{"error":{"message":"overloaded"}}"#), &mut |_| {}).unwrap_err();
        assert!(e.contains("overloaded"));
    }
}
