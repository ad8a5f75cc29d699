// Counting wrappers over glibc's allocator, for tests that assert "no allocation per action".
//
// Why C: Swift cannot define `malloc`. Defined in the test executable, these take precedence
// over libc's for every shared library (the Swift runtime allocates through them), and forward
// to glibc's `__libc_*` entry points, so the allocator itself is unchanged. The counter is
// thread-local with the initial-exec model: reading it never allocates (a dynamic TLS access
// could call malloc, and recurse), and a test counts only its own thread's allocations, which
// other tests running at the same time cannot disturb.
#include <errno.h>
#include <stddef.h>

#include "CSpoolAllocationCounter.h"

// Under AddressSanitizer or ThreadSanitizer (.ci/asan, .ci/tsan) the sanitizer owns the
// allocator: memory from glibc's `__libc_malloc` would reach the sanitizer's `free`, and the
// test executable crashed at start. There the wrappers are left out and the counting tests
// are disabled (`cspool_allocation_counting_enabled`).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CSPOOL_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CSPOOL_SANITIZED 1
#endif

#ifdef CSPOOL_SANITIZED

int cspool_allocation_counting_enabled(void) { return 0; }
unsigned long long cspool_thread_allocations(void) { return 0; }

#else

int cspool_allocation_counting_enabled(void) { return 1; }

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread unsigned long long allocations __attribute__((tls_model("initial-exec")));

void *malloc(size_t size) {
  allocations++;
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  allocations++;
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  allocations++;
  return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  allocations++;
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  allocations++;
  return __libc_memalign(alignment, size);
}

unsigned long long cspool_thread_allocations(void) { return allocations; }

#endif
