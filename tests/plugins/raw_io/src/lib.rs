//! raw_io: JSON-RPC over stdin and stdout for the test plugins that do
//! without the SDK (`probe`, `hostile`): one message a line, calls matched
//! to their responses by id, notifications kept.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, Write};

/// The request a process was started for: the first line on its stdin.
pub struct Request {
    /// Its id, for the answer.
    pub id: Value,
    /// The method, without the plugin's name.
    pub method: String,
    /// Its params (`{}` when absent).
    pub params: Value,
}

/// Reads stdin lines and keeps responses that arrived before they were awaited.
pub struct Io {
    lines: std::io::Lines<std::io::StdinLock<'static>>,
    pending: HashMap<String, Value>,
    /// The notifications read while waiting for responses, in order.
    pub notes: Vec<Value>,
    next: u64,
}

impl Io {
    /// Reads from this process's stdin.
    pub fn new() -> Io {
        Io { lines: std::io::stdin().lock().lines(), pending: HashMap::new(), notes: Vec::new(), next: 0 }
    }

    /// The next JSON line on stdin (other lines are skipped); `None` at EOF.
    pub fn read(&mut self) -> Option<Value> {
        loop {
            let line = self.lines.next()?.ok()?;
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                return Some(v);
            }
        }
    }

    /// Reads the request this process was started for; `None` when stdin ended first.
    pub fn first_request(&mut self) -> Option<Request> {
        let req = self.read()?;
        Some(Request {
            id: req["id"].clone(),
            method: req["method"].as_str().unwrap_or("").to_string(),
            params: req.get("params").cloned().unwrap_or(json!({})),
        })
    }

    /// Answers the request `id` with a result (`Ok`) or an error object (`Err`).
    pub fn answer(&mut self, id: &Value, outcome: Result<Value, Value>) {
        self.send(&match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        });
    }

    /// Writes one message as a line on stdout.
    pub fn send(&mut self, msg: &Value) {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{msg}").unwrap();
        out.flush().unwrap();
    }

    /// Sends a request and returns its id (`q1`, `q2`, …).
    pub fn request(&mut self, method: &str, params: Value) -> String {
        self.next += 1;
        let id = format!("q{}", self.next);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&msg);
        id
    }

    /// Waits for the response with this id; keeps others and notifications.
    pub fn wait(&mut self, id: &str) -> Value {
        loop {
            if let Some(v) = self.pending.remove(id) {
                return v;
            }
            let msg = self.read().expect("stdin closed while waiting for a response");
            if msg.get("method").is_some() {
                self.notes.push(msg);
            } else if let Some(rid) = msg.get("id").and_then(|i| i.as_str()) {
                self.pending.insert(rid.to_string(), msg);
            }
        }
    }

    /// Makes a call and waits for its whole response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.wait(&id)
    }
}

impl Default for Io {
    fn default() -> Io {
        Io::new()
    }
}
