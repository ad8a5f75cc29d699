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
/// once it does. The task may end, or be cancelled, in between; the slot's state (``Slot``)
/// remembers either.
///
/// Slots live in an array reused through a free list (a token is a slot's index), which is
/// cheaper per effect than hashing into a dictionary. A slot is freed only when no task can
/// name it any more: its task has both been attached and ended, or it will never have one
/// (``shouldStart(_:)`` dropped it), so a token can never name a newer task. An event that its
/// slot's state cannot take ends the process, naming both.
struct EffectRegistryStateMachine {
  typealias Token = Int

  /// The state of one slot, and the data each state has.
  ///
  /// | state                 | event                | next state            | action              |
  /// |-----------------------|----------------------|-----------------------|---------------------|
  /// | free                  | reserve              | reserved              |                     |
  /// | reserved              | attach               | running               | cancel if shut down |
  /// | reserved              | shouldStart          | reserved              | start               |
  /// | reserved, shut down   | shouldStart          | free                  | drop                |
  /// | reserved              | takeTasks            | cancelledBeforeAttach |                     |
  /// | reserved              | finished             | endedBeforeAttach     |                     |
  /// | cancelledBeforeAttach | attach               | running               | cancel              |
  /// | cancelledBeforeAttach | shouldStart          | free                  | drop                |
  /// | cancelledBeforeAttach | takeTasks (other ID) | cancelledBeforeAttach |                     |
  /// | cancelledBeforeAttach | finished             | endedBeforeAttach     |                     |
  /// | running               | takeTasks            | running               | cancel the task     |
  /// | running               | shutdown             | running               | cancel the task     |
  /// | running               | finished             | free                  |                     |
  /// | endedBeforeAttach     | attach               | free                  |                     |
  ///
  /// `shutdown` leaves the other states as they are; every other pair is an internal
  /// inconsistency. `ids` are the cancellation IDs the slot is still registered under in
  /// `tokensByID`: a cancelled ID leaves it at once.
  enum Slot: CustomStringConvertible {
    /// In the free list.
    case free
    /// Reserved under `ids`; its task does not exist yet, or is not attached yet.
    case reserved(ids: [EffectKey])
    /// Reserved, then cancelled (by an ID) before its task was attached: the effect does not
    /// start if it has not yet (``shouldStart(_:)``), and its task is cancelled when attached.
    case cancelledBeforeAttach(ids: [EffectKey])
    /// Its task is attached and has not ended (cancelled or not).
    case running(task: any RegisteredTask, ids: [EffectKey])
    /// Its task ended before it was attached: ``attach(_:to:)`` frees the slot.
    case endedBeforeAttach

    var description: String {
      switch self {
      case .free: "free"
      case let .reserved(ids): "reserved under \(ids.count) IDs"
      case let .cancelledBeforeAttach(ids): "cancelledBeforeAttach under \(ids.count) IDs"
      case let .running(_, ids): "running under \(ids.count) IDs"
      case .endedBeforeAttach: "endedBeforeAttach"
      }
    }
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
  /// The number of registered tasks that have not ended: the slots neither free nor
  /// `endedBeforeAttach`.
  private(set) var count = 0

  /// What the owner must do after attaching a task.
  enum AttachAction {
    case none
    /// The task was cancelled before it was attached, or the registry is shut down: cancel it
    /// now (it is still tracked until it ends).
    case cancel
  }

  /// What the owner must do with an effect reserved whose task it has not created yet.
  enum StartAction {
    /// Create its task and attach it.
    case start
    /// Never start it: it was cancelled by its ID, or the registry shut down, before its task
    /// existed. It is forgotten, as if its task had run and ended; resume these waiters of
    /// ``waitUntilIdle(_:id:)`` (the registry just became idle), outside the lock.
    case drop(resuming: [UnsafeContinuation<Void, Never>])
  }

  /// The state of the slot of `token` (for tests).
  func slot(_ token: Token) -> Slot { slots[token] }

  /// Takes a slot for a task about to be created under `ids`.
  mutating func reserve(ids: [AnyHashableSendable]) -> Token {
    reserve(keys: ids.map(EffectKey.init))
  }

  /// `reserve(ids:)` with the IDs made keys already.
  mutating func reserve(keys ids: [EffectKey]) -> Token {
    let token: Token
    if let free = freeSlots.popLast() {
      token = free
      guard case .free = slots[token] else {
        preconditionFailure(
          "Internal inconsistency: reserve in state \(slots[token]) of effect \(token), "
            + "which the free list holds")
      }
      slots[token] = .reserved(ids: ids)
    } else {
      token = slots.count
      slots.append(.reserved(ids: ids))
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
    switch slots[token] {
    case let .reserved(ids):
      slots[token] = .running(task: task, ids: ids)
      return isShutdown ? .cancel : .none
    case let .cancelledBeforeAttach(ids):
      slots[token] = .running(task: task, ids: ids)
      return .cancel
    case .endedBeforeAttach:
      release(token)
      return .none
    case .running, .free:
      preconditionFailure(
        "Internal inconsistency: attach in state \(slots[token]) of effect \(token)")
    }
  }

  /// Whether the effect reserved under `token`, whose task does not exist yet, should still
  /// start: unless it was cancelled meanwhile (by its ID) or the registry shut down. One that
  /// should not start is forgotten here, as if its task had run and ended.
  mutating func shouldStart(_ token: Token) -> StartAction {
    switch slots[token] {
    case .reserved where !isShutdown:
      return .start
    case let .reserved(ids), let .cancelledBeforeAttach(ids):
      // No task will be attached to free the slot.
      release(token)
      return .drop(resuming: forget(token, under: ids))
    case .running, .endedBeforeAttach, .free:
      preconditionFailure(
        "Internal inconsistency: shouldStart in state \(slots[token]) of effect \(token), "
          + "which is not waiting for its task")
    }
  }

  /// Forgets a task that has ended; returns the waiters of ``waitUntilIdle`` to resume, if the
  /// registry just became empty.
  mutating func finished(_ token: Token) -> [UnsafeContinuation<Void, Never>] {
    guard slots.indices.contains(token) else {
      preconditionFailure("Internal inconsistency: finished for effect \(token), never reserved")
    }
    switch slots[token] {
    case let .reserved(ids), let .cancelledBeforeAttach(ids):
      // Not attached yet: `attach` frees the slot.
      slots[token] = .endedBeforeAttach
      return forget(token, under: ids)
    case let .running(_, ids):
      release(token)
      return forget(token, under: ids)
    case .endedBeforeAttach, .free:
      preconditionFailure(
        "Internal inconsistency: finished in state \(slots[token]) of effect \(token): "
          + "it ended twice")
    }
  }

  /// Takes `token`, whose task ended or will never exist, out of `ids` and the count; returns
  /// the waiters of ``waitUntilIdle`` to resume, if the registry just became empty.
  private mutating func forget(
    _ token: Token, under ids: [EffectKey]
  ) -> [UnsafeContinuation<Void, Never>] {
    for id in ids {
      tokensByID[id] = tokensByID[id]?.removing(token)
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
    slots[token] = .free
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
      switch slots[token] {
      case let .running(task, ids):
        slots[token] = .running(task: task, ids: Self.ids(ids, without: id))
        tasks.append(task)
      case let .reserved(ids), let .cancelledBeforeAttach(ids):
        slots[token] = .cancelledBeforeAttach(ids: Self.ids(ids, without: id))
      case .endedBeforeAttach, .free:
        preconditionFailure(
          "Internal inconsistency: takeTasks in state \(slots[token]) of effect \(token), "
            + "still under an ID")
      }
    }
    return tasks
  }

  /// `ids`, which holds `id`, without it.
  private static func ids(_ ids: [EffectKey], without id: EffectKey) -> [EffectKey] {
    ids.count == 1 ? [] : ids.filter { $0 != id }
  }

  /// Marks the registry shut down; returns every running task, to cancel. Tasks attached later
  /// are cancelled when they are, and effects reserved without a task never start.
  mutating func shutdown() -> [any RegisteredTask] {
    isShutdown = true
    return slots.compactMap { slot in
      guard case let .running(task, _) = slot else { return nil }
      return task
    }
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
