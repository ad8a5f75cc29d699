#if canImport(Glibc)
  import Glibc
#endif
import Clocks
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// `JournalDirectory` wired into a `StoreRegistry`: a snapshot per store on eviction, and
  /// recovery (with `.recovered`) when the registry creates the store again.
  @Suite struct JournalDirectoryTests {
    typealias Registry = StoreRegistry<Int, Reminder.State, Reminder.Action>

    func registry(
      _ journals: JournalDirectory<Int, Reminder.State, Reminder.Action>,
      clock: any Clock<Duration>
    ) -> Registry {
      Registry(onEvict: { id, state in
        do {
          try await journals.evict(id, finalState: state)
        } catch {
          Issue.record("evicting \(id): \(error)")
        }
      }) { id in
        try await journals.makeStore(
          for: id, initialState: Reminder.State(), recovered: .recovered
        ) {
          Reminder(clock: clock)
        }
      }
    }

    /// Two stores armed, the registry shut down (every store evicted: a snapshot each, the
    /// files before it removed); a new registry on the same folder recovers each store from
    /// its snapshot, and `.recovered` re-arms the reminder that was armed, which fires.
    @Test func evictionSnapshotsAndCreationRecovers() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let journals = JournalDirectory<Int, Reminder.State, Reminder.Action>(
        folder: directory.path)
      let first = registry(journals, clock: ContinuousClock())
      _ = try await first.send(.arm, to: 1)
      _ = try await first.send(.recovered, to: 2)
      // Effects cancelled at once: the armed reminder's timer stops, as in a process that ends.
      await first.shutdown(deadline: .now)
      let names = directory.entries().sorted()
      // Each journal: the first run's file 0 was removed; file 1 holds the snapshot; the lock
      // file stays (it holds nothing).
      #expect(names == ["1.1.journal", "1.lock", "2.1.journal", "2.lock"])

      let second = registry(journals, clock: ImmediateClock())
      let fired = try await second.withStore(1) { store in
        await store.finish()
        return await store.state
      }
      #expect(fired == Reminder.State(armed: false, fired: true))
      let idle = try await second.send(.recovered, to: 2) { $0 }
      #expect(idle == Reminder.State())
      await second.shutdown(deadline: .now)

      let recovery = try await journals.journal(for: 1).recover(
        initialState: Reminder.State()
      ) { Reminder(clock: ContinuousClock()) }
      #expect(recovery.state == fired)
      #expect(recovery.snapshotFile == directory.file("1.3.journal"))
      #expect(recovery.verification == .verified(checksum: try StateChecksum.of(fired)))
    }

    /// A second store of an ID whose first was not evicted is refused, naming the journal;
    /// evicting an ID that has no store writes nothing.
    @Test func aSecondStoreOfAnIDIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let journals = JournalDirectory<Int, Reminder.State, Reminder.Action>(
        folder: directory.path)
      let store = try await journals.makeStore(for: 7, initialState: Reminder.State()) {
        Reminder(clock: ContinuousClock())
      }
      do {
        _ = try await journals.makeStore(for: 7, initialState: Reminder.State()) {
          Reminder(clock: ContinuousClock())
        }
        Issue.record("a second store of one ID was made")
      } catch {
        #expect(error.code == .inUse)
        #expect(error.file == directory.file("7"))
      }
      #expect(try await journals.evict(8, finalState: Reminder.State()) == nil)
      await store.finish()
      let summary = try await journals.evict(7, finalState: await store.state)
      #expect(summary?.file == directory.file("7.1.journal"))
    }
  }
}
