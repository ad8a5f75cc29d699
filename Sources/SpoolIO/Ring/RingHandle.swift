import CSpoolURing
import SpoolCore

/// The owner of one io_uring instance: the only Swift type that holds a `cspool_ring`.
///
/// Used only from the ring's loop thread after creation; destroyed by that thread when the loop
/// exits. Every call goes through ``SystemCalls``.
final class RingHandle {
  private let ring: OpaquePointer
  private let syscalls: SystemCalls
  let submissionEntries: UInt32
  let completionEntries: UInt32
  /// Whether the kernel prepares `IORING_OP_FTRUNCATE` (Linux 6.9), which SpoolIO does not
  /// require of a ring.
  let supportsTruncate: Bool

  init(entries: UInt32, syscalls: SystemCalls) throws(IOError) {
    var error: Int32 = 0
    var createdRing: OpaquePointer?
    let created = syscalls.uring("io_uring_setup", retryOnInterrupt: true) {
      // Room for eight times the submission queue before the kernel has to hold completions
      // back (it never drops them: the ring is refused without IORING_FEAT_NODROP).
      if let ring = cspool_ring_create(entries, entries &* 8, &error) {
        createdRing = ring
        return 0
      }
      return error
    }
    guard created == 0, let ring = createdRing else {
      throw IOError(errno: -created, operation: "io_uring_setup", target: .none)
    }
    syscalls.descriptors.opened(.backend)
    self.ring = ring
    self.syscalls = syscalls
    submissionEntries = cspool_ring_sq_entries(ring)
    completionEntries = cspool_ring_cq_entries(ring)
    supportsTruncate = cspool_ring_supports_ftruncate(ring) != 0
  }

  /// The raw ring, for the `cspool_prep_*` calls of the loop.
  var pointer: OpaquePointer { ring }

  var submissionSpaceLeft: UInt32 { cspool_ring_sq_space_left(ring) }

  /// Hands every prepared entry to the kernel in one `io_uring_enter`, waiting for `waitCount`
  /// completions. Returns the number submitted or `-errno`; a signal during the wait is retried.
  func submit(waitingFor waitCount: UInt32) -> Int32 {
    syscalls.uring("io_uring_enter") { cspool_ring_submit_and_wait(ring, waitCount) }
  }

  /// Copies available completions into `buffer`; returns how many.
  func reap(into buffer: UnsafeMutableBufferPointer<cspool_completion>) -> Int {
    Int(cspool_ring_reap(ring, buffer.baseAddress!, UInt32(buffer.count)))
  }

  /// Completions the kernel dropped (always 0 with IORING_FEAT_NODROP).
  var droppedCompletions: UInt32 { cspool_ring_cq_dropped(ring) }

  private var isClosed = false  // protected by the ring thread

  /// Releases the ring (its descriptor and mappings). Called by the loop thread as it exits,
  /// before anyone waiting for the shutdown is resumed.
  func close() {
    guard !isClosed else { return }
    isClosed = true
    cspool_ring_destroy(ring)
    syscalls.descriptors.closed(.backend, result: 0)
  }

  deinit {
    close()
  }
}
