import Spool
import Testing

/// Enum reducer cases with a default value, which says how the generated body makes the
/// case's reducer (TCA's `case feature(Feature = Feature(context: …))`).
@Reducer
struct Stepper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case tap }
  let step: Int
  init(step: Int = 1) { self.step = step }
  var body: some ReducerOf<Self> {
    Reduce { [step] state, _ in
      state.count += step
      return .none
    }
  }
}

@Reducer(state: .equatable)
enum Steps {
  case small(Stepper)
  case big(Stepper = Stepper(step: 10))
}

/// An enum reducer's static `body` as a case of another: its type is `CaseBody` (TCA's
/// `Steps.Body`, which in Spool is the instance body's type).
@Reducer(state: .equatable)
enum Nested {
  case steps(Steps.CaseBody = Steps.body)
}

@Reducer
struct StepsHost {
  struct State: Equatable, Sendable {
    var steps: Steps.State?
    var nested: Nested.State?
  }
  enum Action: Sendable {
    case steps(Steps.Action)
    case nested(Nested.Action)
  }
  var body: some ReducerOf<Self> {
    Reduce { _, _ in .none }
      .ifLet(\.steps, action: \.steps)
      .ifLet(\.nested, action: \.nested)
  }
}

@Suite struct ReducerCaseDefaultValueTests {
  @Test func aCaseWithADefaultValueRunsTheReducerItMakes() async {
    let store = Store(initialState: StepsHost.State(steps: .big(Stepper.State()))) {
      StepsHost()
    }
    await store.send(.steps(.big(.tap)))
    #expect(await store.state.steps == .big(Stepper.State(count: 10)))
  }

  @Test func aCaseWithoutOneRunsTheReducersInit() async {
    let store = Store(initialState: StepsHost.State(steps: .small(Stepper.State()))) {
      StepsHost()
    }
    await store.send(.steps(.small(.tap)))
    #expect(await store.state.steps == .small(Stepper.State(count: 1)))
  }

  @Test func anEnumReducersBodyRunsAsACase() async {
    let store = Store(
      initialState: StepsHost.State(nested: .steps(.big(Stepper.State())))
    ) {
      StepsHost()
    }
    await store.send(.nested(.steps(.big(.tap))))
    #expect(await store.state.nested == .steps(.big(Stepper.State(count: 10))))
  }
}
