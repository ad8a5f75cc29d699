/// The hand-off between the tasks that submit work and the thread that owns a ring.
///
/// Any thread may enqueue; only the loop thread takes. The machine also tracks whether the loop
/// is asleep in the kernel, so that exactly one submitter per sleep pays for a wake-up
/// (an eventfd write) and submitters to a busy loop pay nothing but the lock.
///
/// It is a plain value type: the ring backend keeps it in a `Mutex` and carries out the
/// returned actions outside the lock; tests drive it directly.
struct SubmissionQueueStateMachine<Request> {
  enum LoopState: Equatable {
    /// The loop is working; it will look at the queue again before sleeping.
    case running
    /// The loop is, or is about to be, waiting in the kernel and must be woken.
    case sleeping
    /// A submitter has woken the sleeping loop already.
    case signalled
  }

  enum EnqueueAction: Equatable {
    /// The loop will see the request on its own.
    case none
    /// Wake the loop (write its eventfd).
    case wakeLoop
    /// The backend is shutting down; the request must be failed by the caller.
    case reject
  }

  private(set) var pending: [Request] = []  // isolated to the enclosing lock
  private(set) var loopState = LoopState.running
  private(set) var isShuttingDown = false
  /// Whether the loop has exited: nothing is accepted any more.
  private(set) var hasExited = false

  /// Appends a request.
  ///
  /// `untilExit`: accepted while the loop shuts down, until it exits (the jobs of a store on the
  /// loop's serial executor, which must not run elsewhere while the loop may still run one).
  ///
  /// - Complexity: amortized O(1).
  mutating func enqueue(_ request: Request, untilExit: Bool = false) -> EnqueueAction {
    guard !hasExited && (untilExit || !isShuttingDown) else { return .reject }
    pending.append(request)
    return wakeIfSleeping()
  }

  /// Called by the loop as it exits: from here on every request is rejected. Returns the
  /// requests that arrived since its last `takeAll`, in order.
  mutating func exit() -> [Request] {
    hasExited = true
    isShuttingDown = true
    defer { pending = [] }
    return pending
  }

  /// Asks the loop to finish: it fails new requests, cancels those in flight, then exits.
  mutating func shutdown() -> EnqueueAction {
    guard !isShuttingDown else { return .none }
    isShuttingDown = true
    return wakeIfSleeping()
  }

  /// Moves every pending request into `batch` (swapping storage, so neither side allocates in
  /// the steady state) and marks the loop running. Returns whether shutdown was requested.
  ///
  /// - Complexity: O(1).
  mutating func takeAll(into batch: inout [Request]) -> Bool {
    precondition(batch.isEmpty, "Internal inconsistency: the previous batch was not consumed")
    swap(&pending, &batch)
    loopState = .running
    return isShuttingDown
  }

  /// Called by the loop before it waits in the kernel. Returns `false` (stay awake) when work
  /// or a shutdown request arrived since the last `takeAll` (`knowsOfShutdown` is what that
  /// `takeAll` returned): neither woke the loop, which was running when they came.
  mutating func prepareToSleep(knowsOfShutdown: Bool) -> Bool {
    guard !hasNews(knowsOfShutdown: knowsOfShutdown) else { return false }
    if loopState == .running { loopState = .sleeping }
    return true
  }

  /// Whether anything arrived since the last `takeAll`.
  func hasNews(knowsOfShutdown: Bool) -> Bool {
    !pending.isEmpty || isShuttingDown != knowsOfShutdown
  }

  /// Called by the loop when it returns from waiting in the kernel, before it resumes any task:
  /// from here on it will look at the queue again, so submitters need not wake it.
  mutating func didWake() {
    loopState = .running
  }

  private mutating func wakeIfSleeping() -> EnqueueAction {
    guard loopState == .sleeping else { return .none }
    loopState = .signalled
    return .wakeLoop
  }
}
