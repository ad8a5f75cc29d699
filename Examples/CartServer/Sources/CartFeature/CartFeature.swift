import Dependencies
import Spool

/// One shopping cart: items are added while it is open; a reservation holds it for a while
/// (and expires by itself, through a cancellable timer); checkout ends it.
@Reducer
public struct CartFeature: Sendable {
  /// The cart's state, as the service returns it.
  public struct State: Equatable, Sendable, Codable {
    /// The quantity of each item, by SKU.
    public var items: [String: Int] = [:]
    /// Where the cart is in its life.
    public var status: Status = .open
    /// Why the last action was refused, `nil` when it was carried out.
    public var refusal: Refusal?

    public init(items: [String: Int] = [:], status: Status = .open, refusal: Refusal? = nil) {
      self.items = items
      self.status = status
      self.refusal = refusal
    }
  }

  /// Where a cart is in its life.
  public enum Status: String, Equatable, Sendable, Codable {
    /// Items can be added.
    case open
    /// Held for checkout until the reservation expires.
    case reserved
    /// Done: nothing changes any more.
    case checkedOut
  }

  /// Why an action was refused.
  public enum Refusal: String, Equatable, Sendable, Codable {
    /// Items can be added to an open cart only.
    case notOpen
    /// A quantity must be at least 1.
    case badQuantity
    /// An empty cart cannot be reserved.
    case empty
    /// Checkout needs a reservation that has not expired.
    case notReserved
  }

  /// Codable, so that a journal can record the actions and replay them.
  public enum Action: Equatable, Sendable, Codable {
    case addItem(sku: String, quantity: Int)
    case reserve
    case reservationExpired
    case checkout
    /// Sent once to a cart recovered from its journal: a replay runs no effect, so a reserved
    /// cart's expiry timer is armed again here (for a whole reservation, since the time of
    /// the original one is not journaled).
    case recovered
  }

  enum CancelID { case reservation }

  /// How long a reservation holds the cart.
  public var reservationDuration: Duration

  @Dependency(\.continuousClock) var clock

  public init(reservationDuration: Duration = .seconds(30)) {
    self.reservationDuration = reservationDuration
  }

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      state.refusal = nil
      switch action {
      case let .addItem(sku, quantity):
        guard state.status == .open else {
          state.refusal = .notOpen
          return .none
        }
        guard quantity > 0 else {
          state.refusal = .badQuantity
          return .none
        }
        state.items[sku, default: 0] += quantity
        return .none

      case .reserve:
        guard state.status == .open else {
          state.refusal = .notOpen
          return .none
        }
        guard !state.items.isEmpty else {
          state.refusal = .empty
          return .none
        }
        state.status = .reserved
        return expiry

      case .recovered:
        return state.status == .reserved ? expiry : .none

      case .reservationExpired:
        if state.status == .reserved { state.status = .open }
        return .none

      case .checkout:
        guard state.status == .reserved else {
          state.refusal = .notReserved
          return .none
        }
        state.status = .checkedOut
        return .cancel(id: CancelID.reservation)
      }
    }
  }

  /// The reservation's timer: expires it after ``reservationDuration``, unless checkout or a
  /// new reservation cancels it first.
  var expiry: Effect<Action> {
    .run { [clock, reservationDuration] send in
      try await clock.sleep(for: reservationDuration)
      await send(.reservationExpired)
    }
    .cancellable(id: CancelID.reservation, cancelInFlight: true)
  }
}
