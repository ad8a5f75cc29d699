#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An executable of benchmarks for your own features, run as `spool bench` runs Spool's.
///
/// Declare the workloads and mark the type `@main`; the executable then takes `spool bench`'s
/// options (`[WORKLOAD…] --actions --producers --rounds --profile --format --output
/// --reference --list`), draws the same progress bar, prints the same summary table, writes
/// the same JSON reports (`spool-reports/<workload>-<UTC timestamp>.json`, created exclusively,
/// written atomically) that `spool report` and `spool compare` read, and exits with the same
/// statuses: 0; 1 when a check failed or a report could not be written; 64 for a wrong option
/// value or an unknown workload, with one line on standard error.
///
/// ```swift
/// import SpoolBench
///
/// @main struct CheckoutBenchmarks: SpoolBenchmarkCommand {
///   static var workloads: [Workload] {
///     [
///       Workload(
///         "checkout", summary: "customers add items to one cart store",
///         defaultActions: 1_000_000,
///         initialState: Cart.State(), reducer: { Cart() },
///         driver: .enqueue { index in .add(item: index) })
///     ]
///   }
/// }
/// ```
///
/// ```sh
/// swift run -c release CheckoutBenchmarks checkout --rounds 3 --profile
/// ```
public protocol SpoolBenchmarkCommand {
  /// The workloads the executable knows, in the order it runs them when none is named.
  static var workloads: [Workload] { get }
}

extension SpoolBenchmarkCommand {
  /// The executable's entry point: runs with the process's arguments and exits with the
  /// command's status.
  ///
  /// ```swift
  /// @main struct CheckoutBenchmarks: SpoolBenchmarkCommand { … }  // calls main()
  /// ```
  public static func main() async {
    exit(await run(arguments: Array(CommandLine.arguments.dropFirst())))
  }

  /// Runs the command with `arguments` (without the executable's name) in this process and
  /// returns its exit status, without exiting: for tests, and for a `main` of your own.
  ///
  /// - Parameter arguments: As on the command line, `["checkout", "--actions", "1000"]`.
  /// - Returns: The exit status: 0, 1 (a failed check, an unwritable report) or 64 (a wrong
  ///   option value or workload name).
  ///
  /// ```swift
  /// let status = await CheckoutBenchmarks.run(
  ///   arguments: ["checkout", "--actions", "1000", "--rounds", "1", "--output", folder])
  /// #expect(status == 0)
  /// ```
  public static func run(arguments: [String]) async -> Int32 {
    await BenchRunner(workloads: workloads, commandName: String(describing: Self.self))
      .run(arguments: arguments)
  }
}
