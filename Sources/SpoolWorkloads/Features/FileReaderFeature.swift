import SpoolCore

/// The feature the `file-io` workload drives: each `.read` starts an effect that reads one
/// block of a file and reports how many bytes it got.
///
/// `.queue(reads:blocks:)` keeps a number of reads in flight: each completed read starts the
/// next queued one (of a pseudo-random block below `blocks`), until the queue is empty.
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
///
/// // 1,000 reads, 8 at a time: queue 992, start 8.
/// store.enqueue(.queue(reads: 992, blocks: 256))
/// for block in 0..<8 { store.enqueue(.read(block: block)) }
/// await store.finish()
/// ```
public struct FileReaderFeature: Reducer, Sendable {
  /// Reads asked for and done, and the bytes they returned.
  public struct State: Equatable, Sendable {
    public var requested = 0
    public var completed = 0
    public var bytes = 0
    /// Reads to start as earlier ones complete.
    public var queued = 0
    /// How many blocks the queued reads choose from.
    public var queuedBlocks = 1
    /// The generator of the queued reads' blocks.
    public var blockSeed = 0
    /// Creates the reducer.
    public init() {}
  }

  /// Read a block; a block was read; start `reads` more reads, one as each read completes.
  public enum Action: Equatable, Sendable {
    case read(block: Int)
    case blockRead(bytes: Int)
    case queue(reads: Int, blocks: Int)
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
      guard state.queued > 0 else { return .none }
      state.queued -= 1
      state.blockSeed = (state.blockSeed &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
      return reduce(into: &state, action: .read(block: state.blockSeed % state.queuedBlocks))
    case let .queue(reads, blocks):
      state.queued += max(reads, 0)
      state.queuedBlocks = max(blocks, 1)
      return .none
    }
  }
}
