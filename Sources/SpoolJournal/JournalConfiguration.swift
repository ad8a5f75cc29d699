/// How a ``JournalRecorder`` sizes its files and its buffers, and how often it writes.
///
/// A recorder writes at most `maxFiles` files of at most `maxFileBytes` each (the last may
/// exceed it by its end record, under 40 bytes) since it started or since its last snapshot
/// (``JournalRecorder/snapshot(of:compacting:)``, whose compaction removes the files before
/// it): when the last allowed file is full, the recorder stops recording, counts the actions
/// it drops, and the end record says so; a replay of such a journal replays what was recorded
/// and reports the final state as not verified. Files are removed only by a compacting
/// snapshot, because a replay needs every action from the first or from a snapshot.
///
/// ```swift
/// let configuration = JournalConfiguration(maxFileBytes: 16 << 20, maxFiles: 8)
/// let recorder = try ActionJournal<Counter.Action>.recording(
///   to: "/var/tmp/counter", configuration: configuration)
/// ```
public struct JournalConfiguration: Sendable, Hashable {
  /// The size at which a file is closed and the next one started (`name.1.journal`, …).
  public var maxFileBytes: Int
  /// The most files a recorder writes since it started or since its last snapshot; recording
  /// stops when the last is full.
  public var maxFiles: Int
  /// The size of each batch handed to SpoolIO in one append.
  public var bufferBytes: Int
  /// How long a recorded action may wait in memory before it is written, when the buffer does
  /// not fill first: what a process that is killed can lose. `nil`: only full buffers, an
  /// explicit ``JournalRecorder/flush()`` and ``JournalRecorder/finish(finalState:)`` write.
  public var flushInterval: Duration?

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - maxFileBytes: At least 4 KiB; 64 MiB by default.
  ///   - maxFiles: At least 1; 64 by default (so 4 GiB at most by default).
  ///   - bufferBytes: At least 4 KiB; 256 KiB by default.
  ///   - flushInterval: 100 ms by default; at least 1 ms; `nil` to write full buffers only.
  ///
  /// ```swift
  /// let small = JournalConfiguration(maxFileBytes: 1 << 20, maxFiles: 4)
  /// let everySecond = JournalConfiguration(flushInterval: .seconds(1))
  /// ```
  public init(
    maxFileBytes: Int = 64 << 20, maxFiles: Int = 64, bufferBytes: Int = 256 << 10,
    flushInterval: Duration? = .milliseconds(100)
  ) {
    self.maxFileBytes = max(maxFileBytes, 4_096)
    self.maxFiles = max(maxFiles, 1)
    self.bufferBytes = max(bufferBytes, 4_096)
    self.flushInterval = flushInterval.map { max($0, .milliseconds(1)) }
  }
}
