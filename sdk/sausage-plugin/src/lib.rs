//! The SDK for Sausage plugins.
//!
//! A plugin is a WASI command. Each JSON-RPC call to it starts a new process
//! that reads the request on stdin and writes the answer on stdout. This crate
//! does that part: write an `impl` with `#[rpc]`, and call [`run`] in `main`.
//!
//! ```ignore
//! use sausage_plugin::{Result, rpc, schema};
//!
//! /// The greeter plugin.
//! struct Greeter;
//!
//! /// The params of `greet`.
//! #[schema]
//! struct GreetParams {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! #[rpc]
//! impl Greeter {
//!     /// Greet someone by name.
//!     fn greet(&self, GreetParams { name }: GreetParams) -> Result<String> {
//!         Ok(format!("Hello, {name}!"))
//!     }
//! }
//!
//! fn main() {
//!     sausage_plugin::run(Greeter);
//! }
//! ```
//!
//! | item | purpose |
//! | --- | --- |
//! | [`#[rpc]`](rpc) | makes an impl an interface; `#[rpc(endpoints(name = Type))]` declares endpoint interfaces |
//! | [`#[schema]`](macro@schema) | serde derives and a JSON Schema for a type that a method takes or returns |
//! | [`run`] | serves the main interface on stdin and stdout |
//! | [`call`] | an untyped call; [`Call::detach`], [`Call::on_notify`] |
//! | [`Ctx`] | an optional argument of a method: [`Ctx::notify`] |
//! | [`lock`] | a lock guard; [`Lock::try_now`], [`LockGuard::keep`] |
//! | [`listen`], [`listen_tcp`], [`connect`], [`connect_as`] | endpoints: JSON-RPC over a pipe of the core (or TCP), found through a file; [`Endpoint::call`] |
//! | [`serve_files`] | serves a [`FileServer`] at `/proc/<pid>/fs/` ([`served`]) |
//! | [`watch`] | a [`Watch`] of file changes: [`Watch::next`] yields [`Changes`] |
//! | [`secret`] | the value of a secret the world's owner set and granted this plugin (`core.secret`) |
//! | [`background`] | runs a task; the process lives while it runs |
//! | [`timeout`] | a future with a deadline; a call dropped at the deadline is cancelled |
//! | [`import!`] | generates a typed client from `imports/<name>.json` |
//! | [`state_dir`], [`write_atomic`], [`pid`], [`endpoint_owner`], [`exit_after_response`] | helpers |
//! | [`#[sausage_plugin::test]`](test) | an async test |
//! | [`net`] | async TCP over `wasi:sockets` |
//! | [`log`] | structured logging: `log::info!("message", key = value)`, `log::span!`; the journal keeps level, fields and span |
//! | [`jsonc`] | reads a config file as the host does: JSON with comments and trailing commas |
//!
//! The compiler enforces the rules of section 13 of the protocol: a method
//! takes `&self`, an optional `ctx: &Ctx` and at most one params argument (a
//! `#[schema]` struct with named fields), and every method, `#[schema]` type
//! and field has a doc comment, because other agents read them to use the
//! interface.
//!
//! Everything runs on one thread: a small executor over `wasi:io/poll`
//! ([`background`], [`sleep`], [`join_all`]) drives the calls in flight, the
//! stdin reader and the endpoints.

#![warn(missing_docs)]

mod base64;
mod call;
mod chan;
mod closest;
mod ctx;
mod discover;
mod endpoint;
mod error;
mod executor;
mod fs;
mod incoming;
mod info;
mod interface;
pub mod jsonc;
mod libc_stubs;
pub mod log;
mod lines;
mod lock;
mod params_error;
pub mod net;
mod peer;
mod pipe;
mod process;
mod reactor;
pub mod schema;
mod secret;
pub mod served;
mod server;
mod slab;
mod stdio;
mod testing;
mod watch;

pub use call::{call, Call};
pub use ctx::Ctx;
pub use endpoint::{
    connect, connect_as, endpoint_owner, listen, listen_tcp, Endpoint, EndpointFile,
};
pub use error::{Error, Result};
pub use executor::{background, block_on, join_all, TaskOutput};
pub use fs::{state_dir, write_atomic};
pub use interface::{Interface, Listenable};
pub use lock::{lock, Lock, LockGuard};
pub use process::{exit_after_response, pid, plugin_name};
pub use reactor::{sleep, timeout, Elapsed};
pub use schema::JsonSchema;
pub use secret::secret;
pub use served::{serve_files, FileServer};
pub use server::run;
pub use watch::{watch, Changes, Watch};

/// Makes an `impl` block an interface.
///
/// Each `fn` in the block is a method of the interface. It takes `&self`,
/// an optional `ctx: &Ctx`, and at most one params argument: a `#[schema]`
/// struct with named fields, whose fields are the params of the method. It
/// returns `Result<T>`, where `T` is a `#[schema]` type or a type with a
/// JSON Schema ([`JsonSchema`]). It may be `async`. Each method needs a doc
/// comment: its first paragraph becomes the `summary` of the method in
/// `rpc.discover`, the rest its `description`.
///
/// `#[rpc(endpoints(control = Control))]` declares the endpoint interfaces of
/// the plugin: [`listen`] accepts only these.
pub use sausage_plugin_macros::rpc;

/// Adds the serde derives (`Serialize`, `Deserialize`) and a JSON Schema to a
/// struct or an enum that a method takes or returns.
///
/// The type and each named field need a doc comment; they become the
/// `description`s of the schema. Supported serde attributes: `rename`,
/// `rename_all`, `default`, `skip`, `tag`, `content`, `untagged`,
/// `transparent`, `deny_unknown_fields`, `alias`.
pub use sausage_plugin_macros::schema;

/// An async test: `#[sausage_plugin::test] async fn name() { … }` runs the
/// body on the SDK's executor, like `#[tokio::test]`. A plain `#[test]` works
/// too.
pub use sausage_plugin_macros::test;

/// Generates `mod <name>` with a typed client of the plugin `<name>` from its
/// description in `imports/<name>.json` (a copy of
/// `/proc/core/plugins/<name>/discover.json`).
pub use sausage_plugin_macros::import;

pub use serde;
pub use serde_json;

/// What the macros' generated code uses. Not a public API: it changes
/// without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::call::{call_typed, typed_call, Call as TypedCall};
    pub use crate::discover::{document, method_doc, no_params, params_of, result_of, ParamsDoc};
    pub use crate::endpoint::{connect_interface, EndpointClient};
    pub use crate::info::Info;
    pub use crate::interface::{
        into_result, parse_params, Endpoint, Interface, LocalBoxFuture, MethodOutput, ParamsStruct,
    };
    pub use crate::schema::{
        describe, enum_schema, field, nullable, object, variant_newtype, variant_struct,
        variant_unit, EnumRepr, FieldDoc, JsonSchema, SchemaGen,
    };
    pub use crate::testing::run_test;
    pub use serde;
    pub use serde_json;
    pub use std::boxed::Box;
    pub use std::option::Option::{self, None, Some};
    pub use std::vec::Vec;
}
