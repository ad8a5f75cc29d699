// See include/CSpoolAffinity.h for why these functions exist.
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "CSpoolAffinity.h"

int cspool_allowed_cpus(int *cpus, int capacity) {
  // Masks grow with the kernel's CPU limit: start at the configured processors and double
  // while the kernel says the mask is too small (EINVAL).
  long configured = sysconf(_SC_NPROCESSORS_CONF);
  int size = configured > 0 ? (int)configured : 64;
  for (; size <= (1 << 20); size *= 2) {
    cpu_set_t *set = CPU_ALLOC(size);
    if (set == NULL) return -ENOMEM;
    size_t bytes = CPU_ALLOC_SIZE(size);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) != 0) {
      int error = errno;
      CPU_FREE(set);
      if (error == EINVAL) continue;
      return -error;
    }
    int count = 0;
    for (int cpu = 0; cpu < size; cpu++) {
      if (!CPU_ISSET_S(cpu, bytes, set)) continue;
      if (count < capacity) cpus[count] = cpu;
      count++;
    }
    CPU_FREE(set);
    return count;
  }
  return -EINVAL;
}

int cspool_pin_current_thread(int cpu) {
  if (cpu < 0) return -EINVAL;
  cpu_set_t *set = CPU_ALLOC(cpu + 1);
  if (set == NULL) return -ENOMEM;
  size_t bytes = CPU_ALLOC_SIZE(cpu + 1);
  CPU_ZERO_S(bytes, set);
  CPU_SET_S(cpu, bytes, set);
  // pthread_setaffinity_np returns the error number rather than setting errno.
  int result = pthread_setaffinity_np(pthread_self(), bytes, set);
  CPU_FREE(set);
  return -result;
}
