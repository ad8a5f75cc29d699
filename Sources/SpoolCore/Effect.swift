import ConcurrencyExtras
import CustomDump
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
/// - ``merge(_:)-(Effect<Action>...)``, ``concatenate(_:)-(Effect<Action>...)``,
///   ``map(_:)``.
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
  /// load (`lock cmpxchg16b`) even for a task without one, a visible share of a profile of
  /// `spool bench effects`. Budget: 4 executor switches per effect (count them with a uprobe
  /// on `swift_task_switch`). The user's operation keeps its plain `@Sendable` type: made
  /// `nonisolated(nonsending)` too, a closure written in another module took 5 switches again.
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
  /// across modules (without the box, a profile showed their copy, tag and destroy calls on
  /// every action, and `send` was much slower: `spool bench counter-send`); an optional
  /// reference is one null check.
  ///
  /// Why a `.run` gets a box of its own (``EffectRunBox``, ``RunBox``), with its parts as plain
  /// stored properties: a box holding the generic `Operation` enum is copied out of and
  /// destroyed through that enum's value witnesses, and its deinit, which is not specialized,
  /// looks up the enum's metadata every time (a visible share of a profile of
  /// `spool bench effects` when a `.run` had such a box); a closure and a priority need
  /// neither.
  @usableFromInline
  let box: Box?

  /// An effect's operation: an ``EffectRunBox`` for `Effect.run`, a ``RunBox`` for another
  /// `.run` (one that ``map(_:)`` made), an ``OperationBox`` for the others.
  @usableFromInline
  class Box: @unchecked Sendable {
    // @unchecked Sendable, justified: this class and its three final subclasses have only `let`
    // properties of Sendable types (`Kind`, `TaskPriority?`, `@Sendable` closures,
    // `Operation`, `SourceLocation`, `DependencyValues`); nothing in a box changes after
    // `init`. (A non-final class cannot be checked as Sendable; the hierarchy is closed: the
    // subclasses are final and internal.)

    /// Which subclass this is.
    @usableFromInline
    enum Kind: UInt8 { case effectRun, run, operation }

    @usableFromInline let kind: Kind

    @inlinable init(kind: Kind) { self.kind = kind }

    /// Whether this is a run (``EffectRunBox`` or ``RunBox``).
    @inlinable var isRun: Bool { kind != .operation }

    /// The priority of a run; `nil` for an ``OperationBox``.
    @inlinable
    var runPriority: TaskPriority? {
      switch kind {
      case .effectRun: unsafeDowncast(self, to: EffectRunBox.self).priority
      case .run: unsafeDowncast(self, to: RunBox.self).priority
      case .operation: nil
      }
    }

    /// The work of a run; asked only of a run (``isRun``).
    @inlinable
    var runWork: Work {
      kind == .effectRun
        ? unsafeDowncast(self, to: EffectRunBox.self).work
        : unsafeDowncast(self, to: RunBox.self).work
    }

    /// The operation, as the enum the effect planner switches over.
    @inlinable
    var operation: Operation {
      switch kind {
      case .effectRun:
        let run = unsafeDowncast(self, to: EffectRunBox.self)
        return .run(run.priority, run.work)
      case .run:
        let run = unsafeDowncast(self, to: RunBox.self)
        return .run(run.priority, run.work)
      case .operation:
        return unsafeDowncast(self, to: OperationBox.self).stored
      }
    }
  }

  /// The box of a `.run` made from another one (``map(_:)``): its priority and work.
  @usableFromInline
  final class RunBox: Box, @unchecked Sendable {
    // @unchecked Sendable: see `Box`; both properties are `let` and Sendable.
    @usableFromInline let priority: TaskPriority?
    @usableFromInline let work: Work

    @inlinable
    init(priority: TaskPriority?, work: @escaping Work) {
      self.priority = priority
      self.work = work
      super.init(kind: .run)
    }
  }

  /// The box of an `Effect.run`: the parts of the run as stored properties, not captured by a
  /// closure, so that the box is the only allocation the run makes besides the operation's own
  /// captures (a work closure capturing them was a second one).
  @usableFromInline
  final class EffectRunBox: Box, @unchecked Sendable {
    // @unchecked Sendable: see `Box`; every property is `let` and Sendable.
    @usableFromInline let priority: TaskPriority?
    @usableFromInline let body: @Sendable (_ send: Send<Action>) async throws -> Void
    @usableFromInline
    let handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)?
    @usableFromInline let origin: SourceLocation
    /// The dependencies in effect when the reducer returned the run.
    @usableFromInline let dependencies: DependencyValues

    @inlinable
    init(
      priority: TaskPriority?,
      body: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
      handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)?,
      origin: SourceLocation,
      dependencies: DependencyValues
    ) {
      self.priority = priority
      self.body = body
      self.handler = handler
      self.origin = origin
      self.dependencies = dependencies
      super.init(kind: .effectRun)
    }

    /// The run as ``Work``, for the starts that give it a task of its own (a closure that
    /// captures only the box: no allocation).
    @inlinable
    var work: Work {
      { [self] send in await perform(send) }
    }

    /// Runs the operation with the dependencies it was made with; see
    /// ``Effect/perform(_:catch:send:origin:)``.
    @inlinable
    nonisolated(nonsending) func perform(_ send: Send<Action>) async -> EffectOutcome {
      // An effect started by the store's drain loop already has these dependencies (its task
      // copied the loop's): then pushing them again is skipped, with the async layers of
      // `withValue` (each an executor check for the task).
      if DependencyValues.currentIsIdentical(to: dependencies, defaultIsIdentical: { false }) {
        return await Effect.perform(body, catch: handler, send: send, origin: origin)
      }
      return await DependencyValues.$_current.withValue(dependencies) {
        await Effect.perform(body, catch: handler, send: send, origin: origin)
      }
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
      super.init(kind: .operation)
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
  /// The operation starts immediately, as a `Task.immediate` task does: on the thread that
  /// reduced the action (the store's executor, or the thread of a producer that found the
  /// store idle), synchronously until its first suspension, then on the global executor (or on
  /// the executor the store was given for effects). An effect that only sends therefore costs
  /// no scheduled job. Long synchronous work before the first `await` holds up the store's next
  /// action, as work inside the reducer would: start it after a suspension, or in a task of its
  /// own. An effect made ``cancellable(id:cancelInFlight:)`` is the exception: it starts as a
  /// scheduled task, so that cancelling it before it has run (a restart on every keystroke)
  /// undoes nothing; for actions from the queue, its task is created when the pass ends (or
  /// earlier, once a batch of such effects is waiting), and not at all if the effect was
  /// cancelled or replaced by then.
  ///
  /// Runs returned for actions from the store's queue (``Store/enqueue(_:)``, and actions that
  /// effects send) start together: the store collects the runs of a pass over its queue and
  /// starts them in order, one after another in one task. Collected runs start once a batch of
  /// them is waiting, before any other effect of the pass starts or is cancelled, and at the end
  /// of the pass at the latest (<doc:Performance> gives the batch's size). A pass ends when the queue is empty or after a bounded number of
  /// actions; a producer that reduces on its own thread (an `enqueue` that found the store
  /// idle) ends its pass right after its own action and the actions its effects send back. An
  /// operation that suspends keeps that task as its own, and the runs after it go on at once
  /// in another. So an operation that ends without suspending costs no task of its own
  /// (`spool bench effects` measures the round trip). Two consequences: the runs after a long
  /// synchronous operation wait for it too, and an operation must not cancel its own task
  /// (`withUnsafeCurrentTask { $0?.cancel() }`), which the runs after it may share. A run with
  /// a `priority`, and one returned for an action given to ``Store/send(_:)-(Action)`` (whose
  /// ``StoreTask`` cancels and awaits it), get a task of their own. A store with
  /// instrumentation runs its effects the same way, and times each from its start (for a
  /// collected run, when its operation begins).
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
  ///   - fileID: The file ID of the place where an unhandled error is reported; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// return .run { send in
  ///   for await tick in clock.timer(interval: .seconds(1)) {
  ///     await send(.timerTicked)
  ///   }
  /// }
  /// ```
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
    // Inlinable, so that a reducer's `.run` is compiled for its `Action` in the reducer's
    // module: unspecialized, building the effect looked up generic metadata on every call (a
    // visible share of a profile of `spool bench effects`).

    // What `withEscapedDependencies` does, without its `yield`'s extra task-local read and
    // result type check per effect: the dependencies in effect now go with the work.
    Self(
      box: EffectRunBox(
        priority: priority, body: operation, handler: handler,
        origin: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
        dependencies: DependencyValues._current
      )
    )
  }

  /// Runs the operation of a `.run` effect and says how it ended; see
  /// ``run(priority:operation:catch:fileID:filePath:line:column:)`` for the error rules.
  ///
  /// An operation that returns is `.finished`, even in a cancelled task: whoever reports the
  /// outcome asks the task (``EffectOutcome/resolved()``). The store's uninstrumented path
  /// discards it, and so saves a cancellation check per effect.
  ///
  /// In debug builds, the operation (and its handler) run with ``EffectRunScope/current``
  /// bound to a scope that ends when they return: a `Send` called after that, from a task the
  /// operation started and did not wait for, reports the misuse.
  @inlinable
  nonisolated(nonsending) static func perform(
    _ operation: @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)?,
    send: Send<Action>,
    origin: SourceLocation
  ) async -> EffectOutcome {
    #if DEBUG
      let scope = EffectRunScope(origin: origin)
      defer { scope.end() }
      return await EffectRunScope.current.withValue(scope) {
        await performOperation(operation, catch: handler, send: send, origin: origin)
      }
    #else
      return await performOperation(operation, catch: handler, send: send, origin: origin)
    #endif
  }

  /// ``perform(_:catch:send:origin:)`` without the debug builds' scope.
  @inlinable
  nonisolated(nonsending) static func performOperation(
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
    var errorDump = ""
    customDump(error, to: &errorDump, indent: 4)
    StoreIssueContext.unhandled(error, actionType: Action.self).bound {
      origin.report(
        """
        An "Effect.run" returned from "\(origin.fileID):\(origin.line)" threw an unhandled \
        error. …

        \(errorDump)

        All non-cancellation errors must be handled explicitly: pass a "catch:" handler to \
        "Effect.run", or catch the error inside the operation.
        """
      )
    }
  }
}

