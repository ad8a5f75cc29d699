import IssueReporting
import Logging
import SpoolCore

/// An issue reporter that writes Spool's misuse reports and the errors that effects throw and
/// do not handle to a swift-log `Logger`, with what Spool knows of the issue as metadata.
///
/// By default IssueReporting prints an issue to the standard error (and fails the test, under a
/// test runner), where a server's log pipeline never sees it. Install this reporter once, at
/// start-up, and each issue becomes one log record instead:
///
/// - level `error` for an issue reported with the `error` severity (Spool's own reports, and an
///   effect's unhandled error), `warning` for the `warning` severity;
/// - the message that IssueReporting carries, verbatim;
/// - `error`: for an effect's unhandled error, the error itself;
/// - metadata `spool.location`: where the issue was reported, `fileID:line:column` (the place
///   where the effect was created, for an effect's unhandled error); the record's own file and
///   line are that place too;
/// - metadata `spool.issue`, `spool.store` and `spool.action` when Spool reported the issue
///   from a store: its `StoreIssueContext.Kind` (`misuse` or `unhandled-effect-error`), the
///   action type of the store or feature (`StoreIssueContext.actionType`) and the action's
///   case (`StoreIssueContext.actionCase`), each when Spool knows it.
///
/// The record's source is `Spool`. Issues that other code reports through `reportIssue` are
/// logged the same way, without the `spool.issue`, `spool.store` and `spool.action` metadata.
/// An issue below the logger's level costs the level check only: its message is never built.
///
/// ```swift
/// let logger = Logger(label: "cart-server")
/// LoggingIssueReporter.install(logger)
/// ```
public struct LoggingIssueReporter: IssueReporter {
  /// The logger that receives the records.
  public var logger: Logger

  /// A reporter that logs to `logger`.
  ///
  /// - Parameter logger: The logger that receives one record per issue.
  ///
  /// ```swift
  /// withIssueReporters([LoggingIssueReporter(logger: logger)]) {
  ///   // Issues reported here are logged to `logger` only.
  /// }
  /// ```
  public init(logger: Logger) {
    self.logger = logger
  }

  /// Makes a reporter that logs to `logger` the only issue reporter of the process.
  ///
  /// It replaces IssueReporting's `IssueReporters.current` (the default reporter, which prints,
  /// among them), for every task that has not bound reporters of its own with
  /// `withIssueReporters`. Call it once, at start-up, before the stores start. To keep other
  /// reporters too, assign `IssueReporters.current` yourself, with this reporter among them.
  ///
  /// - Parameter logger: The logger that receives one record per issue.
  ///
  /// ```swift
  /// var logger = Logger(label: "cart-server")
  /// logger.logLevel = .info
  /// LoggingIssueReporter.install(logger)
  /// ```
  public static func install(_ logger: Logger) {
    IssueReporters.current = [LoggingIssueReporter(logger: logger)]
  }

  /// Logs an issue: see ``LoggingIssueReporter`` for the record.
  ///
  /// - Parameters:
  ///   - message: The issue's message.
  ///   - severity: The issue's severity: `error` logs at the `error` level, `warning` at the
  ///     `warning` level.
  ///   - fileID: The file ID of the place where the issue was reported.
  ///   - filePath: The file path of that place.
  ///   - line: The line of that place.
  ///   - column: The column of that place.
  public func reportIssue(
    _ message: @autoclosure () -> String?,
    severity: IssueSeverity,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    let level: Logger.Level = severity == .warning ? .warning : .error
    guard logger.logLevel <= level else { return }
    let context = StoreIssueContext.current
    var metadata: Logger.Metadata = ["spool.location": "\(fileID):\(line):\(column)"]
    if let context {
      metadata["spool.issue"] = "\(context.kind)"
      if let actionType = context.actionType { metadata["spool.store"] = "\(actionType)" }
      if let actionCase = context.actionCase { metadata["spool.action"] = "\(actionCase)" }
    }
    logger.log(
      level: level,
      "\(message() ?? "An issue was reported.")",
      error: context?.error,
      metadata: metadata,
      source: "Spool",
      file: "\(fileID)",
      function: "",
      line: line
    )
  }
}

extension IssueReporter where Self == LoggingIssueReporter {
  /// An issue reporter that logs to `logger`: see ``LoggingIssueReporter``.
  ///
  /// - Parameter logger: The logger that receives one record per issue.
  /// - Returns: The reporter.
  ///
  /// ```swift
  /// IssueReporters.current = [.logger(logger), .default]
  /// ```
  public static func logger(_ logger: Logger) -> Self {
    LoggingIssueReporter(logger: logger)
  }
}
