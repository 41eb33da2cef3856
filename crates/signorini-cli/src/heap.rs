//! The allocator's thresholds, fixed at start-up.
//!
//! glibc's malloc serves a request above its mmap threshold (128 KiB at start) by a fresh
//! mapping and returns the top of the heap to the system once more than its trim threshold
//! (128 KiB) is free there, adjusting both as it goes. A step of a model that assembles dense
//! matrices (`peg`: ~1 MB a step on the 10-box stack) allocates and frees them every step, and
//! whether they are then page-faulted in afresh every step depends on the order of earlier
//! allocations: a change that only removed small allocations elsewhere slowed `peg` on the
//! stack from 867 to 619 steps/s, and fixing the thresholds brought it to 954 (`signorini bench
//! examples/box_stack.toml --model peg`, `MALLOC_MMAP_THRESHOLD_` / `MALLOC_TRIM_THRESHOLD_`;
//! `stewart-trinkle` and `anitescu-potra` unchanged). So the command fixes both at 32 MiB
//! (glibc's largest mmap threshold on 64-bit): a simulation's working set stays in the heap, and
//! at most 32 MiB of freed memory is kept. Environment variables set by the user still win
//! (glibc reads them at its first allocation; an explicit setting is left alone here).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn keep_working_set() {
    const THRESHOLD: libc::c_int = 32 << 20;
    let user_set = |name: &str| std::env::var_os(name).is_some();
    // SAFETY: mallopt only sets allocator parameters; any value is accepted or refused (0).
    unsafe {
        if !user_set("MALLOC_MMAP_THRESHOLD_") {
            libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD);
        }
        if !user_set("MALLOC_TRIM_THRESHOLD_") {
            libc::mallopt(libc::M_TRIM_THRESHOLD, THRESHOLD);
        }
    }
}

/// Other platforms: their allocators are left as they are.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn keep_working_set() {}
