/// Memory handed to the kernel (or a worker thread) for the length of one operation.
///
/// The operation that uses a buffer holds it until its completion arrives, even when the task
/// that started it was cancelled and has moved on, so the kernel never writes into freed memory.
/// Its bytes belong to the kernel while the operation is in flight and to the awaiting task after.
package final class IOBuffer {
  package let pointer: UnsafeMutableRawPointer
  package let count: Int

  /// A buffer of `count` bytes whose address is a multiple of `alignment` (a power of two; a
  /// file opened with ``IOFile/Options/direct`` needs the device's block size).
  package init(count: Int, alignment: Int = 16) {
    self.count = count
    pointer = .allocate(byteCount: max(count, 1), alignment: alignment)
  }

  /// A copy of `bytes`, at an address that is a multiple of `alignment`.
  convenience init(copying bytes: some Collection<UInt8>, alignment: Int = 16) {
    self.init(count: bytes.count, alignment: alignment)
    _ = UnsafeMutableRawBufferPointer(start: pointer, count: count).initializeMemory(
      as: UInt8.self, from: bytes)
  }

  /// A NUL-terminated copy of `string`, for paths.
  convenience init(cString string: String) {
    let utf8 = string.utf8
    self.init(count: utf8.count + 1)
    _ = UnsafeMutableRawBufferPointer(start: pointer, count: count).initializeMemory(
      as: UInt8.self, from: utf8)
    pointer.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
  }

  /// The first `count` bytes, copied into an array.
  func bytes(count: Int) -> [UInt8] {
    [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
  }

  var cString: UnsafePointer<CChar> {
    UnsafePointer(pointer.assumingMemoryBound(to: CChar.self))
  }

  deinit {
    pointer.deallocate()
  }
}
