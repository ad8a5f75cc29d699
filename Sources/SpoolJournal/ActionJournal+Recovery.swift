#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

extension ActionJournal {
  /// Rebuilds a store's state from the journal: the newest snapshot's state, then every
  /// action recorded after it, reduced by `reducer` with its effects discarded.
  ///
  /// Recovery starts at the newest snapshot whose record is whole (an older one, or file 0,
  /// when the newest was cut off while it was written), so its cost is that of the actions
  /// after it. It checks what it can as it goes: every record's checksum; the snapshot's state
  /// against its recorded checksum; the replayed state against every later snapshot and every
  /// end record of an earlier run. A torn tail (the recorder was killed, or the disk filled)
  /// is not an error: recovery stops at the last whole record, and the result says the final
  /// state is unverified and where the cut was.
  ///
  /// A last file that its recorder never closed (the process was killed, or a write failed)
  /// is truncated after its last whole record, unless a recorder holds the journal: that drops
  /// the torn record, if any, and releases the disk space reserved past the file's end, which
  /// a closed file does not keep. So is a whole last file that still holds space reserved
  /// past its end: its process died between `finish`'s sync and the truncation that
  /// releases the reservation, or after a rotation, before the next file's first write. No
  /// whole record is cut, and the journal recovers the same afterwards. Best effort: a
  /// journal in a read-only folder recovers as well, its file left as it was.
  ///
  /// Effects are not run: the journal holds the actions they sent back. A feature whose
  /// long-lived effects (timers, subscriptions) must run again after a restart restarts them
  /// from an action of its own, sent once the store runs again (see "Restarting effects" in
  /// <doc:RecordingAndReplaying>).
  ///
  /// A missing journal (no file at all) recovers `initialState` with nothing replayed.
  ///
  /// The reducer runs on the calling task, with the caller's dependencies: a reducer that
  /// reads a dependency while it reduces (not only in its effects) gets the values of a
  /// `withDependencies` around the call, as its store would get its own.
  ///
  /// - Parameters:
  ///   - initialState: The state the journal's first recording started from.
  ///   - reducer: The feature's reducer, built as for a `Store`; its effects are discarded.
  /// - Returns: The state, counts, whether it verified, and a way to continue recording.
  /// - Throws: ``JournalError`` naming the file, the byte offset and what was wrong: a
  ///   corrupt or foreign record or header, a snapshot whose state does not decode
  ///   (``JournalError/Code/undecodableState``), a replayed state that differs from a
  ///   recorded checksum (``JournalError/Code/stateMismatch``), a file missing in the
  ///   sequence (``JournalError/Code/missingFile``), or an I/O failure.
  ///
  /// ```swift
  /// let journal = ActionJournal<Cart.Action>(path: "/var/lib/carts/42")
  /// let recovery = try await journal.recover(initialState: Cart.State()) { Cart() }
  /// let recorder = try recovery.continueRecording()
  /// let store = Store(initialState: recovery.state, instrumentation: recorder) { Cart() }
  /// await store.send(.recovered)  // the feature restarts its long-lived effects
  /// ```
  public func recover<State: Codable & Sendable, R: Reducer<State, Action>>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(JournalError) -> JournalRecovery<State, Action> {
    let reducer = reducer()
    var state = initialState
    var snapshotFile: String?
    var replayed = 0
    let contents: JournalContents<Action>
    do {
      guard try !JournalFiles.indices(of: path).isEmpty else {
        let missing = JournalError(
          file: file(0), offset: 0,
          problem: .io(IOError(errno: ENOENT, operation: "open", target: .path(file(0)))))
        return JournalRecovery(
          path: path, engine: engine, state: state, actions: 0, snapshotFile: nil, files: 0,
          bytes: 0, verification: .unverified(missing), continuation: JournalContinuation())
      }
      contents = try await read(from: .newestSnapshot, event: { event in
        switch event {
        case .snapshot(let bytes, let checksum, let file, let offset, let isStart):
          if isStart {
            do {
              state = try JournalValueDecoder.decode(State.self, from: Array(bytes))
            } catch {
              throw JournalError(file: file, offset: offset, problem: .undecodableState("\(error)"))
            }
            snapshotFile = file
          }
          try Self.check(state, against: checksum, file: file, offset: offset)
        case .runEnded(let checksum, let file, let offset):
          if let checksum { try Self.check(state, against: checksum, file: file, offset: offset) }
        }
      }, { action, _ in
        _ = reducer.reduce(into: &state, action: action)
        replayed += 1
      })
    } catch let error as JournalError {
      throw error
    } catch {
      preconditionFailure("Internal inconsistency: recovering a journal threw \(error)")
    }
    var verification = JournalVerification.unverified(
      contents.unverifiable
        ?? JournalError(
          file: path, offset: 0, problem: .noStateChecksum("the journal has no end record")))
    if let recorded = contents.stateChecksum {
      try Self.check(
        state, against: recorded, file: contents.endFile ?? path, offset: contents.endOffset)
      verification = .verified(checksum: recorded)
    }
    if let tail = contents.openTail { await releaseOpenTail(tail) }
    return JournalRecovery(
      path: path, engine: engine, state: state, actions: replayed, snapshotFile: snapshotFile,
      files: contents.files, bytes: contents.bytes, verification: verification,
      continuation: JournalContinuation(
        index: contents.lastIndex + 1, previousRunID: contents.lastRunID))
  }

  /// Truncates the journal's last file, which its recorder left without releasing its
  /// reservation (killed, or a write failed), to its whole records: releases the space
  /// reserved past its end and drops a torn record. Only while no recorder holds the
  /// journal's lock: a live recorder's file is its own, still growing. Best effort, as
  /// ``JournalFiles/releaseTail(_:of:engine:)`` is.
  ///
  /// A file with nothing to cut that holds no more blocks than its bytes need (every
  /// journal its recorder finished) is left alone before the lock is even tried: recovering
  /// a finished journal writes nothing, not even the lock file.
  private func releaseOpenTail(_ tail: JournalOpenTail) async {
    if tail.validEnd == tail.size {
      guard let status = try? await FileOperations.status(file(tail.index), engine: engine),
        status.holdsSpacePastItsEnd
      else { return }
    }
    guard let lock = try? JournalLock(path: path, holder: "recovery") else { return }
    defer { lock.release() }
    _ = await JournalFiles.releaseTail(tail, of: file(tail.index), engine: engine)
  }

  /// Throws ``JournalError/Code/stateMismatch`` at `file`, `offset` unless `state`'s checksum
  /// is `recorded`.
  private static func check<State: Encodable>(
    _ state: State, against recorded: UInt64, file: String, offset: Int
  ) throws(JournalError) {
    let replayed: UInt64
    do {
      replayed = try StateChecksum.of(state)
    } catch {
      throw JournalError(file: file, offset: offset, problem: .undecodableState("\(error)"))
    }
    guard replayed == recorded else {
      throw JournalError(
        file: file, offset: offset, problem: .stateMismatch(recorded: recorded, replayed: replayed))
    }
  }
}
