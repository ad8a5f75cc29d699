// swift-tools-version: 6.1
// Spool's benchmarks, run with package-benchmark: `cd Benchmarks && swift package benchmark`.
// A separate package so that the library does not depend on package-benchmark or SwiftNIO.
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
  .product(name: "Benchmark", package: "package-benchmark"),
  .product(name: "Spool", package: "Spool"),
  .product(name: "SpoolWorkloads", package: "Spool"),
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
  ],
  targets: [
    benchmarkTarget("StoreBenchmarks"),
    benchmarkTarget("EffectsBenchmarks"),
    benchmarkTarget("CancellationBenchmarks"),
    benchmarkTarget(
      "SpoolIOBenchmarks",
      extra: [
        .product(name: "SpoolIO", package: "Spool"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
