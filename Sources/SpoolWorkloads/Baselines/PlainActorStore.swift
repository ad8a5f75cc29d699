import SpoolCore

/// A plain actor that runs a reducer: what a Swift engineer writes without Spool.
package actor PlainActorStore<R: Reducer & Sendable> where R.State: Sendable {
  private var state: R.State
  private let reducer: R

  package init(initialState: R.State, reducer: R) {
    self.state = initialState
    self.reducer = reducer
  }

  /// Reduces one action; effects are dropped (the baseline is for `.none` reducers).
  package func send(_ action: R.Action) {
    _ = reducer.reduce(into: &state, action: action)
  }

  package var currentState: R.State { state }
}
