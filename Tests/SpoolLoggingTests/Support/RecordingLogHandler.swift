import Logging
import Synchronization

/// A log handler that keeps every record it receives, for tests to read back.
struct RecordingLogHandler: LogHandler {
  /// One record as the handler received it.
  struct Record: Sendable {
    var level: Logger.Level
    var message: String
    var error: (any Error)?
    var metadata: Logger.Metadata
    var source: String
    var file: String
    var line: UInt
  }

  /// The records of every handler made from one `RecordingLogHandler.logger(level:)` call.
  final class Records: Sendable {
    private let storage = Mutex<[Record]>([])

    func append(_ record: Record) { storage.withLock { $0.append(record) } }

    var all: [Record] { storage.withLock { $0 } }
  }

  let records: Records
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level

  /// A logger whose handler records into the returned `Records`.
  static func logger(level: Logger.Level = .trace) -> (Logger, Records) {
    let records = Records()
    let logger = Logger(label: "spool-logging-tests") { _ in
      RecordingLogHandler(records: records, logLevel: level)
    }
    return (logger, records)
  }

  func log(event: LogEvent) {
    records.append(
      Record(
        level: event.level, message: "\(event.message)", error: event.error,
        metadata: metadata.merging(event.metadata ?? [:]) { $1 }, source: event.source,
        file: event.file, line: event.line))
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
}
