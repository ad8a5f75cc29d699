@testable import SpoolIO

/// Tells a test when an engine is about to make a given system call, through the engine's
/// fault-injection point (it injects nothing).
///
/// On the thread backend the probe fires on the worker just before the call (the operation is
/// then running there, and cancellable through its worker's eventfd); on the ring it fires as
/// the loop prepares the entry, which the loop submits before it looks at new requests, so a
/// cancellation sent after the probe fired reaches the operation in the kernel.
///
/// Unlike waiting for `operationsInFlight` to become non-zero, waiting for a probe cannot spin
/// forever when the operation ends early or never starts: the test then fails on the result.
///
/// ```swift
/// let probe = CallProbe("accept")
/// try await withEngine(.threads, faults: probe.injector) { engine in
///   let waiting = Task { try await listener.accept() }
///   await probe.reached()
///   waiting.cancel()
/// }
/// ```
final class CallProbe: Sendable {
  private let stream: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation
  let call: String

  init(_ call: String) {
    self.call = call
    (stream, continuation) = AsyncStream.makeStream()
  }

  var injector: IOFault.Injector {
    { [call, continuation] name in
      if name == call { continuation.yield() }
      return nil
    }
  }

  /// Returns once the call was (next) about to be made.
  func reached() async {
    for await _ in stream { return }
  }
}
