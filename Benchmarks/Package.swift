// swift-tools-version: 6.1
// Spool's benchmarks, run with package-benchmark: `cd Benchmarks && swift package benchmark`.
// A separate package so that the library does not depend on package-benchmark or SwiftNIO.
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
  .product(name: "Benchmark", package: "package-benchmark"),
  .product(name: "Spool", package: "Spool"),
  .product(name: "_SpoolWorkloads", package: "Spool"),
]

func benchmarkTarget(_ name: String, extra: [Target.Dependency] = []) -> Target {
  .executableTarget(
    name: name,
    dependencies: benchmarkDependencies + extra,
    path: "Benchmarks/\(name)",
    plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
  )
}

let package = Package(
  name: "SpoolBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Spool", path: ".."),
    .package(
      url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1",
      traits: ["MallocInterposer"]),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
  ],
  targets: [
    benchmarkTarget(
      "StoreBenchmarks",
      extra: [.product(name: "Dependencies", package: "swift-dependencies")]),
    benchmarkTarget("EffectsBenchmarks"),
    benchmarkTarget("CancellationBenchmarks"),
    benchmarkTarget(
      "SpoolIOBenchmarks",
      extra: [
        .product(name: "SpoolIO", package: "Spool"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // Not a package-benchmark target: a `spool bench`-style command built on SpoolBench, for
    // the overhead of SpoolMetrics on a live store with a real Prometheus backend
    // (`swift run -c release MetricsOverhead`; README's figure).
    .executableTarget(
      name: "MetricsOverhead",
      dependencies: [
        .product(name: "Spool", package: "Spool"),
        .product(name: "SpoolBench", package: "Spool"),
        .product(name: "SpoolMetrics", package: "Spool"),
        .product(name: "SpoolProfiling", package: "Spool"),
        .product(name: "_SpoolWorkloads", package: "Spool"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      path: "Benchmarks/MetricsOverhead"
    ),
    // README.md's benchmark and metrics examples, so that they compile (CI builds this package).
    .executableTarget(
      name: "ReadmeExamples",
      dependencies: [
        .product(name: "Spool", package: "Spool"),
        .product(name: "SpoolBench", package: "Spool"),
        .product(name: "SpoolMetrics", package: "Spool"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      path: "Benchmarks/ReadmeExamples"
    ),
  ],
  swiftLanguageModes: [.v6]
)
