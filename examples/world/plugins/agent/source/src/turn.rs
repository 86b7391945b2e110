//! One turn: the person's message, then model replies and tool rounds until
//! the model answers without tools (or the rounds run out).

use serde_json::{Value, json};

use sausage_plugin::Ctx;

use crate::config::Config;
use crate::model::{self, excerpt};
use crate::{history, prompt, tools};

/// Sends the model's text to the caller a line at a time, as lines complete.
struct Lines<'a> {
    ctx: &'a Ctx,
    buf: String,
}

impl Lines<'_> {
    fn push(&mut self, text: &str) {
        self.buf.push_str(text);
        while let Some(nl) = self.buf.find('\n') {
            let line: String = self.buf.drain(..=nl).collect();
            self.say(line.trim_end());
        }
    }

    fn flush(&mut self) {
        let rest = std::mem::take(&mut self.buf);
        self.say(rest.trim_end());
    }

    fn say(&self, line: &str) {
        if !line.trim().is_empty() {
            self.ctx.notify("text", json!({"text": line}));
        }
    }
}

/// Runs a turn and returns the final text. `Err` is one line that says what
/// to fix; the complete rounds of the turn are kept in the history either way.
pub async fn run(ctx: &Ctx, cfg: &Config, token: Option<&str>, text: &str) -> Result<String, String> {
    eprintln!("message: {}", excerpt(text));
    let earlier = history::recent(cfg.history_turns);
    let mut turn = vec![json!({"role": "user", "content": text})];
    let defs = tools::definitions();
    let mut lines = Lines { ctx, buf: String::new() };
    let mut rounds = 0;
    let outcome = loop {
        let messages: Vec<Value> = earlier.iter().chain(turn.iter()).cloned().collect();
        let question = model::Question { system: prompt::SYSTEM, history: &messages, tools: &defs };
        let reply = model::ask(cfg, token, &question, &mut |t| lines.push(t)).await;
        lines.flush();
        let reply = match reply {
            Ok(r) => r,
            Err(e) => break Err(e),
        };
        let calls: Vec<Value> = reply
            .calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
            .collect();
        turn.push(json!({"role": "assistant", "content": reply.text, "tool_calls": calls}));
        if reply.calls.is_empty() {
            let text = reply.text.trim().to_string();
            break Ok(if text.is_empty() { "(the model answered with no text)".to_string() } else { text });
        }
        rounds += 1;
        for c in &reply.calls {
            let out = tools::run(&c.name, &c.arguments).await;
            let status = if out.is_error { format!("failed: {}", excerpt(out.text.lines().next().unwrap_or(""))) } else { "ok".to_string() };
            eprintln!("tool {} {} -> {status}", c.name, excerpt(&c.arguments));
            lines.say(&format!("· {} {} → {status}", c.name, excerpt(&c.arguments)));
            turn.push(json!({"role": "tool", "tool_call_id": c.id, "name": c.name,
                             "content": tools::clip(out.text, cfg.max_tool_result_chars), "is_error": out.is_error}));
        }
        if rounds >= cfg.max_tool_rounds {
            break Ok(format!(
                "I stopped after {rounds} tool rounds (\"max_tool_rounds\" in /config/agent.json) before finishing; say \"go on\" to let me continue."
            ));
        }
    };
    let closing = match &outcome {
        Ok(_) if turn.last().is_some_and(|m| m["role"] == "assistant") => None,
        Ok(text) => Some(text.clone()),
        Err(e) => Some(format!("(this turn ended with an error: {e})")),
    };
    if let Some(text) = closing {
        turn.push(json!({"role": "assistant", "content": text}));
    }
    match &outcome {
        Ok(text) => eprintln!("answer after {rounds} tool rounds: {}", excerpt(text)),
        Err(e) => eprintln!("the turn failed after {rounds} tool rounds: {e}"),
    }
    if let Err(e) = history::append(&turn) {
        eprintln!("the history was not saved: {e}");
    }
    outcome
}
