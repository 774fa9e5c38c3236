//! The memory allocator of the WebAssembly build: talc (`TalckWasm`: size-binned free lists, adjacent
//! blocks coalesced, memory grown on demand), single-threaded as a WebAssembly module without the
//! atomics feature is. It finds a free block of a size in a few steps and frees one in constant time.
//! `lol_alloc`'s free-list allocator, which it replaces, is 1,331 bytes gzip -9 smaller but walks its
//! address-sorted list on every allocation and free: on the 1,000-tool diagnostic in Node, an engine's
//! `diagnoseRoutes` spent 13% of its time in its `dealloc` (the list grown long by the answers before
//! it), and takes about 12% less with talc; `runtimeDiagnostic` and the cold start measured the same. The
//! standard library's dlmalloc costs 1,768 bytes more than talc (docs/architecture.md).

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
// SAFETY: without the atomics feature a WebAssembly module runs on one thread, which is what
// `TalckWasm` (its lock a no-op) requires.
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };
