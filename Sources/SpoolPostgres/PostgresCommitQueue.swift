import Synchronization

/// One journal row waiting for its commit.
struct PostgresJournalRow: Sendable {
  var entity: String
  var sequenceNumber: Int64
  var epoch: Int64
  var action: [UInt8]
  /// The entity's recorder's failure state, told when the row is refused or its commit fails.
  var link: PostgresEntityLink
  /// The row's place in its queue: commits complete rows in this order.
  var number: UInt64
}

/// What an entity's recorder and the commit queue share: the first failure of the entity's
/// rows, after which none of its rows is written (a row after a missing one would leave a gap).
final class PostgresEntityLink: Sendable {
  private let failure = Mutex<(row: UInt64, error: PostgresJournalError)?>(nil)

  /// Records `error` for the row numbered `row`, unless a failure of an earlier row is
  /// recorded.
  ///
  /// The earliest row wins, whatever the order of the calls: a queue closed while a commit is
  /// in flight fails the later rows first, and a failure of the commit's earlier rows must
  /// still reach their waiters.
  func fail(_ error: PostgresJournalError, at row: UInt64) {
    failure.withLock { failure in
      if let recorded = failure, recorded.row <= row { return }
      failure = (row, error)
    }
  }

  /// The failure, when there is one.
  var error: PostgresJournalError? { failure.withLock { $0?.error } }

  /// The failure if it concerns a row numbered `row` or earlier.
  func error(through row: UInt64) -> PostgresJournalError? {
    failure.withLock { failure in
      guard let failure, failure.row <= row else { return nil }
      return failure.error
    }
  }
}
