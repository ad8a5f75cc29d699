// CSpoolTime is header-only (its functions are `static inline`, so that Swift inlines them);
// SwiftPM needs one source file to build the target. It also holds CSpoolThread.h, the
// thread identity, for the same reason: one instruction that Swift cannot emit.
#include "CSpoolTime.h"
#include "CSpoolThread.h"

// The per-thread backoff of CSpoolThread.h.
__thread unsigned int cspool_lock_backoff __attribute__((tls_model("initial-exec"))) = 0;

// The per-thread table of latency-recorder cells of CSpoolThread.h.
__thread void *cspool_thread_cells_table __attribute__((tls_model("initial-exec"))) = 0;

// The per-thread sampling generator of CSpoolThread.h.
__thread uint64_t cspool_sample_state __attribute__((tls_model("initial-exec"))) = 0;

// The registry reader numbers of CSpoolThread.h.
__thread unsigned int cspool_registry_reader __attribute__((tls_model("initial-exec"))) = 0;
unsigned int cspool_registry_readers = 0;

// The counter clock of CSpoolTime.h: zero (not published) until `CounterClock` calibrates.
cspool_counter_clock_t cspool_counter_clock = {0, 0, 0, 0};

void cspool_counter_clock_publish(
    uint64_t base_ticks, uint64_t base_nanoseconds, uint64_t scale, int enabled) {
  cspool_counter_clock.base_ticks = base_ticks;
  cspool_counter_clock.base_nanoseconds = base_nanoseconds;
  cspool_counter_clock.scale = scale;
  __atomic_store_n(&cspool_counter_clock.state, enabled ? 1 : 2, __ATOMIC_RELEASE);
}
