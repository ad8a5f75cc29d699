import Clocks
import ConcurrencyExtras
import Spool
import SpoolTesting
import Testing

@Suite struct SearchTests {
  @Test func typingQuicklyIssuesOneRequest() async {
    let clock = TestClock()
    let queries = LockIsolated<[String]>([])
    let store = TestStore(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.continuousClock = clock
      $0.searchClient.search = { query in
        queries.withValue { $0.append(query) }
        return ["\(query)posable Architecture"]
      }
    }
    await store.send(.queryChanged("c")) { $0.query = "c" }
    await clock.advance(by: .milliseconds(100))
    await store.send(.queryChanged("co")) { $0.query = "co" }
    await clock.advance(by: .milliseconds(100))
    await store.send(.queryChanged("com")) { $0.query = "com" }
    await clock.advance(by: .milliseconds(299))
    #expect(queries.value == [])
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.searchResponse) {
      $0.results = ["composable Architecture"]
    }
    #expect(queries.value == ["com"])
  }

  @Test func clearingTheQueryCancelsTheRequest() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.queryChanged("c")) { $0.query = "c" }
    await store.send(.queryChanged("")) { $0.query = "" }
    await clock.advance(by: .seconds(1))
  }
}
