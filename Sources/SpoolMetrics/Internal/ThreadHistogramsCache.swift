import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a thread finds its ``ThreadHistograms`` for an instrumentation without a lock: a
/// thread-local table of four entries, indexed by the instrumentation's ID.
///
/// An entry is valid only while its owner ID matches: IDs are never reused, and an
/// instrumentation's storage outlives every call into that instrumentation (it is freed when
/// the instrumentation is), so a matching entry points at live storage. A miss (first use on
/// this thread, or an entry taken by another instrumentation with the same index) costs the
/// caller one trip through its lock.
enum ThreadHistogramsCache {
  private struct Entry {
    var owner: UInt64
    var histograms: ThreadHistograms?
  }

  private static let entryCount = 4

  /// The thread-local pointer to this thread's entries, freed when the thread exits.
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key) { entries in
      entries?.deallocate()
    }
    precondition(result == 0, "SpoolMetrics: pthread_key_create failed (\(result))")
    return key
  }()

  private static let nextOwner = Atomic<UInt64>(1)

  /// A new instrumentation's ID, never handed out before.
  static func makeOwnerID() -> UInt64 {
    nextOwner.wrappingAdd(1, ordering: .relaxed).oldValue
  }

  /// The calling thread's identity, as ``ThreadHistograms/Storage/thread`` records it.
  static var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }

  /// The calling thread's histograms of `owner`, if this thread's table holds them.
  ///
  /// Budget: one `pthread_getspecific`, one compare; no lock, no allocation, no reference
  /// count.
  @inline(__always)
  static func histograms(of owner: UInt64) -> ThreadHistograms? {
    guard let raw = pthread_getspecific(key) else { return nil }
    let entry = raw.assumingMemoryBound(to: Entry.self)[Int(owner % UInt64(entryCount))]
    return entry.owner == owner ? entry.histograms : nil
  }

  /// Puts `histograms` in the calling thread's table as `owner`'s, replacing what had its
  /// index.
  static func remember(_ histograms: ThreadHistograms, of owner: UInt64) {
    let entries: UnsafeMutablePointer<Entry>
    if let raw = pthread_getspecific(key) {
      entries = raw.assumingMemoryBound(to: Entry.self)
    } else {
      entries = UnsafeMutablePointer<Entry>.allocate(capacity: entryCount)
      entries.initialize(repeating: Entry(owner: 0, histograms: nil), count: entryCount)
      let result = pthread_setspecific(key, entries)
      precondition(result == 0, "SpoolMetrics: pthread_setspecific failed (\(result))")
    }
    entries[Int(owner % UInt64(entryCount))] = Entry(owner: owner, histograms: histograms)
  }
}
