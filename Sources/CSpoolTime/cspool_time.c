// CSpoolTime is header-only (its functions are `static inline`, so that Swift inlines them);
// SwiftPM needs one source file to build the target. It also holds CSpoolThread.h, the
// thread identity, for the same reason: one instruction that Swift cannot emit.
#include "CSpoolTime.h"
#include "CSpoolThread.h"

// The per-thread backoff of CSpoolThread.h.
__thread unsigned int cspool_lock_backoff __attribute__((tls_model("initial-exec"))) = 0;

// The per-thread sampling generator of CSpoolThread.h.
__thread uint64_t cspool_sample_state __attribute__((tls_model("initial-exec"))) = 0;
