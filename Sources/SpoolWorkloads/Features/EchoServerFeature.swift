import CasePathsCore
import IdentifiedCollections
import SpoolCore

/// The feature the `echo` workload drives: a TCP echo server whose connections are child
/// features (``EchoConnectionFeature``) of one store, in an `IdentifiedArray` run by
/// `forEach`.
///
/// ```swift
/// let listener = try await NetworkClient.live(on: .shared).listen("127.0.0.1", 0)
/// let store = Store(initialState: EchoServerFeature.State()) {
///   EchoServerFeature(listener: listener)
/// }
/// store.enqueue(.start)
/// ```
public struct EchoServerFeature: Reducer, Sendable {
  /// The open connections and the totals of the server.
  public struct State: Sendable {
    public var connections: IdentifiedArrayOf<EchoConnectionFeature.State> = []
    public var accepted = 0
    public var closed = 0
    public var bytesEchoed = 0
    /// Creates the reducer.
    public init() {}
  }

  /// Accept connections, a connection accepted, a connection's action, stop accepting.
  public enum Action: Sendable {
    case start
    case accepted(id: Int, connection: TCPConnection)
    case connections(IdentifiedActionOf<EchoConnectionFeature>)
    case stop
  }

  enum CancelID { case accept }

  let listener: TCPListener

  /// A server that accepts on `listener` once it receives `.start`.
  public init(listener: TCPListener) {
    self.listener = listener
  }

  /// The parent's own reducer, then `forEach` over the connections.

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .start:
        return .run { [listener] send in
          var id = 0
          while true {
            let connection = try await listener.accept()
            await send(.accepted(id: id, connection: connection))
            id += 1
          }
        }
        .cancellable(id: CancelID.accept)
      case let .accepted(id, connection):
        state.accepted += 1
        state.connections.append(EchoConnectionFeature.State(id: id, connection: connection))
        return .send(.connections(.element(id: id, action: .start)))
      case let .connections(.element(_, .received(bytes))):
        state.bytesEchoed += bytes
        return .none
      case let .connections(.element(id, .closed)):
        state.connections.remove(id: id)
        state.closed += 1
        return .none
      case .connections:
        return .none
      case .stop:
        return .cancel(id: CancelID.accept)
      }
    }
    .forEach(\.connections, action: \.connections) {
      EchoConnectionFeature()
    }
  }
}
