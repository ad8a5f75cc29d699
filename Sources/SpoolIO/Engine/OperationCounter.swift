import Synchronization

/// How many operations a backend has handed to the kernel (or a worker) and not yet completed.
///
/// Written by the backend's threads, read by anyone (tests wait for an operation to be in flight
/// before cancelling it, so that they exercise the in-kernel cancellation path).
final class OperationCounter: Sendable {
  private let value = Atomic<Int>(0)

  func increment() { value.add(1, ordering: .relaxed) }
  func decrement() { value.subtract(1, ordering: .relaxed) }
  var current: Int { value.load(ordering: .relaxed) }
}
