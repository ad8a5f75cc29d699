import SpoolIO

/// A batch of whole records (and, first in a file, its header) on their way to one journal
/// file: the unit the recorder hands to the writer, and that the writer appends in one write.
///
/// `@unchecked Sendable` is safe because a chunk has exactly one owner at a time, and every
/// hand-over goes through the writer's lock: the recorder fills it (under the recorder's lock),
/// hands it to the writer's queue (under the writer's lock), the draining task takes it from
/// the queue (under that lock) and writes it, then returns it to the free list (under that
/// lock), from which the recorder takes it again. No two parties ever hold it at once.
final class JournalChunk: @unchecked Sendable {
  /// The memory handed to the kernel: it lives as long as the chunk, and a chunk is reused only
  /// after its write completed.
  let buffer: IOBuffer
  /// Bytes filled.
  var count = 0
  /// The index of the file the bytes belong to.
  var fileIndex = 0

  init(capacity: Int) {
    buffer = IOBuffer(count: capacity)
  }

  var capacity: Int { buffer.count }
  var remaining: Int { buffer.count - count }

  /// Appends the bytes of `source`, which must fit.
  func append(_ source: JournalBytes) {
    precondition(source.count <= remaining, "Internal inconsistency: a record overflows a chunk")
    (buffer.pointer + count).copyMemory(from: source.pointer, byteCount: source.count)
    count += source.count
  }

  /// Appends `bytes`, which must fit.
  func append(_ bytes: [UInt8]) {
    precondition(bytes.count <= remaining, "Internal inconsistency: a header overflows a chunk")
    bytes.withUnsafeBytes { raw in
      if let base = raw.baseAddress {
        (buffer.pointer + count).copyMemory(from: base, byteCount: raw.count)
      }
    }
    count += bytes.count
  }
}
