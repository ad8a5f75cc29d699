import Spool

/// The feature the `file-io` workload drives: each `.read` starts an effect that reads one
/// block of a file and reports how many bytes it got.
///
/// ```swift
/// let file = try await IOFile.open(path)
/// let store = Store(initialState: FileReaderFeature.State()) {
///   FileReaderFeature(blockSize: 4096) { offset in
///     try await file.read(upTo: 4096, at: offset).count
///   }
/// }
/// store.enqueue(.read(block: 7))
/// await store.finish()
/// ```
public struct FileReaderFeature: Reducer, Sendable {
  /// Reads asked for and done, and the bytes they returned.
  public struct State: Equatable, Sendable {
    public var requested = 0
    public var completed = 0
    public var bytes = 0
    /// Creates the reducer.
    public init() {}
  }

  /// Read a block; a block was read.
  public enum Action: Equatable, Sendable {
    case read(block: Int)
    case blockRead(bytes: Int)
  }

  let blockSize: Int
  let readBlock: @Sendable (_ offset: UInt64) async throws -> Int

  /// A reader of `blockSize`-byte blocks through `readBlock`, which returns the bytes it read.
  public init(
    blockSize: Int, readBlock: @escaping @Sendable (_ offset: UInt64) async throws -> Int
  ) {
    self.blockSize = blockSize
    self.readBlock = readBlock
  }

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .read(block):
      state.requested += 1
      let offset = UInt64(block * blockSize)
      return .run { [readBlock] send in
        await send(.blockRead(bytes: try await readBlock(offset)))
      }
    case let .blockRead(bytes):
      state.completed += 1
      state.bytes += bytes
      return .none
    }
  }
}
