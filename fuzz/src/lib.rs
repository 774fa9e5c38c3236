//! Shared parts of the fuzz targets: input shapes drawn from libFuzzer's bytes, and the invariant checks.

pub mod checks;
pub mod shapes;

use arbitrary::Unstructured;
use shapes::{Entropy, Mode};

/// libFuzzer's bytes as a source of choices.
pub struct Bytes<'a>(Unstructured<'a>);

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes(Unstructured::new(data))
    }

    /// Valid inputs three times in four; otherwise some values are spoiled.
    pub fn mode(&mut self) -> Mode {
        Mode { valid: self.below(4) != 0, max_items: 12 }
    }
}

impl Entropy for Bytes<'_> {
    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        self.0.int_in_range(0..=n - 1).unwrap_or(0)
    }
}

/// Runs `function` on `args`; in valid mode a refusal is a finding.
pub fn run(function: &str, args: &[serde_json::Value], mode: Mode) -> Option<String> {
    match checks::call(function, args) {
        Ok(text) => Some(text),
        Err(message) => {
            assert!(!mode.valid, "{function} refused a valid input: {message}\nargs: {}", serde_json::Value::Array(args.to_vec()));
            None
        }
    }
}
