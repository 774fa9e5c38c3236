//! The one error of the library: invalid input, naming the offending path.

use std::fmt;

/// Bad input: `code` is always `invalid_input`, `message` starts with the path of the offending value
/// (`agent.toolsets[2]: expected a string, got a number`). Policy outcomes are data, never errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    path: String,
    what: String,
}

impl Error {
    /// The only error code the library produces.
    pub const CODE: &'static str = "invalid_input";

    /// An invalid-input error at `path`.
    pub fn invalid(path: impl Into<String>, what: impl Into<String>) -> Self {
        Error { path: path.into(), what: what.into() }
    }

    /// Always `invalid_input`.
    pub fn code(&self) -> &'static str {
        Self::CODE
    }

    /// The path of the offending value (`input` for a top-level value of the wrong type).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong with the value (the message without its path).
    pub fn what(&self) -> &str {
        &self.what
    }

    /// `"{path}: {what}"`.
    pub fn message(&self) -> String {
        crate::text::concat(&[&self.path, ": ", &self.what])
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        f.write_str(": ")?;
        f.write_str(&self.what)
    }
}

impl std::error::Error for Error {}
