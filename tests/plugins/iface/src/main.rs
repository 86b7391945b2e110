//! iface: a raw plugin whose `rpc.discover` document is `doc.json`, fixed at
//! build time. Tests copy this crate with different documents to make
//! versions of providers and consumers. `version` returns the document's
//! `info.version`; `serve` answers, then lives until stdin ends.

use serde_json::{json, Value};
use std::io::BufRead;

const DOC: &str = include_str!("../doc.json");

fn main() {
    let mut lines = std::io::stdin().lock().lines();
    let Some(Ok(line)) = lines.next() else { return };
    let req: Value = serde_json::from_str(&line).unwrap();
    let doc: Value = serde_json::from_str(DOC).unwrap();
    let result = match req["method"].as_str().unwrap_or("") {
        "rpc.discover" => doc.clone(),
        "version" => doc["info"]["version"].clone(),
        "serve" => {
            println!("{}", json!({"jsonrpc": "2.0", "id": req["id"], "result": doc["info"]["version"]}));
            for _ in lines {}
            return;
        }
        _ => req["params"].clone(),
    };
    println!("{}", json!({"jsonrpc": "2.0", "id": req["id"], "result": result}));
}
