//! The resident memory of a stdio server while it is loaded: each process Toolscope started
//! and its descendants (`npx` or `uv run` start the real server as a child), read from
//! `/proc` on Linux. Elsewhere, and for a server Toolscope did not start, it is not known.

use serde::Serialize;

/// The server's processes at one moment (or the largest seen over a run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MemorySample {
    /// All of the server's processes together.
    pub total_bytes: u64,
    /// The largest process tree (one session's server).
    pub largest_bytes: u64,
    /// How many process trees were read.
    pub processes: usize,
}

/// Why the server's memory is not read, when it is not.
pub fn not_known(pids: &[u32]) -> Option<&'static str> {
    if !cfg!(target_os = "linux") {
        return Some("read from /proc on Linux only");
    }
    if pids.is_empty() {
        return Some("the server is not a process Toolscope started");
    }
    None
}

/// The resident memory of the process trees rooted at `pids` now.
pub fn sample(pids: &[u32]) -> MemorySample {
    let mut sample = MemorySample::default();
    for &pid in pids {
        let Some(bytes) = tree_rss(pid) else {
            continue;
        };
        sample.total_bytes += bytes;
        sample.largest_bytes = sample.largest_bytes.max(bytes);
        sample.processes += 1;
    }
    sample
}

/// The resident bytes of `pid` and every process below it (`None` once it is gone).
fn tree_rss(pid: u32) -> Option<u64> {
    let mut total = rss(pid)?;
    let mut pending = children(pid);
    // A process tree is finite, but a pid reused between two reads could form a loop.
    let mut seen = std::collections::HashSet::from([pid]);
    while let Some(child) = pending.pop() {
        if !seen.insert(child) {
            continue;
        }
        total += rss(child).unwrap_or(0);
        pending.extend(children(child));
    }
    Some(total)
}

/// `VmRSS` of `/proc/PID/status`, in bytes.
fn rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// The children of every thread of `pid` (`/proc/PID/task/TID/children`).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|word| word.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_running_process_tree_has_memory_and_a_gone_one_is_not_counted() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let pid = child.id();
        // Until the shell has started its child.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while children(pid).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let tree = sample(&[pid]);
        let alone = rss(pid).unwrap();
        assert_eq!(tree.processes, 1);
        assert!(tree.total_bytes > alone, "{tree:?} vs {alone}");
        for grandchild in children(pid) {
            let _ = std::process::Command::new("kill")
                .arg(grandchild.to_string())
                .status();
        }
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(sample(&[pid]).processes, 0);
        assert_eq!(
            not_known(&[]),
            Some("the server is not a process Toolscope started")
        );
        assert_eq!(not_known(&[pid]), None);
    }
}
