//! The JSON edge: everything between a JavaScript (or JSON) caller and the core's typed values.
//!
//! - [`json`]: the codec: JSON text read with `serde_json`, answers printed as JavaScript prints them;
//! - [`read`]: the input limits and the checks that name the path of anything invalid;
//! - [`input`]: JSON values read once into the core's types (roots normalized here, once);
//! - [`exports`]: the export table, every exported function once;
//! - [`api`]: the JSON API every runtime calls (golden vectors, CLI, bindings);
//! - `wasm` (feature `wasm`): the JavaScript bindings generated from the export table's functions;
//! - `allocator`: the WebAssembly build's memory allocator.
//!
//! The core modules never import from here (`tests/layers.rs` checks it).

pub mod api;
pub mod exports;
pub mod input;
pub mod json;
pub mod read;

#[cfg(feature = "wasm")]
pub mod wasm;

// The WebAssembly build's memory allocator (smaller than the default one).
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
mod allocator;
