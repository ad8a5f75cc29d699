import Synchronization

/// One subscriber to a store's states: the latest state it has not seen yet, or the
/// continuation of its waiting `next()`.
final class StateObserver<State: Sendable>: Sendable {
  struct Slot {
    var latest: State?
    var waiting: UnsafeContinuation<State?, Never>?
    var isFinished = false
  }

  let slot = Mutex(Slot())

  /// Hands `state` to a waiting `next()`, or keeps it as the latest, replacing an older one.
  func offer(_ state: State) {
    let continuation: UnsafeContinuation<State?, Never>? = slot.withLock { slot in
      guard !slot.isFinished else { return nil }
      if let waiting = slot.waiting {
        slot.waiting = nil
        return waiting
      }
      slot.latest = state
      return nil
    }
    continuation?.resume(returning: state)
  }

  func finish() {
    let continuation = slot.withLock { slot in
      slot.isFinished = true
      slot.latest = nil
      defer { slot.waiting = nil }
      return slot.waiting
    }
    continuation?.resume(returning: nil)
  }

  /// The latest unseen state, or waits for the next one; `nil` once finished or cancelled.
  func next() async -> State? {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<State?, Never>) in
        let immediate: State?? = slot.withLock { slot in
          if let latest = slot.latest {
            slot.latest = nil
            return .some(latest)
          }
          if slot.isFinished || Task.isCancelled { return .some(nil) }
          slot.waiting = continuation
          return .none
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      finish()
    }
  }
}

/// The observers of one root store. Publishing costs one atomic load when nobody observes.
@usableFromInline
final class StateObservers<State: Sendable>: Sendable {
  private let observers = Mutex<[ObjectIdentifier: StateObserver<State>]>([:])
  @usableFromInline let observerCount = Atomic<Int>(0)

  /// Whether anybody observes; check it before ``publish(_:)`` on hot paths.
  @inlinable
  var isObserved: Bool { observerCount.load(ordering: .relaxed) > 0 }
  private let finished = Atomic<Bool>(false)

  /// Adds an observer; it is finished at once if the store has already shut down.
  func add(_ observer: StateObserver<State>) {
    observers.withLock { observers in
      observers[ObjectIdentifier(observer)] = observer
      observerCount.store(observers.count, ordering: .releasing)
    }
    if finished.load(ordering: .acquiring) { observer.finish() }
  }

  func remove(_ observer: StateObserver<State>) {
    observers.withLock { observers in
      observers[ObjectIdentifier(observer)] = nil
      observerCount.store(observers.count, ordering: .releasing)
    }
  }

  /// Offers `state` to every observer.
  ///
  /// - Complexity: O(1) with no observer; O(observers) otherwise, never waiting for them.
  @usableFromInline
  func publish(_ state: State) {
    let all = observers.withLock { Array($0.values) }
    for observer in all { observer.offer(state) }
  }

  func finishAll() {
    finished.store(true, ordering: .releasing)
    let all = observers.withLock { observers in
      defer { observers = [:]; observerCount.store(0, ordering: .releasing) }
      return Array(observers.values)
    }
    for observer in all { observer.finish() }
  }
}
