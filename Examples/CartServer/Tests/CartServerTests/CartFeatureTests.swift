import CartFeature
import Clocks
import Spool
import SpoolTesting
import Testing

/// The cart's rules, on the exhaustive test store with a test clock: a reservation's timer
/// still running at the end of a test fails it.
@Suite struct CartFeatureTests {
  func makeStore(clock: TestClock<Duration>) -> TestStoreOf<CartFeature> {
    TestStore(initialState: CartFeature.State()) {
      CartFeature(reservationDuration: .seconds(30))
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  @Test func addingItemsCountsThemBySKU() async {
    let store = makeStore(clock: TestClock())
    await store.send(.addItem(sku: "tea", quantity: 2)) {
      $0.items = ["tea": 2]
    }
    await store.send(.addItem(sku: "tea", quantity: 1)) {
      $0.items = ["tea": 3]
    }
    await store.send(.addItem(sku: "cup", quantity: 0)) {
      $0.refusal = .badQuantity
    }
  }

  @Test func aReservationExpiresWhenItsTimeIsUp() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.reserve) {
      $0.refusal = .empty
    }
    await store.send(.addItem(sku: "tea", quantity: 1)) {
      $0.items = ["tea": 1]
      $0.refusal = nil
    }
    await store.send(.reserve) {
      $0.status = .reserved
    }
    await store.send(.addItem(sku: "cup", quantity: 1)) {
      $0.refusal = .notOpen
    }
    await clock.advance(by: .seconds(29))
    // Still reserved: refused again, so the state does not change.
    await store.send(.reserve)
    await clock.advance(by: .seconds(1))
    await store.receive(\.reservationExpired) {
      $0.status = .open
      $0.refusal = nil
    }
    await store.send(.checkout) {
      $0.refusal = .notReserved
    }
  }

  @Test func checkoutCancelsTheReservationsTimer() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.addItem(sku: "tea", quantity: 1)) {
      $0.items = ["tea": 1]
    }
    await store.send(.reserve) {
      $0.status = .reserved
    }
    await store.send(.checkout) {
      $0.status = .checkedOut
    }
    // The timer was cancelled: nothing arrives when its time would have come.
    await clock.advance(by: .seconds(60))
  }

  @Test func aRecoveredReservationArmsItsTimerAgain() async {
    let clock = TestClock()
    let store = TestStore(
      initialState: CartFeature.State(items: ["tea": 1], status: .reserved)
    ) {
      CartFeature(reservationDuration: .seconds(30))
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.recovered)
    await clock.advance(by: .seconds(30))
    await store.receive(\.reservationExpired) {
      $0.status = .open
    }
  }

  @Test func aRecoveredOpenCartStartsNothing() async {
    let store = makeStore(clock: TestClock())
    await store.send(.recovered)
    // An open cart has no timer to arm: the exhaustive store would fail on a running effect.
  }
}
