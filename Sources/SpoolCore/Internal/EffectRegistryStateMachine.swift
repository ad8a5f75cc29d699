import ConcurrencyExtras

/// A running task that the registry can cancel, whatever its result type.
@usableFromInline
protocol RegisteredTask: Sendable {
  func cancel()
}

extension Task: RegisteredTask {}

/// The bookkeeping of a store's running effects, as a value type whose methods say what to do.
///
/// ``EffectRegistry`` owns one behind a mutex and carries out the returned actions outside the
/// lock, so that this logic is testable synchronously, without tasks or timing.
///
/// Registration has two steps, so that the lock is not held while a task is created (creating
/// a task can wake a thread, and the tasks that end meanwhile would wait for the lock):
/// ``reserve(ids:)`` takes a slot before the task exists, ``attach(_:to:)`` hands the task over
/// once it does. The task may end, or be cancelled, in between; the slot remembers either.
///
/// Slots live in an array reused through a free list (a token is a slot's index), which is
/// cheaper per effect than hashing into a dictionary. A slot is freed only when its task has
/// both been attached and ended, so a token can never name a newer task.
struct EffectRegistryStateMachine {
  typealias Token = Int

  struct Slot {
    /// The task, once attached.
    var task: (any RegisteredTask)?
    var ids: [EffectKey]
    /// Cancelled (by ID or shutdown) before the task was attached: cancel it when it is.
    var cancelRequested = false
    /// The task ended (before or after it was attached).
    var ended = false
    var inUse = true
  }

  private var slots: [Slot] = []
  private var freeSlots: [Token] = []
  private var tokensByID: [EffectKey: TokenSet] = [:]
  /// The callers of ``waitUntilIdle(_:id:)``, each under the id it can withdraw by.
  private var idleWaiters: [(id: UInt64, continuation: UnsafeContinuation<Void, Never>)] = []
  /// The slots of tasks registered after an immediate start, by start id.
  private var startedTokens: [UInt64: Token] = [:]
  /// Immediate starts whose task ended before the starter registered it.
  private var endedBeforeRegistration: Set<UInt64> = []
  private(set) var isShutdown = false
  /// The number of registered tasks that have not ended.
  private(set) var count = 0

  /// What the owner must do after attaching a task.
  enum AttachAction {
    case none
    /// The task was cancelled before it was attached, or the registry is shut down: cancel it
    /// now (it is still tracked until it ends).
    case cancel
  }

  /// Takes a slot for a task about to be created under `ids`.
  mutating func reserve(ids: [AnyHashableSendable]) -> Token {
    reserve(keys: ids.map(EffectKey.init))
  }

  /// `reserve(ids:)` with the IDs made keys already.
  mutating func reserve(keys ids: [EffectKey]) -> Token {
    let token: Token
    if let free = freeSlots.popLast() {
      token = free
      slots[token] = Slot(ids: ids)
    } else {
      token = slots.count
      slots.append(Slot(ids: ids))
    }
    count += 1
    for id in ids {
      // One lookup, the value changed in place.
      switch tokensByID.index(forKey: id) {
      case let index?: tokensByID.values[index] = tokensByID.values[index].inserting(token)
      case nil: tokensByID[id] = .one(token)
      }
    }
    return token
  }

  /// Hands the task created for `token` over to the registry.
  mutating func attach(_ task: any RegisteredTask, to token: Token) -> AttachAction {
    precondition(slots[token].inUse, "Internal inconsistency: effect \(token) attached twice")
    if slots[token].ended {
      release(token)
      return .none
    }
    slots[token].task = task
    return slots[token].cancelRequested || isShutdown ? .cancel : .none
  }

  /// Whether the effect reserved under `token`, whose task does not exist yet, should still
  /// start: `true` unless it was cancelled meanwhile (by its ID) or the registry shut down. An
  /// effect that should not start is forgotten here, as if its task had run and ended, and the
  /// waiters of ``waitUntilIdle`` to resume, if the registry just became empty, come back with
  /// the answer.
  mutating func shouldStart(
    _ token: Token
  ) -> (start: Bool, waiters: [UnsafeContinuation<Void, Never>]) {
    precondition(
      slots[token].inUse && slots[token].task == nil && !slots[token].ended,
      "Internal inconsistency: effect \(token) is not waiting for its task")
    guard slots[token].cancelRequested || isShutdown else { return (true, []) }
    let waiters = finished(token)
    // No task will be attached to free the slot.
    release(token)
    return (false, waiters)
  }

  /// Forgets a task that has ended; returns the waiters of ``waitUntilIdle`` to resume, if the
  /// registry just became empty.
  mutating func finished(_ token: Token) -> [UnsafeContinuation<Void, Never>] {
    guard slots.indices.contains(token), slots[token].inUse, !slots[token].ended else {
      preconditionFailure("Internal inconsistency: effect \(token) ended twice")
    }
    for id in slots[token].ids {
      tokensByID[id] = tokensByID[id]?.removing(token)
    }
    if slots[token].task == nil {
      // Not attached yet: `attach` frees the slot.
      slots[token].ended = true
      slots[token].ids = []
    } else {
      release(token)
    }
    count -= 1
    guard count == 0, !idleWaiters.isEmpty else { return [] }
    defer { idleWaiters = [] }
    return idleWaiters.map(\.continuation)
  }

  /// Registers the task of immediate start `id`, which was still running when its start
  /// ended, unless it has ended since (then there is nothing to track).
  mutating func registerStarted(_ task: any RegisteredTask, start id: UInt64) -> AttachAction {
    if endedBeforeRegistration.remove(id) != nil { return .none }
    let token = reserve(ids: [])
    startedTokens[id] = token
    return attach(task, to: token)
  }

  /// The task of immediate start `id` ended outside its start: forgets it if it was
  /// registered, or remembers that it ended for ``registerStarted(_:start:)``, which is then
  /// about to run.
  mutating func startedEffectEnded(_ id: UInt64) -> [UnsafeContinuation<Void, Never>] {
    guard let token = startedTokens.removeValue(forKey: id) else {
      endedBeforeRegistration.insert(id)
      return []
    }
    return finished(token)
  }

  private mutating func release(_ token: Token) {
    slots[token] = Slot(task: nil, ids: [], inUse: false)
    freeSlots.append(token)
  }

  /// Takes the tasks registered under `id`, to cancel.
  ///
  /// They leave the ID at once (they are still tracked until they end): a cancelled task that
  /// takes a while to end must not be found, and cancelled again, by every later cancellation
  /// of the same ID. Without this, the cost of a restart with `cancelInFlight` grew with the
  /// number of restarts before it (`spool bench cancellation` at growing `--actions` shows
  /// it). A task not yet attached is cancelled when it is.
  mutating func takeTasks(for id: AnyHashableSendable) -> [any RegisteredTask] {
    takeTasks(for: EffectKey(id))
  }

  /// `takeTasks(for:)` with the ID made a key already.
  mutating func takeTasks(for id: EffectKey) -> [any RegisteredTask] {
    guard let tokens = tokensByID.removeValue(forKey: id) else { return [] }
    var tasks: [any RegisteredTask] = []
    tasks.reserveCapacity(tokens.count)
    for token in tokens.all {
      // The slot is no longer under `id`: its end need not look `id` up again (one hash and
      // one comparison of the ID fewer, inside the lock that ending tasks contend for).
      if slots[token].ids.count == 1 {
        slots[token].ids = []
      } else {
        slots[token].ids.removeAll { $0 == id }
      }
      if let task = slots[token].task {
        tasks.append(task)
      } else {
        slots[token].cancelRequested = true
      }
    }
    return tasks
  }

  /// Marks the registry shut down; returns every running task, to cancel. Tasks attached later
  /// are cancelled when they are.
  mutating func shutdown() -> [any RegisteredTask] {
    isShutdown = true
    return slots.compactMap { $0.inUse && !$0.ended ? $0.task : nil }
  }

  /// Whether `continuation` must be resumed now (nothing runs) or was kept for later, under
  /// `id` (see ``withdrawIdleWaiter(_:)``).
  mutating func waitUntilIdle(
    _ continuation: UnsafeContinuation<Void, Never>, id: UInt64 = 0
  ) -> Bool {
    if count == 0 { return true }
    idleWaiters.append((id, continuation))
    return false
  }

  /// Takes back the waiter kept under `id` (its task was cancelled), to resume now; `nil` when
  /// it was resumed already, or not kept yet.
  mutating func withdrawIdleWaiter(_ id: UInt64) -> UnsafeContinuation<Void, Never>? {
    guard let index = idleWaiters.firstIndex(where: { $0.id == id }) else { return nil }
    return idleWaiters.remove(at: index).continuation
  }

  func count(for id: AnyHashableSendable) -> Int { tokensByID[EffectKey(id)]?.count ?? 0 }

  /// The tokens registered under one ID: almost always one (an ID names one running effect,
  /// replaced by `cancelInFlight`), which needs no set, and no allocation per restart.
  enum TokenSet {
    case one(Token)
    case many(Set<Token>)

    var count: Int {
      switch self {
      case .one: 1
      case .many(let tokens): tokens.count
      }
    }

    var all: [Token] {
      switch self {
      case .one(let token): [token]
      case .many(let tokens): Array(tokens)
      }
    }

    func inserting(_ token: Token) -> TokenSet {
      switch self {
      case .one(let existing): return .many([existing, token])
      case .many(var tokens):
        tokens.insert(token)
        return .many(tokens)
      }
    }

    /// Without `token`; `nil` when nothing is left.
    func removing(_ token: Token) -> TokenSet? {
      switch self {
      case .one(let existing): return existing == token ? nil : self
      case .many(var tokens):
        tokens.remove(token)
        if tokens.count == 1, let last = tokens.first { return .one(last) }
        return tokens.isEmpty ? nil : .many(tokens)
      }
    }
  }
}
