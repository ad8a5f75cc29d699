#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import Synchronization

/// How many descriptors one ``IOEngine`` opened and has not closed yet.
///
/// Counting per engine, rather than the entries of `/proc/self/fd`, lets a test find a leaked
/// socket or file while other tests in the same process open and close descriptors of their
/// own. Two counts: ``Kind/resource`` for what callers hold (files, sockets, accepted
/// connections), ``Kind/backend`` for the engine's own (the ring, eventfds), which drops to zero
/// when the engine has shut down.
///
/// Updated wherever SpoolIO opens or closes a descriptor: through ``SystemCalls`` for blocking
/// calls, in ``IOEngine`` for operations whose completion opens (`open`, `accept`) or closes
/// one. A `close` that fails with `EBADF` released nothing; any other result released the
/// descriptor (Linux frees it even when close reports `EINTR` or `EIO`).
package final class DescriptorLedger: Sendable {
  package enum Kind: Sendable {
    /// A file or socket handed to a caller.
    case resource
    /// The ring or an eventfd of the engine itself.
    case backend
  }

  private let resources = Atomic<Int>(0)
  private let backend = Atomic<Int>(0)

  package init() {}

  func opened(_ kind: Kind) {
    add(1, to: kind)
  }

  /// Records a close that returned `result` (0 or `-errno`).
  func closed(_ kind: Kind, result: Int32) {
    guard result != -EBADF else { return }
    add(-1, to: kind)
  }

  /// Files and sockets opened by the engine's operations and not closed yet.
  package var openResources: Int { resources.load(ordering: .relaxed) }
  /// The engine's own descriptors not closed yet (0 once the engine has shut down).
  package var openBackendDescriptors: Int { backend.load(ordering: .relaxed) }

  private func add(_ delta: Int, to kind: Kind) {
    switch kind {
    case .resource: resources.add(delta, ordering: .relaxed)
    case .backend: backend.add(delta, ordering: .relaxed)
    }
  }
}
