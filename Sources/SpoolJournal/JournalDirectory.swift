import SpoolCore
import SpoolIO
import Synchronization

/// One journal per store ID in a folder, for a `StoreRegistry`: each store is recovered from
/// its journal when the registry creates it, and its journal gets a snapshot when the registry
/// evicts it.
///
/// Wire it into the registry's two hooks: ``makeStore(for:initialState:recovered:reducer:)`` as
/// `makeStore`, and ``evict(_:finalState:)`` in `onEvict`. A store is created from its
/// journal's newest snapshot and the actions after it
/// (``ActionJournal/recover(initialState:reducer:)``), records into a new run of the same
/// journal, and gets `recovered` (a feature's own action that restarts its long-lived effects)
/// once created. On eviction, the store has reduced its
/// last action and is shut down: its final state is written as a snapshot, synced, the files
/// before it removed, and the journal finished, so the next creation reads one snapshot.
///
/// The journal of ID `id` is `folder/NAME`, with `NAME` what `fileName` returns for it
/// (its files are `folder/NAME.N.journal`); the name must be a file name (no `/`), and one ID
/// per name. The folder must exist.
///
/// ```swift
/// let journals = JournalDirectory<Cart.ID, Cart.State, Cart.Action>(folder: "/var/lib/carts")
/// let carts = StoreRegistry<Cart.ID, Cart.State, Cart.Action>(
///   configuration: StoreRegistryConfiguration(idleTimeout: .seconds(300)),
///   onEvict: { id, state in
///     do { try await journals.evict(id, finalState: state) } catch { logger.error("\(error)") }
///   }
/// ) { id in
///   try await journals.makeStore(
///     for: id, initialState: Cart.State(id: id), recovered: .recovered
///   ) {
///     Cart()
///   }
/// }
/// ```
public final class JournalDirectory<
  ID: Hashable & Sendable, State: Codable & Sendable, Action: Codable & Sendable
>: Sendable {
  /// The folder that holds the journals.
  public let folder: String
  /// The configuration of every store's recorder.
  public let configuration: JournalConfiguration
  let engine: IOEngine
  let fileName: @Sendable (ID) -> String
  /// The recorder of each live store, from its creation to its eviction.
  private let recorders = Mutex<[ID: JournalRecorder<Action>]>([:])

  /// A directory of journals in `folder`.
  ///
  /// - Parameters:
  ///   - folder: The folder of the journals; it must exist and be writable.
  ///   - configuration: The configuration of every store's recorder.
  ///   - engine: The engine that reads and writes the journals.
  ///   - fileName: The name of an ID's journal in the folder: `"\(id)"` by default.
  ///
  /// ```swift
  /// let journals = JournalDirectory<UUID, Session.State, Session.Action>(
  ///   folder: "/var/lib/sessions", fileName: { $0.uuidString })
  /// ```
  public init(
    folder: String,
    configuration: JournalConfiguration = JournalConfiguration(),
    engine: IOEngine = .shared,
    fileName: @escaping @Sendable (ID) -> String = { "\($0)" }
  ) {
    self.folder = folder
    self.configuration = configuration
    self.engine = engine
    self.fileName = fileName
  }

  /// The journal of `id`.
  ///
  /// ```swift
  /// let contents = try await journals.journal(for: cartID).load()
  /// ```
  public func journal(for id: ID) -> ActionJournal<Action> {
    ActionJournal(path: "\(folder)/\(fileName(id))", engine: engine)
  }

  /// The store of `id`, recovered from its journal and recording into it: for a registry's
  /// `makeStore`.
  ///
  /// - Parameters:
  ///   - id: The store's ID.
  ///   - initialState: The state of a store whose journal does not exist yet.
  ///   - recovered: An action sent to the store once it is created, to restart its
  ///     long-lived effects (see "Restarting effects" in <doc:RecordingAndReplaying>); `nil`
  ///     to send none.
  ///   - reducer: The feature's reducer.
  /// - Returns: The store, whose instrumentation is its journal's recorder.
  /// - Throws: ``JournalError``: what ``ActionJournal/recover(initialState:reducer:)`` or
  ///   ``JournalRecovery/continueRecording(configuration:engine:forwardingTo:)`` throws, or
  ///   ``JournalError/Code/inUse`` when a store of `id` made here was not evicted yet.
  ///
  /// ```swift
  /// let store = try await journals.makeStore(for: id, initialState: Cart.State(id: id)) {
  ///   Cart()
  /// }
  /// ```
  public func makeStore<R: Reducer<State, Action> & SendableMetatype>(
    for id: ID, initialState: State, recovered: Action? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(JournalError) -> Store<State, Action> {
    let journal = journal(for: id)
    let feature = reducer()
    let inUse = JournalError(
      file: journal.path, offset: 0,
      problem: .inUse("a store of this ID was made here and not evicted"))
    guard recorders.withLock({ $0[id] == nil }) else { throw inUse }
    let recovery = try await journal.recover(initialState: initialState) { feature }
    let recorder = try recovery.continueRecording(configuration: configuration, engine: engine)
    let inserted = recorders.withLock { recorders in
      guard recorders[id] == nil else { return false }
      recorders[id] = recorder
      return true
    }
    guard inserted else {
      _ = try? await recorder.finish()
      throw inUse
    }
    let store = Store(initialState: recovery.state, instrumentation: recorder) { feature }
    if let recovered { await store.send(recovered) }
    return store
  }

  /// Writes `finalState`, the final state of `id`'s evicted store, as a snapshot of its
  /// journal, removes the files before it, and finishes the journal: for a registry's
  /// `onEvict`.
  ///
  /// Call it only with the state `onEvict` hands over: the store must reduce nothing more.
  ///
  /// - Returns: What the snapshot wrote and removed; `nil` when no store of `id` was made
  ///   here (nothing is written).
  /// - Throws: The `IOError` of a write, sync or removal, or the `EncodingError` of the
  ///   state; the journal then still recovers to the state (from its earlier snapshot and
  ///   actions), and the ID may get a new store.
  ///
  /// ```swift
  /// onEvict: { id, state in try? await journals.evict(id, finalState: state) }
  /// ```
  @discardableResult
  public func evict(_ id: ID, finalState: State) async throws -> JournalSnapshotSummary? {
    guard let recorder = recorders.withLock({ $0[id] }) else { return nil }
    // Released whatever happens: the ID must be able to get a new store.
    defer { _ = recorders.withLock { $0.removeValue(forKey: id) } }
    let snapshot: JournalSnapshotSummary
    do {
      snapshot = try await recorder.snapshot(finalState: finalState, compacting: true)
    } catch {
      _ = try? await recorder.finish(finalState: finalState)
      throw error
    }
    try await recorder.finish(finalState: finalState)
    return snapshot
  }
}
