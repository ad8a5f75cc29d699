import ConcurrencyExtras
import Dependencies
import IssueReporting

/// The work a reducer asks its store to do after it has changed the state.
///
/// A reducer never awaits: it returns an `Effect`, and the store carries it out. Effects are
/// values, built from a few cases that a TCA user knows:
///
/// - ``none``: nothing to do.
/// - ``send(_:)``: an action reduced right after the current one, before anything that other
///   producers enqueued meanwhile.
/// - ``run(priority:operation:catch:fileID:filePath:line:column:)``: asynchronous work that
///   can send actions back through its ``Send``.
/// - ``merge(_:)-(Effect...)``, ``concatenate(_:)-(Effect...)``, ``map(_:)``.
/// - ``cancellable(id:cancelInFlight:)`` and ``cancel(id:)``.
///
/// Every effect that does asynchronous work runs in a task that its store owns: it is registered
/// under its cancellation IDs, cancelled by ``cancel(id:)``, by `cancelInFlight`, by the
/// ``StoreTask`` of the action that started it, and when the store shuts down.
///
/// ```swift
/// case .factButtonTapped:
///   return .run { [count = state.count] send in
///     let fact = try await numberFact.fetch(count)
///     await send(.factResponse(fact))
///   }
/// ```
public struct Effect<Action: Sendable>: Sendable {
  /// The work of a `.run`, as the store runs it.
  ///
  /// `nonisolated(nonsending)`, as are ``perform(_:catch:send:origin:)`` and
  /// `EffectRegistry.withCurrent`: they run on their caller's executor, the effect task's, so
  /// the task does not switch executors to enter them and again to leave. Each
  /// `swift_task_switch` asks the runtime for the task's executor preference, a 16-byte atomic
  /// load (`lock cmpxchg16b`) even for a task without one: 6.7% of a perf profile of `spool
  /// bench effects`. Counted with a uprobe, 5 switches per effect before, 4 after; 1.73-1.82 M
  /// round trips/s against 1.71-1.75 M/s, five interleaved pairs. (The user's operation keeps
  /// its plain `@Sendable` type: made `nonisolated(nonsending)` too, the count went back to 5
  /// per effect for a closure written in another module; measured, not kept.)
  @usableFromInline
  typealias Work = nonisolated(nonsending) @Sendable (Send<Action>) async -> EffectOutcome

  @usableFromInline
  enum Operation: Sendable {
    case none
    case send(Action)
    case run(TaskPriority?, Work)
    indirect case merge([Effect<Action>])
    indirect case concatenate([Effect<Action>])
    indirect case cancellable(id: AnyHashableSendable, cancelInFlight: Bool, Effect<Action>)
    case cancel(id: AnyHashableSendable)
  }

  /// The effect's operation, boxed; `nil` for `.none`.
  ///
  /// Why a box: reducers return `.none` for most actions, and the store checks every returned
  /// effect. A multi-payload enum generic over `Action` is handled through value witnesses
  /// across modules (perf showed the copy, tag and destroy calls on every action; in one run
  /// `send` went from about 180 to about 110 ns per action with the box); an optional
  /// reference is one null check.
  ///
  /// Why a `.run` gets a box of its own (``RunBox``), with its priority and work as plain
  /// stored properties: a box holding the generic `Operation` enum is copied out of and
  /// destroyed through that enum's value witnesses, and its deinit, which is not specialized,
  /// looks up the enum's metadata every time. For a `.run` those were about a tenth of a perf
  /// profile of `spool bench effects`; a closure and a priority need neither.
  @usableFromInline
  let box: Box?

  /// An effect's operation: a ``RunBox`` for `.run`, an ``OperationBox`` for the others.
  @usableFromInline
  class Box: @unchecked Sendable {
    // @unchecked Sendable, justified: this class and its two final subclasses have only `let`
    // properties, each of a Sendable type (`Bool`, `TaskPriority?`, a `@Sendable` closure,
    // `Operation`); nothing in a box changes after `init`. (A non-final class cannot be
    // checked as Sendable; the hierarchy is closed: both subclasses are final and internal.)

    /// Whether this is a ``RunBox``.
    @usableFromInline let isRun: Bool

    @inlinable init(isRun: Bool) { self.isRun = isRun }

    /// The operation, as the enum the effect planner switches over.
    @inlinable
    var operation: Operation {
      if isRun {
        let run = unsafeDowncast(self, to: RunBox.self)
        return .run(run.priority, run.work)
      }
      return unsafeDowncast(self, to: OperationBox.self).stored
    }
  }

  /// The box of a `.run`: what the store's specialized effect path reads directly.
  @usableFromInline
  final class RunBox: Box, @unchecked Sendable {
    // @unchecked Sendable: see `Box`; both properties are `let` and Sendable.
    @usableFromInline let priority: TaskPriority?
    @usableFromInline let work: Work

    @inlinable
    init(priority: TaskPriority?, work: @escaping Work) {
      self.priority = priority
      self.work = work
      super.init(isRun: true)
    }
  }

  /// The box of every other operation.
  @usableFromInline
  final class OperationBox: Box, @unchecked Sendable {
    // @unchecked Sendable: see `Box`; `stored` is `let` and Sendable.
    @usableFromInline let stored: Operation

    @inlinable
    init(_ operation: Operation) {
      self.stored = operation
      super.init(isRun: false)
    }
  }

  @inlinable
  init(operation: Operation) {
    switch operation {
    case .none: self.box = nil
    case let .run(priority, work): self.box = RunBox(priority: priority, work: work)
    default: self.box = OperationBox(operation)
    }
  }

  @inlinable
  init(none: Void) {
    self.box = nil
  }

  /// An effect with this box (`.run` builds its ``RunBox`` directly: going through
  /// ``init(operation:)`` would make and take apart an `Operation` on every call).
  @inlinable
  init(box: Box) {
    self.box = box
  }

  @usableFromInline
  var operation: Operation { box?.operation ?? .none }

  /// Whether the effect does nothing; the store's per-action check.
  @inlinable
  var isNone: Bool { box == nil }
}

extension Effect {
  /// An effect that does nothing.
  ///
  /// ```swift
  /// case .incrementButtonTapped:
  ///   state.count += 1
  ///   return .none
  /// ```
  @inlinable
  public static var none: Self { Self(none: ()) }

  /// An effect that sends `action` back into the store synchronously.
  ///
  /// The store reduces `action` right after the action whose reduce returned this effect, before
  /// any action that another producer enqueued meanwhile. Prefer calling a shared helper over
  /// sending actions to share logic; `send` is for telling a parent what happened.
  ///
  /// ```swift
  /// case .saveButtonTapped:
  ///   return .send(.delegate(.saved(state.draft)))
  /// ```
  @inlinable
  public static func send(_ action: Action) -> Self {
    Self(operation: .send(action))
  }

  /// An effect that runs asynchronous work and may send actions back to the store.
  ///
  /// The operation runs in a task owned by the store, with the dependencies that were in effect
  /// when the reducer returned the effect. Actions sent through ``Send`` arrive through the
  /// store's queue.
  ///
  /// The task starts immediately, as `Task.immediate` starts one: right after the reduce that
  /// returned the effect, on the store's executor, the operation runs synchronously until its
  /// first suspension, then goes on on the global executor (or on the executor the store was
  /// given for effects). An effect that only sends therefore costs no scheduled job. Long
  /// synchronous work before the first `await` holds up the store's next action, as work inside
  /// the reducer would: start it after a suspension, or in a task of its own. An effect made
  /// ``cancellable(id:cancelInFlight:)`` is the exception: it starts as a scheduled task, so
  /// that cancelling it before it has run (a restart on every keystroke) undoes nothing.
  ///
  /// Cancellation is not an error: a `CancellationError` (or any error thrown after the task
  /// was cancelled) ends the effect quietly. Any other error goes to `handler`; without a
  /// handler, it is reported as an issue (a test failure under a test runner, a runtime warning
  /// otherwise) that names the place where the effect was created.
  ///
  /// - Parameters:
  ///   - priority: The priority of the effect's task.
  ///   - operation: The work to run.
  ///   - handler: What to do with an error that `operation` throws.
  ///
  /// ```swift
  /// return .run { send in
  ///   for await tick in clock.timer(interval: .seconds(1)) {
  ///     await send(.timerTicked)
  ///   }
  /// }
  /// ```
  ///
  /// Inlinable, so that a reducer's `.run` is compiled for its `Action` in the reducer's
  /// module: unspecialized, building the effect looked up generic metadata on every call (about
  /// 12% of a perf profile of `spool bench effects`).
  @inlinable
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    // What `withEscapedDependencies` does, without its `yield`'s extra task-local read and
    // result type check per effect: the dependencies in effect now go with the work.
    let dependencies = DependencyValues._current
    let origin = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    return Self(
      box: RunBox(priority: priority) { send in
        // An effect started by the store's drain loop already has these dependencies (its task
        // copied the loop's): then pushing them again is skipped, with the async layers of
        // `withValue` (each an executor check for the task).
        if DependencyValues.currentIsIdentical(to: dependencies, defaultIsIdentical: { false }) {
          return await perform(operation, catch: handler, send: send, origin: origin)
        }
        return await DependencyValues.$_current.withValue(dependencies) {
          await perform(operation, catch: handler, send: send, origin: origin)
        }
      }
    )
  }

  /// Runs the operation of a `.run` effect and says how it ended; see
  /// ``run(priority:operation:catch:fileID:filePath:line:column:)`` for the error rules.
  ///
  /// An operation that returns is `.finished`, even in a cancelled task: whoever reports the
  /// outcome asks the task (``EffectOutcome/resolved()``). The store's uninstrumented path
  /// discards it, and so saves a cancellation check per effect.
  @inlinable
  nonisolated(nonsending) static func perform(
    _ operation: @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)?,
    send: Send<Action>,
    origin: SourceLocation
  ) async -> EffectOutcome {
    do {
      try await operation(send)
      return .finished
    } catch is CancellationError {
      return .cancelled
    } catch {
      if Task.isCancelled { return .cancelled }
      if let handler {
        await handler(error, send)
        return .failed
      }
      reportUnhandled(error, origin: origin)
      return .failed
    }
  }

  /// Reports an error a `.run` effect threw and did not handle, at the place it was created.
  @usableFromInline
  static func reportUnhandled(_ error: any Error, origin: SourceLocation) {
    origin.report(
      """
      An "Effect.run" created at "\(origin.fileID):\(origin.line)" threw an unhandled error: \
      \(error)

      All non-cancellation errors must be handled explicitly: pass a "catch:" handler to \
      "Effect.run", or catch the error inside the operation.
      """
    )
  }
}

