import CustomDump
import Dependencies
import SpoolCore

/// A store for tests: you send it actions and describe, step by step, how the state changes,
/// which actions the effects send back, and when the effects end — TCA's `TestStore`, on Spool.
///
/// ```swift
/// @Test func numberFact() async {
///   let store = TestStore(initialState: Counter.State()) {
///     Counter()
///   } withDependencies: {
///     $0.numberFact.fetch = { "\($0) is a good number." }
///   }
///
///   await store.send(.incrementButtonTapped) {
///     $0.count = 1
///   }
///   await store.send(.factButtonTapped) {
///     $0.isLoading = true
///   }
///   await store.receive(\.factResponse) {
///     $0.isLoading = false
///     $0.fact = "1 is a good number."
///   }
/// }
/// ```
///
/// By default a test store is exhaustive (``Exhaustivity/on``): every state change must be
/// described, every action an effect sends must be received with `receive`, and every effect
/// must have ended by the end of the test (`finish()`, or the store's release). Anything else
/// fails the test, through IssueReporting, at the line of the step that found it, so failures
/// show in Swift Testing and in XCTest alike. With ``exhaustivity`` set to
/// ``Exhaustivity/off``, only what the test asserts is checked.
///
/// ## Where Spool's test store differs from TCA's
///
/// - It is not bound to the main actor: its methods are `nonisolated(nonsending)`, so they run
///   in the test's own isolation, whether the test is `@MainActor` or not. A test store is not
///   `Sendable`; keep it in the test that made it.
/// - Effects progress only inside the test store's steps, or inside a call of the test's own
///   task that resumes them, such as a test clock's `advance` (see "Determinism"); the actions
///   they send are reduced at the next step, where TCA's store reduces them at once.
///
/// ## Design
///
/// The test store does not wrap a `Store`. It holds the state and the reducer itself and
/// reduces each action synchronously in the test's task, recording the state before and after
/// each action that an effect sent, so that `receive` can check the change that action made.
/// Effects go through Spool's own effect machinery (the `package` `EffectStarter`: the same
/// plan, registry and cancellation IDs as the store), so a test exercises the production
/// semantics of `.run`, `.merge`, `.concatenate`, `cancellable(id:cancelInFlight:)` and
/// `.cancel(id:)`. Wrapping the real `Store` was the alternative; it was set aside because the
/// store reduces the actions effects send on its own drain loop, at a time no test can control,
/// and because the store's internals are tuned for throughput and change often.
///
/// ## Determinism
///
/// Every effect task prefers the test store's executor, a first-in, first-out queue of jobs that
/// only the test's own task runs: each step (`send`, `receive`, `finish`, `skip…`) first
/// runs queued jobs one at a time, on the test's thread, reducing the actions they send as they
/// arrive, until none is left. So effects never run concurrently with the test's code, and every
/// run of a test sees the same interleaving. (TCA reaches the same end by serializing the whole
/// process on the main thread with `withMainSerialExecutor`, a global hook that would also
/// serialize every other test running in parallel in the same process.)
///
/// With swift-clocks' `TestClock`, `await clock.advance(by:)` resumes the due sleeps one at a
/// time, in deadline order, and each effect it resumes runs at once, on the test's thread,
/// until it suspends again: a repeating timer registers its next sleep before the clock looks
/// for the next due one, so an advance over several intervals delivers every tick, as in TCA.
/// The actions those effects send are reduced at the test store's next step, in the order they
/// were sent:
///
/// ```swift
/// await clock.advance(by: .seconds(3))
/// await store.receive(\.timerTicked) { $0.secondsElapsed = 1 }
/// await store.receive(\.timerTicked) { $0.secondsElapsed = 2 }
/// await store.receive(\.timerTicked) { $0.secondsElapsed = 3 }
/// ```
///
/// The same holds for anything else the test's own task does between steps that resumes an
/// effect (yielding into an `AsyncStream` an effect reads, resuming a continuation): the effect
/// runs inside that call, until it suspends. So do not resume an effect while holding a lock
/// that the effect takes. Work resumed between steps by another task or thread waits for the
/// next step.
///
/// An effect that awaits work off the test store's executor (a real network call, another
/// actor) hands its continuation back from another thread; steps wait for it, up to ``timeout``,
/// and such a test is only as deterministic as that work.
///
/// The determinism tests (`DeterminismTests`: merged effects that yield, sleeps on a
/// `TestClock`, the four classic features) hold the test store to this: they run each scenario
/// 100 times in a loop and require one interleaving.
public final class TestStore<State: Equatable & Sendable, Action: Sendable> {
  // Every stored property below is confined to the test's task: the class is not Sendable and
  // its methods run in the caller's isolation. Effect tasks reach the test store only through
  // `mailbox`, which is Sendable and locks itself, and run only when the test's task drains
  // `executor`.

  /// How much the test store checks; ``Exhaustivity/on`` by default.
  ///
  /// ```swift
  /// store.exhaustivity = .off(showSkippedAssertions: true)
  /// ```
  public var exhaustivity: Exhaustivity = .on

  /// How long `receive` and `finish` wait for work that happens off the test store's
  /// executor, when a step does not say; one second by default.
  ///
  /// Deterministic tests never wait: when nothing can run, a step fails at once unless an
  /// effect is still in flight (suspended, for instance on a test clock nobody advanced).
  public var timeout: Duration = .seconds(1)

  /// The dependencies the reducer and the effects it returns run with; they may be changed
  /// between steps.
  ///
  /// ```swift
  /// store.dependencies.numberFact.fetch = { _ in throw FactError() }
  /// ```
  public var dependencies: DependencyValues

  /// The state as of the last step the test asserted, as in TCA.
  ///
  /// After `send`, it is the state right after the sent action; after `receive`, the state
  /// right after the received action; after `skipReceivedActions`, the state after the last
  /// action skipped. Actions that effects sent and the test has not received yet are not in
  /// it, although the test store has reduced them already. Read inside an assertion closure,
  /// it is the state before that step.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped) {
  ///   $0.count = 1
  ///   #expect(store.state.count == 0)  // the state before this step
  /// }
  /// #expect(store.state.count == 1)
  /// ```
  public internal(set) var state: State

  /// The state after the last action the test store reduced, received by the test or not:
  /// what the next reduce starts from. It runs ahead of ``state`` while reduced actions wait
  /// in `receivedActions`.
  var reducedState: State

  let reducer: (inout State, Action) -> Effect<Action>
  let executor: TestExecutor
  let effects: EffectStarter<Action>
  let mailbox: EffectMailbox<Action>
  /// Actions that effects sent, already reduced, not yet received by the test; oldest first.
  var receivedActions: [ReceivedAction] = []
  /// The tasks of each in-flight effect, by ledger ID, so that a test can cancel them.
  var effectTasks: [Int: [Task<Void, any Error>]] = [:]
  /// The effects started by reducing the actions each effect sent once running, by the ledger
  /// ID of the sender: cancelling a send's task cancels them too, and theirs in turn, as TCA's
  /// does. An entry lives while an effect under it is in flight (`pruneEffectTree`).
  var effectChildren: [Int: [Int]] = [:]
  /// Whether the test store has cancelled its effects because its root feature dismissed
  /// itself (`dismiss()` in one of its effects); from then on, `send` is refused.
  var isDismissed = false
  /// What `dismiss()` does in an effect of the root feature: bound around every effect the
  /// test store starts; a presented child's own target overrides it in the child's effects,
  /// and the children the root runs without a presentation do not dismiss through it.
  let rootDismissal: DismissTarget
  /// Where the test store was created: the end-of-test failures that belong to no step.
  let location: TestLocation

  /// Creates a test store that runs `reducer` from `initialState`.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The feature's reducer, built in a trailing closure as in TCA.
  ///   - prepareDependencies: Overrides dependencies for the reducer and its effects.
  ///   - fileID: The file ID of the place where failures found at the end of the test (effects
  ///     still running, actions not received) are reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let store = TestStore(initialState: Search.State()) {
  ///   Search()
  /// } withDependencies: {
  ///   $0.continuousClock = clock
  ///   $0.searchClient.search = { query in ["\(query)!"] }
  /// }
  /// ```
  public init<R: Reducer<State, Action>>(
    // `R.State`, not `State`: the compiler then takes the state's type from the reducer, so
    // that `initialState: .init()` compiles, as in TCA.
    initialState: @autoclosure () -> R.State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let (reducer, dependencies, state) = withDependencies(prepareDependencies) {
      @Dependency(\.self) var dependencies
      return (reducer(), dependencies, initialState())
    }
    let mailbox = EffectMailbox<Action>()
    let executor = TestExecutor { [wakeup = mailbox.wakeup] in wakeup.signal() }
    self.state = state
    self.reducedState = state
    self.dependencies = dependencies
    self.reducer = { reducer.reduce(into: &$0, action: $1) }
    self.mailbox = mailbox
    self.executor = executor
    self.effects = EffectStarter(executor: executor)
    self.rootDismissal = DismissTarget(rootFeatureOnly: true) { mailbox.dismiss() }
    self.location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  deinit {
    // A step that never ends: from here on, jobs only queue, for the loop below.
    executor.beginStep()
    reportUnfinishedWork(at: location)
    effects.cancelAll()
    // Let the cancelled effects unwind now, on this thread; what they send is dropped. A bound,
    // in case an effect ignores cancellation and keeps enqueuing work.
    var jobs = 0
    while jobs < Self.deinitJobLimit, executor.runNext() {
      jobs += 1
      _ = mailbox.takeActions()
    }
    executor.close()
  }

  static var deinitJobLimit: Int { 100_000 }
}
