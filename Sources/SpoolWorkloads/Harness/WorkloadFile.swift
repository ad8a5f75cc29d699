#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

/// The data files of the I/O workloads: written through SpoolIO before the clock starts, read
/// once so that they are in the page cache, removed after the run.
enum WorkloadFile {
  /// Writes `blocks` blocks of `blockSize` bytes of lowercase words, one per line, and returns
  /// the file's path. The content is the same for every run (a fixed pseudo-random sequence).
  static func prepare(
    name: String, blocks: Int, blockSize: Int, engine: IOEngine
  ) async throws -> String {
    let path = "/tmp/spool-bench-\(name)-\(getpid()).txt"
    let file = try await IOFile.open(
      path, options: [.read, .write, .create, .truncate], on: engine)
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for index in 0..<blocks {
      var block = [UInt8](repeating: UInt8(ascii: "\n"), count: blockSize)
      var position = 0
      while position < blockSize {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let length = 3 + Int(seed >> 61)
        for offset in 0..<min(length, blockSize - position) {
          block[position + offset] = UInt8(ascii: "a") + UInt8((seed >> (offset * 5)) % 26)
        }
        position += length + 1
      }
      try await file.write(block, at: UInt64(index * blockSize))
    }
    _ = try await file.readToEnd()
    try await file.close()
    return path
  }

  static func remove(_ path: String) {
    unlink(path)
  }
}

/// A file read with blocking `pread`: what the `blocking-io` baselines call inside `.run`.
///
/// `pread` takes its offset as an argument and shares no file position, so one descriptor
/// serves concurrent readers; the descriptor is immutable and closed in `deinit`.
final class BlockingFile: Sendable {
  let descriptor: Int32
  /// Opened with `O_DIRECT`: reads go through a buffer aligned for the device.
  let isDirect: Bool

  /// Opens `path` for reading; with `direct`, past the page cache (`O_DIRECT`).
  init(path: String, direct: Bool = false) throws {
    let options: IOFile.Options = direct ? [.read, .direct] : .read
    let descriptor = open(path, options.openFlags | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw IOError(errno: errno, operation: "open", target: .path(path))
    }
    self.descriptor = descriptor
    self.isDirect = direct
  }

  deinit { close(descriptor) }

  /// Reads up to `count` bytes at `offset`, retrying `EINTR`; a fresh array, as
  /// `IOFile.read(upTo:at:)` returns.
  func read(upTo count: Int, at offset: UInt64) throws -> [UInt8] {
    guard isDirect else {
      var buffer = [UInt8](repeating: 0, count: count)
      let read = try buffer.withUnsafeMutableBytes {
        try pread(into: $0.baseAddress!, count, offset)
      }
      buffer.removeLast(count - read)
      return buffer
    }
    // `O_DIRECT` needs a buffer aligned to the device's block size; an array's is not.
    let aligned = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 4_096)
    defer { aligned.deallocate() }
    let read = try pread(into: aligned, count, offset)
    return [UInt8](UnsafeRawBufferPointer(start: aligned, count: read))
  }

  private func pread(
    into buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: UInt64
  ) throws -> Int {
    while true {
      let read = Glibc.pread(descriptor, buffer, count, off_t(offset))
      if read >= 0 { return read }
      if errno != EINTR {
        throw IOError(errno: errno, operation: "pread", target: .descriptor(descriptor))
      }
    }
  }
}
