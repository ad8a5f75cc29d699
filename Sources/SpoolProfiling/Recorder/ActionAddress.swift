/// The address of an action value, valid only while the action is borrowed.
///
/// It carries the address as an integer so that it can cross into the recorder's
/// `Mutex.withLock` closure: region-based isolation checking would otherwise merge the
/// borrowed pointer's region into the protected state's. The state never stores it; it reads
/// the enum tag (and, for nested cases, copies the bytes) within the same call.
package struct ActionAddress: Sendable {
  private let bitPattern: UInt

  package init(_ pointer: UnsafeRawPointer) {
    bitPattern = UInt(bitPattern: pointer)
  }

  package var pointer: UnsafeRawPointer {
    // Non-zero by construction.
    UnsafeRawPointer(bitPattern: bitPattern)!
  }
}
