import IssueReporting
import Logging
import Spool
import SpoolLogging
import Testing

@Suite(.timeLimit(.minutes(10)))
struct LoggingIssueReporterTests {
  @Test func anEffectsUnhandledErrorIsLoggedWithItsStoreErrorAndLocation() async throws {
    let (logger, records) = RecordingLogHandler.logger()
    try await withIssueReporters([LoggingIssueReporter(logger: logger)]) {
      let store = Store(initialState: Checkout.State()) { Checkout() }
      await store.send(.pay(amount: 12)).finish()
      let record = try #require(records.all.only)
      #expect(record.level == .error)
      #expect(record.source == "Spool")
      #expect(record.error as? PaymentDeclined == PaymentDeclined())
      #expect(record.message.contains("threw an unhandled error"))
      #expect(record.metadata["spool.issue"] == "unhandled-effect-error")
      #expect(record.metadata["spool.store"] == "\(String(reflecting: Checkout.Action.self))")
      // Which action's effect threw is told by where the effect was created.
      #expect(record.metadata["spool.action"] == nil)
      let location = "SpoolLoggingTests/Features.swift:\(Checkout.payEffectLine)"
      #expect(record.metadata["spool.location"]?.description.hasPrefix(location + ":") == true)
      #expect(record.file == "SpoolLoggingTests/Features.swift")
      #expect(record.line == Checkout.payEffectLine)
    }
  }

  @Test func anActionSentAfterShutdownIsLoggedWithItsCase() async throws {
    let (logger, records) = RecordingLogHandler.logger()
    try await withIssueReporters([LoggingIssueReporter(logger: logger)]) {
      let store = Store(initialState: Checkout.State()) { Checkout() }
      await store.shutdown()
      await store.send(.pay(amount: 3))
      store.enqueue(.paid)
      let records = records.all
      #expect(records.count == 2)
      let sent = try #require(records.first)
      #expect(sent.level == .error)
      #expect(sent.message.contains("after it was shut down"))
      #expect(sent.error == nil)
      #expect(sent.metadata["spool.issue"] == "misuse")
      #expect(sent.metadata["spool.store"] == "\(String(reflecting: Checkout.Action.self))")
      #expect(sent.metadata["spool.action"] == "pay")
      let enqueued = try #require(records.last)
      #expect(enqueued.metadata["spool.issue"] == "misuse")
      #expect(enqueued.metadata["spool.action"] == "paid")
    }
  }

  @Test func aChildActionWithoutItsStateIsLoggedWithTheParentsCase() async throws {
    let (logger, records) = RecordingLogHandler.logger()
    try await withIssueReporters([LoggingIssueReporter(logger: logger)]) {
      let store = Store(initialState: Checkout.State()) { Checkout() }
      await store.send(.receipt(.print))
      let record = try #require(records.all.only)
      #expect(record.metadata["spool.issue"] == "misuse")
      #expect(record.metadata["spool.action"] == "receipt")
      #expect(record.message.contains("received a child action"))
    }
  }

  @Test func anIssueFromOtherCodeIsLoggedWithoutSpoolsContext() throws {
    let (logger, records) = RecordingLogHandler.logger()
    let line: UInt = #line + 2
    withIssueReporters([LoggingIssueReporter(logger: logger)]) {
      reportIssue("The cart's currency is unknown.", severity: .warning)
    }
    let record = try #require(records.all.only)
    #expect(record.level == .warning)
    #expect(record.message == "The cart's currency is unknown.")
    #expect(record.metadata["spool.issue"] == nil)
    #expect(record.metadata["spool.store"] == nil)
    let location = "SpoolLoggingTests/LoggingIssueReporterTests.swift:\(line):"
    #expect(record.metadata["spool.location"]?.description.hasPrefix(location) == true)
  }

  @Test func anIssueBelowTheLoggersLevelIsNotLoggedNorFormatted() throws {
    let (logger, records) = RecordingLogHandler.logger(level: .critical)
    withIssueReporters([.logger(logger)]) {
      reportIssue(Issue.unformattable())
    }
    #expect(records.all.isEmpty)
  }

  @Test func installMakesTheReporterTheOnlyOne() async throws {
    let (logger, records) = RecordingLogHandler.logger()
    // `install` assigns `IssueReporters.current`, which inside this binding is the binding's
    // own list: the process's reporters, which the other tests running now use, stay as they
    // are.
    await withIssueReporters([.default, .default]) {
      LoggingIssueReporter.install(logger)
      #expect(IssueReporters.current.count == 1)
      #expect(IssueReporters.current.first is LoggingIssueReporter)
      // A child task sees the reporters of the task that created it.
      await Task { reportIssue("From a child task.") }.value
    }
    #expect(records.all.map(\.message) == ["From a child task."])
  }
}

extension Array {
  /// The only element, `nil` when there are none or several.
  fileprivate var only: Element? { count == 1 ? first : nil }
}

extension Issue {
  /// A message that fails the test if anything formats it.
  fileprivate static func unformattable() -> String {
    Issue.record("The message of an issue below the logger's level was formatted.")
    return ""
  }
}
