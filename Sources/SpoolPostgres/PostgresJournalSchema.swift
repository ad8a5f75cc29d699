/// The statements of SpoolPostgres' schema and queries, for one schema name.
///
/// The schema name is interpolated into the SQL text (PostgreSQL binds values, not
/// identifiers); ``PostgresJournalConfiguration/validate()`` admits only plain identifiers, so
/// it cannot change a statement's meaning. Every value is a bind.
struct PostgresJournalSchema: Sendable {
  /// The version these statements read and write; a schema of another version is refused.
  static let version = 1

  let name: String

  /// Creates the tables when missing (idempotent), under a transaction-level advisory lock so
  /// that nodes starting together do not race on the catalog. The DocC article shows them.
  var create: [String] {
    [
      "SELECT pg_advisory_xact_lock(hashtextextended('spool-schema:\(name)', 0))",
      "CREATE SCHEMA IF NOT EXISTS \(name)",
      """
      CREATE TABLE IF NOT EXISTS \(name).spool_schema (
        version integer NOT NULL
      )
      """,
      """
      INSERT INTO \(name).spool_schema (version)
      SELECT \(Self.version) WHERE NOT EXISTS (SELECT 1 FROM \(name).spool_schema)
      """,
      """
      CREATE TABLE IF NOT EXISTS \(name).spool_owners (
        entity text PRIMARY KEY,
        epoch bigint NOT NULL,
        owner text
      )
      """,
      """
      CREATE TABLE IF NOT EXISTS \(name).spool_epochs (
        entity text NOT NULL,
        epoch bigint NOT NULL,
        owner text NOT NULL,
        acquired_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (entity, epoch)
      )
      """,
      """
      CREATE TABLE IF NOT EXISTS \(name).spool_actions (
        entity text NOT NULL,
        seq bigint NOT NULL,
        epoch bigint NOT NULL,
        action bytea NOT NULL,
        PRIMARY KEY (entity, seq)
      )
      """,
      """
      CREATE TABLE IF NOT EXISTS \(name).spool_snapshots (
        entity text NOT NULL,
        seq bigint NOT NULL,
        epoch bigint NOT NULL,
        state bytea NOT NULL,
        checksum bigint NOT NULL,
        PRIMARY KEY (entity, seq)
      )
      """,
    ]
  }

  var versions: String { "SELECT version FROM \(name).spool_schema" }

  /// `$1` the entity's key: its lease, a session-level advisory lock.
  var tryLease: String {
    "SELECT pg_try_advisory_lock(hashtextextended('spool:\(name):' || $1, 0))"
  }

  var releaseLease: String {
    "SELECT pg_advisory_unlock(hashtextextended('spool:\(name):' || $1, 0))"
  }

  /// `$1` entity, `$2` owner address: bumps the epoch (1 for a new entity), records the owner
  /// and the epoch's history row, and returns the new epoch. The update waits for writes that
  /// hold the owners row `FOR SHARE` (the old owner's commits in flight), so that recovery,
  /// which follows it, reads every row committed under the old epoch.
  var takeOwnership: String {
    """
    WITH bumped AS (
      INSERT INTO \(name).spool_owners AS o (entity, epoch, owner) VALUES ($1, 1, $2)
      ON CONFLICT (entity) DO UPDATE SET epoch = o.epoch + 1, owner = EXCLUDED.owner
      RETURNING entity, epoch, owner
    ), history AS (
      INSERT INTO \(name).spool_epochs (entity, epoch, owner)
      SELECT entity, epoch, owner FROM bumped
    )
    SELECT epoch FROM bumped
    """
  }

  /// `$1` entity: the recorded owner and epoch.
  var owner: String {
    "SELECT epoch, owner FROM \(name).spool_owners WHERE entity = $1"
  }

  /// `$1` entity, `$2` epoch: clears the owner's address if the epoch is still ours.
  var clearOwner: String {
    "UPDATE \(name).spool_owners SET owner = NULL WHERE entity = $1 AND epoch = $2"
  }

  /// `$1..$4` the rows' entities, sequence numbers, epochs and actions, as arrays. Inserts the
  /// rows whose epoch is their entity's current one, holding each owners row `FOR SHARE`
  /// until commit, so that a take-over's epoch bump waits for this commit and a write after
  /// the bump sees the new epoch; returns the entities refused, with the epochs.
  var appendFenced: String {
    """
    WITH batch AS (
      SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bytea[])
        AS b(entity, seq, epoch, action)
    ), owned AS (
      SELECT o.entity, o.epoch, o.owner FROM \(name).spool_owners o
      WHERE o.entity IN (SELECT entity FROM batch) FOR SHARE
    ), written AS (
      INSERT INTO \(name).spool_actions (entity, seq, epoch, action)
      SELECT b.entity, b.seq, b.epoch, b.action
      FROM batch b JOIN owned o ON o.entity = b.entity AND o.epoch = b.epoch
      RETURNING 1
    )
    SELECT DISTINCT b.entity, b.epoch, o.epoch, o.owner
    FROM batch b LEFT JOIN owned o ON o.entity = b.entity
    WHERE o.epoch IS DISTINCT FROM b.epoch
    """
  }

  /// `$1` entity, `$2` seq, `$3` epoch, `$4` state, `$5` checksum: writes the snapshot if the
  /// epoch is still the entity's, then removes the rows and snapshots it makes unneeded, in
  /// the same statement; returns the current epoch and owner and whether it was written.
  var snapshotFenced: String {
    """
    WITH owned AS (
      SELECT epoch, owner FROM \(name).spool_owners WHERE entity = $1 FOR SHARE
    ), written AS (
      INSERT INTO \(name).spool_snapshots (entity, seq, epoch, state, checksum)
      SELECT $1, $2, $3, $4, $5 FROM owned WHERE owned.epoch = $3
      ON CONFLICT (entity, seq) DO UPDATE
        SET epoch = EXCLUDED.epoch, state = EXCLUDED.state, checksum = EXCLUDED.checksum
      RETURNING 1
    ), compacted AS (
      DELETE FROM \(name).spool_actions
      WHERE entity = $1 AND seq <= $2 AND EXISTS (SELECT 1 FROM written)
    ), older AS (
      DELETE FROM \(name).spool_snapshots
      WHERE entity = $1 AND seq < $2 AND EXISTS (SELECT 1 FROM written)
    )
    SELECT (SELECT epoch FROM owned), (SELECT owner FROM owned), EXISTS (SELECT 1 FROM written)
    """
  }

  /// `$1` entity: its newest snapshot.
  var newestSnapshot: String {
    """
    SELECT seq, state, checksum FROM \(name).spool_snapshots
    WHERE entity = $1 ORDER BY seq DESC LIMIT 1
    """
  }

  /// `$1` entity, `$2` seq: the rows after it, in order.
  var actionsAfter: String {
    """
    SELECT seq, action FROM \(name).spool_actions
    WHERE entity = $1 AND seq > $2 ORDER BY seq
    """
  }
}
