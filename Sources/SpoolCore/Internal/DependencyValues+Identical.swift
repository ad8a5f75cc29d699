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
    return isIdentical(bound, to: dependencies)
  }

  /// Whether the value at `bound` (a `DependencyValues` in place) has the bits of
  /// `dependencies`.
  ///
  /// Two words, compared in registers, when the value is two words wide (it is in the
  /// swift-dependencies versions Spool builds with): `withUnsafeBytes(of:)` would copy the
  /// value to the stack, and a stack buffer whose address escapes gives the caller a stack
  /// protector check, on the path every idle-store `enqueue` takes (`spool bench counter`).
  @inlinable @inline(__always)
  static func isIdentical(_ bound: UnsafeRawPointer, to dependencies: DependencyValues) -> Bool {
    typealias Words = (UInt, UInt)
    if MemoryLayout<DependencyValues>.size == MemoryLayout<Words>.size
      && MemoryLayout<DependencyValues>.alignment >= MemoryLayout<Words>.alignment
    {
      // Not a copy: a reinterpretation of the bits (no retain), compared with the bits in
      // place; the binding keeps what they point at alive during the check.
      let expected = unsafeBitCast(dependencies, to: Words.self)
      let actual = bound.load(as: Words.self)
      return actual.0 == expected.0 && actual.1 == expected.1
    }
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
