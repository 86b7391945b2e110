//! mcpprobe: a raw plugin (no SDK) with an `rpc.discover` document, for the
//! MCP server's tests: `progress` sends `core.notify` notifications before it
//! answers, `wait` answers only when stdin ends (so only a stop ends it), and
//! `fail` answers a JSON-RPC error with data, `echo` answers its params as
//! they came (serde_json keeps numbers as their text here), `count` adds one
//! to a count kept in a file and answers it (how often it ran).

use serde_json::{json, Value};
use std::io::{BufRead, Write};

const DOC: &str = r##"{
  "openrpc": "1.2.6",
  "info": {"title": "mcpprobe", "version": "0.1.0"},
  "methods": [
    {"name": "progress", "summary": "Send `count` progress notifications, then answer.",
     "paramStructure": "by-name",
     "params": [{"name": "count", "required": true, "description": "How many.",
                 "schema": {"type": "integer", "minimum": 0}}],
     "result": {"name": "sent", "schema": {"$ref": "#/components/schemas/Sent"}}},
    {"name": "wait", "summary": "Wait until stdin ends; never answers.",
     "paramStructure": "by-name", "params": []},
    {"name": "fail", "summary": "Answer an error whose data is the params.",
     "paramStructure": "by-name",
     "params": [{"name": "why", "required": false, "description": "Anything.",
                 "schema": {"type": "string"}}],
     "result": {"name": "never", "schema": {"type": "null"}}},
    {"name": "count", "summary": "Add one to the count in /state/count; answer the count.",
     "paramStructure": "by-name", "params": [],
     "result": {"name": "count", "schema": {"type": "integer", "minimum": 1}}},
    {"name": "echo", "summary": "Answer the params as they came.",
     "paramStructure": "by-name",
     "params": [{"name": "value", "required": true, "description": "Anything.", "schema": {}}]}
  ],
  "components": {"schemas": {"Sent": {"type": "object", "description": "What was sent.",
    "properties": {"sent": {"type": "integer", "minimum": 0, "description": "The number."}},
    "required": ["sent"]}}}
}"##;

fn send(msg: &Value) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{msg}").unwrap();
    out.flush().unwrap();
}

fn main() {
    let mut lines = std::io::stdin().lock().lines();
    let Some(Ok(line)) = lines.next() else { return };
    let req: Value = serde_json::from_str(&line).unwrap();
    let id = req["id"].clone();
    let params = req.get("params").cloned().unwrap_or(json!({}));
    let answer = match req["method"].as_str().unwrap_or("") {
        "rpc.discover" => json!({"result": serde_json::from_str::<Value>(DOC).unwrap()}),
        "progress" => {
            let n = params["count"].as_u64().unwrap_or(1);
            for i in 0..n {
                send(&json!({"jsonrpc": "2.0", "method": "core.notify",
                    "params": {"name": "progress", "params": {"line": format!("step {i}")}}}));
            }
            json!({"result": {"sent": n}})
        }
        "wait" => {
            for _ in lines {}
            eprintln!("stdin closed");
            return;
        }
        "count" => {
            // One byte a call: its runs, counted (a retried request that runs once adds one).
            let path = "/state/count";
            let _ = std::fs::create_dir_all("/state");
            let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
            f.write_all(b"x").unwrap();
            json!({"result": std::fs::metadata(path).unwrap().len()})
        }
        "echo" => json!({"result": params}),
        "fail" => json!({"error": {"code": -32042, "message": "asked to fail", "data": params}}),
        other => json!({"error": {"code": -32601, "message": format!("no method {other}")}}),
    };
    let mut msg = answer;
    msg["jsonrpc"] = json!("2.0");
    msg["id"] = id;
    send(&msg);
}
