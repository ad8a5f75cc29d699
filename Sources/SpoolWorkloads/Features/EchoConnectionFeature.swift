import SpoolCore

/// One connection of ``EchoServerFeature``: an effect receives, reports each message to the
/// store, and writes it back, until the client closes.
///
/// The echo is written by the same effect that received it, after reporting, so that the
/// bytes of one connection go back in the order they came, whatever the segmentation.
///
/// ```swift
/// EchoServerFeature(listener: listener)  // runs one EchoConnectionFeature per connection
/// ```
public struct EchoConnectionFeature: Reducer, Sendable {
  /// A connection and what it echoed.
  public struct State: Identifiable, Sendable {
    public let id: Int
    let connection: TCPConnection
    public var receives = 0
    public var bytes = 0

    /// A connection just accepted.
    public init(id: Int, connection: TCPConnection) {
      self.id = id
      self.connection = connection
    }
  }

  /// Start echoing; bytes received; the client closed.
  public enum Action: Equatable, Sendable {
    case start
    case received(bytes: Int)
    case closed
  }

  /// Creates the reducer.

  public init() {}

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [connection = state.connection] send in
        while case let bytes = try await connection.receive(65_536), !bytes.isEmpty {
          await send(.received(bytes: bytes.count))
          try await connection.send(bytes)
        }
        try await connection.close()
        await send(.closed)
      }
    case let .received(bytes):
      state.receives += 1
      state.bytes += bytes
      return .none
    case .closed:
      return .none
    }
  }
}
