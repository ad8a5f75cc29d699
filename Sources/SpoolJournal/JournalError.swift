import SpoolCore
import SpoolIO

/// Why a journal could not be read or replayed: what was wrong, in which file, at which byte.
///
/// Its description is one line, e.g.
/// `journal /var/tmp/counter.0.journal, byte 8: version 7, this Spool reads version 3`.
///
/// Switch over its ``code`` to tell the kinds apart; new kinds may be added, so keep a
/// `default` case.
///
/// ```swift
/// do {
///   try await journal.replay(into: store)
/// } catch let error as JournalError where error.code == .stateMismatch {
///   print(error)  // journal /var/tmp/counter.0.journal, byte 0: the replayed state's …
/// }
/// ```
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem, to switch over: an extensible set of values (new ones may be added).
  ///
  /// ```swift
  /// switch error.code {
  /// case .cutOff: print("replayed up to the cut")
  /// case .io: print("could not read:", error.underlyingError as Any)
  /// default: print(error)
  /// }
  /// ```
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
      case empty, notAJournal, notARegularFile, unsupportedVersion, actionTypeMismatch
      case encodingMismatch, corruptHeader, corruptRecord, undecodableAction, foreignFile
      case cutOff, noStateChecksum, stateMismatch, io, missingFile, undecodableState
      case storeBusy, inUse, corruptIndex, invalidKey
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The code's name, as written here: `cutOff`.
    public var description: String { kind.rawValue }

    /// The file has no byte at all.
    public static let empty = Code(.empty)
    /// The file does not start with a journal's magic bytes.
    public static let notAJournal = Code(.notAJournal)
    /// The path names something other than a regular file (a character device, a FIFO, a
    /// socket, a directory): nothing is read from it or written to it.
    public static let notARegularFile = Code(.notARegularFile)
    /// A journal of another format version.
    public static let unsupportedVersion = Code(.unsupportedVersion)
    /// A journal of another action type.
    public static let actionTypeMismatch = Code(.actionTypeMismatch)
    /// A journal whose actions were written in another encoding than the action type reads.
    public static let encodingMismatch = Code(.encodingMismatch)
    /// The header's bytes do not match its checksum, or it ends early.
    public static let corruptHeader = Code(.corruptHeader)
    /// A record whose header or payload does not match its checksum, with an impossible length
    /// or kind, or with bytes after the end record.
    public static let corruptRecord = Code(.corruptRecord)
    /// A record whose action could not be decoded as the journal's action type.
    public static let undecodableAction = Code(.undecodableAction)
    /// A file of another recording, or out of sequence, among the rotated files.
    public static let foreignFile = Code(.foreignFile)
    /// The journal ends before its end record (killed, or a full disk); what precedes replays.
    public static let cutOff = Code(.cutOff)
    /// The end record holds no state checksum, or recording stopped at its size limit.
    public static let noStateChecksum = Code(.noStateChecksum)
    /// The replayed final state is not the recorded one.
    public static let stateMismatch = Code(.stateMismatch)
    /// Reading the file failed: see ``JournalError/underlyingError``.
    public static let io = Code(.io)
    /// A file the journal needs is missing while later ones exist: a hole in the sequence,
    /// or the files before a snapshot, which compaction removed, for a read from the start
    /// (``ActionJournal/load()``; ``ActionJournal/recover(initialState:reducer:)`` starts at the
    /// snapshot instead).
    public static let missingFile = Code(.missingFile)
    /// A snapshot record whose checksum is right but whose state does not decode as the
    /// state type given to ``ActionJournal/recover(initialState:reducer:)``.
    public static let undecodableState = Code(.undecodableState)
    /// ``JournalRecorder/snapshot(of:compacting:)`` found the store reducing an action during
    /// each of its attempts to read a state that matches the journal: no snapshot was written.
    public static let storeBusy = Code(.storeBusy)
    /// ``JournalDirectory`` was asked for a second store of an ID whose journal its first
    /// store still records.
    public static let inUse = Code(.inUse)
    /// A ``SharedJournal`` segment's index file that does not match its checksum, is cut
    /// short or malformed, or points at records that are not the ones it names. Removing the
    /// index file makes the next ``SharedJournal/open(path:configuration:engine:key:)``
    /// rebuild it from its segment.
    public static let corruptIndex = Code(.corruptIndex)
    /// A ``SharedJournal`` store key that is empty or longer than
    /// ``SharedJournal/maxKeyBytes`` bytes.
    public static let invalidKey = Code(.invalidKey)
  }

  /// What was wrong, with its details: how errors are made inside SpoolJournal.
  enum Problem: Sendable, Hashable {
    /// The file has no byte at all.
    case empty
    /// The file does not start with a journal's magic bytes.
    case notAJournal
    /// The path names something other than a regular file (a character device, a FIFO, a
    /// socket, a directory): nothing is read from it or written to it.
    case notARegularFile(String)
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
    /// A file is missing while later ones exist.
    case missingFile(String)
    /// A snapshot's state does not decode.
    case undecodableState(String)
    /// The store never paused long enough for a snapshot.
    case storeBusy(String)
    /// Another recorder records the journal.
    case inUse(String)
    /// A shared journal's index file is damaged or does not match its segment.
    case corruptIndex(String)
    /// A shared journal's store key cannot be written.
    case invalidKey(String)
  }

  /// The file concerned (`path.N.journal`).
  public var file: String
  /// The byte offset in `file` where the problem is.
  public var offset: Int
  /// What was wrong, with its details.
  var problem: Problem

  init(file: String, offset: Int, problem: Problem) {
    self.file = file
    self.offset = offset
    self.problem = problem
  }

  /// The kind of problem.
  ///
  /// ```swift
  /// if error.code == .cutOff { print("replayed up to", error.offset) }
  /// ```
  public var code: Code {
    switch problem {
    case .empty: .empty
    case .notAJournal: .notAJournal
    case .notARegularFile: .notARegularFile
    case .unsupportedVersion: .unsupportedVersion
    case .actionTypeMismatch: .actionTypeMismatch
    case .encodingMismatch: .encodingMismatch
    case .corruptHeader: .corruptHeader
    case .corruptRecord: .corruptRecord
    case .undecodableAction: .undecodableAction
    case .foreignFile: .foreignFile
    case .cutOff: .cutOff
    case .noStateChecksum: .noStateChecksum
    case .stateMismatch: .stateMismatch
    case .io: .io
    case .missingFile: .missingFile
    case .undecodableState: .undecodableState
    case .storeBusy: .storeBusy
    case .inUse: .inUse
    case .corruptIndex: .corruptIndex
    case .invalidKey: .invalidKey
    }
  }

  /// The operating system's error, for ``Code/io``.
  ///
  /// ```swift
  /// if let io = error.underlyingError { print(io.errno) }
  /// ```
  public var underlyingError: IOError? {
    if case .io(let error) = problem { error } else { nil }
  }

  /// The recorded and replayed state checksums, for ``Code/stateMismatch``.
  ///
  /// ```swift
  /// if let checksums = error.stateChecksums { print(checksums.recorded, checksums.replayed) }
  /// ```
  public var stateChecksums: (recorded: UInt64, replayed: UInt64)? {
    if case .stateMismatch(let recorded, let replayed) = problem { (recorded, replayed) } else {
      nil
    }
  }

  /// The error on one line: `journal FILE, byte OFFSET: PROBLEM`.
  public var description: String {
    "journal \(file), byte \(offset): \(problemDescription)"
  }

  private var problemDescription: String {
    switch problem {
    case .empty: "the file is empty"
    case .notAJournal: "not a Spool journal (no SPOOLJNL magic)"
    case .notARegularFile(let kind): "not a regular file: \(kind)"
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
    case .missingFile(let detail): "a file is missing: \(detail)"
    case .undecodableState(let detail): "cannot decode the snapshot's state: \(detail)"
    case .storeBusy(let detail): "no snapshot written: \(detail)"
    case .inUse(let detail): "in use: \(detail)"
    case .corruptIndex(let detail): "corrupt index: \(detail)"
    case .invalidKey(let detail): "invalid store key: \(detail)"
    }
  }

  private func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
  }
}
