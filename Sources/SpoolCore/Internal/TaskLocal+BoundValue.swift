extension TaskLocal {
  /// The address of the value bound to this task-local in the current task (or in the
  /// thread's fallback storage outside a task); `nil` when none is bound, and the default
  /// value applies.
  ///
  /// Why it exists: `get()` is this lookup followed by a copy of the value, and the copy (a
  /// retain and a release) is what `send` and effect start-up avoid when all they need is to
  /// compare the bound value with one they hold. The memory belongs to the binding: read it
  /// only while the binding is alive, during the caller's synchronous check.
  @inlinable
  func boundValue() -> UnsafeRawPointer? {
    spoolTaskLocalValue(unsafeBitCast(self, to: UnsafeRawPointer.self))
  }
}

/// The Swift runtime's task-local lookup, the exported entry point that `TaskLocal.get()`
/// itself calls (`_taskLocalValueGet(key:)` in the standard library, with `key` the
/// `TaskLocal` object's address, as `TaskLocal.key` spells it). Package-visible for the
/// `locked-class+task-local` baseline (SpoolWorkloads), which makes the same call.
@usableFromInline
@_silgen_name("swift_task_localValueGet")
package func spoolTaskLocalValue(_ key: UnsafeRawPointer) -> UnsafeRawPointer?
