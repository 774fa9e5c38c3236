//! The memory allocator of the WebAssembly build: `lol_alloc`'s free-list allocator (address-sorted,
//! adjacent blocks coalesced, memory grown on demand), single-threaded as a WebAssembly module without
//! the atomics feature is. Measured against the alternatives on the same build (gzip -9 of the
//! package's `.wasm`): the standard library's dlmalloc costs 3,187 bytes more, the size-class
//! allocator this crate used to carry (`src/allocator.rs`, 273 lines of its own unsafe code) 215
//! bytes more, at the same speed on the 1,000-tool diagnostic (BENCHMARKS.md, "Package size").

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
// SAFETY: without the atomics feature a WebAssembly module runs on one thread.
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };
