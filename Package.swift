// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "Spool",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Spool", targets: ["Spool"]),
    // The runtime alone, without `@Reducer` and CasePaths' macros: for libraries built on Spool
    // that would rather not compile swift-syntax. `Spool` re-exports it.
    .library(name: "SpoolCore", targets: ["SpoolCore"]),
    .library(name: "SpoolTesting", targets: ["SpoolTesting"]),
    .library(name: "SpoolIO", targets: ["SpoolIO"]),
    .library(name: "SpoolJournal", targets: ["SpoolJournal"]),
    .library(name: "SpoolProfiling", targets: ["SpoolProfiling"]),
    // The standard workloads of `spool bench` and their baselines, for the Benchmarks package:
    // not supported API (the underscore says so, as swift-nio's `_NIOFileSystem` does).
    .library(name: "_SpoolWorkloads", targets: ["SpoolWorkloads"]),
    .library(name: "SpoolBench", targets: ["SpoolBench"]),
    .library(name: "SpoolMetrics", targets: ["SpoolMetrics"]),
    .library(name: "SpoolLogging", targets: ["SpoolLogging"]),
    .library(name: "SpoolServiceLifecycle", targets: ["SpoolServiceLifecycle"]),
    // Journals and entity ownership in PostgreSQL: a product of its own, so that nothing else
    // (the `spool` executable included) compiles or links postgres-nio.
    .library(name: "SpoolPostgres", targets: ["SpoolPostgres"]),
    .executable(name: "spool", targets: ["spool"]),
  ],
  dependencies: [
    .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    // `OrderedSet`, the type of `IdentifiedArray.ids`, named by `forEach`'s inlinable code.
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    // With its default traits, OpenCombine (the `CombineSchedulers` trait) included: a package
    // that named fewer traits here made SwiftPM fail to resolve a user's package that also
    // depends on swift-dependencies with the defaults (Examples/CartServer showed it).
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    // SpoolLogging's issue reporter and SpoolServiceLifecycle's services: products of their own,
    // so that the runtime does not depend on them.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // `@Reducer`'s implementation (SpoolMacros). A range, not `from:`, so that it resolves to the
    // one swift-syntax that swift-case-paths (509.0.0..<605.0.0) and swift-macro-testing build
    // too: `from: "600.0.1"` would cap it below 601.0.0.
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"605.0.0"),
    // `assertMacro`, for SpoolMacrosTests.
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    // `swift package generate-documentation` for the DocC catalogs (.ci/run builds them).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // SpoolPostgres' client: journals and ownership leases in PostgreSQL.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    .target(name: "CSpoolTime"),
    // The compiler plugin that expands `@Reducer` (declared in Spool's Macros/Reducer+Macro.swift).
    .macro(
      name: "SpoolMacros",
      dependencies: [
        "SpoolMacroExpansions",
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ]
    ),
    // What the macros expand to, as a plain library: SpoolMacrosTests depend on it rather than
    // on the macro target, because a test target that depends on a macro makes SwiftPM build
    // every test target, and everything they import, a second time for the host.
    .target(
      name: "SpoolMacroExpansions",
      dependencies: [
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ]
    ),
    // The runtime: Store, Effect, Reducer and its operators, navigation, the instrumentation
    // protocol and the I/O dependencies' interfaces. Free of macros (its few case-pathable enums
    // are written by hand on CasePathsCore), so that every module below, and the `spool`
    // executable, build without swift-syntax.
    .target(
      name: "SpoolCore",
      dependencies: [
        "CSpoolTime",
        .product(name: "CasePathsCore", package: "swift-case-paths"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "OrderedCollections", package: "swift-collections"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ],
      // `import Builtin`, for the task creation in Internal/Task+StartImmediately.swift.
      swiftSettings: [.enableExperimentalFeature("BuiltinModule")]
    ),
    // What users import: the runtime, CasePaths (with its macros) and `@Reducer`.
    .target(
      name: "Spool",
      dependencies: [
        "SpoolCore",
        "SpoolMacros",
        .product(name: "CasePaths", package: "swift-case-paths"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ]
    ),
    .target(
      name: "SpoolTesting",
      dependencies: [
        "SpoolCore",
        .product(name: "CasePathsCore", package: "swift-case-paths"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // IssueReporting reaches Swift Testing and XCTest only through this library, which it
        // looks up at run time (dlopen and dlsym on Linux): without it, a test store's failure
        // is a printed line and the test passes. A dependency of SpoolTesting's, so that a test
        // target that depends on SpoolTesting alone links it (a dynamic library, next to the
        // test binary). Tests/ConsumerPackage proves it. (With OMIT_DYNAMIC_TEST_SUPPORT set,
        // the product is linked statically, and on Linux its symbols are then not exported for
        // dlsym to find: failures are printed again, with or without this line.)
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]
    ),
    .target(
      name: "CSpoolURing",
      linkerSettings: [.linkedLibrary("uring")]
    ),
    .target(
      name: "SpoolIO",
      dependencies: [
        "SpoolCore", "CSpoolURing",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The action journal: records a store's actions to disk through SpoolIO's engine, and
    // loads, verifies and replays them.
    .target(
      name: "SpoolJournal",
      dependencies: ["SpoolCore", "SpoolIO"]
    ),
    // sched_getaffinity and pthread_setaffinity_np, for the cross-core round trip that reports
    // carry (SpoolProfiling's Environment/CrossCoreLatency.swift).
    .target(name: "CSpoolAffinity"),
    .target(
      name: "SpoolProfiling",
      dependencies: [
        "SpoolCore", "CSpoolAffinity", "CSpoolTime",
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ]
    ),
    // The harness and the command of `spool bench`, public: users' benchmark executables are
    // built on it (`SpoolBenchmarkCommand`), and SpoolWorkloads' workloads are its users. The
    // harness moved here (rather than SpoolWorkloads' twelve workloads being rewritten on the
    // public `Workload` initializer) because most of them measure several stores, I/O setup and
    // baselines in one body; they use the package-level `WorkloadRun`, the code under the
    // public initializer, so both paths share the rounds, profiling, checks and reports.
    .target(
      name: "SpoolBench",
      dependencies: [
        // SpoolJournal for `WorkloadDriver.replaying(_:pace:requiringVerification:)`, a
        // journal replayed as a workload.
        "SpoolCore", "SpoolIO", "SpoolJournal", "SpoolProfiling",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .target(
      name: "SpoolWorkloads",
      dependencies: [
        // CSpoolURing for the C reference reads that `IOBenchmarks` compares the engine with.
        "SpoolCore", "SpoolIO", "SpoolJournal", "SpoolProfiling", "SpoolBench", "CSpoolURing",
        .product(name: "CasePathsCore", package: "swift-case-paths"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .target(
      name: "SpoolMetrics",
      dependencies: [
        "SpoolCore", "SpoolProfiling",
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "SpoolLogging",
      dependencies: [
        "SpoolCore",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "SpoolServiceLifecycle",
      dependencies: [
        "SpoolCore",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The PostgreSQL journal backend and entity ownership (leases and fencing epochs). Only its
    // own tests and bench executable depend on it.
    .target(
      name: "SpoolPostgres",
      dependencies: [
        "SpoolCore", "SpoolJournal",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
    // Measures SpoolPostgres (durable actions/s with concurrent producers, take-over time)
    // against a running server; an executable of its own so that `spool` stays free of
    // postgres-nio.
    .executableTarget(
      name: "spool-postgres-bench",
      dependencies: [
        "SpoolCore", "SpoolJournal", "SpoolIO", "SpoolPostgres",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
    .executableTarget(
      name: "spool",
      dependencies: [
        "SpoolCore", "SpoolIO", "SpoolJournal", "SpoolProfiling", "SpoolBench", "SpoolWorkloads",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "SpoolTests",
      dependencies: ["Spool", "SpoolCore", "SpoolTesting"]
    ),
    .testTarget(
      name: "SpoolMacrosTests",
      dependencies: [
        "SpoolMacroExpansions",
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]
    ),
    .testTarget(
      name: "SpoolTestingTests",
      dependencies: ["Spool", "SpoolTesting"]
    ),
    // Counts the heap allocations of the calling thread (replaces malloc in the test
    // executable), for the tests of "no allocation per action" budgets.
    .target(name: "CSpoolAllocationCounter", path: "Tests/CSpoolAllocationCounter"),
    // The I/O and journal tests need the runtime only (no macros), so that .ci/asan can build
    // them alone (SPOOL_PACKAGE_SUBSET=io below).
    .testTarget(
      name: "SpoolIOTests",
      dependencies: ["SpoolCore", "SpoolIO"]
    ),
    .testTarget(
      name: "SpoolJournalTests",
      dependencies: [
        "SpoolCore", "SpoolIO", "SpoolJournal", "CSpoolAllocationCounter",
        // `TestClock`, for the journal's replay at the recorded pace.
        .product(name: "Clocks", package: "swift-clocks"),
      ]
    ),
    .testTarget(
      name: "SpoolWorkloadsTests",
      dependencies: ["SpoolWorkloads", "SpoolBench", "SpoolIO", "SpoolJournal", "SpoolProfiling"]
    ),
    .testTarget(
      name: "SpoolBenchTests",
      dependencies: [
        "Spool", "SpoolBench", "SpoolIO", "SpoolJournal", "SpoolProfiling",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .testTarget(
      name: "SpoolProfilingTests",
      dependencies: ["Spool", "SpoolProfiling", "CSpoolAllocationCounter"]
    ),
    .testTarget(
      name: "SpoolMetricsTests",
      dependencies: [
        "Spool", "SpoolMetrics", "SpoolProfiling",
        .product(name: "MetricsTestKit", package: "swift-metrics"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
      ]
    ),
    .testTarget(
      name: "SpoolLoggingTests",
      dependencies: [
        "Spool", "SpoolLogging",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .testTarget(
      name: "SpoolServiceLifecycleTests",
      dependencies: [
        "Spool", "SpoolServiceLifecycle",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "SpoolPostgresTests",
      dependencies: [
        "Spool", "SpoolJournal", "SpoolPostgres",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Two smaller packages for the sanitizer steps of CI, which compile everything they build with
// instrumentation and on the 2-core CI machine cannot afford to compile what they never run.
// Users never set SPOOL_PACKAGE_SUBSET.
// - `io` (.ci/asan): only what the SpoolIO and SpoolJournal tests build (the runtime, SpoolIO,
//   SpoolJournal, their tests).
// - `tsan` (.ci/tsan): everything but SpoolPostgres with its tests and bench (postgres-nio
//   brings SwiftNIO, swift-nio-ssl and swift-crypto, with two copies of BoringSSL) and the
//   macro expansion tests (a second, target-side build of swift-syntax); and without the DocC
//   plugin. The expansion tests are single-threaded; SpoolPostgres' tests run in `swift test`.

/// The name a source-control dependency's URL ends in ("postgres-nio"); nil for others.
func repositoryName(_ dependency: Package.Dependency) -> String? {
  guard case .sourceControl(_, let location, _) = dependency.kind else { return nil }
  return location.split(separator: "/").last.map(String.init)
}

@MainActor
func keepOnly(
  targets kept: Set<String>, products keptProducts: Set<String>, packages keptPackages: Set<String>
) {
  package.targets.removeAll { !kept.contains($0.name) }
  package.products.removeAll { !keptProducts.contains($0.name) }
  package.dependencies.removeAll { !keptPackages.contains(repositoryName($0) ?? "") }
}

switch Context.environment["SPOOL_PACKAGE_SUBSET"] {
case "io":
  keepOnly(
    targets: [
      "CSpoolTime", "SpoolCore", "CSpoolURing", "SpoolIO", "SpoolJournal",
      "CSpoolAllocationCounter", "SpoolIOTests", "SpoolJournalTests",
    ],
    products: ["SpoolCore", "SpoolIO", "SpoolJournal"],
    packages: [
      "swift-case-paths", "swift-identified-collections", "swift-collections",
      "swift-dependencies", "swift-clocks", "swift-custom-dump", "xctest-dynamic-overlay",
      "swift-concurrency-extras",
    ])
case "tsan":
  let left: Set = [
    "SpoolPostgres", "spool-postgres-bench", "SpoolPostgresTests", "SpoolMacrosTests",
  ]
  keepOnly(
    targets: Set(package.targets.map(\.name)).subtracting(left),
    products: Set(package.products.map(\.name)).subtracting(left),
    packages: Set(package.dependencies.compactMap(repositoryName))
      .subtracting(["postgres-nio", "swift-macro-testing", "swift-docc-plugin"]))
case nil, ""?:
  break
case let subset?:
  fatalError("SPOOL_PACKAGE_SUBSET=\(subset): expected io or tsan")
}
