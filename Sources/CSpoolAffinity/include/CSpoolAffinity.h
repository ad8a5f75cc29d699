// CSpoolAffinity: which CPUs the process may run on, and pinning a thread to one of them.
//
// Why this target exists: glibc declares `sched_getaffinity`, `pthread_setaffinity_np` and the
// `CPU_*` macros only under _GNU_SOURCE, which SwiftGlibc's module is built without, so Swift
// cannot import them; the macros would not import in any case. cspool_affinity.c defines
// _GNU_SOURCE and wraps the two calls. SpoolProfiling uses them to measure how long a cache
// line takes to go from one core to another (CrossCoreLatency.swift).
//
// Conventions: functions return 0 (or a count) on success and a negated errno on failure.
#ifndef CSPOOL_AFFINITY_H
#define CSPOOL_AFFINITY_H

#ifdef __cplusplus
extern "C" {
#endif

/// Writes the CPUs of the calling thread's affinity mask to `cpus`, in increasing order, at
/// most `capacity` of them; returns how many the mask holds (which may exceed `capacity`).
int cspool_allowed_cpus(int *cpus, int capacity);

/// Restricts the calling thread to `cpu`.
int cspool_pin_current_thread(int cpu);

#ifdef __cplusplus
}
#endif

#endif
