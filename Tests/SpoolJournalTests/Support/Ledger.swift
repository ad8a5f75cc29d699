import SpoolCore

/// A feature with an action of every shape `Codable` produces (no payload, unlabeled and
/// labeled payloads, nested structs, arrays, optionals, floating point, strings), and an
/// effect that sends a response back: what the journal's tests record and replay.
struct Ledger: Reducer {
  struct Entry: Codable, Equatable, Sendable {
    var id: UInt8
    var amount: Int64
    var memo: String?
  }

  struct State: Codable, Equatable, Sendable {
    var count = 0
    var total = 0
    var notes: [String] = []
    var tags: [String: Int] = [:]
    var ratio = 0.0
    var entries: [Entry] = []
    var responses = 0
  }

  enum Action: Codable, Equatable, Sendable {
    case tick
    case add(Int)
    case note(String)
    case tag(name: String, weight: Int)
    case ratio(Double, Float)
    case entry(Entry)
    case entries([Entry], flag: Bool)
    case optional(Int?)
    case extremes(Int64, UInt64, Int8, UInt16)
    case request(Int)
    case response(Int)
  }

  /// One action of each case.
  static let everyCase: [Action] = [
    .tick,
    .add(-42),
    .note("naïve — ünïcödé ✓"),
    .note(""),
    .tag(name: "a", weight: 3),
    .ratio(-0.125, 3.5),
    .entry(Entry(id: 7, amount: -9_000_000_000, memo: nil)),
    .entries([Entry(id: 1, amount: 1, memo: "x"), Entry(id: 2, amount: 2, memo: nil)], flag: true),
    .entries([], flag: false),
    .optional(nil),
    .optional(5),
    .extremes(.min, .max, -128, 65_535),
    .request(11),
  ]

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count += 1
    switch action {
    case .tick: break
    case .add(let value): state.total &+= value
    case .note(let note): state.notes.append(note)
    case .tag(let name, let weight): state.tags[name, default: 0] += weight
    case .ratio(let double, let float): state.ratio += double + Double(float)
    case .entry(let entry): state.entries.append(entry)
    case .entries(let entries, let flag): if flag { state.entries += entries }
    case .optional(let value): state.total &+= value ?? 100
    case .extremes(let low, _, let small, _): state.total &+= Int(low / 1_000_000) + Int(small)
    case .request(let value):
      return .run { send in await send(.response(value)) }
    case .response(let value):
      state.responses += 1
      state.total &+= value
    }
    return .none
  }
}

/// Another action type, for the journal of the wrong type.
enum OtherAction: Codable, Equatable, Sendable {
  case ping
}

extension Ledger {
  /// Enqueues `.add(0)`, `.add(1)`, … into `store` in batches of `batch` until `count` are
  /// enqueued, waiting for each batch to be reduced and then calling `settle` (a flush, a wait
  /// for durability); stops at the first `settle` that throws. Returns how many actions were
  /// enqueued, how many had settled before the failure, and the failure.
  static func fill(
    _ store: Store<State, Action>, upTo count: Int, batch: Int,
    settle: () async throws -> Void
  ) async -> (settled: Int, enqueued: Int, failure: (any Error)?) {
    var enqueued = 0
    var settled = 0
    while enqueued < count {
      for _ in 0..<batch {
        store.enqueue(.add(enqueued))
        enqueued += 1
      }
      await store.finish()
      do {
        try await settle()
        settled = enqueued
      } catch {
        return (settled, enqueued, error)
      }
    }
    return (settled, enqueued, nil)
  }
}
