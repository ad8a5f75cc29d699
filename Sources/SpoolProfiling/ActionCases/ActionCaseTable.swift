/// Maps actions to small integer slots, one per action case, computing each case's label once.
///
/// The label of a case is its name; a case whose payload is itself an enum is flattened into a
/// path: `child(.row(.toggle))`. Tuple payloads, boxed (`indirect`) payloads and other payload
/// types are not descended into: `rows(id:action:)` is labeled `rows`.
///
/// Budget (hot path, a cache hit): one value-witness call per nesting level, an array read, no
/// allocation. A miss reads the field descriptor and builds the label string once.
///
/// Not thread-safe: the owner (``LatencyRecorder``) keeps it under its lock.
struct ActionCaseTable<Action> {
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
  private(set) var labels: [String] = []
  /// `nodes[0]` is `Action` itself; empty when `Action` is not an enum we can read.
  private var nodes: [Node] = []

  init() {
    if let layout = EnumLayout(Action.self) {
      nodes.append(
        Node(
          layout: layout, prefix: "", suffix: "",
          entries: Array(repeating: .unknown, count: layout.caseCount)))
    } else {
      labels.append(String(describing: Action.self))
    }
  }

  /// The slot of `action`'s case, adding it on first sight.
  ///
  /// - Complexity: O(nesting depth); no allocation on a hit.
  mutating func slot(of action: borrowing Action) -> Int {
    guard !nodes.isEmpty else { return 0 }
    let size = MemoryLayout<Action>.size
    return withUnsafeBytes(of: action) { bytes in
      let root = nodes[0]
      let tag = root.layout.tag(at: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)
      if case .leaf(let slot) = root.entries[tag] { return slot }
      // A nested case or a miss: walk a scratch copy that owns nothing (the bytes are copied,
      // not retained) so payload projection cannot disturb the caller's value.
      return withUnsafeTemporaryAllocation(
        byteCount: Swift.max(size, 1), alignment: MemoryLayout<Action>.alignment
      ) { scratch in
        let base = scratch.baseAddress!
        if size > 0 { base.copyMemory(from: bytes.baseAddress!, byteCount: size) }
        return resolve(at: base, node: 0)
      }
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
