#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// `SharedJournal.compact()` copying the records that stores still need forward, so that a
  /// segment pinned by one lagging store is removed; and what a compaction stopped partway,
  /// by a failure or a `kill -9`, leaves.
  @Suite struct SharedJournalCompactionTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>
    typealias Shared = SharedJournalTests

    /// The journal's segment numbers, from its folder.
    static func segments(_ directory: TemporaryDirectory, _ name: String) -> [Int] {
      directory.entries().compactMap { JournalFormat.fileIndex(of: $0, base: name) }.sorted()
    }

    /// Stores 0 (never evicted) and 1 (evicted) record 5 rounds, then stores 2-5 record 40
    /// rounds over many more segments and are evicted; store 0 records 2 more rounds at the
    /// end. Everything is synced. Returns the stores still recording.
    static func recordLagging(
      _ journal: Journal
    ) async throws -> [Int: Store<Ledger.State, Ledger.Action>] {
      let lagging = try await Shared.recordInterleaved(journal, stores: 0..<2, rounds: 0..<5)
      #expect(try await journal.evict(1, finalState: await lagging[1]!.state))
      let busy = try await Shared.recordInterleaved(journal, stores: 2..<6, rounds: 0..<40)
      for id in 2..<6 {
        #expect(try await journal.evict(id, finalState: await busy[id]!.state))
      }
      try await journal.waitUntilDurable()
      return [0: lagging[0]!]
    }

    /// Every store of ``recordLagging(_:)`` recovers to exactly the state it recorded, with
    /// store 0 at `rounds` rounds (`nil`: store 0 still records, and is not recovered).
    static func expectExact(_ journal: Journal, storeZeroRounds rounds: Int?) async throws {
      if let rounds {
        let zero = try await journal.recover(for: 0, initialState: Ledger.State()) { Ledger() }
        #expect(zero.state == Shared.expected(store: 0, rounds: 0..<rounds), "store 0")
      }
      let one = try await journal.recover(for: 1, initialState: Ledger.State()) { Ledger() }
      #expect(one.state == Shared.expected(store: 1, rounds: 0..<5), "store 1")
      #expect(one.startedFromSnapshot)
      if case .verified = one.verification {} else {
        Issue.record("store 1 is not verified: \(one.verification)")
      }
      for id in 2..<6 {
        let recovery = try await journal.recover(for: id, initialState: Ledger.State()) {
          Ledger()
        }
        #expect(recovery.state == Shared.expected(store: id, rounds: 0..<40), "store \(id)")
      }
    }

    /// Segment 0 holds store 0's only records and store 1's snapshot, and neither store writes
    /// a newer snapshot: compaction copies them forward and removes segment 0 and every other
    /// old segment. Store 0 goes on recording after the copies; every store recovers exactly,
    /// in the same run and reopened; a second compaction removes the first one's segment, and
    /// nothing is applied twice.
    @Test func compactionCopiesLaggingStoresForwardAndRemovesTheirSegments() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      let stores = try await Self.recordLagging(journal)
      let before = Self.segments(directory, "shared")
      #expect(before.count > 3)
      #expect(before.first == 0)

      let removed = try await journal.compact()
      #expect(removed == before, "every segment there before the compaction is removed")
      let copies = Self.segments(directory, "shared")
      #expect(copies == [before.last! + 1], "one segment of copies, after them")
      #expect(directory.entries().contains("shared.\(before.last! + 1).index"))
      try await Self.expectExact(journal, storeZeroRounds: nil)

      for round in 5..<7 {
        for action in Shared.actions(store: 0, round: round) { await stores[0]!.send(action) }
      }
      try await journal.close()

      let reopened = try await Journal.open(path: path, configuration: Shared.small)
      #expect(reopened.opening.indexedSegments == reopened.opening.segments)
      try await Self.expectExact(reopened, storeZeroRounds: 7)
      let second = try await reopened.compact()
      #expect(second.contains(before.last! + 1), "the first compaction's segment: \(second)")
      try await Self.expectExact(reopened, storeZeroRounds: 7)
      try await reopened.close()

      let third = try await Journal.open(path: path, configuration: Shared.small)
      try await Self.expectExact(third, storeZeroRounds: 7)
      try await third.close()
    }

    struct Stopped: Error {}

    /// A compaction stopped after each of its steps (as a crash or an I/O failure there would
    /// stop it) throws; the journal, opened again, recovers every store exactly (no record
    /// lost, none applied twice, even where the copies and the segments they copy are both
    /// on disk), and a compaction of the reopened journal then removes the old segments.
    @Test(arguments: [
      SharedJournalCompactionStep.planned, .copied, .indexed, .removedOne,
    ])
    func aCompactionStoppedPartwayLosesAndRepeatsNothing(
      step: SharedJournalCompactionStep
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      _ = try await Self.recordLagging(journal)
      let before = Self.segments(directory, "shared")
      journal.sink.compactionFault.withLock { fault in
        fault = { reached in if reached == step { throw Stopped() } }
      }
      await #expect(throws: Stopped.self) { try await journal.compact() }
      try await journal.close()
      let left = Self.segments(directory, "shared")
      switch step {
      case .planned: #expect(left == before)
      case .copied, .indexed: #expect(left == before + [before.last! + 1])
      case .removedOne: #expect(left == Array(before.dropFirst()) + [before.last! + 1])
      }

      let reopened = try await Journal.open(path: path, configuration: Shared.small)
      try await Self.expectExact(reopened, storeZeroRounds: 5)
      let removed = try await reopened.compact()
      #expect(Set(removed).isSuperset(of: Set(left.filter { $0 < before.last! })))
      try await Self.expectExact(reopened, storeZeroRounds: 5)
      try await reopened.close()

      let again = try await Journal.open(path: path, configuration: Shared.small)
      try await Self.expectExact(again, storeZeroRounds: 5)
      try await again.close()
    }

    /// The child of ``aKilledCompactionLosesNoAcknowledgedActionOfAnyStore()``: a lagging
    /// store records 20 notes once, then eight stores record acknowledged notes while the
    /// journal compacts over and over, until it is killed. Runs only in that child process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[KillChild.compactingVariable] != nil))
    func compactingChildRecordsUntilKilled() async throws {
      let folder = ProcessInfo.processInfo.environment[KillChild.compactingVariable] ?? ""
      let journal = try await Journal.open(
        path: "\(folder)/journal",
        configuration: JournalConfiguration(maxFileBytes: 8 << 10, bufferBytes: 4 << 10))
      let acks = open("\(folder)/acks", O_WRONLY | O_CREAT | O_APPEND, 0o644)
      let compactions = open("\(folder)/compactions", O_WRONLY | O_CREAT | O_APPEND, 0o644)
      #expect(acks >= 0 && compactions >= 0)
      let lagging = try await journal.makeStore(for: 100, initialState: Ledger.State()) {
        Ledger()
      }
      for index in 0..<20 { await lagging.send(.note("100/\(index)")) }
      try await journal.waitUntilDurable()
      for index in 0..<20 { SharedJournalTests.appendLine("100/\(index)", to: acks) }
      let deadline = ContinuousClock.now + .seconds(60)
      try await withThrowingTaskGroup(of: Void.self) { group in
        try await SharedJournalTests.addDurableProducers(
          to: &group, journal: journal, acks: acks, until: deadline)
        group.addTask {
          while ContinuousClock.now < deadline {
            let removed = try await journal.compact()
            if !removed.isEmpty { SharedJournalTests.appendLine("\(removed)", to: compactions) }
            try await Task.sleep(for: .milliseconds(2))
          }
        }
        try await group.waitForAll()
      }
    }

    /// `kill -9`, 10 times at random moments, of a process whose journal compacts over and
    /// over while eight stores record with durable acknowledgements and a lagging store pins
    /// the first segment (every other kill after a compaction removed segments): every
    /// acknowledged note of every store is recovered, in order, and none twice.
    @Test func aKilledCompactionLosesNoAcknowledgedActionOfAnyStore() async throws {
      var compacted = 0
      for round in 0..<10 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(
          folder: directory.path, variable: KillChild.compactingVariable,
          filter: "compactingChildRecordsUntilKilled")
        let acked = try await child.waitForAcknowledgements(atLeast: 21)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        // Every other round, a kill after a compaction removed segments, so that the rounds
        // cover one however fast the machine is (a loaded one may reach none in 300 ms).
        if round.isMultiple(of: 2) {
          let removed = try await child.waitForLines(in: "compactions", atLeast: 1)
          #expect(removed, "round \(round): no compaction removed a segment within 60 s")
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
        child.kill()
        let acknowledged = directory.linesOf("acks")
        compacted += directory.linesOf("compactions").count
        let journal = try await Journal.open(path: directory.file("journal"))
        let lost = try await journal.lostNotes(
          of: Array(0..<8) + [100], acknowledged: acknowledged, round: round)
        #expect(lost == 0, "round \(round): \(lost) of \(acknowledged.count) lost")
        try await journal.close()
      }
      #expect(compacted > 0, "no compaction removed a segment before a kill")
    }
  }
}

extension SpoolJournalTests.SharedJournalCompactionTests {
  typealias Race = SpoolJournalTests.SharedJournalCompactionRaceTests

  /// With the copy limit lowered to the planned size of the first five stores' records (each
  /// record and 10 bytes, in slot order; `slack` added), a compaction copies each store that
  /// still fits and leaves the others in place: their records and segments stay, and every
  /// store recovers exactly, in the same run and reopened. At the limit the fifth store is
  /// copied; one byte under it, it is not. A compaction at the default limit then copies the
  /// rest and removes every segment before it.
  @Test(arguments: [0, -1])
  func storesPastTheCopyLimitStayInPlace(slack: Int) async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("shared")
    try await Race.recordStores(at: path)
    let journal = try await Journal.open(path: path, configuration: Shared.small)
    struct Planned { var slot: Int; var size: Int; var extents: [SharedExtent] }
    let planned = journal.sink.core.withLock { core in
      core.stores.indices.filter { !core.stores[$0].extents.isEmpty }.map { slot in
        Planned(
          slot: slot, size: core.stores[slot].extents.reduce(0) { $0 + $1.length + 10 },
          extents: core.stores[slot].extents)
      }
    }
    #expect(planned.count == Race.stores.count)
    let limit = planned.prefix(5).reduce(0) { $0 + $1.size } + slack
    // The rule: in slot order, a store is copied when its records fit in what is left.
    var copied: Set<Int> = []
    var left = limit
    for store in planned where store.size <= left {
      copied.insert(store.slot)
      left -= store.size
    }
    #expect(copied.contains(planned[4].slot) == (slack == 0), "the fifth store, at the boundary")
    #expect(copied.count < planned.count, "some store stays in place")
    let defaultLimit = journal.sink.compactionCopyLimit.exchange(limit, ordering: .relaxed)
    #expect(defaultLimit == (1 << 30) - (1 << 17))

    let before = Self.segments(directory, "shared")
    _ = try await journal.compact()
    let copies = before.last! + 1
    let after = journal.sink.core.withLock { core in
      planned.map { core.stores[$0.slot].extents }
    }
    let onDisk = Set(Self.segments(directory, "shared"))
    for (store, extents) in zip(planned, after) {
      if copied.contains(store.slot) {
        #expect(extents.allSatisfy { Int($0.segment) == copies }, "slot \(store.slot) is copied")
      } else {
        #expect(extents == store.extents, "slot \(store.slot) stays in place")
        #expect(extents.allSatisfy { onDisk.contains(Int($0.segment)) })
      }
    }
    #expect(
      Set(journal.sink.core.withLock { $0.segmentSlots[copies] ?? [] }) == copied,
      "the copies' segment holds the copied stores only")
    for id in Race.stores {
      Race.expectExact(
        try await journal.recover(for: id, initialState: Ledger.State()) { Ledger() }, id: id)
    }
    try await journal.close()

    let reopened = try await Journal.open(path: path, configuration: Shared.small)
    for id in Race.stores {
      Race.expectExact(
        try await reopened.recover(for: id, initialState: Ledger.State()) { Ledger() }, id: id)
    }
    let removed = try await reopened.compact()
    #expect(Set(removed).isSuperset(of: Set(before)), "every segment before the first copies")
    for id in Race.stores {
      Race.expectExact(
        try await reopened.recover(for: id, initialState: Ledger.State()) { Ledger() }, id: id)
    }
    try await reopened.close()
  }
}
