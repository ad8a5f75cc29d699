import Dependencies
import IssueReporting

extension NetworkClient: TestDependencyKey {
  /// A client whose endpoints report an issue and throw when called; override what a test
  /// expects with `withDependencies`.
  ///
  /// ```swift
  /// withDependencies {
  ///   $0.network.connect = { _, _ in
  ///     TCPConnection(send: { _ in }, receive: { _ in [] }, close: {})
  ///   }
  /// } operation: { ... }
  /// ```
  public static var testValue: NetworkClient {
    NetworkClient(
      connect: unimplemented("NetworkClient.connect"),
      listen: unimplemented("NetworkClient.listen")
    )
  }
}

extension DependencyValues {
  /// A TCP client and server for effects. The live value is `SpoolIO`'s engine-backed client
  /// (import `SpoolIO` to register it); tests get a value that fails when used unexpectedly.
  ///
  /// ```swift
  /// @Dependency(\.network) var network
  /// let connection = try await network.connect("127.0.0.1", 6379)
  /// ```
  public var network: NetworkClient {
    get { self[NetworkClient.self] }
    set { self[NetworkClient.self] = newValue }
  }
}
