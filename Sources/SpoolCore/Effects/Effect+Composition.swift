extension Effect {
  /// Runs several effects at the same time.
  ///
  /// The asynchronous parts run as child tasks of one task group, so cancelling an ID that the
  /// merged effect is registered under cancels all of them. Synchronous parts (``send(_:)``,
  /// ``cancel(id:)``) are carried out in order when the store receives the effect.
  ///
  /// ```swift
  /// return .merge(
  ///   .run { send in await send(.loadProfile) },
  ///   .run { send in await send(.loadSettings) }
  /// )
  /// ```
  public static func merge(_ effects: Self...) -> Self {
    .merge(effects)
  }

  /// Runs a sequence of effects at the same time; see
  /// ``merge(_:)-(Effect<Action>...)``.
  public static func merge<S: Sequence<Self>>(_ effects: S) -> Self {
    var parts: [Self] = []
    for effect in effects {
      switch effect.operation {
      case .none: continue
      case let .merge(nested): parts.append(contentsOf: nested)
      default: parts.append(effect)
      }
    }
    switch parts.count {
    case 0: return .none
    case 1: return parts[0]
    default: return Self(operation: .merge(parts))
    }
  }

  /// Merges this effect with another; see ``merge(_:)-(Effect<Action>...)``.
  ///
  /// When either effect is ``none``, the other is returned as is, without building an array:
  /// the operators that combine a child's effect with the parent's use it for that reason.
  ///
  /// ```swift
  /// return effect.merge(with: .send(.didStart))
  /// ```
  @inlinable
  public func merge(with other: Self) -> Self {
    if isNone { return other }
    if other.isNone { return self }
    return mergeNonEmpty(other)
  }

  @usableFromInline
  func mergeNonEmpty(_ other: Self) -> Self {
    .merge([self, other])
  }

  /// Runs several effects one after the other: each starts when the previous one has finished.
  ///
  /// Leading synchronous parts are carried out when the store receives the effect; from the
  /// first asynchronous part on, the rest runs in one task, in order. If that task is cancelled,
  /// the parts that have not started yet do not start.
  ///
  /// ```swift
  /// return .concatenate(
  ///   .run { _ in try await clock.sleep(for: .seconds(1)) },
  ///   .send(.delayedAction)
  /// )
  /// ```
  public static func concatenate(_ effects: Self...) -> Self {
    .concatenate(effects)
  }

  /// Runs a sequence of effects one after the other; see
  /// ``concatenate(_:)-(Effect<Action>...)``.
  public static func concatenate<C: Collection<Self>>(_ effects: C) -> Self {
    var parts: [Self] = []
    for effect in effects {
      switch effect.operation {
      case .none: continue
      case let .concatenate(nested): parts.append(contentsOf: nested)
      default: parts.append(effect)
      }
    }
    switch parts.count {
    case 0: return .none
    case 1: return parts[0]
    default: return Self(operation: .concatenate(parts))
    }
  }

  /// Runs this effect, then `next`; see ``concatenate(_:)-(Effect<Action>...)``.
  ///
  /// ```swift
  /// return .send(.willSave).concatenate(with: saveEffect)
  /// ```
  public func concatenate(with next: Self) -> Self {
    .concatenate([self, next])
  }

  /// Transforms the actions this effect sends.
  ///
  /// Used to embed a child feature's effects in its parent, as ``Scope`` does.
  ///
  /// ```swift
  /// return childEffect.map { .child($0) }
  /// ```
  @inlinable
  public func map<T: Sendable>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
    if isNone { return .none }
    return mapNonEmpty(transform)
  }

  @usableFromInline
  func mapNonEmpty<T: Sendable>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
    switch operation {
    case .none:
      return .none
    case let .send(action):
      return .send(transform(action))
    case let .run(priority, work):
      return Effect<T>(operation: .run(priority) { send in await work(send.map(transform)) })
    case let .merge(effects):
      return Effect<T>(operation: .merge(effects.map { $0.map(transform) }))
    case let .concatenate(effects):
      return Effect<T>(operation: .concatenate(effects.map { $0.map(transform) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<T>(
        operation: .cancellable(id: id, cancelInFlight: cancelInFlight, effect.map(transform))
      )
    case let .cancel(id):
      return Effect<T>(operation: .cancel(id: id))
    }
  }

  /// Whether the effect has no asynchronous part, so that the store can carry it out without
  /// starting a task.
  var isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel: return true
    case .run: return false
    case let .merge(effects), let .concatenate(effects): return effects.allSatisfy(\.isSynchronous)
    case let .cancellable(_, _, effect): return effect.isSynchronous
    }
  }
}
