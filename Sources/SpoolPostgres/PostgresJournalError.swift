import PostgresNIO

/// Why a PostgreSQL journal could not connect, take an entity, record or recover: what was
/// wrong, for which entity, at which sequence number or epoch.
///
/// Its description is one line, e.g.
/// `entity cart-42: fenced: this node writes with epoch 3, the entity is at epoch 4 (owner
/// node-b:8080)`.
///
/// Switch over its ``code`` to tell the kinds apart; new kinds may be added, so keep a
/// `default` case.
///
/// ```swift
/// do {
///   try await recorder.waitUntilDurable()
/// } catch let error as PostgresJournalError where error.code == .fenced {
///   print(error)  // the entity was taken over: stop serving it
/// }
/// ```
public struct PostgresJournalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem, to switch over: an extensible set of values (new ones may be added).
  ///
  /// ```swift
  /// switch error.code {
  /// case .fenced, .ownedElsewhere: print("another node owns", error.entity ?? "?")
  /// default: print(error)
  /// }
  /// ```
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
      case unreachable, database, invalidConfiguration, schemaVersion, ownedElsewhere, fenced
      case inUse, undecodableAction, undecodableState, stateMismatch, missingAction
      case notRecording, cancelled
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The code's name, as written here: `fenced`.
    public var description: String { kind.rawValue }

    /// PostgreSQL could not be reached or refused the connection: the message names the host
    /// and port.
    public static let unreachable = Code(.unreachable)
    /// A statement failed, or the connection broke during it: nothing of it is reported
    /// durable.
    public static let database = Code(.database)
    /// A configuration value that cannot work (a schema name that is not a plain identifier).
    public static let invalidConfiguration = Code(.invalidConfiguration)
    /// The schema holds tables of another SpoolPostgres schema version.
    public static let schemaVersion = Code(.schemaVersion)
    /// Another live node holds the entity's lease; ``PostgresJournalError/owner`` is its
    /// address as recorded in PostgreSQL.
    public static let ownedElsewhere = Code(.ownedElsewhere)
    /// A write carried an epoch the entity has moved past (another node took it over): the
    /// write was refused and nothing of it was committed.
    public static let fenced = Code(.fenced)
    /// This node already serves the entity (taken and not released).
    public static let inUse = Code(.inUse)
    /// A journal row that does not decode as the action type: another type's row, or damaged.
    public static let undecodableAction = Code(.undecodableAction)
    /// A snapshot that does not decode as the state type.
    public static let undecodableState = Code(.undecodableState)
    /// A snapshot whose state does not match the checksum written with it.
    public static let stateMismatch = Code(.stateMismatch)
    /// The entity's journal lacks a sequence number between its snapshot and its last row.
    public static let missingAction = Code(.missingAction)
    /// The recorder was finished or failed earlier: the action was not recorded.
    public static let notRecording = Code(.notRecording)
    /// The task waiting for a durable acknowledgement was cancelled before the actions were
    /// committed: they may still be; nothing was reported durable.
    public static let cancelled = Code(.cancelled)
  }

  /// The kind of problem.
  public var code: Code
  /// The entity concerned, when there is one.
  public var entity: String?
  /// The sequence number of the journal row or snapshot concerned, when there is one.
  public var sequenceNumber: Int64?
  /// The epoch the writer held, for ``Code/fenced``.
  public var writerEpoch: Int64?
  /// The entity's current epoch in PostgreSQL, for ``Code/fenced`` and ``Code/ownedElsewhere``.
  public var currentEpoch: Int64?
  /// The current owner's address as recorded in PostgreSQL, when known.
  public var owner: String?
  /// What went wrong, in a sentence.
  public var message: String

  /// An error of `code` about `entity`.
  ///
  /// ```swift
  /// throw PostgresJournalError(.inUse, entity: "cart-42", message: "already served here")
  /// ```
  public init(
    _ code: Code, entity: String? = nil, sequenceNumber: Int64? = nil,
    writerEpoch: Int64? = nil, currentEpoch: Int64? = nil, owner: String? = nil,
    message: String
  ) {
    self.code = code
    self.entity = entity
    self.sequenceNumber = sequenceNumber
    self.writerEpoch = writerEpoch
    self.currentEpoch = currentEpoch
    self.owner = owner
    self.message = message
  }

  /// One line: the entity and sequence number when known, the code, and the message.
  public var description: String {
    var prefix = ""
    if let entity { prefix += "entity \(entity)" }
    if let sequenceNumber { prefix += (prefix.isEmpty ? "" : ", ") + "sequence \(sequenceNumber)" }
    return (prefix.isEmpty ? "" : prefix + ": ") + "\(code): \(message)"
  }
}

extension PostgresJournalError {
  /// A failed statement or connection, with PostgreSQL's own message when the server sent one.
  static func database(
    _ error: any Error, doing operation: String, entity: String? = nil
  ) -> PostgresJournalError {
    if let error = error as? PostgresJournalError { return error }
    return PostgresJournalError(
      .database, entity: entity, message: "\(operation) failed: \(describe(error))")
  }

  /// PostgreSQL's message, SQLSTATE and the client's error code, in one line; postgres-nio's
  /// own description hides the server's message.
  static func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      var parts = ["\(error.code)"]
      if let info = error.serverInfo {
        if let message = info[.message] { parts.append(message) }
        if let state = info[.sqlState] { parts.append("SQLSTATE \(state)") }
        if let detail = info[.detail] { parts.append(detail) }
      }
      if let underlying = error.underlying { parts.append("\(underlying)") }
      return parts.joined(separator: ": ")
    }
    if let error = error as? PostgresTransactionError {
      if let inner = error.closureError ?? error.commitError ?? error.beginError {
        return describe(inner)
      }
    }
    return "\(error)"
  }
}
