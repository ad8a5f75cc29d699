import Spool
import Synchronization

/// A class that runs a reducer under a mutex: the other thing a Swift engineer writes.
package final class LockedClassStore<R: Reducer & Sendable>: Sendable
where R.State: Sendable {
  private let state: Mutex<R.State>
  private let reducer: R

  package init(initialState: R.State, reducer: R) {
    self.state = Mutex(initialState)
    self.reducer = reducer
  }

  /// Reduces one action under the lock; effects are dropped.
  package func send(_ action: R.Action) {
    state.withLock { _ = reducer.reduce(into: &$0, action: action) }
  }

  package var currentState: R.State { state.withLock { $0 } }
}
