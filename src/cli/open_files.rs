//! Room for many child processes: each stdio session of a load run holds three or four file
//! descriptors, and the usual soft limit (1,024) ran out at about 250 callers ("Too many open
//! files"). The soft limit is raised to the hard one, which the system allows without rights.

/// Raises this process's soft limit of open files to its hard limit (Linux with glibc; a
/// no-op elsewhere, and when it cannot be raised the run says what failed as before).
pub fn raise_open_file_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(
        unsafe_code,
        reason = "getrlimit and setrlimit read and write one plain struct owned here"
    )]
    // SAFETY: both calls get a pointer to a live, initialised `rlimit` on this stack frame.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) == 0
            && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit);
        }
    }
}
