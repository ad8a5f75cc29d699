/// The ring loop's own phase: whether it knows of a shutdown, whether it has asked the kernel
/// to cancel everything, and whether its wake-up read is in the kernel.
///
/// `RingLoop` keeps it (protected by the ring thread) and asks it at each decision of a turn;
/// the loop carries out what it answers (prepares the entries, sleeps, exits). Tests drive it
/// directly. An impossible event ends the process with a message naming the state and the event.
///
/// A shutdown goes `running` → `draining` (the loop fails new submissions and prepares what it
/// had accepted) → `cancelling` (one cancel-all entry is prepared: every operation in flight,
/// the wake-up read included, completes) → exit, once nothing is in flight, the wake-up read
/// has completed and no job is left.
struct RingLoopStateMachine: Equatable {
  enum State: Equatable {
    /// Serving. `wakeArmed`: a read of the wake-up eventfd is in the kernel.
    case running(wakeArmed: Bool)
    /// The loop has seen the shutdown request; its backlog is not prepared yet.
    case draining(wakeArmed: Bool)
    /// The cancel-all entry is prepared; the loop waits for the operations in flight.
    case cancelling(wakeArmed: Bool)
  }

  private(set) var state = State.running(wakeArmed: false)

  /// Whether the loop has seen the shutdown request: it fails new submissions.
  var isStopping: Bool {
    switch state {
    case .running: false
    case .draining, .cancelling: true
    }
  }

  /// Whether everything in flight was asked to stop: operations that did not happen are not
  /// submitted again.
  var cancelAllIssued: Bool {
    switch state {
    case .running, .draining: false
    case .cancelling: true
    }
  }

  /// Whether the wake-up read must be prepared: a serving loop sleeps only with one in the
  /// kernel (a stopping loop expects nothing but completions).
  var needsWakeRead: Bool { state == .running(wakeArmed: false) }

  /// Whether the loop may wait in the kernel: a submitter can wake it (its wake-up read is in
  /// the kernel), or it is stopping and waits only for completions.
  var maySleep: Bool {
    switch state {
    case .running(let wakeArmed): wakeArmed
    case .draining, .cancelling: true
    }
  }

  /// The loop took the submission queue; `stopping` is what the queue answered.
  mutating func queueTaken(stopping: Bool) {
    switch (state, stopping) {
    case (.running, false), (.draining, true), (.cancelling, true):
      break
    case (.running(let wakeArmed), true):
      state = .draining(wakeArmed: wakeArmed)
    case (.draining, false), (.cancelling, false):
      preconditionFailure(
        "Internal inconsistency: queueTaken(stopping: false) in state \(state): "
          + "the submission queue forgot a shutdown")
    }
  }

  /// Whether the loop must prepare the cancel-all entry now: it is stopping and has prepared
  /// every request it accepted (`backlogDrained`), so that nothing is submitted after it.
  func shouldCancelAll(backlogDrained: Bool) -> Bool {
    guard case .draining = state else { return false }
    return backlogDrained
  }

  /// The cancel-all entry is prepared.
  mutating func cancelAllPrepared() {
    switch state {
    case .draining(let wakeArmed):
      state = .cancelling(wakeArmed: wakeArmed)
    case .running, .cancelling:
      preconditionFailure("Internal inconsistency: cancelAllPrepared in state \(state)")
    }
  }

  /// Whether the loop may exit: it has cancelled everything, nothing is in flight (`idle`: no
  /// operation in the kernel and no job to run), and its wake-up read has completed (its
  /// buffer and eventfd are released with the loop).
  func mayExit(idle: Bool) -> Bool {
    state == .cancelling(wakeArmed: false) && idle
  }

  /// The wake-up read is prepared.
  mutating func wakeReadPrepared() {
    switch state {
    case .running(wakeArmed: false):
      state = .running(wakeArmed: true)
    case .running(wakeArmed: true), .draining, .cancelling:
      preconditionFailure("Internal inconsistency: wakeReadPrepared in state \(state)")
    }
  }

  /// The wake-up read completed (a submitter woke the loop, or the cancel-all ended it).
  mutating func wakeReadCompleted() {
    switch state {
    case .running(wakeArmed: true): state = .running(wakeArmed: false)
    case .draining(wakeArmed: true): state = .draining(wakeArmed: false)
    case .cancelling(wakeArmed: true): state = .cancelling(wakeArmed: false)
    case .running(wakeArmed: false), .draining(wakeArmed: false), .cancelling(wakeArmed: false):
      preconditionFailure(
        "Internal inconsistency: wakeReadCompleted in state \(state): no wake-up read was armed")
    }
  }
}
