// swift-tools-version: 6.1
import PackageDescription

// A package that uses Spool only through its products, as a user's package does: its test
// target depends on `SpoolTesting` and nothing else of Spool's test tooling (no
// `IssueReportingTestSupport`), and its benchmark executable on `SpoolBench`. Its tests pass only if a failing `TestStore` expectation reaches
// Swift Testing. `.ci/run` runs them (`cd Tests/ConsumerPackage && swift test`); the root
// package does not see this folder, which has a manifest of its own.
let package = Package(
  name: "ConsumerPackage",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Spool", path: "../..")
  ],
  targets: [
    .target(
      name: "Counter",
      dependencies: [.product(name: "Spool", package: "Spool")]
    ),
    .testTarget(
      name: "CounterTests",
      dependencies: ["Counter", .product(name: "SpoolTesting", package: "Spool")]
    ),
    // A benchmark executable of the package's own feature, built on SpoolBench alone:
    // `swift run -c release CounterBenchmarks` behaves as `spool bench` does.
    .executableTarget(
      name: "CounterBenchmarks",
      dependencies: ["Counter", .product(name: "SpoolBench", package: "Spool")]
    ),
    .testTarget(
      name: "CounterBenchmarksTests",
      dependencies: ["CounterBenchmarks", .product(name: "SpoolProfiling", package: "Spool")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
