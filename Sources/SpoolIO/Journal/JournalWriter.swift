import SpoolCore
import Synchronization

/// Writes a recorder's chunks to the journal's files, in order, on one task at a time.
///
/// The recorder submits a full chunk (a cheap lock and, when the writer is idle, one task
/// creation per chunk, never per action); the drainer appends each chunk to its file with one
/// `write` through SpoolIO (io_uring, or the thread fallback), opening the next file when a
/// chunk belongs to it.
final class JournalWriter: Sendable {
  /// The open file the drainer appends to.
  struct Cursor: Sendable {
    var file: IOFile?
    var index = -1
    var filesOpened = 0
    var bytesWritten = 0
  }

  let path: String
  let engine: IOEngine
  private let state = Mutex(JournalWriterStateMachine<CheckedContinuation<Void, Never>>())
  // touched only by the drainer while it runs (the state machine allows one), and by `finish`
  // after the drainer stopped; the mutex orders the hand-overs
  private let cursor = Mutex(Cursor())

  init(path: String, engine: IOEngine) {
    self.path = path
    self.engine = engine
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
          failure = error
        }
        let done = cursor
        self.cursor.withLock { $0 = done }
        state.withLock { $0.written(chunk, error: failure) }
      case .stop(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      }
    }
  }

  private func write(_ chunk: JournalChunk, cursor: inout Cursor) async throws {
    if chunk.fileIndex != cursor.index {
      if let file = cursor.file {
        cursor.file = nil
        try await file.close()
      }
      let path = JournalFormat.filePath(self.path, index: chunk.fileIndex)
      cursor.file = try await IOFile.open(
        path, options: [.write, .create, .truncate], on: engine)
      cursor.index = chunk.fileIndex
      cursor.filesOpened += 1
      if chunk.fileIndex == 0 { await removeStaleFiles() }
    }
    guard let file = cursor.file else {
      preconditionFailure("Internal inconsistency: a journal chunk without an open file")
    }
    try await file.append(chunk.buffer, count: chunk.count)
    cursor.bytesWritten += chunk.count
  }

  /// Removes `path.1.journal`, `path.2.journal`, … left by an earlier run, up to the first that
  /// does not exist, so that a replay never reads another run's files after this run's.
  private func removeStaleFiles() async {
    var index = 1
    while true {
      let stale = JournalFormat.filePath(path, index: index)
      do {
        try await FileOperations.removeFile(stale, engine: engine)
      } catch {
        return
      }
      index += 1
    }
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
    if let failure { throw failure }
    if let file = current.file {
      try await file.sync()
      try await file.close()
    }
    return (current.filesOpened, current.bytesWritten, dropped)
  }
}
