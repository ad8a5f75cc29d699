import SpoolCore
import SpoolIO

/// The last file of a journal as a recorder left it without releasing its reservation (its
/// process was killed, or a write failed): its size when it was read and where its whole
/// records end.
///
/// Such a file keeps what its writer reserved past its end (up to one step of
/// ``JournalSpaceReservation``), and possibly a torn record after its last whole one. A file
/// that ends with its end or rotation record keeps its reservation too when the process died
/// between the sync of that record and the truncation that releases the reservation (or, after
/// a rotation, before the next file's first write, which releases it). Recovery truncates the
/// file to its whole records (``JournalFiles/releaseTail(_:of:engine:)``), which releases
/// both; no record is ever appended to it again, since a new run starts a file of its own.
struct JournalOpenTail: Sendable, Hashable {
  /// The file's index in its journal.
  var index: Int
  /// The file's size when it was read.
  var size: Int
  /// Where its last whole record ends: `size` when nothing is torn, never inside a whole
  /// record.
  var validEnd: Int
  /// The run that wrote it, from its header; `nil` when the header is not whole, and then
  /// `validEnd` is `size` (nothing is cut).
  var runID: UInt64?
}

extension FileStatus {
  /// Whether the file holds more blocks than its bytes need: space reserved past its end
  /// (``JournalSpaceReservation``) that its writer did not release. A file system that
  /// reports no allocation (0 bytes) never says so.
  var holdsSpacePastItsEnd: Bool {
    let block = UInt64(max(blockSize, 512))
    return allocatedBytes > (size + block - 1) / block * block
  }
}

extension JournalFiles {
  /// Truncates the file at `file`, the open tail `tail` of a journal whose lock the caller
  /// holds, to `tail.validEnd`: drops its torn record, if any, and releases the space
  /// reserved past its end (truncating frees the blocks past the new end, also those that
  /// `FALLOC_FL_KEEP_SIZE` reserved). A tail with nothing to cut is truncated only when the
  /// file holds more blocks than its bytes need: a file whose writer released its
  /// reservation (or never had one) is not even opened.
  ///
  /// Nothing is cut unless the file is the one that was read: a regular file, of the size
  /// read, written by the run read. A run only appends to its files, so a file of that run and
  /// size holds exactly the bytes read, and `validEnd` ends its last whole record; a file that
  /// another run rewrote, or that grew since, is left as it is.
  ///
  /// Best effort: the journal loads the same with or without the truncation, so a failure
  /// (a read-only folder, an I/O error, cancellation) leaves the file as it was.
  ///
  /// - Returns: The file's size after the truncation; `nil` when it was left as it was.
  static func releaseTail(
    _ tail: JournalOpenTail, of file: String, engine: IOEngine
  ) async -> Int? {
    // Checked before the open: opening a FIFO to write would wait for a reader.
    guard let before = try? await FileOperations.status(file, engine: engine),
      before.kind == .regular,
      tail.validEnd < tail.size || before.holdsSpacePastItsEnd,
      let handle = try? await IOFile.open(file, options: [.read, .write], on: engine)
    else { return nil }
    let released = await releaseTail(tail, in: handle)
    try? await handle.close()
    return released
  }

  private static func releaseTail(_ tail: JournalOpenTail, in file: IOFile) async -> Int? {
    guard let status = try? await file.status(), status.kind == .regular,
      status.size == UInt64(tail.size), tail.validEnd <= tail.size
    else { return nil }
    if let runID = tail.runID {
      let end = JournalFormat.runIDOffset + 8
      guard let header = try? await file.read(upTo: end, at: 0),
        JournalFileParser(file: file.path, bytes: header)
          .fixed(UInt64.self, at: JournalFormat.runIDOffset) == runID
      else { return nil }
    } else if tail.validEnd != tail.size {
      return nil
    }
    do {
      try await file.truncate(to: UInt64(tail.validEnd))
    } catch {
      return nil
    }
    return tail.validEnd
  }
}
