import Dependencies
import Spool
import SpoolTesting
import Testing

@Suite struct CounterTests {
  @Test func incrementAndDecrement() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    }
    await store.send(.incrementButtonTapped) {
      $0.count = 1
    }
    await store.send(.decrementButtonTapped) {
      $0.count = 0
    }
  }

  @Test func numberFact() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is a good number." }
    }
    await store.send(.incrementButtonTapped) {
      $0.count = 1
    }
    await store.send(.factButtonTapped) {
      $0.isLoading = true
    }
    await store.receive(\.factResponse) {
      $0.isLoading = false
      $0.fact = "1 is a good number."
    }
  }
}
