#if canImport(Glibc)
  import Glibc
#endif
import Testing

/// A small tmpfs mounted on a fresh directory under /tmp: a real disk that fills, for the
/// full-disk tests. Every such test takes the same two steps:
///
/// ```swift
/// @Suite(.needsSmallTmpfs) struct FullDiskTests {
///   @Test func aFullDisk() async throws {
///     try await SmallTmpfs.with { disk in
///       let path = disk.file("journal")
///       // record until the disk is full
///     }
///   }
/// }
/// ```
///
/// Mounting needs CAP_SYS_ADMIN (root, outside a restricted container). Where a tmpfs cannot be
/// mounted, `.needsSmallTmpfs` skips the tests and says why; ``with(size:sourceLocation:_:)``
/// unmounts the tmpfs and removes its directory however the body ends.
struct SmallTmpfs {
  let directory: TemporaryDirectory

  /// Why a mount failed: the call's errno, and who tried.
  struct MountError: Error, CustomStringConvertible {
    var errno: Int32

    var description: String {
      let reason = "mount(\"tmpfs\"): \(String(cString: strerror(errno)))"
      let user = geteuid()
      guard user != 0 else { return reason }
      return "\(reason); mounting needs root (CAP_SYS_ADMIN), this process runs as uid \(user)"
    }
  }

  /// Mounts a tmpfs of `size` (a `size=` option of tmpfs: "1m") on a fresh directory.
  private init(size: String) throws(MountError) {
    let directory = TemporaryDirectory()
    guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(size)") == 0 else {
      let error = MountError(errno: errno)
      directory.remove()
      throw error
    }
    self.directory = directory
  }

  /// Why no tmpfs can be mounted here, or `nil` when one can (tried once per process, when the
  /// first test that needs one is about to run).
  static let unavailability: String? = {
    do {
      try SmallTmpfs(size: "1m").remove()
      return nil
    } catch {
      return "no tmpfs to fill: \(error)"
    }
  }()

  /// Runs `body` with a fresh tmpfs of `size`, then unmounts it and removes its directory,
  /// whether `body` returns or throws.
  ///
  /// - Throws: ``MountError`` when the tmpfs cannot be mounted (a test that needs it has the
  ///   `.needsSmallTmpfs` trait, so mounting stopped working meanwhile), or what `body` throws.
  static func with<Result>(
    size: String = "1m",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (SmallTmpfs) async throws -> Result
  ) async throws -> Result {
    let disk = try SmallTmpfs(size: size)
    let result: Result
    do {
      result = try await body(disk)
    } catch {
      disk.remove(sourceLocation: sourceLocation)
      throw error
    }
    disk.remove(sourceLocation: sourceLocation)
    return result
  }

  func file(_ name: String) -> String { directory.file(name) }

  /// Unmounts the tmpfs (lazily: a descriptor still open on it keeps it alive, detached, until
  /// it is closed), which discards its files, and removes the directory it was mounted on.
  private func remove(sourceLocation: SourceLocation = #_sourceLocation) {
    guard umount2(directory.path, Int32(MNT_DETACH)) == 0 else {
      let reason = String(cString: strerror(errno))
      Issue.record(
        "umount2(\"\(directory.path)\"): \(reason); the tmpfs stays mounted",
        sourceLocation: sourceLocation)
      return
    }
    rmdir(directory.path)
  }
}

/// The trait of a suite or test that needs a ``SmallTmpfs``: it runs where one can be mounted,
/// and is skipped elsewhere with the reason (not root, or mounting not permitted here).
struct SmallTmpfsRequirement: TestTrait, SuiteTrait {
  var isRecursive: Bool { false }

  func prepare(for test: Test) async throws {
    // Decided when a test that needs it is about to run, not when the tests are listed: a
    // process that runs none of them never mounts anything.
    let reason = SmallTmpfs.unavailability
    try await ConditionTrait.enabled(if: reason == nil, Comment(rawValue: reason ?? ""))
      .prepare(for: test)
  }
}

extension Trait where Self == SmallTmpfsRequirement {
  /// Runs the suite or test where a ``SmallTmpfs`` can be mounted; skips it elsewhere, saying
  /// why.
  static var needsSmallTmpfs: Self { SmallTmpfsRequirement() }
}
