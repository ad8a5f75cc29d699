import Clocks
import Dependencies
import Foundation
import IdentifiedCollections
import Spool
import SpoolTesting
import Testing

@Suite struct ShoppingListTests {
  typealias Item = ShoppingList.Item

  /// Three unbought items, "A", "B", "C", with IDs 0, 1, 2.
  static let abc: IdentifiedArrayOf<Item.State> = [
    Item.State(id: UUID(0), name: "A"),
    Item.State(id: UUID(1), name: "B"),
    Item.State(id: UUID(2), name: "C"),
  ]

  @Test func addInsertsAtTheTop() async {
    let store = TestStore(initialState: ShoppingList.State()) {
      ShoppingList()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addButtonTapped) {
      $0.items = [Item.State(id: UUID(0))]
    }
    await store.send(.addButtonTapped) {
      $0.items = [Item.State(id: UUID(1)), Item.State(id: UUID(0))]
    }
  }

  @Test func renameChangesThatItemOnly() async {
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) { ShoppingList() }
    await store.send(\.items[id: UUID(1)].nameChanged, "Bread") {
      $0.items[id: UUID(1)]?.name = "Bread"
    }
  }

  @Test func deleteRemovesTheItem() async {
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) { ShoppingList() }
    await store.send(.deleteButtonTapped(id: UUID(1))) {
      $0.items.remove(id: UUID(1))
    }
    #expect(store.state.items.map(\.name) == ["A", "C"])
  }

  @Test func aToggleSortsASecondLater() async {
    let clock = TestClock()
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) {
      ShoppingList()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(\.items[id: UUID(0)].toggled) {
      $0.items[id: UUID(0)]?.isBought = true
    }
    await clock.advance(by: .milliseconds(999))
    // An exhaustive store fails a send while a received action waits: no sort came early.
    await store.send(\.items[id: UUID(2)].nameChanged, "C")
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.sortBoughtItems) {
      $0.items = [Self.abc[1], Self.abc[2], Item.State(id: UUID(0), name: "A", isBought: true)]
    }
  }

  @Test func aBurstOfTogglesSortsOnce() async {
    let clock = TestClock()
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) {
      ShoppingList()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(\.items[id: UUID(0)].toggled) {
      $0.items[id: UUID(0)]?.isBought = true
    }
    await clock.advance(by: .milliseconds(500))
    await store.send(\.items[id: UUID(1)].toggled) {
      $0.items[id: UUID(1)]?.isBought = true
    }
    // One second after the first toggle, half a second after the second: nothing yet.
    await clock.advance(by: .milliseconds(500))
    await store.send(\.items[id: UUID(2)].nameChanged, "C")
    await clock.advance(by: .milliseconds(500))
    await store.receive(\.sortBoughtItems) {
      $0.items = [
        Self.abc[2],
        Item.State(id: UUID(0), name: "A", isBought: true),
        Item.State(id: UUID(1), name: "B", isBought: true),
      ]
    }
    // The first toggle's sort was cancelled: no second sort comes, however long one waits.
    // Virtual time, not `clock.run()`, whose wall-clock timeout (0.5 s) a loaded machine
    // overran.
    await clock.advance(by: .seconds(60))
    await store.finish()
  }

  @Test func deletingWhileASortIsPendingKeepsTheOthersOrder() async {
    let clock = TestClock()
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) {
      ShoppingList()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(\.items[id: UUID(0)].toggled) {
      $0.items[id: UUID(0)]?.isBought = true
    }
    await store.send(.deleteButtonTapped(id: UUID(2))) {
      $0.items.remove(id: UUID(2))
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.sortBoughtItems) {
      $0.items = [Self.abc[1], Item.State(id: UUID(0), name: "A", isBought: true)]
    }
  }

  /// A bought item ticked again within the second is unbought when the sort runs: the order
  /// stays.
  @Test func toggledTwiceTheOrderStays() async {
    let clock = TestClock()
    let store = TestStore(initialState: ShoppingList.State(items: Self.abc)) {
      ShoppingList()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(\.items[id: UUID(0)].toggled) {
      $0.items[id: UUID(0)]?.isBought = true
    }
    await store.send(\.items[id: UUID(0)].toggled) {
      $0.items[id: UUID(0)]?.isBought = false
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.sortBoughtItems)
  }
}
