import Spool
import Synchronization

/// A registry of ``Worker`` stores, with a probe per ID and the final states that `onEvict`
/// received.
final class WorkerRegistry: Sendable {
  /// A dictionary behind a lock, shared by reference with the registry's closures.
  final class Locked<Value: Sendable>: Sendable {
    let mutex: Mutex<[String: Value]> = Mutex([:])
  }

  private let probes = Locked<EffectProbe>()
  private let evicted = Locked<Worker.State>()
  let registry: StoreRegistry<String, Worker.State, Worker.Action>

  init() {
    let probes = self.probes
    let evicted = self.evicted
    registry = StoreRegistry(onEvict: { id, state in evicted.mutex.withLock { $0[id] = state } }) {
      id in
      let probe = EffectProbe()
      probes.mutex.withLock { $0[id] = probe }
      return Store(initialState: Worker.State()) { Worker(probe: probe) }
    }
  }

  /// The probe of the store of `id`, once it was created.
  func probe(_ id: String) -> EffectProbe? { probes.mutex.withLock { $0[id] } }

  /// The final states that `onEvict` received, by ID.
  var evictedStates: [String: Worker.State] { evicted.mutex.withLock { $0 } }
}
