import SpoolCore

/// How a workload drives its store during the measurement: `enqueue` from producers, one task
/// that awaits `send`, or a closure of your own.
///
/// Whatever the driver, the harness builds a fresh store before it (not measured), and after it
/// awaits the store's `finish()` (measured: effects and the actions they send are part of the
/// work), then checks the final state.
///
/// ```swift
/// driver: .enqueue { index in .addItem(id: index) }          // one producer, fire and forget
/// driver: .enqueue(producers: 4) { index in .add(index) }     // four concurrent producers
/// driver: .send { _ in .checkoutButtonTapped }               // await send, one at a time
/// driver: .custom("replay") { store, context in … return actionsSent }
/// ```
public struct WorkloadDriver<State: Sendable, Action: Sendable>: Sendable {
  /// The report's `producer` parameter: `enqueue`, `await send`, or the custom driver's name.
  @usableFromInline package let name: String
  @usableFromInline package let drive:
    @Sendable (_ store: Store<State, Action>, _ context: WorkloadContext) async throws -> Int

  /// Actions between two progress updates: small enough for a smooth bar, large enough that
  /// the update costs nothing.
  @usableFromInline static var chunk: Int { 1 << 14 }
  /// How many actions a concurrent producer enqueues between two yields: the store's queue
  /// capacity. A producer that never suspends holds a cooperative thread (there are as many as
  /// cores) and starves the store's drain loop.
  @usableFromInline static var yieldInterval: Int { 1_024 }

  /// `store.enqueue(action(index))` for every index in `0..<actions`, from `producers`
  /// concurrent tasks (each its own contiguous range of indices), fire and forget: Spool's
  /// high-volume way in. The volume is rounded down to a multiple of `producers`.
  ///
  /// - Parameters:
  ///   - producers: Concurrent producer tasks; `nil` for the `--producers` option.
  ///   - action: The action for an index.
  ///
  /// ```swift
  /// driver: .enqueue(producers: nil) { index in .add(index) }
  /// ```
  @inlinable
  public static func enqueue(
    producers: Int? = 1, _ action: @escaping @Sendable (_ index: Int) -> Action
  ) -> Self {
    WorkloadDriver(name: "enqueue") { store, context in
      let producers = max(1, producers ?? context.options.producers)
      let share = context.actions / producers
      guard producers > 1 else {
        enqueueAll(0..<share, action, into: store, context)
        return share
      }
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            let start = producer * share
            await enqueueYielding(start..<(start + share), action, into: store, context)
          }
        }
      }
      return share * producers
    }
  }

  /// `await store.send(action(index))` for every index in `0..<actions`, from one task: each
  /// action is reduced before the next is sent (TCA's `send`, awaited because Spool's store is
  /// an actor).
  ///
  /// ```swift
  /// driver: .send { _ in .incrementButtonTapped }
  /// ```
  @inlinable
  public static func send(_ action: @escaping @Sendable (_ index: Int) -> Action) -> Self {
    WorkloadDriver(name: "await send") { store, context in
      var index = 0
      while index < context.actions {
        let end = min(index + chunk, context.actions)
        while index < end {
          await store.send(action(index))
          index += 1
        }
        context.advance(by: chunk)
      }
      return context.actions
    }
  }

  /// A driver of your own: it gets the fresh store and the ``WorkloadContext`` (the volume,
  /// the options, the progress, ``WorkloadContext/startMeasurement()``), drives the store, and
  /// returns how many units it did (the report's `actions`; throughput is units per second).
  ///
  /// It may throw: a ``WorkloadCheckError`` for a wrong result, any other error for a failed
  /// setup; the command then prints it on one line and exits with status 1.
  ///
  /// - Parameters:
  ///   - name: The report's `producer` parameter, `replay`.
  ///   - drive: Drives the store; returns the units done.
  ///
  /// ```swift
  /// driver: .custom("bursts") { store, context in
  ///   for burst in stride(from: 0, to: context.actions, by: 100) {
  ///     for index in burst..<min(burst + 100, context.actions) { store.enqueue(.add(index)) }
  ///     await store.finish()
  ///     context.advance(by: 100)
  ///   }
  ///   return context.actions
  /// }
  /// ```
  public static func custom(
    _ name: String = "custom",
    _ drive: @escaping @Sendable (
      _ store: Store<State, Action>, _ context: WorkloadContext
    ) async throws -> Int
  ) -> Self {
    WorkloadDriver(name: name, drive: drive)
  }

  @usableFromInline
  init(
    name: String,
    drive: @escaping @Sendable (Store<State, Action>, WorkloadContext) async throws -> Int
  ) {
    self.name = name
    self.drive = drive
  }

  @inlinable
  static func enqueueAll(
    _ indices: Range<Int>, _ action: (Int) -> Action, into store: Store<State, Action>,
    _ context: WorkloadContext
  ) {
    var index = indices.lowerBound
    while index < indices.upperBound {
      let end = min(index + chunk, indices.upperBound)
      while index < end {
        store.enqueue(action(index))
        index += 1
      }
      context.advance(by: chunk)
    }
  }

  @inlinable
  static func enqueueYielding(
    _ indices: Range<Int>, _ action: (Int) -> Action, into store: Store<State, Action>,
    _ context: WorkloadContext
  ) async {
    var index = indices.lowerBound
    var sinceYield = 0
    while index < indices.upperBound {
      let end = min(index + chunk, indices.upperBound)
      while index < end {
        store.enqueue(action(index))
        index += 1
        sinceYield += 1
        if sinceYield == yieldInterval {
          sinceYield = 0
          await Task.yield()
        }
      }
      context.advance(by: chunk)
    }
  }
}
