/// An error of a ``StoreRegistry`` itself (the errors of a store's creation reach the caller
/// unchanged).
///
/// Switch over ``code``; new codes may be added.
///
/// ```swift
/// do {
///   try await carts.send(.add(item), to: cartID)
/// } catch let error as StoreRegistryError where error.code == .shutDown {
///   return Response(status: .serviceUnavailable)
/// }
/// ```
public struct StoreRegistryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable {
      case shutDown
    }

    private let kind: Kind

    /// The registry is shutting down or has shut down (``StoreRegistry/shutdown(deadline:)``):
    /// it gives out no store.
    public static let shutDown = Code(kind: .shutDown)

    public var description: String {
      switch kind {
      case .shutDown: "shutDown"
      }
    }
  }

  /// What went wrong.
  public let code: Code

  /// The ID that was asked for, described.
  public let id: String

  @usableFromInline
  init(code: Code, id: some Sendable) {
    self.code = code
    self.id = String(describing: id)
  }

  public var description: String {
    switch code {
    case .shutDown:
      "The store registry has shut down: no store for ID \(id)."
    default:
      "Store registry error \(code) for ID \(id)."
    }
  }
}
