//! Sparse buffers: huge arrays a caller really has (mapped, readable and writable) that
//! cost no memory until a page is touched, so tests and fuzzers can call the C ABI with
//! sizes and offsets near `INT32_MAX` within the header's contract. Linux and other Unix
//! systems only (an anonymous `MAP_NORESERVE` mapping; untouched pages read as zeros).
#![cfg(unix)]
#![allow(dead_code)] // each user takes what it needs

/// A mapping of `bytes` zeroed bytes, unmapped on drop.
pub struct Sparse {
    ptr: *mut u8,
    bytes: usize,
}

impl Sparse {
    /// Maps `bytes` bytes (readable, writable, zero, no swap reserved). Panics when the
    /// system refuses the mapping: a test must not skip itself silently.
    pub fn new(bytes: usize) -> Self {
        // SAFETY: an anonymous private mapping at an address of the system's choice; no
        // existing memory is touched.
        let ptr = unsafe { libc::mmap(std::ptr::null_mut(), bytes, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0) };
        assert!(ptr != libc::MAP_FAILED, "mmap of {bytes} sparse bytes failed: {}", std::io::Error::last_os_error());
        Self { ptr: ptr.cast(), bytes }
    }

    /// A mapping holding `count` values of `T`.
    pub fn of<T>(count: usize) -> Self {
        Self::new(count.checked_mul(std::mem::size_of::<T>()).expect("size fits").max(1))
    }

    /// The start of the mapping as a `T` pointer.
    pub fn ptr<T>(&self) -> *mut T {
        self.ptr.cast()
    }

    /// Writes `value` at element `index` (in `T` units), touching one page.
    pub fn set<T: Copy>(&self, index: usize, value: T) {
        assert!((index + 1) * std::mem::size_of::<T>() <= self.bytes, "inside the mapping");
        // SAFETY: in bounds (checked above) of a live, writable mapping.
        unsafe { self.ptr::<T>().add(index).write_unaligned(value) };
    }

    /// Resident pages of the mapping are what the process touched; how many bytes are
    /// resident now (from `mincore`), to show a call read nothing beyond a few pages.
    pub fn resident_bytes(&self) -> usize {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let pages = self.bytes.div_ceil(page);
        let mut flags = vec![0u8; pages];
        // SAFETY: the vector holds one byte per page of the live mapping.
        let code = unsafe { libc::mincore(self.ptr.cast(), self.bytes, flags.as_mut_ptr().cast()) };
        assert_eq!(code, 0, "mincore: {}", std::io::Error::last_os_error());
        flags.iter().filter(|&&f| f & 1 != 0).count() * page
    }
}

// SAFETY: the mapping belongs to the value alone; users lock it before they touch it.
unsafe impl Send for Sparse {}

impl Drop for Sparse {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.bytes) };
    }
}
