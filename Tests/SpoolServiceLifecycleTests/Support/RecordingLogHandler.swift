import Logging
import Synchronization

/// A log handler that hands every record it receives to an `AsyncStream`, for tests to wait
/// for a record (the services' records say where their shutdown is).
struct RecordingLogHandler: LogHandler {
  /// One record as the handler received it.
  struct Record: Sendable {
    var level: Logger.Level
    var message: String
  }

  let continuation: AsyncStream<Record>.Continuation
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  /// A logger whose handler yields its records to the returned stream.
  static func logger() -> (Logger, AsyncStream<Record>) {
    let (stream, continuation) = AsyncStream.makeStream(of: Record.self)
    let logger = Logger(label: "spool-service-lifecycle-tests") { _ in
      RecordingLogHandler(continuation: continuation)
    }
    return (logger, stream)
  }

  func log(event: LogEvent) {
    continuation.yield(Record(level: event.level, message: "\(event.message)"))
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
}

extension AsyncStream<RecordingLogHandler.Record> {
  /// Waits for the first record whose message starts with `prefix`; `nil` if the stream ends
  /// first.
  func first(startingWith prefix: String) async -> RecordingLogHandler.Record? {
    for await record in self where record.message.hasPrefix(prefix) { return record }
    return nil
  }
}
