#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The signal that interrupts a pool worker blocked in a system call that `poll` cannot
/// watch (opening a FIFO that has no writer, reading one whose writer is silent, a file on a
/// stalled network file system), so that cancelling its task ends it.
///
/// The handler does nothing and is installed without `SA_RESTART`: the blocked call returns
/// `EINTR`, and ``BlockingExecutor`` ends the operation if it was cancelled, or makes the call
/// again. `SIGURG` because a process rarely handles it (its default is to ignore it) and a
/// thread receives it only from `pthread_kill`: Spool installs its handler only where the
/// signal still has its default (or ignored) disposition, and never sends it otherwise, so an
/// application's own handler is neither replaced nor called. Calls the kernel does not let a
/// signal interrupt (a read from a local disk, `fsync`) finish, and their result is delivered.
enum WorkerInterruption {
  static let signal = SIGURG

  /// Whether the handler is in place (installed on first use, once per process).
  static let isAvailable: Bool = {
    var current = sigaction()
    guard sigaction(signal, nil, &current) == 0 else { return false }
    let handler = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    // SIG_DFL is 0 and SIG_IGN is 1: anything else is someone else's handler.
    guard handler == 0 || handler == 1 else { return false }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0  // no SA_RESTART: the interrupted call returns EINTR
    return sigaction(signal, &action, nil) == 0
  }()

  /// Lets the calling thread (a new worker) receive the signal, whatever mask it inherited.
  static func unblockOnCurrentThread() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  /// Interrupts `thread`'s blocked system call. Called with the pool's lock held while the
  /// thread runs the operation to cancel, so the thread exists (a worker leaves its operation
  /// under that lock before it can exit).
  static func interrupt(_ thread: pthread_t) {
    guard isAvailable else { return }
    _ = pthread_kill(thread, signal)
  }
}
