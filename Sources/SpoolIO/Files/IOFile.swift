#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import SpoolCore
import Synchronization

/// An open file whose operations run on an ``IOEngine``.
///
/// Every operation suspends the calling task without blocking a cooperative thread, is
/// cancellable (the task gets `CancellationError`), and throws `IOError` naming the operation
/// and the path or descriptor. Close the file with ``close()``; a file released without it is
/// closed synchronously in `deinit`. Operations after `close()` throw `EBADF` without reaching
/// the kernel, so they can never touch a descriptor number the process reused.
///
/// ```swift
/// let file = try await IOFile.open("/tmp/log.txt", options: [.write, .create, .append])
/// try await file.append(Array("started\n".utf8))
/// try await file.sync()
/// try await file.close()
/// ```
public final class IOFile: Sendable {
  /// How to open a file (the `O_*` flags).
  ///
  /// ```swift
  /// let options: IOFile.Options = [.write, .create, .truncate]
  /// ```
  public struct Options: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Open for reading.
    public static let read = Options(rawValue: 1 << 0)
    /// Open for writing.
    public static let write = Options(rawValue: 1 << 1)
    /// Create the file when it does not exist.
    public static let create = Options(rawValue: 1 << 2)
    /// Empty the file on open.
    public static let truncate = Options(rawValue: 1 << 3)
    /// Every write goes to the end of the file.
    public static let append = Options(rawValue: 1 << 4)
    /// With `.create`: fail with `EEXIST` when the file exists.
    public static let exclusive = Options(rawValue: 1 << 5)
    /// Fail with `ENOTDIR` unless the path is a directory (open it read-only, to fsync it).
    public static let directory = Options(rawValue: 1 << 6)
    /// Bypass the page cache (`O_DIRECT`): every read and write goes to the device, as for a
    /// file larger than memory or read once. Offsets and lengths must be multiples of the
    /// device's logical block size (512 or 4,096 bytes), or the operation fails with
    /// `EINVAL`; SpoolIO aligns its buffers to 4,096 bytes for such a file.
    ///
    /// ```swift
    /// let file = try await IOFile.open(path, options: [.read, .direct])
    /// let block = try await file.read(upTo: 4096, at: 8192)
    /// ```
    public static let direct = Options(rawValue: 1 << 7)

    /// The `open(2)` flags these options stand for, for code of Spool's that opens a file
    /// itself (the workloads' blocking baselines).
    package var openFlags: Int32 { flags }

    var flags: Int32 {
      var flags: Int32
      switch (contains(.read), contains(.write) || contains(.append)) {
      case (true, true): flags = O_RDWR
      case (false, true): flags = O_WRONLY
      default: flags = O_RDONLY
      }
      if contains(.create) { flags |= O_CREAT }
      if contains(.truncate) { flags |= O_TRUNC }
      if contains(.append) { flags |= O_APPEND }
      if contains(.exclusive) { flags |= O_EXCL }
      if contains(.directory) { flags |= O_DIRECTORY }
      if contains(.direct) { flags |= cspool_o_direct() }
      return flags
    }
  }

  /// The descriptor number, for logging. It stays the same after `close()`.
  public let descriptor: Int32
  /// The path the file was opened with.
  public let path: String
  let engine: IOEngine
  private let isClosed = Atomic<Bool>(false)
  /// Set once a cached read on the calling thread failed in a way that will not change (see
  /// `readCached`); reads then go to the engine directly.
  private let inlineReadsUnsupported = Atomic<Bool>(false)
  /// Whether the file was opened with ``Options/direct``: its buffers are aligned for the
  /// device, and reads never look in the page cache first.
  let isDirect: Bool

  /// The alignment of the buffers handed to the kernel for this file.
  var bufferAlignment: Int { isDirect ? 4_096 : 16 }

  init(descriptor: Int32, path: String, engine: IOEngine, isDirect: Bool = false) {
    self.descriptor = descriptor
    self.path = path
    self.engine = engine
    self.isDirect = isDirect
  }

  deinit {
    if !isClosed.load(ordering: .acquiring) {
      engine.syscalls.close(descriptor, .resource)
    }
  }

  /// Opens the file at `path`.
  ///
  /// - Parameters:
  ///   - path: Absolute, or relative to the working directory.
  ///   - options: `O_*` flags; `.read` by default.
  ///   - permissions: Mode bits for a file that `.create` creates.
  ///   - engine: The engine that runs the file's operations.
  /// - Throws: `IOError` (`open("/nope"): No such file or directory (ENOENT)`), or
  ///   `CancellationError`.
  ///
  /// ```swift
  /// let file = try await IOFile.open("/etc/hostname")
  /// ```
  public static func open(
    _ path: String,
    options: Options = .read,
    permissions: UInt32 = 0o644,
    on engine: IOEngine = .shared
  ) async throws -> IOFile {
    let fd = try await engine.run(
      .open(path: IOBuffer(cString: path), flags: options.flags, mode: permissions),
      target: .path(path))
    return IOFile(
      descriptor: Int32(fd), path: path, engine: engine, isDirect: options.contains(.direct))
  }

  /// Reads up to `count` bytes at `offset`; fewer at the end of the file, none past it.
  ///
  /// Returns what one read returned: the kernel may return fewer bytes than asked for even
  /// before the end (a short read); call again from the new offset, or use ``readToEnd(from:)``.
  /// An interrupted or would-block read is retried, never reported. One read asks for at most
  /// 16 MiB, and allocates no more: a larger `count` returns at most that much, so a request
  /// far beyond the file's size (`read(upTo: 1 << 40, at: 0)`) costs no more memory than the
  /// file can give.
  ///
  /// On the io_uring backend a read of at most 64 KiB at an explicit offset
  /// first takes what the page cache holds, on the calling thread (`preadv2` with
  /// `RWF_NOWAIT`, which never waits for the device), and returns without suspending when that
  /// was all of it or the end of the file; only the rest goes to the ring. For a cached
  /// 4 KiB block that is one system call instead of a continuation, a ring entry and the
  /// task's resumption: see `IOBenchmarks` (in SpoolWorkloads' sources) for the figures.
  ///
  /// - Parameters:
  ///   - count: The most bytes to return; 0 returns none. Negative counts are refused.
  ///   - offset: Where to read, at most `Int64.max`; `UInt64.max` reads at the file position.
  /// - Throws: `IOError` naming `read` and the descriptor (`EINVAL` for a negative `count` or
  ///   an offset beyond `Int64.max`, on both backends; `ENOMEM`, `EIO`, `EISDIR`, ...;
  ///   `ECANCELED` when the engine shut down meanwhile), or `CancellationError` when the task
  ///   was cancelled.
  ///
  /// ```swift
  /// let header = try await file.read(upTo: 512, at: 0)
  /// ```
  public func read(upTo count: Int, at offset: UInt64) async throws -> [UInt8] {
    try checkOpen("read")
    try IOLimits.checkCount(count, operation: "read", target: .descriptor(descriptor))
    try IOLimits.checkOffset(offset, operation: "read", target: .descriptor(descriptor))
    let count = min(count, IOLimits.maximumReadCount)
    var cached: [UInt8] = []
    if engine.readsCachedDataInline && !isDirect && offset != .max && count > 0
      && count <= Self.inlineReadLimit && !inlineReadsUnsupported.load(ordering: .relaxed)
      && !engine.isShuttingDown.load(ordering: .relaxed)
    {
      // A cancelled task gets `CancellationError` without a read, as from the engine.
      if Task.isCancelled { throw CancellationError() }
      if let bytes = readCached(upTo: count, at: offset) {
        // All of it, or the end of the file (a cached read stops short only there, or where
        // the cache does: the ring reads the rest).
        if bytes.count == count || bytes.isEmpty { return bytes }
        cached = bytes
      }
    }
    let remaining = count - cached.count
    let start = offset == .max ? offset : offset + UInt64(cached.count)
    let buffer = IOBuffer(count: remaining, alignment: bufferAlignment)
    let operation = IOOperation(
      .read(fd: descriptor, buffer: buffer, count: remaining, offset: start))
    // `engine.run(_:target:)`, inlined: each async function a task passes through costs it
    // two executor switches (see `IOEngine.perform`).
    let engine = engine
    let read = try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { engine.start(operation, continuation: $0) }
    } onCancel: {
      engine.cancel(operation)
    }
    guard read >= 0 else {
      throw IOError(errno: -read, operation: "read", target: .descriptor(descriptor))
    }
    if cached.isEmpty { return buffer.bytes(count: Int(read)) }
    cached.append(contentsOf: UnsafeRawBufferPointer(start: buffer.pointer, count: Int(read)))
    return cached
  }

  /// The largest read that ``read(upTo:at:)`` first tries to serve from the page cache on the
  /// calling thread: it bounds what a task copies there without a suspension point.
  static let inlineReadLimit = 65_536

  /// Reads what the page cache holds at `offset` on the calling thread, without waiting for
  /// the device. Returns `nil` when that read failed (`EAGAIN`: nothing cached), leaving the
  /// whole read to the engine, which reports errors as usual.
  private func readCached(upTo count: Int, at offset: UInt64) -> [UInt8]? {
    var result: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      result = engine.syscalls.uring("read") {
        cspool_pread_nowait(descriptor, buffer.baseAddress, UInt32(count), offset)
      }
      initialized = Int(max(result, 0))
    }
    guard result < 0 else { return bytes }
    // The file cannot be read without waiting (`EOPNOTSUPP`, also a kernel without
    // RWF_NOWAIT) or at an offset (`ESPIPE`): stop trying.
    if result == -EOPNOTSUPP || result == -ESPIPE {
      inlineReadsUnsupported.store(true, ordering: .relaxed)
    }
    return nil
  }

  /// Reads up to `count` bytes at the file position and advances it.
  ///
  /// ```swift
  /// while case let chunk = try await file.read(upTo: 65_536), !chunk.isEmpty { consume(chunk) }
  /// ```
  public func read(upTo count: Int) async throws -> [UInt8] {
    try await read(upTo: count, at: .max)
  }

  /// Reads from `offset` to the end of the file.
  ///
  /// Goes on after short reads until a read returns nothing, so the result is the whole rest
  /// of the file (including bytes appended while it reads).
  ///
  /// ```swift
  /// let contents = try await file.readToEnd()
  /// ```
  public func readToEnd(from offset: UInt64 = 0) async throws -> [UInt8] {
    let size = try await status().size
    var contents: [UInt8] = []
    contents.reserveCapacity(Int(size > offset ? size - offset : 0))
    var position = offset
    while true {
      // Asks for one byte more than the reported size, to see the end even if the file grew.
      let want = max(Int(size > position ? size - position : 0) + 1, 16_384)
      let chunk = try await read(upTo: min(want, 1 << 24), at: position)
      if chunk.isEmpty { return contents }
      contents.append(contentsOf: chunk)
      position += UInt64(chunk.count)
    }
  }

  /// Writes all of `bytes` at `offset`; returns when the kernel has taken them all.
  ///
  /// A short write (the kernel took fewer bytes) is followed by another for the rest, until
  /// every byte is written; interrupted and would-block writes are retried. A write that takes
  /// no byte at all fails with `EIO` rather than loop forever.
  ///
  /// - Parameters:
  ///   - bytes: What to write.
  ///   - offset: Where to write, at most `Int64.max`; `UInt64.max` writes at the file position
  ///     (at the end for a file opened with `.append`).
  /// - Throws: `IOError` naming `write` and the descriptor (`EINVAL` for an offset beyond
  ///   `Int64.max`, on both backends; `ENOSPC`, `ENOMEM`, ...); bytes written before the
  ///   failure stay written. `CancellationError` when the task was cancelled.
  ///
  /// ```swift
  /// try await file.write(Array("hello".utf8), at: 0)
  /// ```
  public func write(_ bytes: [UInt8], at offset: UInt64) async throws {
    try checkOpen("write")
    try IOLimits.checkOffset(offset, operation: "write", target: .descriptor(descriptor))
    let buffer = IOBuffer(copying: bytes, alignment: bufferAlignment)
    var written = 0
    while written < bytes.count {
      let position = offset == .max ? offset : offset + UInt64(written)
      let count = try await engine.run(
        .write(
          fd: descriptor, buffer: buffer, start: written, count: bytes.count - written,
          offset: position),
        target: .descriptor(descriptor))
      if count == 0 {
        throw IOError(errno: EIO, operation: "write", target: .descriptor(descriptor))
      }
      written += count
    }
  }

  /// Writes all of `bytes` at the end of the file (open it with `.append`) or at the file
  /// position.
  ///
  /// ```swift
  /// try await log.append(Array("line\n".utf8))
  /// ```
  public func append(_ bytes: [UInt8]) async throws {
    try await write(bytes, at: .max)
  }

  /// Flushes the file's data and metadata to the storage device (`fsync`).
  ///
  /// ```swift
  /// try await file.sync()
  /// ```
  public func sync() async throws {
    try checkOpen("fsync")
    _ = try await engine.run(.fsync(fd: descriptor), target: .descriptor(descriptor))
  }

  /// The file's size, kind and modification time (`statx` on the descriptor).
  ///
  /// ```swift
  /// let size = try await file.status().size
  /// ```
  public func status() async throws -> FileStatus {
    try checkOpen("stat")
    return try await FileStatus.fetch(
      fd: descriptor, path: "", target: .descriptor(descriptor), engine: engine)
  }

  /// Closes the descriptor. A second call throws `EBADF`.
  ///
  /// ```swift
  /// try await file.close()
  /// ```
  public func close() async throws {
    guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else {
      throw IOError(errno: EBADF, operation: "close", target: .descriptor(descriptor))
    }
    // Not cancellable: the descriptor is released whatever happens to the task.
    try await engine.close(descriptor)
  }

  /// Throws `EBADF` for `operation` once the file is closed: its descriptor number may belong
  /// to another file by then, so nothing may reach the kernel with it.
  func checkOpen(_ operation: String) throws(IOError) {
    if isClosed.load(ordering: .acquiring) {
      throw IOError(errno: EBADF, operation: operation, target: .descriptor(descriptor))
    }
  }
}

extension FileStatus {
  /// Runs `statx` for `path` (or, with an empty path, for `fd`) on `engine`.
  static func fetch(
    fd: Int32, path: String, target: IOError.Target, engine: IOEngine
  ) async throws -> FileStatus {
    let result = IOBuffer(count: Int(cspool_statx_size()))
    _ = try await engine.run(
      .stat(fd: fd, path: IOBuffer(cString: path), result: result), target: target)
    let raw = cspool_statx_decode(result.pointer)
    let kind: Kind
    switch raw.mode & UInt32(S_IFMT) {
    case UInt32(S_IFREG): kind = .regular
    case UInt32(S_IFDIR): kind = .directory
    case UInt32(S_IFLNK): kind = .symbolicLink
    case UInt32(S_IFSOCK): kind = .socket
    case UInt32(S_IFIFO): kind = .pipe
    case UInt32(S_IFCHR): kind = .characterDevice
    case UInt32(S_IFBLK): kind = .blockDevice
    default: kind = .unknown
    }
    return FileStatus(
      size: raw.size, kind: kind, permissions: raw.mode & 0o7777,
      modifiedNanosecondsSinceEpoch: raw.modified_seconds * 1_000_000_000
        + Int64(raw.modified_nanoseconds),
      inode: raw.inode, allocatedBytes: raw.blocks &* 512, blockSize: raw.block_size)
  }
}
