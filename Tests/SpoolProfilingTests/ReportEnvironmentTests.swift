import Foundation
import SpoolProfiling
import Testing

@Suite struct ReportEnvironmentTests {
  @Test func theCurrentEnvironmentIsPlausible() {
    let environment = ReportEnvironment.current()
    #expect(!environment.hostName.isEmpty)
    #expect(environment.cores >= 1)
    #expect(environment.kernel.hasPrefix("Linux "))
    #expect(["debug", "release"].contains(environment.buildConfiguration))
    if let commit = environment.gitCommit {
      #expect(commit.count == 40 && commit.allSatisfy(\.isHexDigit))
    }
    #expect(environment.date.timeIntervalSince1970.rounded(.down)
      == environment.date.timeIntervalSince1970)
  }

  @Test func peakResidentSizeIsKnown() throws {
    let bytes = try #require(ProcessStatistics.peakResidentBytes())
    #expect(bytes > 1 << 20)
  }
}
