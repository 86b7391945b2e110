//! hello: the smallest useful plugin, written without the SDK to show the
//! protocol itself. Each call is a new process: it reads one JSON-RPC request
//! on stdin (its id is the process id) and writes the response on stdout.
//! Anything else it prints goes to the journal.

use serde_json::{json, Value};
use std::io::BufRead;

fn main() {
    let mut lines = std::io::stdin().lock().lines();
    let Some(Ok(line)) = lines.next() else { return };
    let req: Value = serde_json::from_str(&line).expect("the core sends JSON-RPC");
    let result = match req["method"].as_str() {
        // hello.greet {"name": "Ada"} -> {"greeting": "Hello, Ada!"}
        Some("greet") => {
            let name = req["params"]["name"].as_str().unwrap_or("world");
            eprintln!("greeting {name}"); // stderr lines go to the journal
            Ok(json!({"greeting": format!("Hello, {name}!")}))
        }
        // hello.whoami {} -> this process's id, plugin and parent
        Some("whoami") => Ok(json!({
            "pid": std::env::var("SAUSAGE_PID").ok(),
            "plugin": std::env::var("SAUSAGE_PLUGIN").ok(),
            "parent": std::env::var("SAUSAGE_PARENT").ok(),
        })),
        other => Err(json!({"code": -32601, "message": format!("hello has no method {}", other.unwrap_or("?"))})),
    };
    let response = match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": req["id"], "result": r}),
        Err(e) => json!({"jsonrpc": "2.0", "id": req["id"], "error": e}),
    };
    println!("{response}");
}
