#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import SpoolCore

/// Starts the detached OS threads SpoolIO's backends run on (the ring loop, the pool workers).
enum IOThread {
  private final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  /// Starts a detached thread named `name` (at most 15 characters are kept) running `body`.
  ///
  /// - Throws: ``IOError`` for `pthread_create` (`EAGAIN` at the process's thread limit).
  static func spawn(
    name: String, syscalls: SystemCalls, _ body: @escaping @Sendable () -> Void
  ) throws(IOError) {
    let box = Unmanaged.passRetained(Box {
      cspool_set_current_thread_name(name)
      body()
    }).toOpaque()
    var thread = pthread_t()
    // pthread_create returns the error number rather than setting errno.
    let result = syscalls.uring("pthread_create") {
      -pthread_create(&thread, nil, { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    }
    guard result == 0 else {
      Unmanaged<Box>.fromOpaque(box).release()
      throw IOError(errno: -result, operation: "pthread_create", target: .none)
    }
    pthread_detach(thread)
  }
}
