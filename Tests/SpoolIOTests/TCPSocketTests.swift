#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Testing

// Socket leaks are caught by `withEngine`, which expects the engine's count of open sockets
// (`IOEngine.openResourceDescriptors`) back at zero: a count of the process's descriptors
// cannot tell these sockets from those other suites open meanwhile.
extension SpoolIOTests {
  @Suite struct TCPSocketTests {
    @Test(arguments: allBackends)
    func echoesOverLoopback(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        async let server: Void = {
          let connection = try await listener.accept()
          while case let bytes = try await connection.receive(upTo: 1024), !bytes.isEmpty {
            try await connection.send(bytes)
          }
          try await connection.close()
        }()
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        for message in ["ping", "pong", String(repeating: "x", count: 1000)] {
          try await client.send(Array(message.utf8))
          var reply: [UInt8] = []
          while reply.count < message.utf8.count {
            reply += try await client.receive(upTo: 4096)
          }
          #expect(reply == Array(message.utf8))
        }
        try await client.close()
        try await server
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func theNetworkClientServesAndConnects(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let network = NetworkClient.live(on: engine)
        let listener = try await network.listen("127.0.0.1", 0)
        async let server: Void = {
          let connection = try await listener.accept()
          try await connection.send(try await connection.receive(4))
          try await connection.close()
        }()
        let connection = try await network.connect("localhost", listener.port)
        try await connection.send(Array("spool".utf8.prefix(4)))
        #expect(try await connection.receive(4) == Array("spoo".utf8))
        #expect(try await connection.receive(4) == [])  // the server closed
        try await connection.close()
        try await server
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func connectingToAClosedPortIsRefused(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let port = listener.localPort
        try await listener.close()
        let error = await expectIOError(ECONNREFUSED) {
          _ = try await TCPSocket.connect(host: "127.0.0.1", port: port, on: engine)
        }
        #expect(
          error?.description
            == "connect(127.0.0.1:\(port)): Connection refused (ECONNREFUSED)")
      }
    }

    @Test(arguments: allBackends)
    func aPeerResetIsReportedAsECONNRESET(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let accepted = try await listener.accept()
        // A zero linger time makes close send RST instead of FIN.
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(
          accepted.descriptor, SOL_SOCKET, SO_LINGER, &linger,
          socklen_t(MemoryLayout<Glibc.linger>.size))
        try await accepted.close()
        await expectIOError(ECONNRESET) { _ = try await client.receive(upTo: 16) }
        try await client.close()
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func aCancelledReceiveThrowsCancellationAndLosesNoData(backend: IOBackend.Preference)
      async throws
    {
      let probe = CallProbe("recv")
      try await withEngine(backend, faults: probe.injector) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let accepted = try await listener.accept()
        let waiting = Task { try await client.receive(upTo: 16) }
        // Cancel once the receive is in the kernel (or on a worker), not before it got there.
        await probe.reached()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The cancelled receive consumed nothing: the next one gets the data.
        try await accepted.send(Array("after".utf8))
        #expect(try await client.receive(upTo: 16) == Array("after".utf8))
        try await accepted.close()
        try await client.close()
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func aReceiveCancelledBeforeItStartsNeverReachesTheSocket(backend: IOBackend.Preference)
      async throws
    {
      try await withEngine(backend) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let accepted = try await listener.accept()
        let cancelled = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await client.receive(upTo: 16)
        }
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        try await accepted.send([42])
        #expect(try await client.receive(upTo: 16) == [42])
        try await accepted.close()
        try await client.close()
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func aCancelledAcceptThrowsCancellation(backend: IOBackend.Preference) async throws {
      // The accept runs on a worker of the thread backend, waiting in `poll` on the listener
      // and on the worker's eventfd, which the cancellation writes; in the kernel on io_uring.
      let probe = CallProbe("accept")
      try await withEngine(backend, faults: probe.injector) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let waiting = Task { try await listener.accept() }
        await probe.reached()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        try await listener.close()
      }
    }

    @Test(arguments: allBackends)
    func receiveRefusesNegativeCountsAndCapsLargeOnes(
      backend: IOBackend.Preference
    ) async throws {
      try await withEngine(backend) { engine in
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        async let accepted = listener.accept()
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let server = try await accepted
        let error = await expectIOError(EINVAL) { _ = try await server.receive(upTo: -1) }
        #expect(error?.operation == "recv")
        await expectIOError(EINVAL) { _ = try await server.receive(upTo: Int.min) }
        try await client.send(Array("ping".utf8))
        var received: [UInt8] = []
        while received.count < 4 { received += try await server.receive(upTo: 1 << 40) }
        #expect(received == Array("ping".utf8))
        try await client.close()
        #expect(try await server.receive(upTo: Int.max) == [])
        try await server.close()
        try await listener.close()
      }
    }
  }
}
