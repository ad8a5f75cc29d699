import Foundation
#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Real HTTP requests to a server on this machine's loopback, through URLSession.
struct HTTPClient {
  let base: URL
  let session: URLSession

  init(port: Int) {
    base = URL(string: "http://127.0.0.1:\(port)")!
    let configuration = URLSessionConfiguration.ephemeral
    // A hung server fails the request (and the test) instead of hanging it.
    configuration.timeoutIntervalForRequest = 30
    session = URLSession(configuration: configuration)
  }

  /// Sends `method` to `path` with an optional JSON body; returns the status and the body.
  func request(
    _ method: String, _ path: String, json: String? = nil
  ) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: base.appendingPathComponent(path))
    request.httpMethod = method
    if let json {
      request.httpBody = Data(json.utf8)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await session.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    return (status, String(decoding: data, as: UTF8.self))
  }
}
