//! The traits that `#[rpc]` and `#[schema]` implement, and the helpers that
//! their generated code calls. The `#[diagnostic::on_unimplemented]`
//! messages are the compiler errors that a plugin author sees when a rule of
//! section 13 is broken.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::info::Info;
use crate::schema::{FieldDoc, JsonSchema, SchemaGen};

/// A boxed future that need not be `Send` (everything runs on one thread).
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// An interface: a type whose `impl` block has `#[rpc]`. [`run`](crate::run)
/// serves one on stdin, [`listen`](crate::listen) on an endpoint.
///
/// Implemented by `#[rpc]` only; its items are not a public API.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an interface",
    label = "no #[rpc] impl for this type",
    note = "put #[rpc] on an impl block of `{Self}`"
)]
pub trait Interface: 'static {
    /// Starts method `method`; `None` when there is no such method.
    #[doc(hidden)]
    fn __dispatch<'a>(
        &'a self,
        ctx: &'a Ctx,
        method: &str,
        params: Value,
    ) -> Option<LocalBoxFuture<'a, Result<Value>>>;

    /// The OpenRPC method objects of the interface.
    #[doc(hidden)]
    fn __methods() -> Vec<Value>;

    /// The endpoint interfaces that this one declares: name → methods.
    #[doc(hidden)]
    fn __endpoints() -> Vec<(&'static str, Vec<Value>)> {
        Vec::new()
    }

    /// The plugin's name, version and description.
    #[doc(hidden)]
    fn __info() -> Info;

    /// `x-sausage-imports`: provider → the interface that this plugin uses.
    #[doc(hidden)]
    fn __imports() -> Value {
        Value::Object(Default::default())
    }
}

/// An endpoint interface of this plugin, declared with
/// `#[rpc(endpoints(name = Type))]` on the main interface.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an endpoint interface of this plugin",
    label = "not declared as an endpoint",
    note = "declare it on the main interface: #[rpc(endpoints(name = {Self}))]"
)]
pub trait Endpoint: Interface {
    /// The interface name in endpoint files and in `x-sausage-endpoints`.
    const NAME: &'static str;
}

/// What [`listen`](crate::listen) accepts: a value of an endpoint interface
/// of this plugin, or an `Rc` of one (to keep a handle on its state).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an endpoint interface of this plugin",
    label = "listen() needs an endpoint interface",
    note = "declare it on the main interface with #[rpc(endpoints(name = Type))], and put #[rpc] on its impl"
)]
pub trait Listenable {
    /// The interface served.
    type Target: Interface;
    /// Its name in the endpoint file.
    fn name() -> &'static str;
    /// The value, shared with each connection.
    fn into_rc(self) -> Rc<Self::Target>;
}

impl<T: Endpoint> Listenable for T {
    type Target = T;
    fn name() -> &'static str {
        T::NAME
    }
    fn into_rc(self) -> Rc<T> {
        Rc::new(self)
    }
}

impl<T: Endpoint> Listenable for Rc<T> {
    type Target = T;
    fn name() -> &'static str {
        T::NAME
    }
    fn into_rc(self) -> Rc<T> {
        self
    }
}

/// The params argument of a method: a `#[schema]` struct with named fields.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the params argument of an #[rpc] method must be a #[schema] struct with named fields, not `{Self}`",
    label = "not a #[schema] struct with named fields",
    note = "put the params in one struct with #[schema]; its fields are the params of the method"
)]
pub trait ParamsStruct: DeserializeOwned + JsonSchema {
    /// The Rust name of the struct.
    const __NAME: &'static str;
    /// Its doc comment.
    const __DESCRIPTION: &'static str;
    /// Its fields: the params of the method.
    fn __fields(g: &mut SchemaGen) -> Vec<FieldDoc>;
}

/// What a method returns: `Result<T, E>` with `T: Serialize` and an error
/// that converts into [`Error`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "an #[rpc] method returns `Result<T>`, not `{Self}`",
    label = "return `sausage_plugin::Result<T>`"
)]
pub trait MethodOutput {
    /// The result type.
    type Ok;
    /// The JSON result or the error of the response.
    fn into_result(self) -> Result<Value>;
}

impl<T: Serialize, E: Into<Error>> MethodOutput for std::result::Result<T, E> {
    type Ok = T;
    fn into_result(self) -> Result<Value> {
        let ok = self.map_err(Into::into)?;
        serde_json::to_value(ok).map_err(|e| {
            Error::with_code(Error::INTERNAL_ERROR, format!("the result cannot be serialized: {e}"))
        })
    }
}

/// The JSON result of a method's return value.
pub fn into_result<R: MethodOutput>(r: R) -> Result<Value> {
    r.into_result()
}

/// Reads the params of `method` into its params struct (-32602 when they do not fit).
pub fn parse_params<P: DeserializeOwned>(method: &str, params: Value) -> Result<P> {
    // Parsed from a reference, so that a failure can find the param at fault.
    P::deserialize(&params).map_err(|e| {
        let message = crate::params_error::params_message::<P>(method, &params, &e);
        Error::with_code(Error::INVALID_PARAMS, message)
    })
}
