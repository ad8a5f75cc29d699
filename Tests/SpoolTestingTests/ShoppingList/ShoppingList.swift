import Dependencies
import Foundation
import IdentifiedCollections
import Spool

/// A TCA-style shopping list written with `@Reducer`: rows run by `forEach`, added at the top,
/// and a second after the last toggle the bought items move to the bottom, once per burst.
@Reducer
struct ShoppingList {
  struct State: Equatable, Sendable {
    var items: IdentifiedArrayOf<Item.State> = []
  }

  enum Action: Sendable {
    case addButtonTapped
    case deleteButtonTapped(id: Item.State.ID)
    case items(IdentifiedActionOf<Item>)
    case sortBoughtItems
  }

  enum CancelID {
    case sort
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.items.insert(Item.State(id: uuid()), at: 0)
        return .none
      case let .deleteButtonTapped(id):
        state.items.remove(id: id)
        return .none
      case .items(.element(id: _, action: .toggled)):
        // A burst of toggles sorts once: each toggle restarts the wait.
        return .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.sortBoughtItems)
        }
        .cancellable(id: CancelID.sort, cancelInFlight: true)
      case .items:
        return .none
      case .sortBoughtItems:
        // Stable: items keep their order within the unbought and the bought ones.
        let unbought = state.items.filter { !$0.isBought }
        let bought = state.items.filter(\.isBought)
        state.items = IdentifiedArray(uniqueElements: unbought + bought)
        return .none
      }
    }
    .forEach(\.items, action: \.items) {
      Item()
    }
  }
}

extension ShoppingList {
  /// A row: a name to edit and a box to tick once bought.
  @Reducer
  struct Item {
    struct State: Equatable, Identifiable, Sendable {
      let id: UUID
      var name = ""
      var isBought = false
    }

    enum Action: Sendable {
      case nameChanged(String)
      case toggled
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .nameChanged(name):
        state.name = name
        return .none
      case .toggled:
        state.isBought.toggle()
        return .none
      }
    }
  }
}
