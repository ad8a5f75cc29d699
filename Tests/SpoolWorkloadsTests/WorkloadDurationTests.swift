import SpoolBench
import Testing

@testable import SpoolWorkloads

/// `--duration`: units, plain seconds, and one-line errors that name the value.
@Suite struct WorkloadDurationTests {
  @Test(arguments: [
    ("60s", Duration.seconds(60)),
    ("2m", .seconds(120)),
    ("500ms", .milliseconds(500)),
    ("90", .seconds(90)),
    ("1.5", .milliseconds(1_500)),
    ("0.25s", .milliseconds(250)),
    ("1h", .seconds(3_600)),
    ("24h", .seconds(86_400)),
  ])
  func parses(text: String, expected: Duration) throws {
    #expect(try WorkloadDuration(parsing: text).duration == expected)
  }

  @Test(arguments: [
    "", "s", "ms", "abc", "5x", "60 s", " 60s", "-5s", "+5s", "0", "0s", "0.0ms", "1.2.3",
    "1e3", "inf", "nan", "25h", "1,5s", "5sec", "s5", ".",
  ])
  func rejects(text: String) {
    #expect(throws: WorkloadDurationError.self) { try WorkloadDuration(parsing: text) }
    do {
      _ = try WorkloadDuration(parsing: text)
    } catch {
      let message = error.description
      #expect(message.hasPrefix("invalid duration '\(text)': "))
      #expect(!message.contains("\n"))
    }
  }

  @Test func secondsOfADuration() {
    #expect(WorkloadDuration(.milliseconds(1_500)).seconds == 1.5)
  }
}
