import SpoolCore
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

  /// Reduces one action under the lock after one task-local lookup: the work Spool adds to
  /// a lock to give the reducer the store's dependencies (`RootCore.passUnlocking` looks up
  /// the caller's `DependencyValues` binding once per action, by a key it keeps, with no
  /// retain: the same runtime call as here).
  package func sendLookingUpTaskLocal(_ action: R.Action) {
    _ = spoolTaskLocalValue(UnsafeRawPointer(bitPattern: TaskLocalProbe.key).unsafelyUnwrapped)
    state.withLock { _ = reducer.reduce(into: &$0, action: action) }
  }

  package var currentState: R.State { state.withLock { $0 } }
}

/// A task-local that nothing binds, for `locked-class+task-local`: looking it up costs what
/// any task-local lookup of an unbound task costs, which is what Spool's dependency check
/// costs on a producer that binds no dependencies of its own.
enum TaskLocalProbe {
  @TaskLocal static var value = 0

  /// The task-local's key (its object's address, as `TaskLocal.get()` passes it), looked up
  /// once: reading `$value` goes through a lazy global's accessor, a retain and a release.
  /// The object is a global that lives as long as the process.
  static let key = UInt(
    bitPattern: unsafeBitCast(TaskLocalProbe.$value, to: UnsafeRawPointer.self))
}
