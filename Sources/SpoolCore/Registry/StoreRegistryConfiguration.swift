/// How a ``StoreRegistry`` bounds its live stores: idle eviction, a maximum count, and what
/// happens to a store whose effects are still running.
///
/// The default keeps every store until the registry shuts down.
///
/// ```swift
/// let configuration = StoreRegistryConfiguration(
///   idleTimeout: .seconds(300),
///   maximumLiveStores: 50_000,
///   runningEffects: .keepStore
/// )
/// ```
public struct StoreRegistryConfiguration: Sendable, Hashable {
  /// How long a store may go unused before the registry evicts it; `nil` for never.
  ///
  /// A store is used while a call of the registry has it
  /// (``StoreRegistry/withStore(_:_:)-nans``, ``StoreRegistry/send(_:to:)``). The registry
  /// notices uses in passes of one sweeper task, which sleeps between them: an unused store
  /// is evicted at least `idleTimeout` and at most twice `idleTimeout` after its last use. A
  /// timeout below one millisecond counts as one millisecond, one above a hundred years as a
  /// hundred years.
  public var idleTimeout: Duration?

  /// The most stores the registry keeps live; `nil` for no bound.
  ///
  /// Creating a store beyond the bound evicts a least recently used one first (among the
  /// stores of the new store's shard, then of the others). Recency is counted in steps, one
  /// at each creation and each pass of the idle sweeper: a store used since the last
  /// creation is newer than every store not used since, and stores last used within the same
  /// step may go in any order. A store in use, or one whose effects are running under
  /// ``RunningEffectsPolicy/keepStore``, is never evicted for the bound: while every live
  /// store is such a store, the registry holds more than the bound, and evicts down to it as
  /// they become evictable and new stores are created.
  public var maximumLiveStores: Int?

  /// What eviction does with a store whose effects are running.
  public var runningEffects: RunningEffectsPolicy

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - idleTimeout: How long a store may go unused before it is evicted; `nil` for never.
  ///     Clamped to between one millisecond and a hundred years.
  ///   - maximumLiveStores: The most stores kept live; `nil` for no bound. A value below 1
  ///     counts as 1.
  ///   - runningEffects: What eviction does with a store whose effects are running.
  ///
  /// ```swift
  /// let configuration = StoreRegistryConfiguration(idleTimeout: .seconds(60))
  /// ```
  public init(
    idleTimeout: Duration? = nil,
    maximumLiveStores: Int? = nil,
    runningEffects: RunningEffectsPolicy = .keepStore
  ) {
    self.idleTimeout = idleTimeout
    self.maximumLiveStores = maximumLiveStores.map { max(1, $0) }
    self.runningEffects = runningEffects
  }

  /// What eviction does with a store whose effects are still running (a timer, a request in
  /// flight).
  ///
  /// ```swift
  /// var configuration = StoreRegistryConfiguration(idleTimeout: .seconds(60))
  /// configuration.runningEffects = .cancelEffects
  /// ```
  public struct RunningEffectsPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
      case keepStore
      case cancelEffects
    }

    private let kind: Kind

    /// The store stays live while any of its effects runs: it is evicted only once it has
    /// none (looked at again one `idleTimeout` later). The default.
    public static let keepStore = RunningEffectsPolicy(kind: .keepStore)

    /// The store is evicted when it is idle whether or not effects run: they are cancelled, as
    /// ``Store/shutdown()`` cancels them.
    public static let cancelEffects = RunningEffectsPolicy(kind: .cancelEffects)

    /// Whether eviction skips a store with running effects.
    var keepsStoresWithEffects: Bool { kind == .keepStore }

    public var description: String {
      switch kind {
      case .keepStore: "keepStore"
      case .cancelEffects: "cancelEffects"
      }
    }
  }
}

extension StoreRegistryConfiguration {
  /// ``idleTimeout`` as the sweeper uses it: at least a millisecond, at most a hundred years.
  /// A timeout of zero or less would make the sweeper spin (a held store's next look would be
  /// due at once, forever), and one near `Duration`'s limit would overflow its nanoseconds
  /// and the sums of instants the sweeper makes.
  var effectiveIdleTimeout: Duration? {
    idleTimeout.map { min(max($0, .milliseconds(1)), .seconds(3_155_760_000)) }
  }
}
