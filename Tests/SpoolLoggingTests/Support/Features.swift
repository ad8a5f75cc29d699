import Spool

/// An error an effect throws and does not handle.
struct PaymentDeclined: Error, Equatable {}

/// A feature with an effect whose error nothing handles, and a presented child.
struct Checkout: Reducer {
  struct State: Equatable, Sendable {
    var paid = false
    var receipt: Receipt.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case pay(amount: Int)
    case paid
    case receipt(Receipt.Action)
  }

  /// The line where `pay`'s effect is created: the location its unhandled error reports.
  static let payEffectLine: UInt = #line + 6

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .pay:
        return .run { _ in throw PaymentDeclined() }
      case .paid:
        state.paid = true
        return .none
      case .receipt:
        return .none
      }
    }
    .ifLet(\.receipt, action: \.receipt) { Receipt() }
  }
}

/// The presented child of ``Checkout``.
struct Receipt: Reducer {
  struct State: Equatable, Sendable {}

  enum Action: Equatable, Sendable {
    case print
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}
