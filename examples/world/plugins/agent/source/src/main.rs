//! agent: answers a person's messages with a model that uses the world's
//! tools (section 14 of the proposal; the README's "The agent").
//!
//! `agent.chat {"text"}` runs one turn: the model's replies stream to the
//! caller as `core.notify` named `text` (a line at a time), its tool calls
//! (`call`, `read_file`, `write_file`, `list_dir`, `copy_dir`) run in this
//! process, and the result is the model's final text. The conversation is
//! kept in `/state/agent/history.jsonl`; a turn holds that file's lock, so a
//! second message waits for the first turn to end. `/config/agent.json` says
//! which model to ask (`config.rs`).

mod anthropic;
mod config;
mod history;
mod http;
mod model;
mod openai;
mod prompt;
mod sse;
mod tools;
mod turn;

use sausage_plugin::{Ctx, Error, Result, lock, rpc, schema};

/// The agent plugin. It keeps nothing in memory between messages.
struct Agent;

/// The params of `chat`.
#[schema]
struct ChatParams {
    /// The person's message.
    text: String,
}

#[rpc]
impl Agent {
    /// Answer a person's message: the model may use tools (calls, files) on the way.
    ///
    /// The model's text arrives as `core.notify` named `text` (`{"text": line}`)
    /// while it writes, with a line for each tool it uses; the result is its
    /// final text. A turn waits for the one before it. A missing or broken
    /// `/config/agent.json`, an unreachable model server or a bad answer fail
    /// with a one-line message that says what to fix.
    async fn chat(&self, ctx: &Ctx, ChatParams { text }: ChatParams) -> Result<String> {
        let cfg = config::Config::load().map_err(|e| Error::new(format!("agent: {e}")))?;
        let token = cfg.token().await.map_err(|e| Error::new(format!("agent: {e}")))?;
        let _turn = lock(history::file()).await?; // released when the turn ends
        turn::run(ctx, &cfg, token.as_deref(), &text).await.map_err(|e| Error::new(format!("agent: {e}")))
    }
}

fn main() {
    sausage_plugin::run(Agent);
}
