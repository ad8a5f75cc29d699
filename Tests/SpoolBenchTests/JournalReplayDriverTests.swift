import Foundation
import Spool
import SpoolIO
import SpoolJournal
import Testing

@testable import SpoolBench

/// `WorkloadDriver.replaying`: a recorded journal as a workload's action stream, whose final
/// state must be the recorded one.
@Suite struct JournalReplayDriverTests {
  /// Records `actions` additions into a journal under `folder`; with `finalState`, the
  /// recorder writes the state's checksum at the end.
  static func record(
    _ actions: Int, in folder: TemporaryFolder, finalState: Bool = true
  ) async throws -> ActionJournal<Tally.Action> {
    let path = folder.path + "/tally"
    let recorder = try ActionJournal<Tally.Action>.recording(to: path)
    let store = Store(initialState: Tally.State(), instrumentation: recorder) { Tally() }
    for index in 0..<actions { store.enqueue(.add(index)) }
    await store.finish()
    if finalState {
      _ = try await recorder.finish(finalState: await store.state)
    } else {
      _ = try await recorder.finish()
    }
    return ActionJournal<Tally.Action>(path: path)
  }

  static func replay(
    _ journal: ActionJournal<Tally.Action>, requiringVerification: Bool = true,
    reducer: @escaping @Sendable () -> some Reducer<Tally.State, Tally.Action> & SendableMetatype
  ) -> Workload {
    Workload(
      "tally-replay", summary: "replays a tally", defaultActions: 1,
      initialState: Tally.State(), reducer: reducer,
      driver: .replaying(journal, requiringVerification: requiringVerification),
      check: Tally.check)
  }

  @Test func aReplayReportsTheJournalsVolumeAndReproducesTheState() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let journal = try await Self.record(2_000, in: folder)
    let reports = try await Self.replay(journal) { Tally().discardingEffects() }
      .run(WorkloadOptions(actions: 5), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.actions == 2_000, "the journal's volume, not --actions")
    #expect(report.parameters["producer"] == "replay")
  }

  /// A reducer that reduces differently from the recorded one ends in another state: the run
  /// fails with the journal's error naming both checksums.
  @Test func aDifferentStateFailsTheRun() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let journal = try await Self.record(100, in: folder)
    let doubling: @Sendable () -> Reduce<Tally.State, Tally.Action> = {
      Reduce { state, action in
        if case .add(let value) = action {
          state.count += 1
          state.sum &+= 2 * value
        }
        return .none
      }
    }
    await #expect {
      _ = try await Self.replay(journal, reducer: doubling)
        .run(WorkloadOptions(), progress: BenchProgress())
    } throws: { error in
      guard let error = error as? JournalError,
        error.code == .stateMismatch
      else { return false }
      return true
    }
  }

  /// A journal recorded without its final state cannot prove the replay: the run fails unless
  /// told not to require it.
  @Test func anUnverifiableJournalFailsUnlessAllowed() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let journal = try await Self.record(50, in: folder, finalState: false)
    await #expect(throws: WorkloadCheckError.self) {
      _ = try await Self.replay(journal) { Tally() }
        .run(WorkloadOptions(), progress: BenchProgress())
    }
    let reports = try await Self.replay(journal, requiringVerification: false) { Tally() }
      .run(WorkloadOptions(), progress: BenchProgress())
    #expect(reports.first?.actions == 50)
  }

  /// A file that is not a journal fails the run with the journal's one-line error.
  @Test func aForeignFileFailsTheRun() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/tally"
    Array("not a journal at all".utf8).withUnsafeBytes { bytes in
      let file = fopen(path + ".0.journal", "w")
      defer { fclose(file) }
      fwrite(bytes.baseAddress, 1, bytes.count, file)
    }
    await #expect {
      _ = try await Self.replay(ActionJournal<Tally.Action>(path: path)) { Tally() }
        .run(WorkloadOptions(), progress: BenchProgress())
    } throws: { error in
      (error as? JournalError)?.description.contains("tally.0.journal") == true
    }
  }
}
