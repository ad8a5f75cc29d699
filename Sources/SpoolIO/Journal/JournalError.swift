import SpoolCore

/// Why a journal could not be read or replayed: what was wrong, in which file, at which byte.
///
/// Its description is one line, e.g.
/// `journal /var/tmp/counter.0.journal, byte 8: version 7, this Spool reads version 2`.
///
/// ```swift
/// do {
///   try await journal.replay(into: store)
/// } catch let error as JournalError {
///   print(error)  // journal /var/tmp/counter.0.journal, byte 1042: record checksum …
/// }
/// ```
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong.
  public enum Problem: Sendable, Hashable {
    /// The file has no byte at all.
    case empty
    /// The file does not start with a journal's magic bytes.
    case notAJournal
    /// A journal of another format version.
    case unsupportedVersion(found: UInt16, supported: UInt16)
    /// A journal of another action type.
    case actionTypeMismatch(recorded: String, expected: String)
    /// A journal whose actions were written in another encoding (`Codable`, or the action's
    /// ``JournalCodable`` layout and its version) than the action type reads now.
    case encodingMismatch(recorded: String, expected: String)
    /// The header's bytes do not match its checksum, or it ends early.
    case corruptHeader(String)
    /// A record whose bytes do not match its checksum, with an impossible length or kind, or
    /// with bytes after the end record.
    case corruptRecord(String)
    /// A record whose action could not be decoded as the journal's action type.
    case undecodableAction(String)
    /// A file of another recording, or out of sequence, among the rotated files.
    case foreignFile(String)
    /// The journal ends before its end record: the last file is cut off mid-record (or after a
    /// whole record), or a file after a rotation is missing. What precedes it replays.
    case cutOff(String)
    /// The end record holds no state checksum (the recorder was finished without a state),
    /// or recording stopped at its size limit: the replayed state cannot be compared.
    case noStateChecksum(String)
    /// The replayed final state is not the recorded one.
    case stateMismatch(recorded: UInt64, replayed: UInt64)
    /// Reading the file failed.
    case io(IOError)
  }

  /// The file concerned (`path.N.journal`).
  public var file: String
  /// The byte offset in `file` where the problem is.
  public var offset: Int
  /// What was wrong.
  public var problem: Problem

  /// Creates an error.
  ///
  /// ```swift
  /// let error = JournalError(file: "/tmp/a.0.journal", offset: 0, problem: .empty)
  /// ```
  public init(file: String, offset: Int, problem: Problem) {
    self.file = file
    self.offset = offset
    self.problem = problem
  }

  /// The error on one line: `journal FILE, byte OFFSET: PROBLEM`.
  public var description: String {
    "journal \(file), byte \(offset): \(problemDescription)"
  }

  private var problemDescription: String {
    switch problem {
    case .empty: "the file is empty"
    case .notAJournal: "not a Spool journal (no SPOOLJNL magic)"
    case .unsupportedVersion(let found, let supported):
      "version \(found), this Spool reads version \(supported)"
    case .actionTypeMismatch(let recorded, let expected):
      "records actions of type \(recorded), not \(expected)"
    case .encodingMismatch(let recorded, let expected):
      "records actions encoded with \(recorded), not \(expected)"
    case .corruptHeader(let detail): "corrupt header: \(detail)"
    case .corruptRecord(let detail): "corrupt record: \(detail)"
    case .undecodableAction(let detail): "cannot decode the action: \(detail)"
    case .foreignFile(let detail): "file of another journal: \(detail)"
    case .cutOff(let detail): "cut off: \(detail); the final state is not verified"
    case .noStateChecksum(let detail): "\(detail); the final state is not verified"
    case .stateMismatch(let recorded, let replayed):
      "the replayed state's checksum \(hex(replayed)) is not the recorded \(hex(recorded))"
    case .io(let error): "\(error)"
    }
  }

  private func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
  }
}
