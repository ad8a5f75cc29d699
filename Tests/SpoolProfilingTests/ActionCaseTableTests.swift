import Testing

@testable import SpoolProfiling

private enum Row: Sendable { case toggle, rename(String) }
private enum Child: Sendable { case row(Row), load, rows(id: Int, action: Row) }
private indirect enum Tree: Sendable { case leaf, node(Tree) }
private enum Generic<Payload: Sendable>: Sendable { case value(Payload), none }
private enum Action: Sendable {
  case incrementButtonTapped
  case setValue(Int)
  case text(String)
  case child(Child)
  case tree(Tree)
  case generic(Generic<Row>)
  indirect case boxed(Child)
}
private struct StructAction: Sendable { var value: Int }

@Suite struct ActionCaseTableTests {
  private func labels(_ actions: [Action]) -> [String] {
    var table = ActionCaseTable(
      actionType: Action.self, size: MemoryLayout<Action>.size,
      alignment: MemoryLayout<Action>.alignment)
    return actions.map { action in
      let slot = table.slot(of: action)
      return table.labels[slot]
    }
  }

  @Test func flatCasesAreLabeledByName() {
    #expect(
      labels([.incrementButtonTapped, .setValue(3), .text("hello")])
        == ["incrementButtonTapped", "setValue", "text"])
  }

  @Test func nestedEnumPayloadsAreFlattenedIntoAPath() {
    #expect(
      labels([.child(.row(.toggle)), .child(.row(.rename("x"))), .child(.load)])
        == ["child(.row(.toggle))", "child(.row(.rename))", "child(.load)"])
    #expect(labels([.generic(.value(.toggle)), .generic(.none)])
      == ["generic(.value(.toggle))", "generic(.none)"])
    #expect(labels([.tree(.node(.leaf))]) == ["tree(.node)"])
  }

  @Test func tupleAndIndirectPayloadsAreNotDescended() {
    #expect(labels([.child(.rows(id: 1, action: .toggle))]) == ["child(.rows)"])
    #expect(labels([.boxed(.load)]) == ["boxed"])
  }

  @Test func theSameCaseKeepsItsSlotWhateverThePayload() {
    var table = ActionCaseTable(
      actionType: Action.self, size: MemoryLayout<Action>.size,
      alignment: MemoryLayout<Action>.alignment)
    let first = table.slot(of: Action.setValue(1))
    let other = table.slot(of: Action.incrementButtonTapped)
    #expect(table.slot(of: Action.setValue(2)) == first)
    #expect(table.slot(of: Action.text(String(repeating: "x", count: 100))) != first)
    #expect(table.slot(of: Action.incrementButtonTapped) == other)
    #expect(table.labels.count == 3)
  }

  @Test func aNonEnumActionTypeHasOneLabel() {
    var table = ActionCaseTable(
      actionType: StructAction.self, size: MemoryLayout<StructAction>.size,
      alignment: MemoryLayout<StructAction>.alignment)
    #expect(table.slot(of: StructAction(value: 1)) == table.slot(of: StructAction(value: 2)))
    #expect(table.labels == ["StructAction"])
  }

  @Test func slotsOfPayloadsDoNotDisturbTheValue() {
    var table = ActionCaseTable(
      actionType: Action.self, size: MemoryLayout<Action>.size,
      alignment: MemoryLayout<Action>.alignment)
    let action = Action.child(.row(.rename("keep me")))
    _ = table.slot(of: action)
    _ = table.slot(of: action)
    guard case .child(.row(.rename(let name))) = action else {
      Issue.record("action changed")
      return
    }
    #expect(name == "keep me")
  }
}
