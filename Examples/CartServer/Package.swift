// swift-tools-version: 6.1
import PackageDescription

// A cart service built on Spool as a user builds one: it uses Spool only through its products
// (by path, so that it always builds against this checkout). Its build folder is its own
// (Examples/CartServer/.build, git-ignored).
let package = Package(
  name: "CartServer",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "cart-server", targets: ["cart-server"])
  ],
  dependencies: [
    .package(name: "Spool", path: "../.."),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
  ],
  targets: [
    // The cart's feature: its state, actions and reducer, and the same cart as a plain actor.
    .target(
      name: "CartFeature",
      dependencies: [
        .product(name: "Spool", package: "Spool"),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The HTTP service: routes, the store registry, metrics, lifecycle and logging.
    .target(
      name: "CartServer",
      dependencies: [
        "CartFeature",
        .product(name: "Spool", package: "Spool"),
        .product(name: "SpoolMetrics", package: "Spool"),
        .product(name: "SpoolLogging", package: "Spool"),
        .product(name: "SpoolServiceLifecycle", package: "Spool"),
        .product(name: "SpoolPostgres", package: "Spool"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "cart-server",
      dependencies: [
        "CartServer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "CartServerTests",
      dependencies: [
        "CartFeature", "CartServer",
        .product(name: "SpoolTesting", package: "Spool"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
