/// Reads the case tag of an enum value through its type's value witness table.
///
/// This is the part of Spool that knows the Swift runtime's metadata layout (documented in the
/// Swift repository's `docs/ABI/TypeMetadata.rst`, stable since Swift 5 on Apple platforms and
/// the same on Linux). It exists because the case label of every reduced action must cost next
/// to nothing: the whole recorder must stay within 5% of a 1 µs reducer
/// (`spool bench instrumentation`). The ways to get a case, from the slowest:
///
/// - `String(describing: action)` formats the whole value: far too slow.
/// - `Mirror(reflecting:)` and its first child: still many times a clock read.
/// - the runtime's `swift_EnumCaseName` (the stdlib's internal `_getEnumCaseName`, reachable
///   only through `@_silgen_name`): several times a clock read, and more for a case with a
///   payload; too slow for a recorder.
/// - `getEnumTag` from the value witness table (this type): an indirect call, a small fraction
///   of a clock read, the same for any case (plus one payload projection per nesting level).
///
/// `swift_EnumCaseName` looks up the field descriptor on every call and, for a payload case,
/// projects and copies the payload. The value witness `getEnumTag` reads the tag in place and
/// allocates nothing, so the hot path calls only it (and `destructiveProjectEnumData` on a
/// scratch copy of the bytes for nested cases); names and payload types come from the type's
/// field descriptor, once per case, on a cache miss.
///
/// Safety: the value witness functions use the Swift calling convention. They take two pointer
/// arguments and return a 32-bit integer (or nothing), which the Swift and C conventions pass
/// in the same registers on x86-64 and arm64, the only platforms Spool supports; the
/// initializer refuses anything that is not a 64-bit enum with enum witnesses, and callers then
/// fall back to one label per type.
struct EnumLayout {
  typealias GetEnumTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
  private typealias ProjectEnumData = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer)
    -> Void

  /// What the field descriptor says about one case.
  struct Case {
    /// The case name as written in the source, `incrementButtonTapped`.
    var name: String
    /// The static type of the payload, when the case has one and the runtime can resolve it.
    var payloadType: Any.Type?
    /// Whether the payload is boxed (`indirect case`); a boxed payload is not projected.
    var isIndirect: Bool
  }

  /// The type's metadata; immortal for the life of the process.
  let metadata: UnsafeRawPointer
  /// The number of cases, payload cases first: tags are indices into this range.
  let caseCount: Int
  private let getEnumTagWitness: GetEnumTag
  private let projectWitness: ProjectEnumData

  /// Metadata kind of a Swift enum (`MetadataKind::Enum`); `Optional` has its own kind.
  private static let enumKind: UInt = 0x201
  /// `ValueWitnessFlags::HasEnumWitnesses`.
  private static let hasEnumWitnesses: UInt32 = 0x0020_0000

  /// Reads `type`'s layout, or returns `nil` when it is not a plain enum on a 64-bit platform.
  init?(_ type: Any.Type) {
    #if _pointerBitWidth(_64) && (arch(x86_64) || arch(arm64))
      let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
      guard metadata.load(as: UInt.self) == Self.enumKind else { return nil }
      let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
      // Value witness table: 8 function pointers, size, stride, flags (UInt32 at 80),
      // extra inhabitant count, then the enum witnesses at 88 and 96.
      let flags = witnesses.load(fromByteOffset: 80, as: UInt32.self)
      guard flags & Self.hasEnumWitnesses != 0 else { return nil }
      let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
      guard let fields = Self.relative(descriptor + 16) else { return nil }
      self.metadata = metadata
      self.caseCount = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
      self.getEnumTagWitness = unsafeBitCast(
        witnesses.load(fromByteOffset: 88, as: UnsafeRawPointer.self), to: GetEnumTag.self)
      self.projectWitness = unsafeBitCast(
        witnesses.load(fromByteOffset: 96, as: UnsafeRawPointer.self), to: ProjectEnumData.self)
    #else
      return nil
    #endif
  }

  /// The tag of the enum value at `value`: payload cases first, in declaration order, then the
  /// cases without payload.
  ///
  /// - Complexity: O(1); no allocation.
  @inline(__always)
  func tag(at value: UnsafeRawPointer) -> Int {
    Int(getEnumTagWitness(value, metadata))
  }

  /// The `getEnumTag` witness itself, for a reader that keeps it (``StoreCaseCounts``).
  var getEnumTag: GetEnumTag { getEnumTagWitness }

  /// Turns the enum value at `value` into its payload, in place (clears the tag bits).
  ///
  /// Only call it on a scratch copy of the bytes that owns nothing.
  @inline(__always)
  func projectPayload(at value: UnsafeMutableRawPointer) {
    projectWitness(value, metadata)
  }

  /// The name, payload type and indirectness of the case with tag `tag`.
  ///
  /// Slow (a mangled-name lookup); call it once per case.
  func caseInfo(tag: Int) -> Case? {
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
    guard let fields = Self.relative(descriptor + 16), tag >= 0, tag < caseCount else {
      return nil
    }
    let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
    // Field record: flags (UInt32), mangled type name, field name (relative pointers).
    let record = fields + 16 + tag * recordSize
    let recordFlags = record.load(as: UInt32.self)
    guard let namePointer = Self.relative(record + 8) else { return nil }
    let name = String(cString: namePointer.assumingMemoryBound(to: CChar.self))
    var payloadType: Any.Type?
    if let mangled = Self.relative(record + 4) {
      let bytes = mangled.assumingMemoryBound(to: UInt8.self)
      let isGeneric = descriptor.load(as: UInt32.self) & 0x80 != 0
      payloadType = _getTypeByMangledNameInContext(
        bytes, UInt(Self.mangledNameLength(bytes)),
        genericContext: descriptor,
        genericArguments: isGeneric ? UnsafeRawPointer(metadata + 16) : nil
      )
    }
    return Case(name: name, payloadType: payloadType, isIndirect: recordFlags & 0x1 != 0)
  }

  /// Resolves a 32-bit relative pointer; 0 means none.
  private static func relative(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
    let offset = field.load(as: Int32.self)
    return offset == 0 ? nil : field + Int(offset)
  }

  /// The length of a mangled name that may embed symbolic references (a control byte followed
  /// by a 4-byte relative or an 8-byte absolute reference, which may contain zeros).
  private static func mangledNameLength(_ name: UnsafePointer<UInt8>) -> Int {
    var index = 0
    while name[index] != 0 {
      switch name[index] {
      case 0x01...0x17: index += 5
      case 0x18...0x1F: index += 9
      default: index += 1
      }
    }
    return index
  }
}
