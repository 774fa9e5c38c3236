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

/// The whole of a target that calls one function: draws its arguments from `data` with `args`, runs it
/// (a refusal of a valid input is a finding), and hands the arguments and the answer to `check` (with
/// the bytes left, for the draws a check makes).
pub fn fuzz_call(
    data: &[u8],
    function: &str,
    args: impl FnOnce(&mut Bytes, Mode) -> Vec<serde_json::Value>,
    check: impl FnOnce(&mut Bytes, &[serde_json::Value], &str),
) {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let args = args(&mut e, mode);
    if let Some(text) = run(function, &args, mode) {
        check(&mut e, &args, &text);
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
