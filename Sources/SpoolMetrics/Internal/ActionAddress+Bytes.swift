import SpoolProfiling

extension ActionAddress {
  /// The address of an action's bytes; a zero-sized action has none, and any aligned address
  /// does, since the case table's enum witnesses read nothing from it.
  @inline(__always)
  init(bytes: UnsafeRawBufferPointer, alignment: Int) {
    self.init(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: alignment)!)
  }
}
