import Dependencies
import Spool
import SpoolTesting
import Testing

/// `@Dependency(\.isPresented)`, read in a child's reduce and in its effect: `true` in a child
/// run by the presentation `ifLet` or by a stack's `forEach` (and in the children those run),
/// `false` in a root feature and in children run without a presentation.
@Suite struct IsPresentedTests {
  /// Records `isPresented` as its reduce sees it, and as its effect sees it.
  @Reducer
  struct Probe {
    struct State: Equatable, Sendable, Identifiable {
      var id = 0
      var inReduce: Bool?
      var inEffect: Bool?
    }
    enum Action: Equatable, Sendable {
      case probe
      case effectSaw(Bool)
    }
    @Dependency(\.isPresented) var isPresented
    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .probe:
          state.inReduce = isPresented
          return .run { send in
            await send(.effectSaw(self.isPresented))
          }
        case .effectSaw(let seen):
          state.inEffect = seen
          return .none
        }
      }
    }
  }

  /// Every way of running a `Probe` without a presentation.
  @Reducer
  struct Plain {
    struct State: Equatable, Sendable {
      var scoped = Probe.State()
      var optional: Probe.State? = Probe.State()
      var rows: IdentifiedArrayOf<Probe.State> = [Probe.State(id: 1)]
    }
    enum Action: Equatable, Sendable {
      case scoped(Probe.Action)
      case optional(Probe.Action)
      case rows(IdentifiedActionOf<Probe>)
    }
    var body: some Reducer<State, Action> {
      Scope(state: \.scoped, action: \.scoped) { Probe() }
      EmptyReducer()
        .ifLet(\.optional, action: \.optional) { Probe() }
        .forEach(\.rows, action: \.rows) { Probe() }
    }
  }

  /// A `Probe` presented, one in a stack, and a plain child of a presented feature.
  @Reducer
  struct Presenter {
    struct State: Equatable, Sendable {
      @Presents var sheet: Probe.State? = nil
      var path = StackState<Probe.State>()
      @Presents var host: Plain.State? = nil
    }
    enum Action: Equatable, Sendable {
      case sheet(PresentationAction<Probe.Action>)
      case path(StackActionOf<Probe>)
      case host(PresentationAction<Plain.Action>)
    }
    var body: some Reducer<State, Action> {
      EmptyReducer()
        .ifLet(\.$sheet, action: \.sheet) { Probe() }
        .forEach(\.path, action: \.path) { Probe() }
        .ifLet(\.$host, action: \.host) { Plain() }
    }
  }

  @Test func falseInARootFeature() async {
    let store = TestStore(initialState: Probe.State()) { Probe() }
    await store.send(.probe) {
      $0.inReduce = false
    }
    await store.receive(.effectSaw(false)) {
      $0.inEffect = false
    }
  }

  @Test func falseInChildrenRunWithoutAPresentation() async {
    let store = TestStore(initialState: Plain.State()) { Plain() }
    await store.send(.scoped(.probe)) {
      $0.scoped.inReduce = false
    }
    await store.receive(.scoped(.effectSaw(false))) {
      $0.scoped.inEffect = false
    }
    await store.send(.optional(.probe)) {
      $0.optional?.inReduce = false
    }
    await store.receive(.optional(.effectSaw(false))) {
      $0.optional?.inEffect = false
    }
    await store.send(.rows(.element(id: 1, action: .probe))) {
      $0.rows[id: 1]?.inReduce = false
    }
    await store.receive(.rows(.element(id: 1, action: .effectSaw(false)))) {
      $0.rows[id: 1]?.inEffect = false
    }
  }

  @Test func trueInAPresentedChild() async {
    let store = TestStore(initialState: Presenter.State(sheet: Probe.State())) { Presenter() }
    await store.send(.sheet(.presented(.probe))) {
      $0.sheet?.inReduce = true
    }
    await store.receive(.sheet(.presented(.effectSaw(true)))) {
      $0.sheet?.inEffect = true
    }
  }

  @Test func trueInAStackElement() async {
    let store = TestStore(initialState: Presenter.State(path: [Probe.State()])) { Presenter() }
    await store.send(.path(.element(id: 0, action: .probe))) {
      $0.path[id: 0]?.inReduce = true
    }
    await store.receive(.path(.element(id: 0, action: .effectSaw(true)))) {
      $0.path[id: 0]?.inEffect = true
    }
  }

  // As in TCA, where a presented feature's dependencies reach the children it runs.
  @Test func trueInAPlainChildOfAPresentedFeature() async {
    let store = TestStore(initialState: Presenter.State(host: Plain.State())) { Presenter() }
    await store.send(.host(.presented(.scoped(.probe)))) {
      $0.host?.scoped.inReduce = true
    }
    await store.receive(.host(.presented(.scoped(.effectSaw(true))))) {
      $0.host?.scoped.inEffect = true
    }
    await store.send(.host(.presented(.rows(.element(id: 1, action: .probe))))) {
      $0.host?.rows[id: 1]?.inReduce = true
    }
    await store.receive(.host(.presented(.rows(.element(id: 1, action: .effectSaw(true)))))) {
      $0.host?.rows[id: 1]?.inEffect = true
    }
  }

  // As in TCA: a dismissal a test puts in place makes a child tested alone run as presented.
  @Test func trueWhereATestOverridesDismiss() async {
    let store = TestStore(initialState: Probe.State()) {
      Probe()
    } withDependencies: {
      $0.dismiss = DismissEffect {}
    }
    await store.send(.probe) {
      $0.inReduce = true
    }
    await store.receive(.effectSaw(true)) {
      $0.inEffect = true
    }
  }
}
