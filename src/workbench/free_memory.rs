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
