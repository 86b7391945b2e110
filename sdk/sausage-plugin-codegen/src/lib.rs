#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod hint;
mod interface;
mod literal;
mod members;
mod model;
mod module;
mod names;
mod refs;
mod render;
mod schema;
mod shapes;

/// Generates the client module of the plugin `name` from its OpenRPC
/// `rpc.discover` document: the Rust source of `mod <name> { … }`, formatted
/// for people to read (it is also served at `/proc/core/plugins/<name>/client.rs`).
///
/// `name` is the plugin's name as calls use it (`notes` in `notes.add`); the
/// module's identifier is its snake_case form (`my-plugin` → `my_plugin`).
/// The output depends only on `name` and `doc`: the same input gives the same
/// bytes on every build and target.
///
/// Fails with a sentence that says what is wrong in the document (`cannot
/// generate the client of notes: method "add": param "text": $ref
/// "#/$defs/Text" does not resolve`). Schemas that it cannot type are not
/// errors: they become `serde_json::Value`, and a doc comment says so.
pub fn generate_client(name: &str, doc: &serde_json::Value) -> Result<String, String> {
    module::generate(name, doc).map_err(|e| format!("cannot generate the client of {name}: {e}"))
}
