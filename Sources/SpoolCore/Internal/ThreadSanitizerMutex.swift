#if SPOOL_TSAN
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The Thread Sanitizer build's stand-in for `Synchronization.Mutex`: the same `withLock`,
  /// over a pthread mutex, which TSan intercepts. Compiled only with `-DSPOOL_TSAN`
  /// (`.ci/tsan`); every other build uses `Synchronization.Mutex` and never sees this file.
  ///
  /// Why it exists: on Linux, `Synchronization.Mutex` locks and unlocks with an inlined atomic
  /// compare-and-swap, which TSan sees, but when the lock is contended it waits and hands over
  /// ownership in the kernel (`_lockSlow`/`_unlockSlow` in libswiftSynchronization.so, which is
  /// not instrumented and makes the `futex` system call itself, with no libc call TSan could
  /// intercept). TSan then records no happens-before edge from one holder's unlock to the next
  /// holder's lock, and reports the state the mutex protects (and everything handed over
  /// through it) as raced: `ActionQueue.pushOverflow`, the I/O backends' queues, the buffers
  /// they pass to worker threads. Proof that it is the lock and not Spool: eight threads
  /// appending to an array inside `Mutex.withLock` (nothing else shared) get the same "Swift
  /// access race" report and an exact final count; the same program with a pthread mutex gets
  /// no report (the program and the steps are in `.ci/tsan-mutex-proof.swift`).
  ///
  /// Each module that uses `Mutex` declares, under the same condition, a `Mutex` typealias for
  /// this class, which shadows the imported one: the sanitized build checks all of Spool's own
  /// code, with a lock TSan understands, and needs no suppression.
  @usableFromInline
  package final class ThreadSanitizerMutex<Value>: @unchecked Sendable {
    // @unchecked Sendable, justified: `value` is only read or written inside `withLock`,
    // between `pthread_mutex_lock` and `pthread_mutex_unlock` of `mutex`.

    // allocated once, so its address never changes
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // protected by `mutex`
    @usableFromInline var value: Value

    package init(_ initialValue: consuming Value) {
      mutex = .allocate(capacity: 1)
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
      value = initialValue
    }

    deinit {
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
      mutex.deallocate()
    }

    @inlinable
    package func withLock<Result, E: Error>(
      _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value)
    }
  }

  /// Shadows `Synchronization.Mutex` in this module, in the TSan build only (see above).
  @usableFromInline
  typealias Mutex<Value> = ThreadSanitizerMutex<Value>
#endif
