import SpoolCore
import SpoolIO

extension Reducer {
  /// This reducer, with every effect it returns dropped: for replaying a journal, whose
  /// records already hold the actions the effects sent back.
  ///
  /// ```swift
  /// let store = Store(initialState: Search.State()) { Search().discardingEffects() }
  /// try await ActionJournal<Search.Action>(path: path).replay(into: store)
  /// ```
  public func discardingEffects() -> DiscardingEffects<Self> {
    DiscardingEffects(base: self)
  }
}

/// A reducer that runs its base and drops the effects it returns; see
/// ``SpoolCore/Reducer/discardingEffects()``.
///
/// ```swift
/// let replayed = DiscardingEffects(base: Search())
/// ```
public struct DiscardingEffects<Base: Reducer>: Reducer {
  /// The reducer whose state changes are kept.
  public let base: Base

  /// Wraps `base`.
  ///
  /// ```swift
  /// let replayed = DiscardingEffects(base: Search())
  /// ```
  public init(base: Base) {
    self.base = base
  }

  /// Runs `base` and returns no effect.
  ///
  /// ```swift
  /// _ = DiscardingEffects(base: Counter()).reduce(into: &state, action: .increment)
  /// ```
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    _ = base.reduce(into: &state, action: action)
    return .none
  }
}
