import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension ReportEnvironment {
  /// The environment of this process: host, cores, kernel, compiler, build configuration, and
  /// the git commit of the working directory.
  ///
  /// Nothing here fails: a value that cannot be found is `"unknown"` (or `nil` for the commit,
  /// when `git` is missing or the directory is not a checkout).
  ///
  /// ```swift
  /// let report = Report(environment: .current(), workloads: workloads)
  /// ```
  public static func current(date: Date = Date()) -> ReportEnvironment {
    ReportEnvironment(
      hostName: hostName(), cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
      kernel: kernel(), swiftVersion: swiftVersion, buildConfiguration: buildConfiguration,
      gitCommit: gitCommit(), date: date)
  }

  /// `debug` or `release`, as SpoolProfiling was compiled.
  static var buildConfiguration: String {
    #if DEBUG
      "debug"
    #else
      "release"
    #endif
  }

  /// The compiler version, to the patch level that `#if compiler` can tell.
  static var swiftVersion: String {
    #if compiler(>=6.5)
      "6.5 or later"
    #elseif compiler(>=6.3.1)
      "6.3.1"
    #elseif compiler(>=6.3)
      "6.3"
    #elseif compiler(>=6.2)
      "6.2"
    #elseif compiler(>=6.1)
      "6.1"
    #else
      "6.0"
    #endif
  }

  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func kernel() -> String {
    var names = utsname()
    guard uname(&names) == 0 else { return "unknown" }
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
    }
    return "\(text(names.sysname)) \(text(names.release))"
  }

  /// `git rev-parse HEAD`, or `nil` when git is missing, fails, or prints something else.
  static func gitCommit() -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "rev-parse", "HEAD"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return nil
    }
    // rev-parse prints 41 bytes; bound the read anyway.
    let data = (try? output.fileHandleForReading.read(upToCount: 4096)) ?? nil
    process.waitUntilExit()
    guard process.terminationStatus == 0, let data else { return nil }
    let commit = String(decoding: data, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let isHex = commit.allSatisfy { $0.isHexDigit }
    return isHex && (commit.count == 40 || commit.count == 64) ? commit : nil
  }
}
