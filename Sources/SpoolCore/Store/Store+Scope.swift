import CasePathsCore

extension Store {
  /// A store for a part of this store's state and actions.
  ///
  /// The scoped store reads this store's state (there is no second copy) and sends through this
  /// store's queue (there is no second queue). It runs on the same executor, so awaiting it
  /// costs no more than awaiting this store. It keeps this store alive.
  ///
  /// - Parameters:
  ///   - state: The key path from this state to the child state.
  ///   - action: The case key path from this action to the child action.
  /// - Returns: A store of the child feature.
  ///
  /// ```swift
  /// let counter = store.scope(state: \.counter, action: \.counter)
  /// await counter.send(.incrementButtonTapped)   // reduced as .counter(.incrementButtonTapped)
  /// ```
  public nonisolated func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: KeyPath<State, ChildState> & Sendable,
    action: CaseKeyPath<Action, ChildAction> & Sendable
  ) -> Store<ChildState, ChildAction> {
    let core = ScopedCore<State, Action, ChildState, ChildAction>(
      parent: self.core,
      toChildState: { $0[keyPath: state] },
      fromChildAction: { action($0) }
    )
    let enqueue = enqueueEntry
    let trySend = trySendEntry
    let send = sendEntry
    return Store<ChildState, ChildAction>(
      core: core,
      parent: self,
      enqueue: { enqueue(action($0)) },
      trySend: { childAction, read in
        guard let read else { return trySend(action(childAction), nil) }
        // The reader runs before `trySend` returns: it does not escape.
        return withoutActuallyEscaping({ read($0[keyPath: state]) }) {
          trySend(action(childAction), $0)
        }
      },
      send: { await send(action($0)) }
    )
  }
}

/// The core of a scoped store: it maps the child's view onto its parent's core.
final class ScopedCore<
  ParentState: Sendable, ParentAction: Sendable, State: Sendable, Action: Sendable
>: StoreCore {
  let parent: any StoreCore<ParentState, ParentAction>
  let toChildState: @Sendable (ParentState) -> State
  let fromChildAction: @Sendable (Action) -> ParentAction

  init(
    parent: any StoreCore<ParentState, ParentAction>,
    toChildState: @escaping @Sendable (ParentState) -> State,
    fromChildAction: @escaping @Sendable (Action) -> ParentAction
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.fromChildAction = fromChildAction
  }

  var isolation: any StoreIsolation { parent.isolation }

  func readState(isolation: isolated any StoreIsolation) async -> State {
    toChildState(await parent.readState(isolation: isolation))
  }

  func tryReadState() -> State? { parent.tryReadState().map(toChildState) }

  func makeStates() -> StoreStates<State> { parent.makeStates().map(toChildState) }

  func sendReading<Value>(
    _ action: Action, _ read: (State) -> Value, isolation: isolated any StoreIsolation
  ) async -> Value {
    await parent.sendReading(
      fromChildAction(action), { read(toChildState($0)) }, isolation: isolation)
  }

  func settle(isolation: isolated any StoreIsolation) async {
    await parent.settle(isolation: isolation)
  }

  func finish(isolation: isolated any StoreIsolation) async {
    await parent.finish(isolation: isolation)
  }

  func shutdown() { parent.shutdown() }

  func cancelEffects() { parent.cancelEffects() }

  var isShutdown: Bool { parent.isShutdown }

  func storeReleased() {}

  var runningEffectCount: Int { parent.runningEffectCount }
}
