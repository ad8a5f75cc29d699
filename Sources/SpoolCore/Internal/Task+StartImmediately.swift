import Builtin

extension Task where Failure == any Error {
  /// Creates a task and runs it on the calling thread until its first suspension, as
  /// `Task.immediate(priority:operation:)` does for a nonisolated operation, but without the
  /// task-executor-preference record that Swift 6.3 gives every `Task.immediate` task.
  ///
  /// Why it exists: `Task.immediate` passes its `executorPreference` (`nil` here) to the task
  /// builtin, and this compiler's IRGen tests that optional against the wrong value: the nil
  /// of a doubly wrapped optional, 1, instead of null (`cmp $0x1` before the option record in
  /// the disassembly of `spool`'s specialized `Task.immediate`; a compiler test found by
  /// searching public code describes this mistake as one IRGen "used to" make, so newer
  /// compilers may not). So every task it creates carries an "owned task executor"
  /// option, the runtime records a preference, and from then on every executor switch in the
  /// task and its completion read that record under the task's status-record lock
  /// (`withStatusRecordLock` and `getPreferredTaskExecutor` were a large share of a profile of
  /// `spool bench effects`, and a task cost nearly twice as much to create and run as with
  /// this function). When a compiler without the mistake is the one Spool requires,
  /// `Task.immediate` can replace this function (a profile then shows no
  /// `pushInitialTaskExecutorPreference` in effect tasks).
  ///
  /// What it does is what `Task.immediate` does on that path, minus the option: the builtin
  /// with the same creation flags (copy task-locals, inherit context, synchronous start, and
  /// the priority in the low byte), then the runtime's `swift_task_immediate` with no target
  /// executor, the call the standard library makes. `operation` is nonisolated, so the task
  /// may always start on the calling thread (`Task.immediate` checks the operation's
  /// isolation for that, and enqueues instead when it is another actor's).
  ///
  /// ```swift
  /// let task = Task.startImmediately(priority: nil) { try await work() }
  /// // `work` has run up to its first suspension here.
  /// ```
  @inlinable
  @discardableResult
  static func startImmediately(
    priority: TaskPriority?,
    operation: sending @escaping () async throws -> Success
  ) -> Task<Success, any Error> {
    // The flag bits of the standard library's `taskCreateFlags` (Swift 6.2 and later):
    // priority in bits 0-7, copyTaskLocals 1 << 10, inheritContext 1 << 11,
    // isSynchronousStart 1 << 16; no enqueueJob (1 << 12): the task is run, not scheduled.
    let flags = Int(priority?.rawValue ?? 0) | 1 << 10 | 1 << 11 | 1 << 16
    let task = Builtin.createTask(flags: flags, operation: operation).0
    spoolStartTaskImmediately(task, targetExecutor: nil)
    // `Task` is a frozen struct whose only stored property is the task object.
    return unsafeBitCast(task, to: Task<Success, any Error>.self)
  }
}

/// The Swift runtime's entry point that runs a task created with the synchronous-start flag
/// on the calling thread (`_startTaskImmediately` in the standard library, which
/// `Task.immediate` calls with the operation's executor, `nil` for a nonisolated one).
@usableFromInline
@_silgen_name("swift_task_immediate")
func spoolStartTaskImmediately(_ task: Builtin.NativeObject, targetExecutor: Builtin.Executor?)
