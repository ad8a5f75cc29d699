import Foundation
import Testing

@testable import SpoolProfiling

/// Seeded fuzzing of the report reader (`Report.decode`, `Report.load`) and of what `spool
/// report` and `spool compare` then do with what it accepts.
///
/// Inputs: mutations of valid reports (truncation, byte flips, insertions and deletions,
/// deleted, duplicated and renamed keys, values of the wrong type, huge and non-finite numbers,
/// deep nesting), and random bytes. Each must give a `ReportFileError` that names the file and
/// the problem on one line, or a report that every writer renders and that reads back equal.
/// A crash or a hang (the time limit) is a failure.
///
/// Deterministic by default; `SPOOL_FUZZ_SEED` and `SPOOL_FUZZ_ITERATIONS` replay or lengthen a
/// run (see ``FuzzConfiguration``).
@Suite(.timeLimit(.minutes(10)))
struct ReportFuzzTests {
  static let path = "fuzz.json"

  /// Valid reports to start from: the shared fixture, an empty one, and one with an empty
  /// workload.
  static let seeds: [[UInt8]] = [
    Fixtures.report().rendered(as: .json),
    Fixtures.report([]).rendered(as: .json),
    Fixtures.report([WorkloadReport(name: "idle", actions: 0, durationSeconds: 0)])
      .rendered(as: .json),
  ]

  @Test func mutatedAndRandomReports() throws {
    let configuration = FuzzConfiguration(defaultSeed: 0x5B00_1F22, defaultIterations: 1_500)
    print("ReportFuzzTests: \(configuration)")
    var random = SeededGenerator(seed: configuration.seed)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var accepted = 0
    for iteration in 0..<configuration.iterations {
      let input = Self.input(using: &random)
      // Every 25th input also goes through a file, which must give the same outcome.
      let throughFile = iteration % 25 == 0 ? directory.file("input-\(iteration).json") : nil
      if check(input, iteration: iteration, configuration, throughFile: throughFile) {
        accepted += 1
      }
    }
    // The mutations keep some reports valid: the accepting path is exercised too.
    #expect(accepted > 0, "\(configuration)")
    #expect(accepted < configuration.iterations, "\(configuration)")
  }

  /// Every number of a valid report (one with a timeline too) made impossible in turn:
  /// negative, fractional where a whole number belongs, infinite. Each must be rejected on one
  /// line that names the field, never printed as if measured.
  @Test(arguments: ["-1", "-0.5", "1e999", "-1e999"])
  func everyImpossibleNumberIsRejectedNamingItsField(replacement: String) throws {
    let document = FuzzJSONParser.parse(Self.seedWithTimeline)
    var checked = 0
    for (position, path) in document.numberPaths where path != "schemaVersion" {
      let input = Array(document.replacing(node: position) { _ in .number(replacement) }.text.utf8)
      let text: String
      do {
        _ = try Report.decode(input, path: Self.path)
        Issue.record("\(path) = \(replacement) was accepted")
        continue
      } catch {
        text = error.description
      }
      #expect(text.contains(path), "\(path) = \(replacement): \(text)")
      #expect(!text.contains("\n"))
      checked += 1
    }
    #expect(checked > 40)
  }

  /// Percentiles out of order are rejected, naming the first that is above the next.
  @Test func percentilesOutOfOrderAreRejected() throws {
    var report = Fixtures.report()
    report.workloads[0].actionCases[1].reduce.p90Nanoseconds = 1_000_000
    let error = #expect(throws: ReportFileError.self) {
      try Report.decode(report.rendered(as: .json), path: Self.path)
    }
    #expect(
      error?.description
        == "fuzz.json: has an impossible value: workloads[0].actionCases[1].reduce.p90Nanoseconds"
        + " is 1000000; above p99Nanoseconds (90); percentiles must not decrease")
    report = Fixtures.report()
    report.workloads[0].effects[0].lifetime.distribution[2].percentile = 10
    let distribution = #expect(throws: ReportFileError.self) {
      try Report.decode(report.rendered(as: .json), path: Self.path)
    }
    #expect(
      distribution?.description.contains("workloads[0].effects[0].lifetime.distribution[2]"
        + ".percentile is 10.0; below the point before it (50.0)") == true)
  }

  /// The fixture with a timeline (a soak's report), so that its numbers are fuzzed too.
  static let seedWithTimeline: [UInt8] = {
    var workload = Fixtures.workload()
    let latency = IntervalLatency(p50Nanoseconds: 10, p99Nanoseconds: 20, maxNanoseconds: 30)
    let sample = TimelineSample(
      elapsedSeconds: 1, durationSeconds: 1, residentBytes: 1 << 20, actions: 10, liveEffects: 1,
      queueWait: latency, reduce: latency,
      features: [
        TimelineFeatureSample(
          name: "a", actions: 10, liveEffects: 1, queueWaitP99Nanoseconds: 20,
          reduceP99Nanoseconds: 20)
      ])
    let check = FlatnessCheck(
      metric: .liveEffects, first: 10, last: 12, maximumRatio: 2, floor: 100, grew: false)
    workload.timeline = Timeline(
      intervalSeconds: 1, samples: [sample, sample],
      flatness: FlatnessVerdict(
        outcome: .flat, warmUpSamples: 1, windowSamples: 1, checks: [check]))
    return Fixtures.report([workload]).rendered(as: .json)
  }()

  /// One fuzz input: a mutated valid report (most of the time) or random bytes.
  static func input(using random: inout SeededGenerator) -> [UInt8] {
    switch random.below(10) {
    case 0:
      return (0..<random.below(600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    case 1:
      let tail = (0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      return Array("{".utf8) + tail
    default:
      let seed = seeds[random.below(seeds.count)]
      var bytes = seed
      if random.below(3) != 0 {
        var document = FuzzJSONParser.parse(seed)
        for _ in 0...random.below(3) { document = mutate(document, using: &random) }
        bytes = Array(document.text.utf8)
      }
      if random.oneIn(3) { bytes = mutateBytes(bytes, using: &random) }
      return bytes
    }
  }

  static let strangeNumbers = [
    "1e308", "1e400", "-1e400", "1e-400", "-1", "-0", "0.5", "-0.0", "1.0e2",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999999999",
    "12345678901234567890",
  ]
  static let strangeStrings = [
    "NaN", "nan", "Infinity", "-Infinity", "", "1", "true", "null", "2026-13-45T99:99:99Z",
    "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "\u{0}", "é\u{301}", "🦀", "<&\">",
    String(repeating: "x", count: 10_000),
  ]
  static let invalidTokens = ["NaN", "Infinity", "-Infinity", "undefined", "01", "1.", ".5", "+1"]

  /// One structural edit at a random place of `document`.
  static func mutate(_ document: FuzzJSON, using random: inout SeededGenerator) -> FuzzJSON {
    // A third of the edits put an extreme number where a number was: the place most likely
    // to get past the decoder and reach the writers.
    let numbers = document.numberPositions
    if random.oneIn(3), !numbers.isEmpty {
      let number = strangeNumbers[random.below(strangeNumbers.count)]
      return document.replacing(node: numbers[random.below(numbers.count)]) { _ in
        .number(number)
      }
    }
    let target = random.below(document.nodeCount)
    let choice = random.below(11)
    let replacement = randomScalar(using: &random)
    return document.replacing(node: target) { value in
      switch (choice, value) {
      case (0, .object(var members)) where !members.isEmpty:
        members.remove(at: random.below(members.count))
        return .object(members)
      case (1, .object(var members)) where !members.isEmpty:
        // A duplicated key, with the same value or another one.
        let member = members[random.below(members.count)]
        members.insert(
          FuzzJSON.Member(key: member.key, value: random.oneIn(2) ? member.value : replacement),
          at: random.below(members.count + 1))
        return .object(members)
      case (2, .object(var members)) where !members.isEmpty:
        let index = random.below(members.count)
        members[index].key = random.oneIn(2) ? members[index].key.uppercased() : ""
        return .object(members)
      case (3, .array(var elements)) where !elements.isEmpty:
        if random.oneIn(2) {
          elements.remove(at: random.below(elements.count))
        } else {
          elements += Array(repeating: elements[random.below(elements.count)], count: 50)
        }
        return .array(elements)
      case (4, _):
        // Deep nesting, in arrays or objects, shallow or far beyond any sane depth.
        let depth = [2, 64, 600, 20_000][random.below(4)]
        let (open, close) = random.oneIn(2) ? ("[", "]") : ("{\"k\":", "}")
        return .raw(
          String(repeating: open, count: depth) + value.text
            + String(repeating: close, count: depth))
      case (5, _):
        return .raw(invalidTokens[random.below(invalidTokens.count)])
      case (6, _):
        return .array([])
      case (7, _):
        return .object([])
      default:
        return replacement
      }
    }
  }

  static func randomScalar(using random: inout SeededGenerator) -> FuzzJSON {
    switch random.below(5) {
    case 0: .number(strangeNumbers[random.below(strangeNumbers.count)])
    case 1: .string(strangeStrings[random.below(strangeStrings.count)])
    case 2: .bool(random.oneIn(2))
    case 3: .null
    default: .number(String(Int64(bitPattern: random.next()) >> random.below(64)))
    }
  }

  /// One byte-level edit: truncation, flipped bytes, inserted, deleted or repeated ranges.
  static func mutateBytes(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
    var bytes = input
    guard !bytes.isEmpty else { return [UInt8(truncatingIfNeeded: random.next())] }
    switch random.below(5) {
    case 0:
      bytes.removeSubrange(random.below(bytes.count)...)
    case 1:
      for _ in 0...random.below(4) {
        bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << random.below(8))
      }
    case 2:
      let insertion = (0..<(1 + random.below(16))).map { _ in
        UInt8(truncatingIfNeeded: random.next())
      }
      bytes.insert(contentsOf: insertion, at: random.below(bytes.count + 1))
    case 3:
      let start = random.below(bytes.count)
      bytes.removeSubrange(start..<min(bytes.count, start + 1 + random.below(64)))
    default:
      let start = random.below(bytes.count)
      let range = start..<min(bytes.count, start + 1 + random.below(64))
      bytes.insert(contentsOf: bytes[range], at: range.upperBound)
    }
    return bytes
  }

  /// Checks the oracle for one input; returns whether it was accepted as a report.
  @discardableResult
  func check(
    _ input: [UInt8], iteration: Int, _ configuration: FuzzConfiguration,
    throughFile file: String?, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    let context = "iteration \(iteration), \(configuration)"
    let outcome: Result<Report, ReportFileError>
    do {
      outcome = .success(try Report.decode(input, path: Self.path))
    } catch {
      outcome = .failure(error)
    }
    if let file {
      #expect(FileManager.default.createFile(atPath: file, contents: Data(input)))
      let fromFile: Result<Report, ReportFileError>
      do {
        fromFile = .success(try Report.load(from: file))
      } catch {
        fromFile = .failure(error)
      }
      let same: Bool
      switch (outcome, fromFile) {
      case (.success(let a), .success(let b)): same = a == b
      case (.failure(let a), .failure(let b)): same = a.problem == b.problem && b.path == file
      default: same = false
      }
      #expect(same, "file and bytes disagree, \(context)", sourceLocation: sourceLocation)
    }
    switch outcome {
    case .failure(let error):
      let text = error.description
      #expect(
        text.hasPrefix("\(Self.path): "), "\(text), \(context)", sourceLocation: sourceLocation)
      #expect(!text.contains("\n"), "\(text), \(context)", sourceLocation: sourceLocation)
      #expect(
        text.count > Self.path.count + 10 && text.count < 400, "\(text), \(context)",
        sourceLocation: sourceLocation)
      return false
    case .success(let report):
      Self.exercise(report, context: context, sourceLocation: sourceLocation)
      return true
    }
  }

  /// What `spool report` and `spool compare` do with a report: every format, a comparison.
  static func exercise(
    _ report: Report, context: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for format in ReportFormat.allCases {
      #expect(!report.rendered(as: format).isEmpty, "\(format), \(context)",
        sourceLocation: sourceLocation)
    }
    let json = report.rendered(as: .json)
    #expect(
      (try? Report.decode(json, path: path)) == report, "JSON does not read back, \(context)",
      sourceLocation: sourceLocation)
    for base in [report, Fixtures.report()] {
      let comparison = ReportComparison(base: base, new: report, threshold: .init(fraction: 0.1))
      #expect(!comparison.text().isEmpty, sourceLocation: sourceLocation)
    }
  }
}
