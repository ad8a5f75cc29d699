import SpoolCore

/// The serial executor of a store that runs on an engine's event-loop thread
/// (``IOEngine/storeExecutor``).
///
/// Its jobs run on the loop thread between two `io_uring_enter` calls, like the jobs of tasks
/// that prefer the ring (``RingBackend/enqueue(_:)``): a job enqueued from the loop thread is
/// appended to the loop's own list, one from another thread goes through the loop's queue.
/// It keeps its engine alive, so the loop runs as long as a store on it does. After an
/// explicit ``IOEngine/shutdown()``, the loop runs the store's jobs until it exits; later ones
/// run one at a time on the cooperative pool (``SerialJobQueue``), never two at once.
final class RingStoreExecutor: SerialExecutor {
  /// Keeps the engine, and with it the loop, alive while a store runs here.
  private let engine: IOEngine
  private let backend: RingBackend
  private let afterExit = SerialJobQueue()

  init(engine: IOEngine, backend: RingBackend) {
    self.engine = engine
    self.backend = backend
  }

  func enqueue(_ job: consuming ExecutorJob) {
    backend.enqueue(UnownedJob(job), isolatedTo: self)
  }

  /// Runs `job` on the cooperative pool, after the loop exited.
  func runAfterExit(_ job: UnownedJob) {
    afterExit.enqueue(job, on: asUnownedSerialExecutor())
  }

  /// Checked by the runtime when it cannot tell by itself (an `assumeIsolated` from code it
  /// did not enter through this executor): isolated means on the loop thread.
  func checkIsolated() {
    precondition(
      backend.isOnLoopThread,
      "Incorrect actor executor assumption: not on the I/O engine's event-loop thread")
  }
}
