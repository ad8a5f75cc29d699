import SpoolCore
@testable import SpoolIO
import Synchronization

/// The faults a test injects into one engine: for each system call by name, the faults to
/// inject on its next calls, in order, or one fault for every call.
///
/// It also counts what it injected, so that a test can tell that a fault really reached the
/// code under test (a retry that never happened would otherwise pass unnoticed).
///
/// ```swift
/// let plan = FaultPlan(["read": .times(.error(EINTR), 3)])
/// try await withEngine(.threads, faults: plan.injector) { engine in ... }
/// #expect(plan.injected("read") == 3)
/// ```
final class FaultPlan: Sendable {
  enum Rule: Sendable {
    /// `fault` on the next `count` calls, then none.
    case times(IOFault, Int)
    /// `fault` on every call.
    case always(IOFault)
  }

  private struct State {
    var rules: [String: Rule]
    var injected: [String: Int] = [:]
  }

  private let state: Mutex<State>
  /// Run (on the engine's thread, before the fault is returned) each time a fault is injected.
  private let onInjection: @Sendable (_ call: String) -> Void

  init(_ rules: [String: Rule], onInjection: @escaping @Sendable (String) -> Void = { _ in }) {
    state = Mutex(State(rules: rules))
    self.onInjection = onInjection
  }

  /// What the engine calls before each system call.
  var injector: IOFault.Injector {
    { [self] call in inject(call) }
  }

  /// How many faults were injected into `call` so far.
  func injected(_ call: String) -> Int {
    state.withLock { $0.injected[call, default: 0] }
  }

  private func inject(_ call: String) -> IOFault? {
    let fault = state.withLock { state -> IOFault? in
      switch state.rules[call] {
      case nil, .times(_, 0)?:
        return nil
      case .times(let fault, let count)?:
        state.rules[call] = .times(fault, count - 1)
        state.injected[call, default: 0] += 1
        return fault
      case .always(let fault)?:
        state.injected[call, default: 0] += 1
        return fault
      }
    }
    if fault != nil { onInjection(call) }
    return fault
  }
}
