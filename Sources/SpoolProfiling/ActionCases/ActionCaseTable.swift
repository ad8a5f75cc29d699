import SpoolCore

/// Maps actions to small integer slots, one per action case, computing each case's label once.
///
/// The label of a case is its name; a case whose payload is itself an enum is flattened into a
/// path: `child(.row(.toggle))`. Tuple payloads, boxed (`indirect`) payloads and other payload
/// types are not descended into: `rows(id:action:)` is labeled `rows`.
///
/// Budget (hot path, a cache hit): one value-witness call per nesting level, an array read, no
/// allocation. A miss reads the field descriptor and builds the label string once.
///
/// Not generic on purpose: a generic table, called from the store's unspecialized generic code,
/// instantiated generic metadata on every action, which cost many times the rest of the
/// recorder (a profile of `spool bench instrumentation`). It works on the bytes of a value of
/// the type it was made for.
///
/// Not thread-safe: the owner (``LatencyRecorder``, or `SpoolMetrics`' instrumentations, which
/// reach it as a `package` type) keeps it under its lock.
package struct ActionCaseTable {
  private enum Entry {
    case unknown
    case leaf(slot: Int)
    case nested(node: Int)
  }

  /// One enum type on a path from `Action`, with the label text around its case name.
  private struct Node {
    var layout: EnumLayout
    var prefix: String
    var suffix: String
    var entries: [Entry]
  }

  /// Labels, indexed by slot.
  package private(set) var labels: [String] = []
  /// `nodes[0]` is the action type itself; empty when it is not an enum we can read.
  private var nodes: [Node] = []
  private let size: Int
  private let alignment: Int

  /// Creates the table of `actionType`, whose values the caller passes by address.
  package init(actionType: Any.Type, size: Int, alignment: Int) {
    self.size = size
    self.alignment = alignment
    if let layout = EnumLayout(actionType) {
      nodes.append(
        Node(
          layout: layout, prefix: "", suffix: "",
          entries: Array(repeating: .unknown, count: layout.caseCount)))
    } else {
      labels.append(String(describing: actionType))
    }
  }

  /// The slot of the case of the action at `value`, adding it on first sight.
  ///
  /// - Parameter value: The address of a value of the table's action type.
  /// - Complexity: O(nesting depth); no allocation on a hit.
  package mutating func slot(ofValueAt value: UnsafeRawPointer) -> Int {
    guard !nodes.isEmpty else { return 0 }
    let tag = nodes[0].layout.tag(at: value)
    if tag < nodes[0].entries.count, case .leaf(let slot) = nodes[0].entries[tag] {
      return slot
    }
    // A nested case or a miss: walk a scratch copy that owns nothing (the bytes are copied,
    // not retained) so payload projection cannot disturb the caller's value.
    return withUnsafeTemporaryAllocation(
      byteCount: Swift.max(size, 1), alignment: alignment
    ) { scratch in
      let base = scratch.baseAddress!
      if size > 0 { base.copyMemory(from: value, byteCount: size) }
      return resolve(at: base, node: 0)
    }
  }

  /// What reads the top-level case of a value without the table, from any thread.
  package var tagReader: ActionTagReader { ActionTagReader(layout: nodes.first?.layout) }

  /// The slot of the top-level case with tag `tag` when that case has no enum payload to
  /// descend into and the table has seen it; `nil` otherwise.
  ///
  /// A caller that read `tag` with ``tagReader`` may then skip ``slot(ofValueAt:)`` for that
  /// case: its slot never changes once learned.
  package func leafSlot(topLevelTag tag: Int) -> Int? {
    guard !nodes.isEmpty else { return tag == 0 ? 0 : nil }
    guard tag >= 0, tag < nodes[0].entries.count, case .leaf(let slot) = nodes[0].entries[tag]
    else { return nil }
    return slot
  }

  /// Per top-level tag, the slot of that case when it is a leaf, or `nil` when its payload is
  /// an enum the table descends into; learns every top-level case it had not seen. A type
  /// that is not an enum the table reads has one tag, 0, whose slot is 0.
  package mutating func learnTopLevelLeafSlots() -> [Int?] {
    guard !nodes.isEmpty else { return [0] }
    return nodes[0].entries.indices.map { tag in
      if case .unknown = nodes[0].entries[tag] {
        nodes[0].entries[tag] = learn(tag: tag, in: 0)
      }
      if case .leaf(let slot) = nodes[0].entries[tag] { return slot }
      return nil
    }
  }

  /// The action type's metadata and its `getEnumTag` witness, for a reader of top-level tags
  /// outside the table (``StoreCaseCounts``); `nil` for a type that is not an enum the table
  /// reads, or that has one case.
  package var topLevelTagWitness: (metadata: UnsafeRawPointer, witness: StoreCaseCounts.ReadTag)? {
    guard let layout = nodes.first?.layout, layout.caseCount > 1 else { return nil }
    return (layout.metadata, layout.getEnumTag)
  }

  /// The slot of `action`'s case; a convenience for tests and cold paths.
  mutating func slot<Action>(of action: borrowing Action) -> Int {
    withUnsafeBytes(of: action) { bytes in
      slot(ofValueAt: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: alignment)!)
    }
  }

  private mutating func resolve(at value: UnsafeMutableRawPointer, node start: Int) -> Int {
    var node = start
    while true {
      let tag = nodes[node].layout.tag(at: value)
      guard tag >= 0, tag < nodes[node].entries.count else {
        preconditionFailure("Internal inconsistency: enum tag \(tag) out of range")
      }
      switch nodes[node].entries[tag] {
      case .leaf(let slot):
        return slot
      case .nested(let child):
        nodes[node].layout.projectPayload(at: value)
        node = child
      case .unknown:
        nodes[node].entries[tag] = learn(tag: tag, in: node)
      }
    }
  }

  /// Reads the descriptor of case `tag` of `nodes[node]` and decides its entry.
  private mutating func learn(tag: Int, in node: Int) -> Entry {
    let parent = nodes[node]
    guard let info = parent.layout.caseInfo(tag: tag) else {
      return .leaf(slot: addLabel(parent.prefix + "case\(tag)" + parent.suffix))
    }
    if !info.isIndirect, let payloadType = info.payloadType,
      let childLayout = EnumLayout(payloadType)
    {
      nodes.append(
        Node(
          layout: childLayout,
          prefix: parent.prefix + info.name + "(.",
          suffix: ")" + parent.suffix,
          entries: Array(repeating: .unknown, count: childLayout.caseCount)))
      return .nested(node: nodes.count - 1)
    }
    return .leaf(slot: addLabel(parent.prefix + info.name + parent.suffix))
  }

  private mutating func addLabel(_ label: String) -> Int {
    // Two paths can produce the same text only through a generic payload; keep one slot each.
    labels.append(label)
    return labels.count - 1
  }
}

/// Reads the tag of the top-level case of a value of an ``ActionCaseTable``'s action type: one
/// value-witness call, no allocation, no lock; 0 for a type that is not an enum the table reads.
///
/// Sendable without a check (`@unchecked`): it holds only the type's metadata pointer and two
/// value-witness function pointers, which the runtime never moves or frees, and never writes.
package struct ActionTagReader: @unchecked Sendable {
  private let layout: EnumLayout?

  fileprivate init(layout: EnumLayout?) {
    self.layout = layout
  }

  /// How many tags ``tag(ofValueAt:)`` can return.
  package var caseCount: Int { layout?.caseCount ?? 1 }

  /// The top-level tag of the value at `value`, in `0..<caseCount`.
  @inline(__always)
  package func tag(ofValueAt value: UnsafeRawPointer) -> Int {
    layout?.tag(at: value) ?? 0
  }
}
