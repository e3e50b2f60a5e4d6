//! Giving freed memory back to the system. glibc keeps what a big result freed inside its heap
//! (the window's resident memory stayed at the high-water mark after the result was gone);
//! `malloc_trim` returns the free pages. Called after a big record is freed, off the UI thread.

/// Returns the heap's free pages to the system (glibc on Linux; elsewhere the allocator does).
pub fn return_to_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(
        unsafe_code,
        reason = "malloc_trim only walks glibc's own free lists; it takes and returns plain ints"
    )]
    // SAFETY: malloc_trim has no preconditions and is thread-safe (it locks each arena).
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Allocations at least this big are mapped on their own and unmapped when freed.
const OWN_MAPPING_BYTES: i32 = 1 << 20;

/// Makes glibc give big blocks (a response's text, its tape, a tree index) their own mapping
/// at any time. By default glibc raises that threshold to the size of the last big block
/// freed, so after one big result the next ones land inside the heap, where freeing them
/// leaves it fragmented and the window's memory grows with repeated calls. Call once at start.
pub fn map_big_blocks_on_their_own() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(
        unsafe_code,
        reason = "mallopt only sets one of glibc's tunables; it takes and returns plain ints"
    )]
    // SAFETY: mallopt has no preconditions; M_MMAP_THRESHOLD accepts any value up to 32 MiB.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_MAPPING_BYTES);
    }
}
