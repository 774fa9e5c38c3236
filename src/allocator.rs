//! The memory allocator of the WebAssembly build: power-of-two size classes, each with a free list,
//! carved from memory grown on demand. Allocation and release are O(1) and the code is a small part
//! of the default allocator's; a released block is reused by the next allocation of its class, so a
//! steady workload keeps the memory flat. WebAssembly memory never shrinks, so nothing is given back.

use core::alloc::Layout;
use core::ptr;

/// Size classes `2^0 ..= 2^31` bytes; the smallest class used is 8 bytes.
const CLASSES: usize = 32;
const MIN_BLOCK: usize = 8;
/// A WebAssembly page; blocks are aligned to their size, up to a page.
const PAGE: usize = 65536;

/// The heap: a free list per class (`0` = empty; each free block holds the address of the next) and
/// the unused end `next..end` of the memory grown so far.
pub struct Heap {
    free: [usize; CLASSES],
    next: usize,
    end: usize,
}

/// The class of a layout: the smallest power of two holding its size and alignment.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(MIN_BLOCK);
    let class = (usize::BITS - (size - 1).leading_zeros()) as usize;
    (class < CLASSES).then_some(class)
}

impl Heap {
    pub const fn new() -> Heap {
        Heap { free: [0; CLASSES], next: 0, end: 0 }
    }

    /// A block for `layout`, or null when memory cannot grow. `grow(pages)` grows the memory and
    /// answers the address of the new pages.
    ///
    /// # Safety
    /// `grow` must answer fresh memory of `pages * PAGE` bytes that nothing else uses.
    pub unsafe fn alloc(&mut self, layout: Layout, grow: impl FnOnce(usize) -> Option<usize>) -> *mut u8 {
        let Some(class) = class_of(layout) else { return ptr::null_mut() };
        if layout.align() > PAGE {
            return ptr::null_mut();
        }
        let head = self.free[class];
        if head != 0 {
            // SAFETY: a free block of this class holds the address of the next free block.
            self.free[class] = unsafe { *(head as *const usize) };
            return head as *mut u8;
        }
        let size = 1usize << class;
        let align = size.min(PAGE);
        let aligned = |at: usize| at.checked_add(align - 1).map(|a| a & !(align - 1));
        let fits = |next: usize, end: usize| next != 0 && aligned(next).and_then(|s| s.checked_add(size)).is_some_and(|e| e <= end);
        if !fits(self.next, self.end) {
            let Some(pages) = size.checked_add(align).map(|need| need.div_ceil(PAGE)) else { return ptr::null_mut() };
            let Some(base) = grow(pages) else { return ptr::null_mut() };
            if base != self.end || self.next == 0 {
                self.next = base;
            }
            let Some(end) = pages.checked_mul(PAGE).and_then(|bytes| base.checked_add(bytes)) else { return ptr::null_mut() };
            self.end = end;
            if !fits(self.next, self.end) {
                return ptr::null_mut();
            }
        }
        let Some(start) = aligned(self.next) else { return ptr::null_mut() };
        self.next = start + size;
        start as *mut u8
    }

    /// Releases a block allocated with `layout`.
    ///
    /// # Safety
    /// `block` must come from `alloc` of this heap with the same layout, and not be used again.
    pub unsafe fn dealloc(&mut self, block: *mut u8, layout: Layout) {
        if let Some(class) = class_of(layout) {
            // SAFETY: the block is at least 8 bytes, aligned to 8, and no longer used.
            unsafe { *(block as *mut usize) = self.free[class] };
            self.free[class] = block as usize;
        }
    }

    /// Resizes a block: the same block when the new size is in the same class, else a new one
    /// holding the old contents.
    ///
    /// # Safety
    /// As for `alloc` and `dealloc`; `new_size` must not overflow `isize` once aligned.
    pub unsafe fn realloc(&mut self, block: *mut u8, layout: Layout, new_size: usize, grow: impl FnOnce(usize) -> Option<usize>) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else { return ptr::null_mut() };
        if class_of(layout) == class_of(new_layout) {
            return block;
        }
        // SAFETY: forwarded from the caller.
        let moved = unsafe { self.alloc(new_layout, grow) };
        if !moved.is_null() {
            // SAFETY: both blocks hold at least the smaller size, and they do not overlap.
            unsafe {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                self.dealloc(block, layout);
            }
        }
        moved
    }
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod global {
    use super::{Heap, PAGE};
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::UnsafeCell;

    struct Allocator(UnsafeCell<Heap>);

    // SAFETY: without the atomics feature a WebAssembly module runs on one thread.
    unsafe impl Sync for Allocator {}

    fn grow(pages: usize) -> Option<usize> {
        let old = core::arch::wasm32::memory_grow(0, pages);
        (old != usize::MAX).then(|| old * PAGE)
    }

    unsafe impl GlobalAlloc for Allocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: one thread, and the heap is only reached through this allocator.
            unsafe { (*self.0.get()).alloc(layout, grow) }
        }

        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            // SAFETY: as above; the caller passes a block of this allocator.
            unsafe { (*self.0.get()).dealloc(block, layout) }
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: as above.
            unsafe { (*self.0.get()).realloc(block, layout, new_size, grow) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Allocator = Allocator(UnsafeCell::new(Heap::new()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A heap over a private arena standing in for WebAssembly memory.
    struct Arena {
        heap: Heap,
        base: *mut u8,
        pages: usize,
        used: usize,
    }

    impl Arena {
        fn new(pages: usize) -> Arena {
            let layout = Layout::from_size_align(pages * PAGE, PAGE).unwrap();
            // SAFETY: a non-zero size.
            let base = unsafe { std::alloc::alloc_zeroed(layout) };
            assert!(!base.is_null());
            Arena { heap: Heap::new(), base, pages, used: 0 }
        }

        fn grower(&mut self) -> impl FnOnce(usize) -> Option<usize> + '_ {
            move |pages| {
                if self.used + pages > self.pages {
                    return None;
                }
                let at = self.base as usize + self.used * PAGE;
                self.used += pages;
                Some(at)
            }
        }

        fn alloc(&mut self, layout: Layout) -> *mut u8 {
            let (heap, grow) = (&mut self.heap as *mut Heap, self.grower());
            // SAFETY: the arena hands out memory nothing else uses.
            unsafe { (*heap).alloc(layout, grow) }
        }

        fn realloc(&mut self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let (heap, grow) = (&mut self.heap as *mut Heap, self.grower());
            // SAFETY: as above.
            unsafe { (*heap).realloc(block, layout, new_size, grow) }
        }
    }

    impl Drop for Arena {
        fn drop(&mut self) {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.base, Layout::from_size_align(self.pages * PAGE, PAGE).unwrap()) };
        }
    }

    #[test]
    fn classes_hold_size_and_alignment() {
        let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(0, 1), Some(3));
        assert_eq!(class(8, 8), Some(3));
        assert_eq!(class(9, 1), Some(4));
        assert_eq!(class(3, 64), Some(6));
        assert_eq!(class(1 << 20, 8), Some(20));
        assert_eq!(class((1 << 20) + 1, 8), Some(21));
    }

    #[test]
    fn a_released_block_is_reused_and_growth_fails_cleanly() {
        let mut arena = Arena::new(4);
        let small = Layout::from_size_align(24, 8).unwrap();
        let a = arena.alloc(small);
        let b = arena.alloc(small);
        assert!(!a.is_null() && !b.is_null() && a != b);
        // SAFETY: `a` came from this heap with `small`.
        unsafe { arena.heap.dealloc(a, small) };
        assert_eq!(arena.alloc(small), a);
        assert!(arena.alloc(Layout::from_size_align(8 * PAGE, 8).unwrap()).is_null());
        assert!(!arena.alloc(small).is_null());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random allocations, releases and resizes: live blocks never overlap, are aligned, and keep
        /// their contents through a resize.
        #[test]
        fn blocks_never_overlap_and_keep_their_contents(ops in prop::collection::vec((0u8..4, 0usize..3000, 0u32..5, any::<prop::sample::Index>()), 1..250)) {
            let mut arena = Arena::new(512);
            let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
            for (n, (op, size, align_log, pick)) in ops.into_iter().enumerate() {
                let tag = n as u8;
                match op {
                    0 | 1 => {
                        let layout = Layout::from_size_align(size, 1 << align_log).unwrap();
                        let block = arena.alloc(layout);
                        prop_assert!(!block.is_null());
                        prop_assert_eq!(block as usize % layout.align(), 0);
                        // SAFETY: a fresh block of `size` bytes.
                        unsafe { ptr::write_bytes(block, tag, size) };
                        live.push((block, layout, tag));
                    }
                    2 if !live.is_empty() => {
                        let (block, layout, _) = live.swap_remove(pick.index(live.len()));
                        // SAFETY: allocated with `layout`, now released.
                        unsafe { arena.heap.dealloc(block, layout) };
                    }
                    _ if !live.is_empty() => {
                        let i = pick.index(live.len());
                        let (block, layout, tag) = live[i];
                        let moved = arena.realloc(block, layout, size);
                        prop_assert!(!moved.is_null());
                        let kept = layout.size().min(size);
                        // SAFETY: the block holds at least `kept` bytes of the old contents.
                        let contents = unsafe { std::slice::from_raw_parts(moved, kept) };
                        prop_assert!(contents.iter().all(|&b| b == tag));
                        let new_layout = Layout::from_size_align(size, layout.align()).unwrap();
                        // SAFETY: now `size` bytes.
                        unsafe { ptr::write_bytes(moved, tag, size) };
                        live[i] = (moved, new_layout, tag);
                    }
                    _ => {}
                }
                // Every live block still holds its tag, so none overlaps another.
                for &(block, layout, tag) in &live {
                    // SAFETY: a live block of `layout.size()` bytes.
                    let contents = unsafe { std::slice::from_raw_parts(block, layout.size()) };
                    prop_assert!(contents.iter().all(|&b| b == tag));
                }
            }
        }
    }
}
