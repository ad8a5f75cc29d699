import Testing

@testable import SpoolProfiling

private enum FuzzRow: Equatable, Sendable { case toggle, rename(String), move(from: Int, to: Int) }
private enum FuzzChild: Equatable, Sendable {
  case row(FuzzRow)
  case load
  case rows(id: Int, action: FuzzRow)
  case tagged([String])
}
private indirect enum FuzzTree: Equatable, Sendable { case leaf(String), node(FuzzTree) }
private enum FuzzGeneric<Payload: Equatable & Sendable>: Equatable, Sendable {
  case value(Payload)
  case none
}
private enum FuzzAction: Equatable, Sendable {
  case tapped
  case setValue(Int)
  case text(String)
  case child(FuzzChild)
  case tree(FuzzTree)
  case generic(FuzzGeneric<FuzzRow>)
  case optional(FuzzRow?)
  indirect case boxed(FuzzChild)
}

/// Seeded random action values, in random order, through the action-case label derivation that
/// the latency recorder runs on every action: each gets the label of its case path, a case
/// keeps its slot whatever its payload and whenever it is first seen, and the value itself is
/// left intact (payloads with heap storage included: the table reads a copy of the bytes).
@Suite(.timeLimit(.minutes(10)))
struct ActionCaseTableFuzzTests {
  @Test func randomActionsGetTheirCasePathLabels() {
    let configuration = FuzzConfiguration(defaultSeed: 0xCA5E_0001, defaultIterations: 20_000)
    print("ActionCaseTableFuzzTests: \(configuration)")
    var random = SeededGenerator(seed: configuration.seed)
    var table = ActionCaseTable(
      actionType: FuzzAction.self, size: MemoryLayout<FuzzAction>.size,
      alignment: MemoryLayout<FuzzAction>.alignment)
    var slots: [String: Int] = [:]
    for iteration in 0..<configuration.iterations {
      let (action, label) = Self.randomAction(using: &random)
      let copy = action
      let slot = table.slot(of: action)
      let context = "iteration \(iteration), \(configuration)"
      #expect(table.labels.indices.contains(slot), "\(context)")
      guard table.labels.indices.contains(slot) else { return }
      #expect(table.labels[slot] == label, "\(action), \(context)")
      #expect(slots[label, default: slot] == slot, "\(label) moved, \(context)")
      slots[label] = slot
      #expect(action == copy, "\(context)")
    }
    // Every label appears once in the table.
    #expect(Set(table.labels).count == table.labels.count, "\(configuration)")
  }

  private static func randomString(using random: inout SeededGenerator) -> String {
    // Empty, small (stored inline) or large (heap storage that a stray release would free).
    let length = [0, 3, 15, 16, 200][random.below(5)]
    return String((0..<length).map { _ in Character(UnicodeScalar(UInt8(97 + random.below(26)))) })
  }

  private static func randomRow(using random: inout SeededGenerator) -> (FuzzRow, String) {
    switch random.below(3) {
    case 0: (.toggle, "toggle")
    case 1: (.rename(randomString(using: &random)), "rename")
    default: (.move(from: Int(truncatingIfNeeded: random.next()), to: random.below(10)), "move")
    }
  }

  private static func randomChild(using random: inout SeededGenerator) -> (FuzzChild, String) {
    switch random.below(4) {
    case 0:
      let (row, label) = randomRow(using: &random)
      return (.row(row), "row(.\(label))")
    case 1: return (.load, "load")
    case 2: return (.rows(id: random.below(100), action: randomRow(using: &random).0), "rows")
    default:
      return (.tagged((0..<random.below(4)).map { _ in randomString(using: &random) }), "tagged")
    }
  }

  private static func randomAction(using random: inout SeededGenerator) -> (FuzzAction, String) {
    switch random.below(8) {
    case 0: return (.tapped, "tapped")
    case 1: return (.setValue(Int(truncatingIfNeeded: random.next())), "setValue")
    case 2: return (.text(randomString(using: &random)), "text")
    case 3:
      let (child, label) = randomChild(using: &random)
      return (.child(child), "child(.\(label))")
    case 4:
      let tree: FuzzTree = random.oneIn(2)
        ? .leaf(randomString(using: &random)) : .node(.leaf(randomString(using: &random)))
      let label = if case .leaf = tree { "tree(.leaf)" } else { "tree(.node)" }
      return (.tree(tree), label)
    case 5:
      if random.oneIn(3) { return (.generic(.none), "generic(.none)") }
      let (row, label) = randomRow(using: &random)
      return (.generic(.value(row)), "generic(.value(.\(label)))")
    case 6:
      // An optional payload is not descended into (as a tuple payload is not).
      return (.optional(random.oneIn(3) ? nil : randomRow(using: &random).0), "optional")
    default:
      return (.boxed(randomChild(using: &random).0), "boxed")
    }
  }
}
