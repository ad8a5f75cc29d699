// The calling thread's identity and a per-thread hint, for the store's consumer lock (Spool's
// ActionQueue and RootCore). Swift can call `pthread_self()`, but only through the PLT, which
// doubled the cost of an uncontended lock and unlock; the thread pointer is one instruction.
// Swift has no thread-local variables; C's initial-exec ones are one %fs-relative access.
#ifndef CSPOOL_THREAD_H
#define CSPOOL_THREAD_H

#include <stdint.h>
#include <pthread.h>

/// A value unique to the calling thread among the threads alive now, never 0.
static inline uintptr_t cspool_thread_identity(void) {
#if defined(__x86_64__) && defined(__linux__)
  // The thread control block's self-pointer, at %fs:0 (what pthread_self returns).
  uintptr_t value;
  __asm__ volatile("movq %%fs:0, %0" : "=r"(value));
  return value;
#elif defined(__aarch64__)
  uintptr_t value;
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(value));
  return value;
#else
  return (uintptr_t)pthread_self();
#endif
}

/// How many more times the calling thread pushes to a store's queue without trying its lock,
/// after it found the lock held (RootCore.enqueue): under contention every try reads a
/// cache line that the holder keeps taking back, which costs more than the push it would save.
/// Per thread, for every store: it only chooses between two correct paths. Defined in
/// cspool_time.c (a header's static thread-local is not emitted for Swift's importer).
extern __thread unsigned int cspool_lock_backoff __attribute__((tls_model("initial-exec")));

/// The calling thread's remaining backoff (see `cspool_lock_backoff`).
static inline unsigned int cspool_lock_backoff_get(void) { return cspool_lock_backoff; }

/// Sets the calling thread's backoff (see `cspool_lock_backoff`).
static inline void cspool_lock_backoff_set(unsigned int value) { cspool_lock_backoff = value; }

/// The calling thread's table of latency-recorder cells (SpoolProfiling's ThreadCellsCache);
/// NULL until the thread first records. A copy of the thread's value of the cache's pthread
/// key, whose destructor frees the table and clears this: the key's value is a library call
/// to read, this is one %fs-relative load. Defined in cspool_time.c.
extern __thread void *cspool_thread_cells_table __attribute__((tls_model("initial-exec")));

/// The calling thread's table (see `cspool_thread_cells_table`).
static inline void *cspool_thread_cells_table_get(void) { return cspool_thread_cells_table; }

/// Sets the calling thread's table (see `cspool_thread_cells_table`).
static inline void cspool_thread_cells_table_set(void *table) {
  cspool_thread_cells_table = table;
}

/// The state of the calling thread's generator that picks which pushes to sampled stores are
/// timed (RootCore.enqueue); 0 until its first use. Random, not every Nth push: a thread that
/// pushes to several stores in turn (A, B, A, B) would otherwise time all of one store's
/// pushes and none of the other's. Per thread, so that producers share no cache line for it.
/// Defined in cspool_time.c.
extern __thread uint64_t cspool_sample_state __attribute__((tls_model("initial-exec")));

/// The next value of the calling thread's xorshift64 generator, seeded from its identity.
static inline uint64_t cspool_sample_random(void) {
  uint64_t x = cspool_sample_state;
  if (__builtin_expect(x == 0, 0)) {
    x = ((uint64_t)cspool_thread_identity() * 0x9E3779B97F4A7C15ull) | 1;
  }
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  cspool_sample_state = x;
  return x;
}

/// The calling thread's number among the threads that have read a store registry, counted
/// from 1; 0 until the thread's first read. A registry picks the thread's reader counter from
/// it (`RegistryReaders`), so that two threads reading at once rarely write one cache line.
/// Any value is correct there (threads that share a counter only share its line). Defined in
/// cspool_time.c.
extern __thread unsigned int cspool_registry_reader __attribute__((tls_model("initial-exec")));

/// The last number given by `cspool_registry_reader_number`. Defined in cspool_time.c.
extern unsigned int cspool_registry_readers;

/// The calling thread's reader number (see `cspool_registry_reader`), given at its first call.
static inline unsigned int cspool_registry_reader_number(void) {
  unsigned int value = cspool_registry_reader;
  if (__builtin_expect(value == 0, 0)) {
    value = __atomic_add_fetch(&cspool_registry_readers, 1, __ATOMIC_RELAXED);
    cspool_registry_reader = value;
  }
  return value;
}

#endif
