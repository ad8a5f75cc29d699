// Spool's cycle counter: the one thing Swift cannot read without C.
//
// x86-64: the time-stamp counter (RDTSC, not serialized: a few nanoseconds of reordering
// around the read are acceptable for latency measurements of whole actions).
// AArch64: the virtual counter of the generic timer (CNTVCT_EL0).
// Elsewhere: no counter; Spool then reads CLOCK_MONOTONIC.
#ifndef CSPOOL_TIME_H
#define CSPOOL_TIME_H

#include <stdint.h>

// The module's umbrella header: the thread identity lives beside it.
#include "CSpoolThread.h"

/// Whether `cspool_ticks` reads a hardware counter on this architecture.
static inline int cspool_ticks_available(void) {
#if defined(__x86_64__) || defined(__aarch64__)
  return 1;
#else
  return 0;
#endif
}

/// The hardware counter, in ticks of an architecture-defined rate; 0 where there is none.
static inline uint64_t cspool_ticks(void) {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  uint64_t value;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(value));
  return value;
#else
  return 0;
#endif
}

#endif
