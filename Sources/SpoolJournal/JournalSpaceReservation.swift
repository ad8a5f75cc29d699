#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How far ahead of its writes a journal's writer reserves disk space for the file it appends
/// to (``JournalWriter``).
///
/// The step is 1 MiB, or the file size limit when that is smaller: large enough that the file
/// system allocates a journal file in few large extents and a 256 KiB chunk reserves once in
/// four writes, small enough that a file closed early keeps little reserved past its end, and
/// that a small disk (the 1 MiB tmpfs of the full-disk tests) still fills through several
/// reservations. The reserved end never passes the file size limit, unless a write does.
struct JournalSpaceReservation: Sendable, Hashable {
  /// Bytes reserved per step; 0 reserves nothing.
  var step: Int
  /// The size at which the file is closed and the next one started.
  var fileLimit: Int

  /// No reservation: plain writes.
  static let none = JournalSpaceReservation(step: 0, fileLimit: 0)

  static let defaultStep = 1 << 20

  /// The reservation for files of at most `maxFileBytes` bytes (a record may pass it).
  static func forFiles(of maxFileBytes: Int) -> JournalSpaceReservation {
    JournalSpaceReservation(step: min(defaultStep, maxFileBytes), fileLimit: maxFileBytes)
  }

  /// Where the reservation that covers byte `end` ends: `end` rounded up to a whole step,
  /// within the file size limit (but never below `end`).
  func end(for end: Int) -> Int {
    guard step > 0 else { return end }
    let rounded = (end + step - 1) / step * step
    return max(end, min(rounded, fileLimit))
  }

  /// Whether `errno`, from `fallocate`, says the file system cannot reserve space (rather
  /// than that the disk is full or failed): the arguments are valid by construction (a
  /// non-negative offset, a positive length, a regular file open for writing), so `EINVAL`
  /// can only mean a mode the file system does not take.
  static func isUnsupported(_ errno: Int32) -> Bool {
    errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL
  }
}
