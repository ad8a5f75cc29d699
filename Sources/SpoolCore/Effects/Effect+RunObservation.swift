extension Effect {
  /// This effect with each of its `.run`s observed: `start` when the run's task begins it,
  /// `end` with its outcome when it returns, and `sent` for each action it sends.
  ///
  /// For instruments in other modules of Spool (SpoolProfiling's `signpost(_:into:)`), which
  /// cannot see the effect's operation. What must stay true: the observed effect does what this
  /// one does (the same runs, priorities, cancellation IDs and actions, in the same order), so
  /// that instrumenting a reducer does not change its behaviour. `.send` effects are not tasks
  /// and are left as they are.
  ///
  /// - Parameters:
  ///   - start: Called in the run's task before its operation; its result goes to `end`.
  ///   - end: Called in the run's task after its operation, with the outcome: `.cancelled` when
  ///     the task was cancelled, even if the operation returned normally.
  ///   - sent: Called with each action the run sends, before the store receives it; not called
  ///     for an action dropped because the task was cancelled.
  package func observingRuns<Token: Sendable>(
    start: @escaping @Sendable () -> Token,
    end: @escaping @Sendable (Token, EffectOutcome) -> Void,
    sent: @escaping @Sendable (Action) -> Void
  ) -> Self {
    switch operation {
    case .none, .send, .cancel:
      return self
    case let .run(priority, work):
      return Self(
        operation: .run(priority) { send in
          let observedSend = Send<Action> { action in
            sent(action)
            send.sink(action)
          }
          let token = start()
          let outcome = await work(observedSend).resolved()
          end(token, outcome)
          return outcome
        }
      )
    case let .merge(effects):
      return Self(
        operation: .merge(effects.map { $0.observingRuns(start: start, end: end, sent: sent) }))
    case let .concatenate(effects):
      return Self(
        operation: .concatenate(
          effects.map { $0.observingRuns(start: start, end: end, sent: sent) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(
        operation: .cancellable(
          id: id, cancelInFlight: cancelInFlight,
          effect.observingRuns(start: start, end: end, sent: sent)))
    }
  }
}
