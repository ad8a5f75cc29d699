import CasePaths
import ConcurrencyExtras
import Dependencies
import IdentifiedCollections
import Spool

// Shared by SpoolTests and SpoolTestingTests (SpoolTestingTests/Support links to this file).
// Features for the tests of child effects under `ifLet`, `ifCaseLet` and `forEach`: each child
// effect runs until it is cancelled, or until a test clock reaches its deadline.

/// A child with effects of every kind the tests need, all using the same cancellation ID.
struct Download: Reducer {
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var ticks = 0
    var finished = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    /// An effect without an ID that runs until it is cancelled.
    case listen
    /// A timer without an ID.
    case startTimer
    case tick
    /// After `id` seconds, `.finished`; under `CancelID.download`, replacing what runs there.
    case start
    /// The same, registered from inside the effect with `withTaskCancellation(id:)`.
    case startInBody
    /// `.cancel(id: CancelID.download)` from the reducer.
    case stop
    /// `Task.cancel(id: CancelID.download)` from an effect.
    case stopFromEffect
    case finished
  }

  enum CancelID { case download }

  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    let delay = Duration.seconds(state.id)
    switch action {
    case .listen:
      return .run { _ in try await Task.never() }
    case .startTimer:
      return .run { [clock] send in
        for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
      }
    case .tick:
      state.ticks += 1
      return .none
    case .start:
      return .run { [clock] send in
        try await clock.sleep(for: delay)
        await send(.finished)
      }
      .cancellable(id: CancelID.download, cancelInFlight: true)
    case .startInBody:
      return .run { [clock] send in
        try await withTaskCancellation(id: CancelID.download, cancelInFlight: true) {
          try await clock.sleep(for: delay)
        }
        await send(.finished)
      }
    case .stop:
      return .cancel(id: CancelID.download)
    case .stopFromEffect:
      return .run { _ in Task.cancel(id: CancelID.download) }
    case .finished:
      state.finished += 1
      return .none
    }
  }
}

/// A list of downloads, a presented one, and an effect of its own under the rows' ID.
struct Downloads: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Download.State> = []
    var detail: Download.State?
    var parentFinished = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<Download>)
    case detail(Download.Action)
    case remove(id: Int)
    case present(id: Int)
    case dismiss
    /// After one second, `.parentFinished`, under `Download.CancelID.download`.
    case startParent
    case stopParent
    case parentFinished
    case noop
  }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .remove(id):
        state.rows.remove(id: id)
        return .none
      case let .present(id):
        state.detail = Download.State(id: id)
        return .none
      case .dismiss:
        state.detail = nil
        return .none
      case .startParent:
        return .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.parentFinished)
        }
        .cancellable(id: Download.CancelID.download)
      case .stopParent:
        return .cancel(id: Download.CancelID.download)
      case .parentFinished:
        state.parentFinished += 1
        return .none
      case .rows, .detail, .noop:
        return .none
      }
    }
    .forEach(\.rows, action: \.rows) {
      Download()
    }
    .ifLet(\.detail, action: \.detail) {
      Download()
    }
  }
}

/// Enum state: a download while active.
struct Session: Reducer {
  @CasePathable
  enum State: Equatable, Sendable {
    case idle
    case active(Download.State)
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case active(Download.Action)
    case activate(id: Int)
    case deactivate
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .activate(id):
        state = .active(Download.State(id: id))
      case .deactivate:
        state = .idle
      case .active:
        break
      }
      return .none
    }
    .ifCaseLet(\.active, action: \.active) {
      Download()
    }
  }
}
