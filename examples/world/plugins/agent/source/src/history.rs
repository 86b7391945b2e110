//! The conversation in `/state/agent/history.jsonl`: one message a line
//! (`{"role": "user"|"assistant"|"tool", …}`), appended turn by turn under
//! the lock of the file, so turns never interleave.

use std::path::PathBuf;

use serde_json::Value;

/// The file.
pub fn file() -> PathBuf {
    sausage_plugin::state_dir().join("history.jsonl")
}

/// The messages of the last `turns` turns (a turn starts at a user message).
/// Lines that are not JSON are skipped.
pub fn recent(turns: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(file()).unwrap_or_default();
    let all: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let starts: Vec<usize> =
        all.iter().enumerate().filter(|(_, m)| m["role"] == "user").map(|(i, _)| i).collect();
    let from = if starts.len() > turns { starts[starts.len() - turns] } else { starts.first().copied().unwrap_or(all.len()) };
    all[from..].to_vec()
}

/// Appends the messages of a turn (the file is replaced in one step).
pub fn append(messages: &[Value]) -> sausage_plugin::Result<()> {
    let mut text = std::fs::read_to_string(file()).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for m in messages {
        text.push_str(&m.to_string());
        text.push('\n');
    }
    sausage_plugin::write_atomic(file(), text)
}
