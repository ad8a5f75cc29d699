// The calling thread's identity, for the store's consumer lock (Spool's ActionQueue), which
// records its holder so that the holder's own pushes need not wake the drain loop. Swift can
// call `pthread_self()`, but only through the PLT, which doubled the cost of an uncontended
// lock and unlock; the thread pointer is one instruction.
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

#endif
