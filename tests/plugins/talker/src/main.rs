//! talker: a stand-in for the agent in the console's tests, on the raw
//! protocol. `chat` streams `text` notifications before its answer, `tick`
//! sends notifications slowly, `sleep` takes its time.

use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::time::Duration;

fn send(msg: &Value) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{msg}").unwrap();
    out.flush().unwrap();
}

fn notify(name: &str, params: Value) {
    send(&json!({"jsonrpc": "2.0", "method": "core.notify",
        "params": {"name": name, "params": params}}));
}

fn main() {
    let mut lines = std::io::stdin().lock().lines();
    let Some(Ok(line)) = lines.next() else { return };
    let req: Value = serde_json::from_str(&line).expect("the core sends JSON-RPC");
    let params = req.get("params").cloned().unwrap_or(json!({}));
    let ms = |name: &str, default: u64| {
        Duration::from_millis(params[name].as_u64().unwrap_or(default))
    };
    let result: Result<Value, Value> = match req["method"].as_str().unwrap_or("") {
        // {text, delay_ms?}: two interim texts, then the answer.
        "chat" => {
            let text = params["text"].as_str().unwrap_or("").to_string();
            std::thread::sleep(ms("delay_ms", 0));
            notify("text", json!({"text": format!("thinking about {text}")}));
            std::thread::sleep(ms("step_ms", 200));
            notify("text", json!({"text": "still thinking"}));
            Ok(json!({"text": format!("you said: {text}")}))
        }
        // {count, ms}: waits ms, then notifies `tick` {i}, count times.
        "tick" => {
            let n = params["count"].as_u64().unwrap_or(1);
            for i in 0..n {
                std::thread::sleep(ms("ms", 500));
                notify("tick", json!({"i": i}));
            }
            Ok(json!({"ticks": n}))
        }
        "sleep" => {
            std::thread::sleep(ms("ms", 0));
            Ok(json!({"slept": params["ms"]}))
        }
        other => Err(json!({"code": -32601, "message": format!("talker has no method {other}")})),
    };
    let response = match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": req["id"], "result": r}),
        Err(e) => json!({"jsonrpc": "2.0", "id": req["id"], "error": e}),
    };
    send(&response);
}
