import Foundation
import SpoolCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension ReportEnvironment {
  /// The environment of this process: host, cores, processor, kernel, compiler, build
  /// configuration, the git commit of the working directory and the instrumentation's time
  /// source; with `measuringCrossCoreLatency`, also the cross-core round trip, and with
  /// `measuringClockReads`, what a clock read costs.
  ///
  /// Nothing here fails: a value that cannot be found is `"unknown"` (or `nil` for the
  /// optional fields: the commit when `git` is missing or the directory is not a checkout, the
  /// processor model when `/proc/cpuinfo` names none).
  ///
  /// Without the measurements this is cheap: a few files read, `git rev-parse`, and, the
  /// first time `SpoolTime` is read in the process, its 2 ms calibration. With the round trip,
  /// two threads bounce a cache line between two CPUs for up to a few hundred milliseconds
  /// first (see ``crossCoreRoundTripNanoseconds``); the clock reads take a few milliseconds
  /// (see ``clockReadNanoseconds``). `spool bench` asks for both before it runs any workload.
  ///
  /// - Parameters:
  ///   - date: The report's date; truncated to whole seconds.
  ///   - measuringCrossCoreLatency: Whether to measure ``crossCoreRoundTripNanoseconds``;
  ///     without it, the field is `nil`.
  ///   - measuringClockReads: Whether to measure ``clockReadNanoseconds``; without it, the
  ///     field is `nil`.
  ///
  /// ```swift
  /// let report = Report(environment: .current(), workloads: workloads)
  /// let measured = ReportEnvironment.current(
  ///   measuringCrossCoreLatency: true, measuringClockReads: true)
  /// ```
  public static func current(
    date: Date = Date(), measuringCrossCoreLatency: Bool = false,
    measuringClockReads: Bool = false
  ) -> ReportEnvironment {
    ReportEnvironment(
      hostName: hostName(), cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
      kernel: kernel(), swiftVersion: swiftVersion, buildConfiguration: buildConfiguration,
      gitCommit: gitCommit(), date: date, cpuModel: cpuModel(),
      allowedCores: CrossCoreLatency.allowedCPUs()?.count,
      crossCoreRoundTripNanoseconds: measuringCrossCoreLatency ? CrossCoreLatency.measure() : nil,
      timeSource: SpoolTime.source.rawValue,
      clockReadNanoseconds: measuringClockReads ? ClockReadCost.measure() : nil)
  }

  /// The first `model name` of `/proc/cpuinfo`, or `nil` when the file cannot be read or has
  /// no such line.
  static func cpuModel() -> String? {
    // The first processor's block comes first; 64 KiB holds it on any machine.
    guard let text = readPrefix(of: "/proc/cpuinfo", upTo: 64 << 10) else { return nil }
    return cpuModel(inCPUInfo: text)
  }

  /// The value of the first `model name` line of `/proc/cpuinfo`'s text, trimmed; `nil` when
  /// there is none or it is empty.
  static func cpuModel(inCPUInfo text: String) -> String? {
    for line in text.split(whereSeparator: \.isNewline) {
      guard let colon = line.firstIndex(of: ":"),
        line[..<colon].trimmingCharacters(in: .whitespaces) == "model name"
      else { continue }
      let model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      return model.isEmpty ? nil : model
    }
    return nil
  }

  /// Up to `limit` bytes of a file read with POSIX calls: files under `/proc` report a size of
  /// 0, so the size cannot tell how much to read.
  private static func readPrefix(of path: String, upTo limit: Int) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: limit)
    var count = 0
    while count < limit {
      let read = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress! + count, limit - count)
      }
      if read < 0, errno == EINTR { continue }
      guard read > 0 else {
        if read < 0 { return nil }
        break
      }
      count += read
    }
    return String(decoding: bytes.prefix(count), as: UTF8.self)
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
