import Dependencies
import SpoolBench
import SpoolCore

/// Timers in many stores, as a server's entities arm them (a reservation that expires, a
/// session that times out): each of 10,000 stores is sent an action whose effect sleeps 1 ms
/// on the clock dependency and sends one action back. The baseline is a plain actor per
/// entity whose method starts a task that sleeps and calls the actor back.
///
/// What it measures is what a timer costs beside its sleep: arming it (the reduce, the
/// effect's task, its cancellation ID), and its action coming back into an idle store.
enum TimersWorkload {
  static let workload = Workload(
    name: "timers",
    summary: "10,000 stores each arm a 1 ms timer whose effect sends an action back",
    defaultActions: 10_000, isStandard: false
  ) { run in
    let timers = run.actions
    let spool = try await run.spool(TimerFeature.Action.self) { recorder in
      let fired = Countdown()
      let stores = (0..<timers).map { _ in
        Store(initialState: TimerFeature.State(), instrumentation: recorder) {
          TimerFeature(fired: fired)
        } withDependencies: {
          // Stated, so that the workload runs the same under a test runner (whose default
          // clock fails the test) as in `spool bench`.
          $0.continuousClock = ContinuousClock()
        }
      }
      let result = await Measurement.time("spool", actions: timers) {
        for store in stores { await store.send(.arm) }
        await fired.wait(until: timers)
      }
      var total = 0
      for store in stores {
        await store.finish()
        total += await store.state.fired
      }
      try checkCount(total, expected: timers, run.label("spool"), what: "timers")
      return result
    }
    let fired = Countdown()
    let actors = (0..<timers).map { _ in TimerActor(fired: fired) }
    run.progress.begin(run.label("plain-actor"), total: timers)
    let plain = await Measurement.time("plain-actor", actions: timers) {
      for actor in actors { await actor.arm() }
      await fired.wait(until: timers)
    }
    var total = 0
    for actor in actors { total += await actor.fired }
    try checkCount(total, expected: timers, run.label("plain-actor"), what: "timers")
    return [
      run.report(spool, baselines: [plain], parameters: ["sleep": "1 ms", "stores": "\(timers)"])
    ]
  }
}

/// One entity with a timer: `arm` starts a cancellable effect that sleeps 1 ms and sends
/// `fire`; the reduce of `fire` counts it, on the workload's countdown too.
struct TimerFeature: Reducer, Sendable {
  struct State: Equatable, Sendable {
    var fired = 0
  }

  enum Action: Equatable, Sendable {
    case arm
    case fire
  }

  enum CancelID { case timer }

  let fired: Countdown
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .arm:
      return .run { [clock] send in
        try await clock.sleep(for: .milliseconds(1))
        await send(.fire)
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)
    case .fire:
      state.fired += 1
      fired.arrive()
      return .none
    }
  }
}

/// ``TimerFeature`` as a plain actor: the timer is a task that sleeps and calls back.
actor TimerActor {
  private(set) var fired = 0
  private var timer: Task<Void, Never>?
  private let countdown: Countdown

  init(fired: Countdown) {
    self.countdown = fired
  }

  func arm() {
    timer?.cancel()
    timer = Task {
      do {
        try await Task.sleep(for: .milliseconds(1))
      } catch {
        return
      }
      self.fire()
    }
  }

  private func fire() {
    fired += 1
    countdown.arrive()
    timer = nil
  }
}
