import CustomDump
import Synchronization

#if DEBUG
  /// The `Effect.run` whose operation the current task runs, or that started the current
  /// task, in debug builds: what a `Send` checks, so that a send after the operation returned
  /// (from an unstructured task it started, which inherits the binding) is reported.
  ///
  /// Debug builds only: binding it costs every effect an allocation and a task-local push,
  /// and checking it costs every send a task-local lookup, which release builds do not pay.
  @usableFromInline
  final class EffectRunScope: Sendable {
    /// The scope of the innermost `Effect.run` operation around the current task.
    @usableFromInline static let current = TaskLocal<EffectRunScope?>(wrappedValue: nil)

    /// Where the effect was created, where a late send is reported.
    let origin: SourceLocation
    /// Set once the operation (and its error handler) returned.
    let ended = Atomic<Bool>(false)

    @usableFromInline
    init(origin: SourceLocation) {
      self.origin = origin
    }

    /// The operation returned: later sends through this scope are misuses.
    @usableFromInline
    func end() {
      ended.store(true, ordering: .releasing)
    }

    /// Reports `action` when the current task's effect operation has returned.
    @usableFromInline
    static func checkSend<Action>(_ action: Action) {
      guard let scope = current.get(), scope.ended.load(ordering: .acquiring) else { return }
      var actionDump = ""
      customDump(action, to: &actionDump, indent: 4)
      StoreIssueContext.misuse(action).bound {
        scope.origin.report(
          """
          An action was sent from a completed effect:

          \(actionDump)

          The "Effect.run" from "\(scope.origin.fileID):\(scope.origin.line)" had returned \
          when its "send" was called. The action came from work that the operation started \
          without waiting for it (an unstructured "Task", say). The action is still sent, but \
          the effect is over: cancelling the effect does not reach that work, and "finish()" \
          and a test store do not wait for it. Await the work inside the operation ("async \
          let", a task group) before it returns.
          """
        )
      }
    }
  }
#endif
