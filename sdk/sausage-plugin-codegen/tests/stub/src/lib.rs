//! A stand-in for `sausage-plugin` with exactly what generated clients use
//! (see the contract in `sausage-plugin-codegen`'s README), over a fake
//! transport: each call is recorded, and answered with the next queued
//! result. Only tests/compile.rs uses it.

use std::fmt;

/// The runtime's error type (here: a message).
#[derive(Debug, Clone, PartialEq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `sausage_plugin::Result`: what an awaited call gives.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[doc(hidden)]
pub mod __private {
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::future::{Future, IntoFuture, Ready};
    use std::marker::PhantomData;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    pub use serde;
    pub use serde_json;

    use serde::de::DeserializeOwned;
    use serde::Serialize;
    use serde_json::Value;

    use crate::{Error, Result};

    /// A call as the fake transport saw it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Recorded {
        /// `notes.add`, or `stats` on an endpoint.
        pub method: String,
        /// The params as sent.
        pub params: Value,
        /// True when `.detach()` was set.
        pub detached: bool,
        /// `(path, interface)` for a call on an endpoint connection.
        pub endpoint: Option<(String, String)>,
    }

    thread_local! {
        static CALLS: RefCell<Vec<Recorded>> = RefCell::new(Vec::new());
        static ANSWERS: RefCell<VecDeque<Value>> = RefCell::new(VecDeque::new());
    }

    /// Queues the result of the next call.
    pub fn answer(result: Value) {
        ANSWERS.with(|a| a.borrow_mut().push_back(result));
    }

    /// The calls made since the last time, oldest first.
    pub fn take_calls() -> Vec<Recorded> {
        CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
    }

    /// Runs a future that never waits (the fake transport answers at once).
    pub fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("the fake transport never waits"),
        }
    }

    /// A call that has not started yet: options first, then `.await`.
    #[must_use = "a call does nothing until it is awaited"]
    pub struct TypedCall<T> {
        method: &'static str,
        params: serde_json::Result<Value>,
        detached: bool,
        endpoint: Option<(String, String)>,
        result: PhantomData<fn() -> T>,
    }

    impl<T> TypedCall<T> {
        /// The callee outlives the caller.
        pub fn detach(mut self) -> Self {
            self.detached = true;
            self
        }

        /// Receives the callee's notifications while the call runs.
        pub fn on_notify(self, _f: impl FnMut(&str, Value) + 'static) -> Self {
            self
        }
    }

    impl<T: DeserializeOwned> IntoFuture for TypedCall<T> {
        type Output = Result<T>;
        type IntoFuture = Ready<Result<T>>;

        fn into_future(self) -> Self::IntoFuture {
            std::future::ready(self.run())
        }
    }

    impl<T: DeserializeOwned> TypedCall<T> {
        fn run(self) -> Result<T> {
            let params = self.params.map_err(|e| Error(e.to_string()))?;
            CALLS.with(|c| {
                c.borrow_mut().push(Recorded {
                    method: self.method.to_string(),
                    params,
                    detached: self.detached,
                    endpoint: self.endpoint,
                })
            });
            let result = ANSWERS
                .with(|a| a.borrow_mut().pop_front())
                .ok_or_else(|| Error(format!("no answer queued for {}", self.method)))?;
            serde_json::from_value(result).map_err(|e| Error(e.to_string()))
        }
    }

    /// A call of `method` (`<plugin>.<method>`) through the core.
    pub fn call_typed<P: Serialize + ?Sized, T: DeserializeOwned>(
        method: &'static str,
        params: &P,
    ) -> TypedCall<T> {
        TypedCall {
            method,
            params: serde_json::to_value(params),
            detached: false,
            endpoint: None,
            result: PhantomData,
        }
    }

    /// A connection to an endpoint.
    pub struct EndpointClient {
        path: String,
        interface: &'static str,
    }

    impl EndpointClient {
        /// Connects to the endpoint file at `path`, which must serve `interface`.
        pub async fn connect(path: &str, interface: &'static str) -> Result<EndpointClient> {
            if path.is_empty() {
                return Err(Error("no endpoint file".to_string()));
            }
            Ok(EndpointClient {
                path: path.to_string(),
                interface,
            })
        }

        /// A call of `method` on this connection.
        pub fn call_typed<P: Serialize + ?Sized, T: DeserializeOwned>(
            &self,
            method: &'static str,
            params: &P,
        ) -> TypedCall<T> {
            TypedCall {
                endpoint: Some((self.path.clone(), self.interface.to_string())),
                ..call_typed(method, params)
            }
        }
    }
}
