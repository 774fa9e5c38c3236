//! The one error of the library: invalid input, naming the offending path.

use std::fmt;

/// Bad input: `code` is always `invalid_input`, `message` starts with the path of the offending value
/// (`agent.toolsets[2]: expected a string, got a number`). Policy outcomes are data, never errors.
///
/// One pointer wide, so that a `Result` of a reader is barely larger than its value: the code that
/// moves results around (every `?` of the input readers) stays small (docs/architecture.md, "The
/// first call").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Parts>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Parts {
    path: String,
    what: String,
}

impl Error {
    /// The only error code the library produces.
    pub const CODE: &'static str = "invalid_input";

    /// An invalid-input error at `path`.
    pub fn invalid(path: impl Into<String>, what: impl Into<String>) -> Self {
        Error(Box::new(Parts { path: path.into(), what: what.into() }))
    }

    /// Always `invalid_input`.
    pub fn code(&self) -> &'static str {
        Self::CODE
    }

    /// The path of the offending value (`input` for a top-level value of the wrong type).
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What is wrong with the value (the message without its path).
    pub fn what(&self) -> &str {
        &self.0.what
    }

    /// `"{path}: {what}"`.
    pub fn message(&self) -> String {
        crate::text::concat(&[&self.0.path, ": ", &self.0.what])
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.path)?;
        f.write_str(": ")?;
        f.write_str(&self.0.what)
    }
}

impl std::error::Error for Error {}
