#if SPOOL_TSAN
  import SpoolCore

  /// In the Thread Sanitizer build only (`-DSPOOL_TSAN`, `.ci/tsan`), shadows
  /// `Synchronization.Mutex` with a lock that TSan understands; see `ThreadSanitizerMutex`.
  typealias Mutex<Value> = ThreadSanitizerMutex<Value>
#endif
