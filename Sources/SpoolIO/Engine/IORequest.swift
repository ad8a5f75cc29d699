/// One operation a backend carries out, with every piece of memory it hands to the kernel.
///
/// Offsets of `UInt64.max` mean "at the file position" (appending for `O_APPEND` files).
enum IORequest {
  case nop
  case open(path: IOBuffer, flags: Int32, mode: UInt32)
  case close(fd: Int32)
  case read(fd: Int32, buffer: IOBuffer, count: Int, offset: UInt64)
  case write(fd: Int32, buffer: IOBuffer, start: Int, count: Int, offset: UInt64)
  case fsync(fd: Int32)
  /// `fdatasync`: the data, and the metadata needed to read it back (the size), not the rest.
  case fdatasync(fd: Int32)
  /// `fallocate`: `mode` holds Linux's `FALLOC_FL_*` bits (``IOFile/SpaceMode``).
  case fallocate(fd: Int32, mode: Int32, offset: UInt64, length: UInt64)
  /// `ftruncate`: the file's size becomes `length` (cut, or extended with zeros).
  case ftruncate(fd: Int32, length: UInt64)
  /// `path` empty: the descriptor itself.
  case stat(fd: Int32, path: IOBuffer, result: IOBuffer)
  case rename(from: IOBuffer, to: IOBuffer)
  case unlink(path: IOBuffer)
  case accept(fd: Int32)
  case connect(fd: Int32, address: IOBuffer)
  case receive(fd: Int32, buffer: IOBuffer, count: Int)
  case send(fd: Int32, buffer: IOBuffer, start: Int, count: Int)
  /// An absolute `CLOCK_MONOTONIC` deadline; `storage` holds the kernel's 16-byte timespec.
  case timeout(deadline: Int64, storage: IOBuffer)

  /// The system call this request stands for, as errors and fault injection name it.
  var name: String {
    switch self {
    case .nop: "nop"
    case .open: "open"
    case .close: "close"
    case .read: "read"
    case .write: "write"
    case .fsync: "fsync"
    case .fdatasync: "fdatasync"
    case .fallocate: "fallocate"
    case .ftruncate: "ftruncate"
    case .stat: "stat"
    case .rename: "rename"
    case .unlink: "unlink"
    case .accept: "accept"
    case .connect: "connect"
    case .receive: "recv"
    case .send: "send"
    case .timeout: "timeout"
    }
  }

  var isClose: Bool {
    if case .close = self { true } else { false }
  }

  /// Whether the request may simply be made again after `EINTR` or `EAGAIN` said it did not
  /// happen. Not `close` (Linux releases the descriptor whatever close reports) nor `connect`
  /// (an interrupted connection attempt goes on in the kernel; a second one gets `EALREADY`).
  var isRestartable: Bool {
    switch self {
    case .close, .connect: false
    default: true
    }
  }

  /// Whether the request may wait indefinitely for a peer or a deadline (the thread backend
  /// then waits in `poll` so that cancellation can interrupt it).
  var mayWaitIndefinitely: Bool {
    switch self {
    case .accept, .connect, .receive, .send, .timeout: true
    default: false
    }
  }
}
