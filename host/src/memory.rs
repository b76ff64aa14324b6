//! Giving freed heap memory back to the operating system once a burst is
//! over: glibc's malloc keeps what is freed in its arenas (one per thread
//! that allocated, up to eight per core), so after many listen streams,
//! sessions or large bodies the resident size would stay at its peak.
//! [`release_soon`] asks a dedicated thread to call `malloc_trim(0)` a
//! moment later, at most once per [`INTERVAL`]; elsewhere than Linux with
//! glibc it does nothing (other allocators return memory their own way).

use std::time::Duration;

/// The least time between two trims.
pub const INTERVAL: Duration = Duration::from_millis(500);

/// Freed memory is worth returning: a listen stream or a session ended, or
/// a large body was parsed. Cheap; never blocks.
pub fn release_soon() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    trimmer::request();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod trimmer {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex, OnceLock, PoisonError};

    /// Whether a trim is asked for, and the thread waiting for one.
    struct Trimmer {
        pending: Mutex<bool>,
        wake: Condvar,
    }

    static TRIMMER: OnceLock<Option<&'static Trimmer>> = OnceLock::new();
    /// Whether a trim is asked for and not yet started: saves the lock on
    /// every request during a burst.
    static ASKED: AtomicBool = AtomicBool::new(false);

    pub(super) fn request() {
        if ASKED.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(trimmer) = *TRIMMER.get_or_init(start) else {
            return;
        };
        *trimmer
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        trimmer.wake.notify_one();
    }

    /// Starts the thread; `None` if it could not be started (then memory
    /// is simply not trimmed).
    fn start() -> Option<&'static Trimmer> {
        let trimmer: &'static Trimmer = Box::leak(Box::new(Trimmer {
            pending: Mutex::new(false),
            wake: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("malloc-trim".into())
            .spawn(move || run(trimmer))
            .ok()?;
        Some(trimmer)
    }

    fn run(trimmer: &'static Trimmer) {
        loop {
            {
                let mut pending = trimmer
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                while !*pending {
                    pending = trimmer
                        .wake
                        .wait(pending)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                *pending = false;
            }
            // Let the rest of what ended be dropped first, and keep trims
            // at least INTERVAL apart.
            std::thread::sleep(super::INTERVAL);
            ASKED.store(false, Ordering::Release);
            trim();
        }
    }

    /// Returns the free memory of every glibc arena to the OS.
    #[allow(unsafe_code)]
    fn trim() {
        // SAFETY: malloc_trim takes no pointer and walks glibc's own arenas
        // under their locks; it is safe to call from any thread at any time.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_many_times_from_many_threads_never_blocks() {
        let askers: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(|| (0..1000).for_each(|_| release_soon())))
            .collect();
        for asker in askers {
            asker.join().unwrap();
        }
    }
}
