/// The hand-off between the tasks that submit work and the thread that owns a ring.
///
/// Any thread may enqueue; only the loop thread takes. The machine also tracks whether the loop
/// is asleep in the kernel, so that exactly one submitter per sleep pays for a wake-up
/// (an eventfd write) and submitters to a busy loop pay nothing but the lock.
///
/// It is a plain value type: the ring backend keeps it in a `Mutex` and carries out the
/// returned actions outside the lock; tests drive it directly. Its phase is one enum
/// (``State``) whose cases carry the loop's state where it has one, so that an exited loop has
/// no sleep state and a shutdown cannot be forgotten by a later transition; the requests waiting
/// for the loop are kept beside it (swapped whole with the loop's batch, so that neither side
/// allocates in the steady state) and are empty once the loop has exited.
struct SubmissionQueueStateMachine<Request> {
  enum LoopState: Equatable {
    /// The loop is working; it will look at the queue again before sleeping.
    case running
    /// The loop is, or is about to be, waiting in the kernel and must be woken.
    case sleeping
    /// A submitter has woken the sleeping loop already.
    case signalled
  }

  enum State: Equatable {
    /// Every request is accepted.
    case accepting(LoopState)
    /// Shutdown was asked: the loop fails new requests, cancels those in flight, then exits;
    /// only requests that must run until its exit (a store's jobs) are accepted.
    case stopping(LoopState)
    /// The loop has exited: nothing is accepted any more.
    case exited
  }

  enum EnqueueAction: Equatable {
    /// The loop will see the request on its own.
    case none
    /// Wake the loop (write its eventfd).
    case wakeLoop
    /// The backend is shutting down; the request must be failed by the caller.
    case reject
  }

  private(set) var state = State.accepting(.running)
  private(set) var pending: [Request] = []  // isolated to the enclosing lock

  /// The loop's state, or `nil` once it has exited.
  var loopState: LoopState? {
    switch state {
    case .accepting(let loop), .stopping(let loop): loop
    case .exited: nil
    }
  }

  /// Appends a request.
  ///
  /// `untilExit`: accepted while the loop shuts down, until it exits (the jobs of a store on the
  /// loop's serial executor, which must not run elsewhere while the loop may still run one).
  ///
  /// - Complexity: amortized O(1).
  mutating func enqueue(_ request: Request, untilExit: Bool = false) -> EnqueueAction {
    switch state {
    case .accepting(let loop):
      pending.append(request)
      let (next, action) = Self.wake(loop)
      state = .accepting(next)
      return action
    case .stopping(let loop):
      guard untilExit else { return .reject }
      pending.append(request)
      let (next, action) = Self.wake(loop)
      state = .stopping(next)
      return action
    case .exited:
      return .reject
    }
  }

  /// Called by the loop as it exits: from here on every request is rejected. Returns the
  /// requests that arrived since its last `takeAll`, in order.
  mutating func exit() -> [Request] {
    switch state {
    case .accepting, .stopping:
      state = .exited
      defer { pending = [] }
      return pending
    case .exited:
      preconditionFailure("Internal inconsistency: exit in state \(state): the loop exits twice")
    }
  }

  /// Asks the loop to finish: it fails new requests, cancels those in flight, then exits.
  mutating func shutdown() -> EnqueueAction {
    switch state {
    case .accepting(let loop):
      let (next, action) = Self.wake(loop)
      state = .stopping(next)
      return action
    case .stopping, .exited:
      return .none
    }
  }

  /// Moves every pending request into `batch` (swapping storage, so neither side allocates in
  /// the steady state) and marks the loop running. Returns whether shutdown was requested.
  ///
  /// - Complexity: O(1).
  mutating func takeAll(into batch: inout [Request]) -> Bool {
    precondition(
      batch.isEmpty, "Internal inconsistency: takeAll with the previous batch not consumed")
    swap(&pending, &batch)
    switch state {
    case .accepting:
      state = .accepting(.running)
      return false
    case .stopping:
      state = .stopping(.running)
      return true
    case .exited:
      preconditionFailure(
        "Internal inconsistency: takeAll in state \(state): the loop takes requests after its exit")
    }
  }

  /// Called by the loop before it waits in the kernel. Returns `false` (stay awake) when work
  /// or a shutdown request arrived since the last `takeAll` (`knowsOfShutdown` is what that
  /// `takeAll` returned): neither woke the loop, which was running when they came.
  mutating func prepareToSleep(knowsOfShutdown: Bool) -> Bool {
    guard !hasNews(knowsOfShutdown: knowsOfShutdown) else { return false }
    switch state {
    case .accepting(.running): state = .accepting(.sleeping)
    case .stopping(.running): state = .stopping(.sleeping)
    case .accepting, .stopping: break
    case .exited:
      preconditionFailure(
        "Internal inconsistency: prepareToSleep in state \(state): the loop sleeps after its exit")
    }
    return true
  }

  /// Whether anything arrived since the last `takeAll`.
  func hasNews(knowsOfShutdown: Bool) -> Bool {
    guard pending.isEmpty else { return true }
    switch state {
    case .accepting: return knowsOfShutdown
    case .stopping, .exited: return !knowsOfShutdown
    }
  }

  /// Called by the loop when it returns from waiting in the kernel, before it resumes any task:
  /// from here on it will look at the queue again, so submitters need not wake it.
  mutating func didWake() {
    switch state {
    case .accepting: state = .accepting(.running)
    case .stopping: state = .stopping(.running)
    case .exited:
      preconditionFailure(
        "Internal inconsistency: didWake in state \(state): the loop wakes after its exit")
    }
  }

  /// The loop's state after a submission, and whether the submitter must wake it: only the
  /// first submission to a sleeping loop does.
  private static func wake(_ loop: LoopState) -> (LoopState, EnqueueAction) {
    switch loop {
    case .sleeping: (.signalled, .wakeLoop)
    case .running, .signalled: (loop, .none)
    }
  }
}
