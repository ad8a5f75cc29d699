#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO
import Synchronization

/// Writes a recorder's chunks to the journal's files, in order, on one task at a time.
///
/// The recorder submits a full chunk (a cheap lock and, when the writer is idle, one task
/// creation per chunk, never per action); the drainer appends each chunk to its file with one
/// `write` through SpoolIO (io_uring, or the thread fallback), opening the next file when a
/// chunk belongs to it.
///
/// Space is reserved ahead of the writes (``JournalSpaceReservation``): a chunk that would end
/// past the reserved end first reserves up to the next multiple of the step, with
/// `fallocate(FALLOC_FL_KEEP_SIZE)`, so that a full disk fails the reservation, before any byte
/// of the chunk is written, rather than the write partway through a record. A file written for
/// the last time (rotated, finished) is truncated to its size, which releases what it did not
/// use of the reservation.
final class JournalWriter: Sendable {
  /// The open file the drainer appends to.
  struct Cursor: Sendable {
    var file: IOFile?
    var index = -1
    var filesOpened = 0
    var bytesWritten = 0
    /// Bytes written to the open file.
    var fileBytes = 0
    /// Where the space reserved for the open file ends (never below `fileBytes` while
    /// reserving works).
    var reservedEnd = 0
    /// Whether the file system reserves space; `false` after it said it cannot, from then on.
    var canReserve = true
  }

  let path: String
  let engine: IOEngine
  let reservation: JournalSpaceReservation
  private let state = Mutex(JournalWriterStateMachine<CheckedContinuation<Void, Never>>())
  // touched only by the drainer while it runs (the state machine allows one), and by `finish`
  // after the drainer stopped; the mutex orders the hand-overs
  private let cursor = Mutex(Cursor())
  private let nextWaiterID = Atomic<UInt64>(0)
  /// Hands the recorder's partly filled chunk to ``submit(_:)``; set once by the recorder.
  private let collector = Mutex<(@Sendable () -> Void)?>(nil)

  init(path: String, engine: IOEngine, reservation: JournalSpaceReservation = .none) {
    self.path = path
    self.engine = engine
    self.reservation = reservation
  }

  /// Sets what the drainer calls to collect the chunk the recorder is filling, before a sync
  /// that a durable waiter counts on it for.
  func setCollector(_ collect: @escaping @Sendable () -> Void) {
    collector.withLock { $0 = collect }
  }

  /// Hands `chunk` to the writer when it holds anything, and returns the empty chunk of file
  /// `fileIndex` to fill in its place, with room for `minimum` bytes: the one the writer hands
  /// back when it is large enough (so that a steady recorder allocates no chunk), a new one of
  /// `max(bufferBytes, minimum)` bytes otherwise.
  ///
  /// It takes and returns the chunk rather than taking it `inout`: a recorder's stored chunk
  /// passed `inout` to this call made every other access to that property, one per record,
  /// a dynamic exclusivity check (`swift_beginAccess`, about 75 instructions).
  func exchange(
    _ chunk: JournalChunk, minimum: Int, bufferBytes: Int, fileIndex: Int
  ) -> JournalChunk {
    let reused = chunk.count > 0 ? submit(chunk) : chunk
    let next: JournalChunk
    if let reused, reused.capacity >= minimum {
      next = reused
    } else {
      next = JournalChunk(capacity: max(bufferBytes, minimum))
    }
    next.count = 0
    next.fileIndex = fileIndex
    return next
  }

  /// Queues `chunk` for writing; returns an empty chunk to fill next, if one is free.
  func submit(_ chunk: JournalChunk) -> JournalChunk? {
    let (action, reuse) = state.withLock { $0.submit(chunk) }
    switch action {
    case .none: break
    case .startDrainer:
      Task { await self.drain() }
    }
    return reuse
  }

  private func drain() async {
    var cursor = self.cursor.withLock { $0 }
    while true {
      switch state.withLock({ $0.next() }) {
      case .write(let chunk):
        var failure: (any Error)?
        do {
          try await write(chunk, cursor: &cursor)
        } catch {
          failure = naming(error, file: chunk.fileIndex)
        }
        let done = cursor
        self.cursor.withLock { $0 = done }
        state.withLock { $0.written(chunk, error: failure) }
      case .collect:
        // Outside the state's lock: collecting takes the recorder's lock, then the state's.
        collector.withLock { $0 }?()
      case .sync(let through):
        var failure: (any Error)?
        do {
          try await cursor.file?.syncData()
        } catch {
          failure = naming(error, file: cursor.index)
        }
        let ready = state.withLock { $0.synced(through: through, error: failure) }
        for waiter in ready { waiter.resume() }
      case .stop(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      }
    }
  }

  /// `error` naming the journal's file `index` when it names a descriptor only: the error
  /// every durable waiter gets must say which file the disk refused (`write("….3.journal")`).
  private func naming(_ error: any Error, file index: Int) -> any Error {
    guard var error = error as? IOError, error.target.path == nil else { return error }
    error.target = .path(JournalFormat.filePath(path, index: index))
    return error
  }

  private func write(_ chunk: JournalChunk, cursor: inout Cursor) async throws {
    if chunk.fileIndex != cursor.index {
      if let file = cursor.file {
        cursor.file = nil
        // Synced before it is closed: a later sync of the next file does not cover it.
        do {
          try await file.syncData()
        } catch {
          await releaseReservation(of: file, cursor: cursor, afterFailure: true)
          try? await file.close()
          throw error
        }
        await releaseReservation(of: file, cursor: cursor)
        try await file.close()
      }
      let path = JournalFormat.filePath(self.path, index: chunk.fileIndex)
      try await requireRegularOrMissing(path)
      let file = try await IOFile.open(path, options: [.write, .create, .truncate], on: engine)
      cursor.file = file
      // The path may have been replaced between the check and the open.
      try JournalFileReading.requireRegular(try await file.status().kind, path: path)
      cursor.index = chunk.fileIndex
      cursor.fileBytes = 0
      cursor.reservedEnd = 0
      cursor.filesOpened += 1
      if chunk.fileIndex == 0 { await removeStaleFiles() }
      try await JournalFiles.syncFolder(of: self.path, engine: engine)
    }
    guard let file = cursor.file else {
      preconditionFailure("Internal inconsistency: a journal chunk without an open file")
    }
    try await reserve(upTo: cursor.fileBytes + chunk.count, in: file, cursor: &cursor)
    // Where the file ends: what was written to it so far (files are written from empty).
    try await file.write(chunk.buffer, count: chunk.count, at: UInt64(cursor.fileBytes))
    cursor.fileBytes += chunk.count
    cursor.bytesWritten += chunk.count
  }

  /// Reserves the open file's space through byte `end`, when it is not reserved yet: up to
  /// the next step (``JournalSpaceReservation/end(for:)``), or, when the disk has no room for
  /// that, exactly through `end`. `FALLOC_FL_KEEP_SIZE` leaves the file's size where the
  /// writes put it, so a crash leaves no reserved zeros inside the file for a reader to take
  /// for records.
  ///
  /// - Throws: The `IOError` of `fallocate` (`ENOSPC` when not even `end` fits): nothing of the
  ///   chunk is written then, and the file ends after its last whole chunk. A file system that
  ///   cannot reserve (`EOPNOTSUPP`, `ENOSYS`, or `EINVAL` for a mode it does not take) is
  ///   written without reservations from then on, silently.
  private func reserve(upTo end: Int, in file: IOFile, cursor: inout Cursor) async throws {
    guard reservation.step > 0, cursor.canReserve, end > cursor.reservedEnd else { return }
    let start = max(cursor.reservedEnd, cursor.fileBytes)
    var target = reservation.end(for: end)
    while true {
      do {
        try await file.allocateSpace(
          .keepSize, offset: UInt64(start), length: UInt64(target - start))
        cursor.reservedEnd = target
        return
      } catch let error as IOError where JournalSpaceReservation.isUnsupported(error.errno) {
        cursor.canReserve = false
        return
      } catch let error as IOError where error.errno == ENOSPC && target > end {
        // No room for a whole step: the last bytes the disk has may still hold this chunk.
        target = end
      }
    }
  }

  /// Releases the space reserved past the end of `file`, which is written for the last time
  /// (rotation, finish), by truncating it to its size: a truncation frees the blocks past a
  /// file's end, also on a file system that keeps them through a hole punched there (ext4).
  ///
  /// The size is what was written, except `afterFailure`: a write that failed may have left a
  /// prefix of its chunk past `cursor.fileBytes`, whose whole records a reader still loads, so
  /// the size is taken from the file and no byte the disk took is cut.
  ///
  /// Best effort: the file's bytes are synced, or failed, by then; a truncation that fails
  /// leaves at most one step reserved, released when the file is removed.
  private func releaseReservation(
    of file: IOFile, cursor: Cursor, afterFailure: Bool = false
  ) async {
    guard cursor.canReserve, cursor.reservedEnd > cursor.fileBytes else { return }
    var size = UInt64(cursor.fileBytes)
    if afterFailure {
      guard let status = try? await file.status() else { return }
      size = status.size
    }
    try? await file.truncate(to: size)
  }

  /// Throws ``JournalError/Code/notARegularFile`` when something other than a regular
  /// file is at `path`: opening a FIFO to write would wait for a reader, on the engine.
  private func requireRegularOrMissing(_ path: String) async throws {
    let status: FileStatus
    do {
      status = try await FileOperations.status(path, engine: engine)
    } catch let error as IOError where error.errno == ENOENT {
      return
    }
    try JournalFileReading.requireRegular(status.kind, path: path)
  }

  /// Removes every other file of a journal at the path (`path.1.journal`, …, and those a
  /// compaction left after a hole), so that a replay never reads an earlier journal's files
  /// after this one's. Best effort: a file that cannot be removed is caught by the loader,
  /// as a file of another recording.
  private func removeStaleFiles() async {
    guard let indices = try? JournalFiles.indices(of: path) else { return }
    for index in indices where index > 0 {
      let stale = JournalFormat.filePath(path, index: index)
      try? await FileOperations.removeFile(stale, engine: engine)
    }
  }

  /// Syncs made for durable waiters so far.
  var durableSyncs: Int { state.withLock { $0.syncs } }

  /// The first write or sync failure, after which nothing more is written; `nil` while none.
  var failure: (any Error)? { state.withLock { $0.failure } }

  /// The number of chunks submitted so far: what a durable waiter waits for.
  var submittedChunks: Int { state.withLock { $0.submitted } }

  /// Waits until the first `through` chunks are written and synced (`fdatasync`), sharing the
  /// sync with every waiter present when it starts (group commit). `through` may be one past
  /// ``submittedChunks``: the chunk the recorder is filling, which the drainer collects.
  ///
  /// - Throws: The first write or sync failure; `CancellationError` when the task is
  ///   cancelled before its chunks are synced.
  func waitUntilDurable(through: Int) async throws {
    let id = nextWaiterID.add(1, ordering: .relaxed).newValue
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        if Task.isCancelled {
          continuation.resume()
          return
        }
        switch state.withLock({ $0.waitUntilDurable(through: through, id: id, continuation) }) {
        case .ready: continuation.resume()
        case .wait: break
        case .waitAndStartDrainer: Task { await self.drain() }
        }
      }
    } onCancel: {
      state.withLock { $0.cancelDurable(id: id) }?.resume()
    }
    let (synced, failure) = state.withLock { ($0.synced, $0.failure) }
    if synced >= through { return }
    if let failure { throw failure }
    throw CancellationError()
  }

  /// Waits until every chunk submitted so far is written (not synced).
  ///
  /// - Throws: The first write failure, if any.
  func waitUntilWritten() async throws {
    await withCheckedContinuation { continuation in
      let waits = state.withLock { $0.waitUntilIdle(continuation) }
      if !waits { continuation.resume() }
    }
    if let failure = state.withLock({ $0.failure }) { throw failure }
  }

  /// Waits until every submitted chunk is written, then syncs and closes the last file.
  ///
  /// - Returns: The number of files written and their total bytes.
  /// - Throws: The first write failure, if any.
  func finish() async throws -> (files: Int, bytes: Int, droppedBytes: Int) {
    await withCheckedContinuation { continuation in
      let waits = state.withLock { $0.waitUntilIdle(continuation) }
      if !waits { continuation.resume() }
    }
    let current = cursor.withLock { value in
      defer { value.file = nil }
      return value
    }
    let (failure, dropped) = state.withLock { ($0.failure, $0.droppedBytes) }
    if let failure {
      // The file is closed whatever the failure; it ends after the bytes the disk took.
      if let file = current.file {
        await releaseReservation(of: file, cursor: current, afterFailure: true)
      }
      try? await current.file?.close()
      throw failure
    }
    if let file = current.file {
      do {
        try await file.sync()
      } catch {
        await releaseReservation(of: file, cursor: current, afterFailure: true)
        try? await file.close()
        throw error
      }
      await releaseReservation(of: file, cursor: current)
      try await file.close()
    }
    return (current.filesOpened, current.bytesWritten, dropped)
  }
}
