extension IOEngine {
  /// Submits one operation that does nothing (`IORING_OP_NOP`, or a no-op job on the thread
  /// pool) and waits for its completion: the engine's own cost per operation, for the
  /// workloads that measure it (`IOBenchmarks.noOperations`).
  package func performNoOperation() async throws {
    _ = try await perform(.nop)
  }
}
