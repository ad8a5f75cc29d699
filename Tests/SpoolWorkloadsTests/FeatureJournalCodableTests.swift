import SpoolJournal
import Testing

@testable import SpoolWorkloads

/// The workloads' features write their actions in the journal's compact encoding, and read
/// every case back as it was.
@Suite struct FeatureJournalCodableTests {
  /// Records `actions` straight through a recorder, then loads the journal back.
  func roundTrip<Action: Codable & Sendable & JournalCodable>(
    _ actions: [Action], _ name: String
  ) async throws -> [Action] {
    let folder = try JournalWorkload.TemporaryFolder(name)
    defer { folder.remove() }
    let path = folder.path + "/" + name
    let recorder = try ActionJournal<Action>.recording(to: path)
    var time: UInt64 = 1_000
    for action in actions {
      time += 25
      recorder.actionReduced(action, enqueuedAt: time, startedAt: time, endedAt: time)
    }
    let summary = try await recorder.finish()
    #expect(summary.actions == actions.count)
    let contents = try await ActionJournal<Action>(path: path).load()
    #expect(contents.enqueueTimes == (1...actions.count).map { 1_000 + 25 * UInt64($0) })
    return contents.actions
  }

  @Test func counterActionsRoundTrip() async throws {
    let actions: [CounterFeature.Action] = [.increment, .add(0), .add(-5), .add(.max), .add(.min)]
    #expect(try await roundTrip(actions, "counter") == actions)
  }

  @Test func effectsActionsRoundTrip() async throws {
    let actions: [EffectsFeature.Action] = [
      .request(0), .response(0), .request(-1), .response(.max), .request(.min),
    ]
    #expect(try await roundTrip(actions, "effects") == actions)
  }
}
