//! Names and docs for the types that a schema does not name: an inline
//! object or enum is named after where it sits (`SearchParamsContentType`)
//! and documented by it (``The `content-type` of `SearchParams`.``).

use crate::names::pascal;

/// The name and the documentation of a type that its schema does not name.
#[derive(Debug, Clone)]
pub(crate) struct Hint {
    /// The type name to use (`SearchParamsContentType`).
    pub(crate) name: String,
    /// What the type is, as a noun phrase (``the `content-type` of `SearchParams` ``).
    pub(crate) what: String,
}

impl Hint {
    /// The result of a method.
    pub(crate) fn result(method: &str) -> Hint {
        Hint {
            name: format!("{}Result", pascal(method, "T", "Method")),
            what: format!("the result of `{method}`"),
        }
    }

    /// A field of a struct.
    pub(crate) fn field(owner: &str, json: &str) -> Hint {
        Hint {
            name: format!("{owner}{}", pascal(json, "T", "Field")),
            what: format!("the `{json}` of `{owner}`"),
        }
    }

    /// The items of an array.
    pub(crate) fn item(&self) -> Hint {
        Hint {
            name: format!("{}Item", self.name),
            what: format!("an item of {}", self.what),
        }
    }

    /// The values of a map.
    pub(crate) fn value(&self) -> Hint {
        Hint {
            name: format!("{}Value", self.name),
            what: format!("a value of {}", self.what),
        }
    }

    /// Element `n` (from 1) of a tuple.
    pub(crate) fn element(&self, n: usize) -> Hint {
        Hint {
            name: format!("{}{n}", self.name),
            what: format!("element {n} of {}", self.what),
        }
    }

    /// The phrase as a doc sentence.
    pub(crate) fn doc(&self) -> String {
        let mut chars = self.what.chars();
        match chars.next() {
            Some(first) => format!("{}{}.", first.to_ascii_uppercase(), chars.as_str()),
            None => String::new(),
        }
    }
}
