/// The states of a store over time, as an `AsyncSequence` that coalesces.
///
/// Iteration starts with the current state, then yields the state after each batch of actions
/// the store reduced. An observer that is slower than the store skips intermediate states and
/// always gets the latest one: observing never slows the store down, and nothing buffers more
/// than one state per observer. The sequence ends when the store shuts down or is released, or
/// when the iterating task is cancelled.
///
/// ```swift
/// for await state in store.states {
///   print("count:", state.count)
/// }
/// ```
public struct StoreStates<State: Sendable>: AsyncSequence, Sendable {
  public typealias Element = State
  public typealias Failure = Never

  private let subscribe: @Sendable () -> Iterator

  init(
    observers: StateObservers<State>,
    isolation: any StoreIsolation,
    current: @escaping @Sendable (isolated any StoreIsolation) async -> State
  ) {
    subscribe = {
      let observer = StateObserver<State>()
      observers.add(observer)
      return Iterator(observer: observer, observers: observers) {
        await current(isolation)
      }
    }
  }

  private init(subscribe: @escaping @Sendable () -> Iterator) {
    self.subscribe = subscribe
  }

  public func makeAsyncIterator() -> Iterator {
    subscribe()
  }

  /// The states of a part of the state, coalesced the same way.
  ///
  /// ```swift
  /// for await count in store.states.map(\.count) { print(count) }
  /// ```
  public func map<Child: Sendable>(
    _ transform: @escaping @Sendable (State) -> Child
  ) -> StoreStates<Child> {
    let subscribe = self.subscribe
    return StoreStates<Child> {
      let base = subscribe()
      return StoreStates<Child>.Iterator(mapping: base, transform)
    }
  }

  /// Yields the current state first, then the latest state after each batch.
  public struct Iterator: AsyncIteratorProtocol, Sendable {
    private let nextState: @Sendable () async -> State?
    private var initial: (@Sendable () async -> State)?

    init(
      observer: StateObserver<State>,
      observers: StateObservers<State>,
      initial: @escaping @Sendable () async -> State
    ) {
      self.initial = initial
      self.nextState = {
        let state = await observer.next()
        if state == nil { observers.remove(observer) }
        return state
      }
    }

    init<Base: Sendable>(
      mapping base: StoreStates<Base>.Iterator, _ transform: @escaping @Sendable (Base) -> State
    ) {
      // The base's state is two `@Sendable` closures (the observer is shared, and thread-safe):
      // composing them needs no box around the base iterator.
      let baseNext = base.nextState
      self.nextState = { await baseNext().map(transform) }
      if let baseInitial = base.initial {
        self.initial = { transform(await baseInitial()) }
      }
    }

    public mutating func next() async -> State? {
      if let initial {
        self.initial = nil
        guard !Task.isCancelled else { return nil }
        return await initial()
      }
      return await nextState()
    }

    public mutating func next(isolation actor: isolated (any Actor)?) async -> State? {
      await next()
    }
  }
}
