#ifndef CSPOOL_ALLOCATION_COUNTER_H
#define CSPOOL_ALLOCATION_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc)
/// the calling thread has made since it started. Tests only: this target replaces those
/// functions in the test executable with counting wrappers over glibc's own.
unsigned long long cspool_thread_allocations(void);

/// Whether the counting wrappers are in place: not under a sanitizer, which owns the
/// allocator (then `cspool_thread_allocations` is always 0 and the counting tests are off).
int cspool_allocation_counting_enabled(void);

#endif
