import SpoolBench

extension Workload {
  /// Every workload, in the order `spool bench` runs them.
  ///
  /// ```swift
  /// print(Workload.all.map(\.name).joined(separator: ", "))
  /// ```
  public static let all: [Workload] = [
    CounterWorkloads.counter,
    CounterWorkloads.counterSend,
    CounterWorkloads.fanIn,
    EffectsWorkload.workload,
    CancellationWorkload.workload,
    SearchWorkload.workload,
    FileIOWorkload.workload,
    FileIOWorkload.cold,
    EchoWorkload.workload,
    TodosWorkload.workload,
    InstrumentationWorkload.workload,
    JournalWorkload.workload,
    RegistryWorkload.workload,
    ManyStoresWorkload.workload,
    TimersWorkload.workload,
    IdleStoresWorkload.workload,
    DurableJournalWorkload.workload,
    JournalRecoveryWorkload.workload,
    SharedJournalRecoveryWorkload.workload,
    SoakWorkload.workload,
  ]

  /// The set `spool bench` runs when no workload is named: all of them but the soak, at their
  /// defaults, chosen to finish in under two minutes on a 2-core machine.
  ///
  /// ```swift
  /// let names = Workload.standard.map(\.name)
  /// ```
  public static var standard: [Workload] { all.filter(\.isStandard) }

  /// The workload called `name`, if any.
  ///
  /// ```swift
  /// let counter = Workload.named("counter")
  /// ```
  public static func named(_ name: String) -> Workload? {
    all.first { $0.name == name }
  }
}
