#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

/// The checks every length and offset passes at SpoolIO's public API, before it reaches a
/// backend.
///
/// What must stay true: no value a caller passes makes a backend trap (the ring's loop thread
/// serves every store of the process) or allocate more than the operation can return; both
/// backends reject the same values with the same ``IOError``.
enum IOLimits {
  /// The most bytes one read or receive asks the kernel for, and so allocates: a larger request
  /// returns at most this many (a short read, which callers handle anyway), so that
  /// `read(upTo: 1 << 40)` on a short file costs a 16 MiB buffer, not a terabyte.
  static let maximumReadCount = 1 << 24

  /// The most bytes one system call or ring entry transfers (Linux's `MAX_RW_COUNT`, which
  /// also fits the ring's 32-bit lengths). Larger writes are split by the callers' loops.
  static let maximumTransferCount = 0x7fff_f000

  /// Throws `EINVAL` for a negative byte count.
  static func checkCount(
    _ count: Int, operation: String, target: @autoclosure () -> IOError.Target
  ) throws(IOError) {
    if count < 0 {
      throw IOError(errno: EINVAL, operation: operation, target: target())
    }
  }

  /// Throws `EINVAL` for an offset the kernel cannot represent (beyond `Int64.max`), except
  /// `UInt64.max`, which means "at the file position".
  static func checkOffset(
    _ offset: UInt64, operation: String, target: @autoclosure () -> IOError.Target
  ) throws(IOError) {
    if offset != .max && offset > UInt64(Int64.max) {
      throw IOError(errno: EINVAL, operation: operation, target: target())
    }
  }

  /// `count` as a transfer length for one system call or ring entry.
  static func transferCount(_ count: Int) -> Int {
    min(max(count, 0), maximumTransferCount)
  }
}
