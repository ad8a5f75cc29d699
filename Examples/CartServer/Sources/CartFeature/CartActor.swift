/// The same cart as ``CartFeature``, written as a plain actor: the baseline the service is
/// measured against (`cart-server --backend actors`).
public actor CartActor {
  private var state = CartFeature.State()
  private var expiry: Task<Void, Never>?
  private let reservationDuration: Duration

  public init(reservationDuration: Duration = .seconds(30)) {
    self.reservationDuration = reservationDuration
  }

  /// The cart's state.
  public var snapshot: CartFeature.State { state }

  /// Adds `quantity` of `sku`; returns the state after it.
  public func addItem(sku: String, quantity: Int) -> CartFeature.State {
    state.refusal = nil
    if state.status != .open {
      state.refusal = .notOpen
    } else if quantity <= 0 {
      state.refusal = .badQuantity
    } else {
      state.items[sku, default: 0] += quantity
    }
    return state
  }

  /// Reserves the cart until the reservation expires; returns the state after it.
  public func reserve() -> CartFeature.State {
    state.refusal = nil
    if state.status != .open {
      state.refusal = .notOpen
    } else if state.items.isEmpty {
      state.refusal = .empty
    } else {
      state.status = .reserved
      expiry?.cancel()
      expiry = Task { [reservationDuration] in
        do {
          try await Task.sleep(for: reservationDuration)
        } catch {
          return
        }
        self.reservationExpired()
      }
    }
    return state
  }

  /// Checks the reserved cart out; returns the state after it.
  public func checkout() -> CartFeature.State {
    state.refusal = nil
    if state.status != .reserved {
      state.refusal = .notReserved
    } else {
      state.status = .checkedOut
      expiry?.cancel()
      expiry = nil
    }
    return state
  }

  private func reservationExpired() {
    if state.status == .reserved { state.status = .open }
    expiry = nil
  }
}
