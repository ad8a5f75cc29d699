import Clocks
import ConcurrencyExtras
import Spool
import SpoolTesting
import Testing

/// Each test runs its scenario many times and requires the same interleaving every time.
@Suite struct DeterminismTests {
  static let runs = 100

  @Test func mergedEffectsInterleaveTheSameWayEveryRun() async {
    var orders: Set<[String]> = []
    for _ in 0..<Self.runs {
      let store = TestStore(initialState: Harness.State()) {
        Harness {
          .merge(
            (0..<4).map { effect in
              .run { send in
                for step in 0..<3 {
                  await send(.logged("\(effect).\(step)"))
                  await Task.yield()
                }
              }
            }
          )
        }
      }
      await store.send(.start)
      await store.skipReceivedActions()
      await store.finish()
      orders.insert(store.state.log)
    }
    #expect(orders.count == 1)
    #expect(orders.first?.count == 12)
  }

  @Test func clockDrivenEffectsRunExactlyWhenDue() async {
    for _ in 0..<Self.runs {
      let clock = TestClock()
      let store = TestStore(initialState: Harness.State()) {
        Harness {
          .merge(
            [3, 1, 2].map { seconds in
              .run { send in
                try await clock.sleep(for: .seconds(seconds))
                await send(.logged("\(seconds)s"))
              }
            }
          )
        }
      }
      await store.send(.start)
      await clock.advance(by: .milliseconds(999))
      await store.skipReceivedActions(strict: false)
      #expect(store.state.log == [])
      await clock.advance(by: .seconds(1))
      await store.receive(.logged("1s")) { $0.log = ["1s"] }
      await clock.advance(by: .seconds(1))
      await store.receive(.logged("2s")) { $0.log = ["1s", "2s"] }
      await clock.advance(by: .seconds(1))
      await store.receive(.logged("3s")) { $0.log = ["1s", "2s", "3s"] }
      await store.finish()
    }
  }

  @Test func theClassicFeaturesPassEveryRun() async {
    for _ in 0..<Self.runs {
      await SearchTests().typingQuicklyIssuesOneRequest()
      await TimerTests().ticksEverySecondUntilStopped()
      await TimerTests().anAdvanceOverSeveralIntervalsDeliversEveryTick()
      await TodosTests().deleteCancelsTheRowsEffect()
      await CounterTests().numberFact()
    }
  }
}
