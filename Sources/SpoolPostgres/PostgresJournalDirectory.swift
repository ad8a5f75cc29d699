import NIOCore
import SpoolCore
import SpoolJournal
import Synchronization

/// One journal per entity in PostgreSQL, for a `StoreRegistry`: each store is recovered from
/// its entity's newest snapshot and the rows after it when the registry creates it, after its
/// node took the entity's lease and a new epoch; its final state is written as a snapshot, and
/// the lease released, when the registry evicts it.
///
/// The same shape as SpoolJournal's `JournalDirectory`: ``makeStore(for:initialState:recovered:reducer:)``
/// as the registry's `makeStore`, ``evict(_:finalState:)`` in its `onEvict`, and
/// ``recorder(for:)`` for the handler that acknowledges an action only once it is committed.
///
/// The entity's key in PostgreSQL is what `key` returns for its ID (`"\(id)"` by default); one
/// ID per key, and one key per entity across the store types sharing a schema.
///
/// ```swift
/// let carts = PostgresJournalDirectory<String, Cart.State, Cart.Action>(node: node)
/// let registry = StoreRegistry<String, Cart.State, Cart.Action>(
///   configuration: StoreRegistryConfiguration(idleTimeout: .seconds(300)),
///   onEvict: { id, state in try? await carts.evict(id, finalState: state) }
/// ) { id in
///   try await carts.makeStore(for: id, initialState: Cart.State(id: id)) { Cart() }
/// }
/// ```
public final class PostgresJournalDirectory<
  ID: Hashable & Sendable, State: Codable & Sendable, Action: Codable & Sendable
>: Sendable {
  /// The node whose leases and connections the journals use.
  public let node: PostgresJournalNode
  let key: @Sendable (ID) -> String
  private let recorders = Mutex<[ID: PostgresJournalRecorder<Action>]>([:])

  /// A directory of the entities of one store type on `node`.
  ///
  /// - Parameters:
  ///   - node: The node that takes the entities and commits their rows.
  ///   - key: The entity's key in PostgreSQL for an ID: `"\(id)"` by default.
  ///
  /// ```swift
  /// let sessions = PostgresJournalDirectory<UUID, Session.State, Session.Action>(
  ///   node: node, key: { "session:\($0.uuidString)" })
  /// ```
  public init(node: PostgresJournalNode, key: @escaping @Sendable (ID) -> String = { "\($0)" }) {
    self.node = node
    self.key = key
  }

  /// The recorder of `id`'s live store, made here and not evicted yet.
  ///
  /// ```swift
  /// try await carts.recorder(for: id)?.waitUntilDurable()
  /// ```
  public func recorder(for id: ID) -> PostgresJournalRecorder<Action>? {
    recorders.withLock { $0[id] }
  }

  /// Takes `id`'s entity (lease, then a new epoch), recovers its state (the newest snapshot,
  /// then the rows after it, reduced by `reducer` with their effects discarded), and returns
  /// it with a recorder that continues its journal.
  ///
  /// - Parameters:
  ///   - id: The entity's ID.
  ///   - initialState: The state of an entity with no snapshot yet.
  ///   - next: An instrumentation the recorder forwards every call to.
  ///   - reducer: The feature's reducer.
  /// - Throws: ``PostgresJournalError``: ``PostgresJournalError/Code/ownedElsewhere`` (with
  ///   the owner's address) when another live node holds the lease,
  ///   ``PostgresJournalError/Code/inUse`` when this directory serves it already, and for a
  ///   journal that does not recover (a snapshot that does not decode or match its checksum, a
  ///   row that does not decode as `Action`, a missing sequence number) an error naming the
  ///   entity and the sequence number; the lease is then released and nothing is served.
  ///
  /// ```swift
  /// let recovery = try await carts.take(id, initialState: Cart.State(id: id)) { Cart() }
  /// let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
  ///   Cart()
  /// }
  /// ```
  public func take<R: Reducer<State, Action>>(
    _ id: ID, initialState: State, forwardingTo next: (any StoreInstrumentation<Action>)? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(PostgresJournalError) -> PostgresEntityRecovery<State, Action> {
    let entity = key(id)
    guard recorders.withLock({ $0[id] == nil }) else {
      throw PostgresJournalError(
        .inUse, entity: entity, message: "a store of this ID was made here and not evicted")
    }
    let feature = reducer()
    let epoch = try await node.take(entity)
    do throws(PostgresJournalError) {
      var state = initialState
      var snapshotSequence: Int64?
      var last: Int64 = 0
      if let (sequence, bytes, checksum) = try await node.newestSnapshot(of: entity) {
        do {
          state = try JournalRecordCoder<Action>.decodeState(State.self, from: bytes)
        } catch {
          throw PostgresJournalError(
            .undecodableState, entity: entity, sequenceNumber: sequence,
            message: "the snapshot does not decode as \(State.self): \(error)")
        }
        let actual = try? JournalRecordCoder<Action>.checksum(of: state)
        guard actual.map({ Int64(bitPattern: $0) }) == checksum else {
          throw PostgresJournalError(
            .stateMismatch, entity: entity, sequenceNumber: sequence,
            message: "the snapshot's state does not match the checksum written with it")
        }
        snapshotSequence = sequence
        last = sequence
      }
      let coder = JournalRecordCoder<Action>()
      var replayed = 0
      try await node.actions(of: entity, after: last) {
        (sequence, buffer) throws(PostgresJournalError) in
        guard sequence == last + 1 else {
          throw PostgresJournalError(
            .missingAction, entity: entity, sequenceNumber: last + 1,
            message: "the journal goes from sequence \(last) to \(sequence)")
        }
        let action: Action
        do {
          action = try coder.decode(Array(buffer: buffer))
        } catch {
          throw PostgresJournalError(
            .undecodableAction, entity: entity, sequenceNumber: sequence,
            message: "the row does not decode as \(Action.self) (\(coder.actionEncoding)): \(error)")
        }
        _ = feature.reduce(into: &state, action: action)
        last = sequence
        replayed += 1
      }
      let recorder = PostgresJournalRecorder<Action>(
        entity: entity, epoch: epoch, lastSequence: last, queue: node.queue(for: entity),
        next: next)
      let inserted = recorders.withLock { recorders in
        guard recorders[id] == nil else { return false }
        recorders[id] = recorder
        return true
      }
      guard inserted else {
        throw PostgresJournalError(
          .inUse, entity: entity, message: "a store of this ID was made here and not evicted")
      }
      return PostgresEntityRecovery(
        state: state, epoch: epoch, snapshotSequenceNumber: snapshotSequence,
        actions: replayed, recorder: recorder)
    } catch {
      await node.release(entity, epoch: epoch)
      throw error
    }
  }

  /// The store of `id`, recovered from its journal and recording into it: for a registry's
  /// `makeStore`.
  ///
  /// - Parameters:
  ///   - id: The store's ID.
  ///   - initialState: The state of an entity with no journal yet.
  ///   - recovered: An action sent to the store once it is created, to restart its
  ///     long-lived effects; `nil` to send none.
  ///   - reducer: The feature's reducer.
  /// - Returns: The store, whose instrumentation is the entity's recorder.
  /// - Throws: What ``take(_:initialState:forwardingTo:reducer:)`` throws.
  ///
  /// ```swift
  /// let store = try await carts.makeStore(for: id, initialState: Cart.State(id: id)) {
  ///   Cart()
  /// }
  /// ```
  public func makeStore<R: Reducer<State, Action> & SendableMetatype>(
    for id: ID, initialState: State, recovered: Action? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(PostgresJournalError) -> Store<State, Action> {
    let feature = reducer()
    let recovery = try await take(id, initialState: initialState) { feature }
    let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
      feature
    }
    if let recovered { await store.send(recovered) }
    return store
  }

  /// Waits until `id`'s recorded actions are committed, writes `finalState` (the final state
  /// of its evicted store) as a snapshot, removes the rows and snapshots before it, and
  /// releases the entity: for a registry's `onEvict`.
  ///
  /// Call it only with the state `onEvict` hands over: the store must reduce nothing more.
  /// The entity is released whatever happens, so that it can be taken again (here or by
  /// another node), which recovers what was committed.
  ///
  /// - Returns: The snapshot's sequence number; `nil` when no store of `id` was made here.
  /// - Throws: ``PostgresJournalError``: the recorder's failure (``PostgresJournalError/Code/fenced``
  ///   when the entity was taken over), or the snapshot's (refused or failed: the journal then
  ///   still recovers from its earlier snapshot and rows).
  ///
  /// ```swift
  /// onEvict: { id, state in try? await carts.evict(id, finalState: state) }
  /// ```
  @discardableResult
  public func evict(_ id: ID, finalState: State) async throws(PostgresJournalError) -> Int64? {
    guard let recorder = recorders.withLock({ $0[id] }) else { return nil }
    defer { _ = recorders.withLock { $0.removeValue(forKey: id) } }
    recorder.finish()
    do throws(PostgresJournalError) {
      try await recorder.waitUntilDurable()
      let sequence = recorder.lastSequenceNumber
      let bytes: [UInt8]
      let checksum: UInt64
      do {
        bytes = try JournalRecordCoder<Action>.encodeState(finalState)
        checksum = try JournalRecordCoder<Action>.checksum(of: finalState)
      } catch {
        throw PostgresJournalError(
          .undecodableState, entity: recorder.entity, sequenceNumber: sequence,
          message: "the final state could not be encoded: \(error)")
      }
      try await node.writeSnapshot(
        of: recorder.entity, at: sequence, epoch: recorder.epoch, state: bytes,
        checksum: Int64(bitPattern: checksum))
      await node.release(recorder.entity, epoch: recorder.epoch)
      return sequence
    } catch {
      await node.release(recorder.entity, epoch: recorder.epoch)
      throw error
    }
  }
}

/// An entity's state recovered by ``PostgresJournalDirectory/take(_:initialState:forwardingTo:reducer:)``,
/// with the recorder that continues its journal.
///
/// ```swift
/// let recovery = try await carts.take(id, initialState: Cart.State(id: id)) { Cart() }
/// print("epoch", recovery.epoch, "replayed", recovery.actions)
/// ```
public struct PostgresEntityRecovery<State: Sendable, Action: Codable & Sendable>: Sendable {
  /// The recovered state: the newest snapshot's, with the rows after it reduced.
  public var state: State
  /// The epoch this node took the entity with; its rows carry it.
  public var epoch: Int64
  /// The sequence number of the snapshot recovery started from; `nil` without one.
  public var snapshotSequenceNumber: Int64?
  /// The rows reduced after the snapshot.
  public var actions: Int
  /// The recorder that continues the journal: the store's instrumentation.
  public var recorder: PostgresJournalRecorder<Action>
}
