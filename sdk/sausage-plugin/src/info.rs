//! The `info` object of the `rpc.discover` document (section 10.1): what an
//! interface says about the plugin that serves it. The `#[rpc]` macro fills
//! it in from the plugin's `Cargo.toml` and crate docs.

/// The `info` object: from the plugin's `Cargo.toml` and crate docs.
pub struct Info {
    /// The package name.
    pub title: &'static str,
    /// The package version.
    pub version: &'static str,
    /// The crate's doc comment (`//!`), or the package description.
    pub description: &'static str,
}
