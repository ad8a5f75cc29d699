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

/// The counter clock's calibration, published once by Swift's `CounterClock`, so that a
/// reading costs a counter read, a multiply and a load of these words: no lazy-global check.
/// `state` is 0 until published, then 1 (the counter is the clock) or 2 (it is not). It is
/// stored with release order after the three words, and loaded with acquire order before
/// them: a reader that sees 1 sees the words the publisher wrote.
typedef struct {
  uint64_t base_ticks;
  uint64_t base_nanoseconds;
  /// Nanoseconds per tick, times 2^32.
  uint64_t scale;
  int state;
} cspool_counter_clock_t;

extern cspool_counter_clock_t cspool_counter_clock;

/// Publishes the calibration; called once, by the one thread that calibrated.
void cspool_counter_clock_publish(
    uint64_t base_ticks, uint64_t base_nanoseconds, uint64_t scale, int enabled);

/// A copy of the published calibration (all zeros before it is published); for tests.
static inline cspool_counter_clock_t cspool_counter_clock_published(void) {
  cspool_counter_clock_t copy = {0, 0, 0, 0};
  copy.state = __atomic_load_n(&cspool_counter_clock.state, __ATOMIC_ACQUIRE);
  if (copy.state == 0) return copy;
  copy.base_ticks = cspool_counter_clock.base_ticks;
  copy.base_nanoseconds = cspool_counter_clock.base_nanoseconds;
  copy.scale = cspool_counter_clock.scale;
  return copy;
}

/// The counter's time in nanoseconds on the calibration's timeline, or 0 when the counter is
/// not the clock or not calibrated yet (the caller then takes its slow path). A counter read
/// on another core a moment before the calibration's base reads as the base.
static inline uint64_t cspool_counter_nanoseconds(void) {
  if (__atomic_load_n(&cspool_counter_clock.state, __ATOMIC_ACQUIRE) != 1) return 0;
  uint64_t ticks = cspool_ticks();
  uint64_t base = cspool_counter_clock.base_ticks;
  uint64_t elapsed = ticks >= base ? ticks - base : 0;
  unsigned __int128 product = (unsigned __int128)elapsed * cspool_counter_clock.scale;
  return cspool_counter_clock.base_nanoseconds + (uint64_t)(product >> 32);
}

#endif
