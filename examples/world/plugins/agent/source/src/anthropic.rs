//! Anthropic's messages API (`POST <base_url>/messages`): the request, its
//! stream of typed events, and a whole (unstreamed) reply.

use serde_json::{Value, json};

use crate::config::Config;
use crate::model::{ApiRequest, Question, Reply, StreamReader, ToolCall, excerpt, json_headers};
use crate::sse::Event;

/// The API version sent in `anthropic-version`.
const VERSION: &str = "2023-06-01";

/// A tool call's arguments as a JSON object (the API takes `input` as one).
fn input_of(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({}),
    }
}

/// The request that asks `question`.
pub fn request(cfg: &Config, token: Option<&str>, question: &Question<'_>) -> ApiRequest {
    let Question { system, history, tools } = *question;
    // Tool results are blocks of a user message; consecutive ones share it.
    let mut messages: Vec<Value> = Vec::new();
    for m in history {
        match m["role"].as_str() {
            Some("assistant") => {
                let mut blocks = Vec::new();
                if let Some(t) = m["content"].as_str().filter(|t| !t.trim().is_empty()) {
                    blocks.push(json!({"type": "text", "text": t}));
                }
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    blocks.push(json!({"type": "tool_use", "id": c["id"], "name": c["name"],
                                       "input": input_of(c["arguments"].as_str().unwrap_or(""))}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "(no text)"}));
                }
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Some("tool") => {
                let block = json!({"type": "tool_result", "tool_use_id": m["tool_call_id"],
                                   "content": m["content"], "is_error": m["is_error"].as_bool().unwrap_or(false)});
                match messages.last_mut() {
                    Some(last) if last["role"] == "user" && last["content"].is_array() => {
                        last["content"].as_array_mut().map(|a| a.push(block));
                    }
                    _ => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
            _ => messages.push(json!({"role": "user", "content": [{"type": "text", "text": m["content"]}]})),
        }
    }
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}))
        .collect();
    let body = json!({"model": cfg.model, "max_tokens": cfg.max_tokens.unwrap_or(8192), "system": system,
                      "messages": messages, "tools": tools, "stream": cfg.stream});
    let key = token.map(|t| ("x-api-key", t.to_string()));
    let headers = json_headers(cfg, [("anthropic-version", VERSION.to_string())].into_iter().chain(key));
    ApiRequest { url: format!("{}/messages", cfg.base_url), headers, body }
}

/// One content block of a streamed reply.
enum Block {
    Text,
    Tool(ToolCall),
}

/// A streamed reply being read.
#[derive(Default)]
pub struct Stream {
    text: String,
    blocks: Vec<(usize, Block)>,
    started: bool,
}

impl StreamReader for Stream {
    fn event(&mut self, event: &Event, on_text: &mut dyn FnMut(&str)) -> Result<bool, String> {
        let v: Value = serde_json::from_str(&event.data).map_err(|_| format!("an event is not JSON: {}", excerpt(&event.data)))?;
        let kind = v["type"].as_str().unwrap_or(event.name.as_str());
        let index = v["index"].as_u64().unwrap_or(0) as usize;
        match kind {
            "message_start" => self.started = true,
            "content_block_start" => {
                let b = &v["content_block"];
                let block = match b["type"].as_str() {
                    Some("tool_use") => Block::Tool(ToolCall {
                        id: b["id"].as_str().unwrap_or("").to_string(),
                        name: b["name"].as_str().unwrap_or("").to_string(),
                        arguments: String::new(),
                    }),
                    _ => Block::Text,
                };
                if let (Block::Text, Some(t)) = (&block, b["text"].as_str().filter(|t| !t.is_empty())) {
                    self.text.push_str(t);
                    on_text(t);
                }
                self.blocks.push((index, block));
            }
            "content_block_delta" => {
                let d = &v["delta"];
                let block = self.blocks.iter_mut().rev().find(|(i, _)| *i == index).map(|(_, b)| b);
                match (d["type"].as_str(), block) {
                    (Some("text_delta"), _) => {
                        let t = d["text"].as_str().unwrap_or("");
                        self.text.push_str(t);
                        on_text(t);
                    }
                    (Some("input_json_delta"), Some(Block::Tool(call))) => {
                        call.arguments.push_str(d["partial_json"].as_str().unwrap_or(""));
                    }
                    _ => {}
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let m = v["error"]["message"].as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
                return Err(format!("the server sent an error: {}", excerpt(&m)));
            }
            _ => {} // ping, content_block_stop, message_delta
        }
        Ok(false)
    }

    fn finish(self: Box<Self>) -> Result<Reply, String> {
        if !self.started {
            return Err("the stream had no message_start".to_string());
        }
        let calls = self
            .blocks
            .into_iter()
            .filter_map(|(_, b)| match b {
                Block::Tool(mut c) => {
                    if c.arguments.trim().is_empty() {
                        c.arguments = "{}".to_string();
                    }
                    Some(c)
                }
                Block::Text => None,
            })
            .collect();
        Ok(Reply { text: self.text, calls })
    }
}

/// Reads an unstreamed reply.
pub fn whole(v: &Value) -> Result<Reply, String> {
    let blocks = v["content"].as_array().ok_or("no content")?;
    let mut reply = Reply::default();
    for b in blocks {
        match b["type"].as_str() {
            Some("text") => reply.text.push_str(b["text"].as_str().unwrap_or("")),
            Some("tool_use") => reply.calls.push(ToolCall {
                id: b["id"].as_str().unwrap_or("").to_string(),
                name: b["name"].as_str().unwrap_or("").to_string(),
                arguments: b["input"].to_string(),
            }),
            _ => {}
        }
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_share_one_user_message() {
        let cfg = crate::config::Config::from_json(&json!({"api": "anthropic", "base_url": "http://h/v1", "model": "m"})).unwrap();
        let history = [
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "a", "name": "read_file", "arguments": "{\"path\":\"/x\"}"},
                {"id": "b", "name": "list_dir", "arguments": "{}"}]}),
            json!({"role": "tool", "tool_call_id": "a", "name": "read_file", "content": "x", "is_error": false}),
            json!({"role": "tool", "tool_call_id": "b", "name": "list_dir", "content": "no", "is_error": true}),
        ];
        let ApiRequest { url, headers, body } =
            request(&cfg, Some("k"), &Question { system: "sys", history: &history, tools: &[] });
        assert_eq!(url, "http://h/v1/messages");
        assert!(headers.contains(&("x-api-key".to_string(), "k".to_string())));
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"][0]["input"], json!({"path": "/x"}));
        assert_eq!(messages[2]["content"].as_array().unwrap().len(), 2);
        assert_eq!(messages[2]["content"][1]["is_error"], true);
    }
}
