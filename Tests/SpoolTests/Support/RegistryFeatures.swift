import ConcurrencyExtras
import Spool
import Synchronization

/// A small feature for the registry's tests and `send(_:reading:)`'s: a count and a log of
/// what was reduced.
struct Ledger: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var log: [String] = []
  }

  enum Action: Equatable, Sendable {
    /// Adds `n`.
    case add(Int)
    /// Adds 1, then 1 again through a synchronous `.send`.
    case addPair
    case second
    /// Logs `tag` (another producer's action).
    case other(String)
    /// Starts an effect that runs until cancelled, counted by `live`.
    case startLongEffect
    /// Starts an effect that waits for `gate`, then sends `.add(1)`.
    case startGatedEffect
  }

  var live: LiveCounter = LiveCounter()
  var gate: Latch = Latch()

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .add(let n):
      state.count += n
      state.log.append("add")
      return .none
    case .addPair:
      state.count += 1
      state.log.append("pair")
      return .send(.second)
    case .second:
      state.count += 1
      state.log.append("second")
      return .none
    case .other(let tag):
      state.log.append(tag)
      return .none
    case .startLongEffect:
      let live = live
      return .run { _ in
        live.enter()
        defer { live.leave() }
        await suspendUntilCancelled()
      }
    case .startGatedEffect:
      let gate = gate
      return .run { send in
        await gate.wait()
        await send(.add(1))
      }
    }
  }
}

/// A one-shot latch: `wait` suspends until `open` is called (or returns at once after it).
final class Latch: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}

/// Collects values sent from any task and lets a test wait for the n-th one.
final class Signals<Value: Sendable>: Sendable {
  private let state = Mutex<(values: [Value], waiters: [(Int, CheckedContinuation<Void, Never>)])>(
    ([], []))

  func send(_ value: Value) {
    let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.values.append(value)
      let count = state.values.count
      let ready = state.waiters.filter { $0.0 <= count }.map(\.1)
      state.waiters.removeAll { $0.0 <= count }
      return ready
    }
    for waiter in ready { waiter.resume() }
  }

  /// Waits until at least `count` values were sent; returns them all.
  @discardableResult
  func wait(for count: Int) async -> [Value] {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if state.values.count >= count { return true }
        state.waiters.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
    return values
  }

  var values: [Value] { state.withLock { $0.values } }
}
