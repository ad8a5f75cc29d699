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
  /// Pushing a task-local value costs several times a whole `send` of a small reducer
  /// (`spool bench counter-send`), and reading `DependencyValues._current` to compare copies
  /// the value, a retain and a release of its storage. So this looks at the task-local binding
  /// in place (``TaskLocal/boundValue()``: no copy, no reference counting), and compares words.
  ///
  /// - Parameter defaultIsIdentical: Whether the task-local's default value (what an unbound
  ///   task sees) is bit for bit `dependencies`; asked only when the current task has no
  ///   binding, so that the caller can remember the answer (the default never changes).
  @inlinable
  static func currentIsIdentical(
    to dependencies: DependencyValues, defaultIsIdentical: () -> Bool
  ) -> Bool {
    currentIsIdentical(
      to: dependencies, key: currentKey, defaultIsIdentical: defaultIsIdentical)
  }

  /// ``currentIsIdentical(to:defaultIsIdentical:)`` with the task-local's key looked up
  /// beforehand (``currentKey``): reading `$_current` goes through a lazy global's accessor,
  /// a retain and a release, on every call.
  @inlinable
  static func currentIsIdentical(
    to dependencies: DependencyValues, key: UnsafeRawPointer, defaultIsIdentical: () -> Bool
  ) -> Bool {
    guard let bound = spoolTaskLocalValue(key) else { return defaultIsIdentical() }
    return withUnsafeBytes(of: dependencies) { expected in
      memcmp(bound, expected.baseAddress!, MemoryLayout<DependencyValues>.size) == 0
    }
  }

  /// The key of the `DependencyValues._current` task-local: its `TaskLocal` object, a global
  /// that lives as long as the process, so the unretained pointer stays valid.
  @inlinable
  static var currentKey: UnsafeRawPointer {
    unsafeBitCast(DependencyValues.$_current, to: UnsafeRawPointer.self)
  }

  /// Whether this value and `other` have the same bits
  /// (see ``currentIsIdentical(to:defaultIsIdentical:)``).
  @inlinable
  func isIdentical(to other: DependencyValues) -> Bool {
    withUnsafeBytes(of: self) { left in
      withUnsafeBytes(of: other) { right in
        memcmp(left.baseAddress!, right.baseAddress!, MemoryLayout<DependencyValues>.size) == 0
      }
    }
  }
}
