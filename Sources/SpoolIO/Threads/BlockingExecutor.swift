#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing

/// Runs one request as blocking system calls on a pool worker.
///
/// Requests that may wait indefinitely use non-blocking calls and wait in `poll` on both their
/// descriptor and `cancelFD`, so a cancellation (a write to `cancelFD`) ends them with
/// `-ECANCELED`. The others (open, read, write, fsync, fallocate, ftruncate, stat, rename,
/// unlink) are blocking calls that a FIFO, a terminal or a network file system can hold
/// indefinitely: a cancellation also interrupts them with a signal (``WorkerInterruption``),
/// and an `EINTR` with `cancelFD` written ends them with `-ECANCELED`, while any other `EINTR`
/// makes the call again. Results follow the kernel's convention: a value, or `-errno`.
///
/// Every call goes through ``SystemCalls``; `EAGAIN` from a read, write, accept, recv or send
/// waits in `poll` for the descriptor and tries again, so it never reaches the caller.
struct BlockingExecutor {
  let syscalls: SystemCalls
  let cancelFD: Int32

  func execute(_ request: IORequest) -> Int32 {
    switch request {
    case .nop:
      return 0
    case .open(let path, let flags, let mode):
      return interruptible {
        syscalls.call("open", retryOnInterrupt: false) {
          open(path.cString, flags | O_CLOEXEC, mode)
        }
      }
    case .close(let fd):
      // Not retried: after EINTR the descriptor is already released on Linux.
      return result(syscalls.call("close", retryOnInterrupt: false) { close(fd) })
    case .read(let fd, let buffer, let count, let offset):
      // EAGAIN (a descriptor opened non-blocking, or a fault) waits in `poll`, as on sockets.
      return retryWhenReady(fd, events: POLLIN) {
        syscalls.transfer(
          "read", count: IOLimits.transferCount(count), retryOnInterrupt: false
        ) { count in
          // An offset beyond `off_t` is negative here, and the kernel refuses it (EINVAL), as
          // it does on the ring; a conversion that traps would take the process down.
          offset == .max
            ? read(fd, buffer.pointer, count)
            : pread(fd, buffer.pointer, count, off_t(Int64(bitPattern: offset)))
        }
      }
    case .write(let fd, let buffer, let start, let count, let offset):
      return retryWhenReady(fd, events: POLLOUT) {
        syscalls.transfer(
          "write", count: IOLimits.transferCount(count), retryOnInterrupt: false
        ) { count in
          offset == .max
            ? write(fd, buffer.pointer + start, count)
            : pwrite(fd, buffer.pointer + start, count, off_t(Int64(bitPattern: offset)))
        }
      }
    case .fsync(let fd):
      return interruptible { syscalls.call("fsync", retryOnInterrupt: false) { fsync(fd) } }
    case .fdatasync(let fd):
      return interruptible {
        syscalls.call("fdatasync", retryOnInterrupt: false) { fdatasync(fd) }
      }
    case .fallocate(let fd, let mode, let offset, let length):
      return interruptible {
        Int(
          syscalls.uring("fallocate", retryOnInterrupt: false) {
            cspool_fallocate_blocking(fd, mode, offset, length)
          })
      }
    case .ftruncate(let fd, let length):
      // A length beyond `off_t` is negative here, and the kernel refuses it (EINVAL), as it
      // does on the ring; a conversion that traps would take the process down.
      return interruptible {
        syscalls.call("ftruncate", retryOnInterrupt: false) {
          ftruncate(fd, off_t(Int64(bitPattern: length)))
        }
      }
    case .stat(let fd, let path, let statx):
      return interruptible {
        Int(
          syscalls.uring("stat", retryOnInterrupt: false) {
            cspool_statx_blocking(fd, path.cString, statx.pointer)
          })
      }
    case .rename(let from, let to):
      return interruptible {
        syscalls.call("rename", retryOnInterrupt: false) { rename(from.cString, to.cString) }
      }
    case .unlink(let path):
      return interruptible {
        syscalls.call("unlink", retryOnInterrupt: false) { unlink(path.cString) }
      }
    case .accept(let fd):
      return retryWhenReady(fd, events: POLLIN) {
        Int(syscalls.uring("accept") { cspool_accept_cloexec(fd) })
      }
    case .connect(let fd, let address):
      let started = syscalls.call("connect") {
        connect(fd, address.pointer.assumingMemoryBound(to: sockaddr.self),
                socklen_t(address.count))
      }
      // EALREADY: an earlier attempt was interrupted and the connection goes on; wait for it.
      guard started == -Int(EINPROGRESS) || started == -Int(EALREADY) else {
        return result(started)
      }
      let ready = waitUntilReady(fd, events: POLLOUT, deadline: nil)
      guard ready == 0 else { return ready }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      let got = syscalls.call("getsockopt") {
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
      }
      return got < 0 ? result(got) : -error
    case .receive(let fd, let buffer, let count):
      return retryWhenReady(fd, events: POLLIN) {
        syscalls.transfer("recv", count: IOLimits.transferCount(count)) { count in
          recv(fd, buffer.pointer, count, Int32(MSG_DONTWAIT))
        }
      }
    case .send(let fd, let buffer, let start, let count):
      return retryWhenReady(fd, events: POLLOUT) {
        syscalls.transfer("send", count: IOLimits.transferCount(count)) { count in
          send(fd, buffer.pointer + start, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }
      }
    case .timeout(let deadline, _):
      while true {
        let ready = waitUntilReady(-1, events: 0, deadline: deadline)
        if ready != 0 { return ready }
      }
    }
  }

  private func result(_ value: Int) -> Int32 {
    Int32(truncatingIfNeeded: value)
  }

  private func retryWhenReady(_ fd: Int32, events: Int32, _ attempt: () -> Int) -> Int32 {
    while true {
      let value = attempt()
      if value == -Int(EINTR) {
        if isCancelled { return -ECANCELED }
        continue
      }
      guard value == -Int(EAGAIN) || value == -Int(EWOULDBLOCK) else { return result(value) }
      let ready = waitUntilReady(fd, events: events, deadline: nil)
      guard ready == 0 else { return ready }
    }
  }

  /// Makes a blocking call that a cancellation may interrupt (`attempt` does not retry
  /// `EINTR`): ends with `-ECANCELED` when the interruption came with a cancellation, and
  /// makes the call again otherwise.
  private func interruptible(_ attempt: () -> Int) -> Int32 {
    while true {
      let value = attempt()
      guard value == -Int(EINTR) else { return result(value) }
      if isCancelled { return -ECANCELED }
    }
  }

  /// Whether the running operation was cancelled (`cancelFD` was written); checked only after
  /// an `EINTR`, so a call that is not interrupted costs nothing more.
  private var isCancelled: Bool {
    var fds = pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0)
    return syscalls.call("poll") { poll(&fds, 1, 0) } > 0 && fds.revents != 0
  }

  /// Waits until `fd` is ready for `events`, the deadline passes (`-ETIME`), or the operation
  /// is cancelled (`-ECANCELED`). Returns 0 when ready.
  private func waitUntilReady(_ fd: Int32, events: Int32, deadline: Int64?) -> Int32 {
    var fds = [
      pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0),
      pollfd(fd: fd, events: Int16(events), revents: 0),
    ]
    while true {
      var milliseconds: Int32 = -1
      if let deadline {
        let remaining = deadline - MonotonicTime.nanoseconds()
        if remaining <= 0 { return -ETIME }
        // Rounded up, so the deadline has passed when poll times out.
        milliseconds = Int32(clamping: (remaining + 999_999) / 1_000_000)
      }
      let ready = fds.withUnsafeMutableBufferPointer { fds in
        syscalls.call("poll") { poll(fds.baseAddress, fd < 0 ? 1 : 2, milliseconds) }
      }
      if ready < 0 { return result(ready) }
      if fds[0].revents != 0 { return -ECANCELED }
      if fd >= 0 && fds[1].revents != 0 { return 0 }
    }
  }
}
