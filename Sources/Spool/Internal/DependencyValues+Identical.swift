import Dependencies

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension DependencyValues {
  /// Whether the current task's dependencies are bit for bit `dependencies`: then they are the
  /// same value (the same storage, the same fields), and making `dependencies` current changes
  /// nothing. Different bits prove nothing; callers then push `dependencies` as usual.
  ///
  /// Pushing a task-local value costs about 90 ns (measured on `send`). Reading
  /// `DependencyValues._current` to compare copies the value, a retain and a release of its
  /// storage: in a perf profile of `spool bench counter-send` (baselines left out) those two
  /// and the byte-by-byte comparison were about a quarter of `send`'s time. So this looks at
  /// the task-local binding in place (no copy), and compares words.
  ///
  /// - Parameter defaultIsIdentical: Whether the task-local's default value (what an unbound
  ///   task sees) is bit for bit `dependencies`; asked only when the current task has no
  ///   binding, so that the caller can remember the answer (the default never changes).
  @inlinable
  static func currentIsIdentical(
    to dependencies: DependencyValues, defaultIsIdentical: () -> Bool
  ) -> Bool {
    let key = unsafeBitCast(DependencyValues.$_current, to: UnsafeRawPointer.self)
    guard let bound = spoolTaskLocalValue(key) else { return defaultIsIdentical() }
    return withUnsafeBytes(of: dependencies) { expected in
      memcmp(bound, expected.baseAddress!, MemoryLayout<DependencyValues>.size) == 0
    }
  }

  /// Whether this value and `other` have the same bits (see ``currentIsIdentical(to:defaultIsIdentical:)``).
  @inlinable
  func isIdentical(to other: DependencyValues) -> Bool {
    withUnsafeBytes(of: self) { left in
      withUnsafeBytes(of: other) { right in
        memcmp(left.baseAddress!, right.baseAddress!, MemoryLayout<DependencyValues>.size) == 0
      }
    }
  }
}

/// The Swift runtime's task-local lookup: the address of the value bound to `key` (a
/// `TaskLocal` object) in the current task, or in the thread's fallback storage outside a task;
/// `nil` when none is bound, and the task-local's default value applies.
///
/// Why it is declared here: `TaskLocal.get()` is this call followed by a copy of the value, and
/// the copy (a retain and a release of `DependencyValues`' storage) is what `send` avoids. This
/// is the exported runtime entry point that `TaskLocal.get()` itself calls
/// (`_taskLocalValueGet(key:)` in the standard library, with `key` the `TaskLocal` object's
/// address, as `TaskLocal.key` spells it); the returned memory belongs to the binding and is
/// only read, while the binding is alive (during the caller's synchronous check).
@usableFromInline
@_silgen_name("swift_task_localValueGet")
func spoolTaskLocalValue(_ key: UnsafeRawPointer) -> UnsafeRawPointer?
