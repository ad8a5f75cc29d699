import SpoolCore
import SpoolProfiling

/// What a workload's body gets: its volume and options, the progress to advance, and the
/// helpers that measure Spool and the baselines the same way.
package struct WorkloadRun: Sendable {
  /// The workload's name, for progress labels and check failures.
  package var workload: String
  /// The volume asked for (the option, or the workload's default).
  package var actions: Int
  /// The options of the run.
  package var options: WorkloadOptions
  /// Where the workload reports how far it got.
  package var progress: BenchProgress
  /// Which round this is, `round 2/3`, when the workload runs in several.
  package var round: String? = nil

  /// The label of a measurement, `counter · plain-actor` (`counter · round 2/3 · plain-actor`
  /// in a run of several rounds).
  package func label(_ measurement: String) -> String {
    guard let round else { return "\(workload) · \(measurement)" }
    return "\(workload) · \(round) · \(measurement)"
  }

  /// Measures a baseline: announces it on the progress, times `body`.
  package func baseline(
    _ name: String, actions: Int, _ body: () async throws -> Void
  ) async rethrows -> Measurement {
    progress.begin(label(name), total: actions)
    return try await Measurement.time(name, actions: actions, body)
  }

  /// Measures Spool: once without instrumentation (the throughput and the peak memory), and
  /// with `--profile` once more with a `LatencyRecorder` given to the store, for latencies.
  ///
  /// `drive` builds its store with the instrumentation it is given, does its setup, and
  /// returns the measurement of the part after setup (see ``Measurement/time(_:actions:_:)``).
  package func spool<Action: Sendable>(
    _ action: Action.Type,
    name: String = "spool",
    _ drive: (_ instrumentation: LatencyRecorder<Action>?) async throws -> Measurement
  ) async throws -> SpoolMeasurement {
    progress.begin(label(name), total: actions)
    MemoryStatistics.resetPeak()
    let residentBefore = MemoryStatistics.currentResidentBytes()
    let measurement = try await drive(nil)
    let peak = MemoryStatistics.peakResidentBytes()
    var recording: LatencyRecording?
    if options.profile {
      // A trace sample of 1,024 actions keeps each report file well under 1 MB.
      let recorder = LatencyRecorder<Action>(traceCapacity: 1024)
      progress.begin(label("\(name) (profiled)"), total: actions)
      _ = try await drive(recorder)
      recording = recorder.recording()
    }
    return SpoolMeasurement(
      measurement: measurement, peakRSSBytes: peak, residentBytesBefore: residentBefore,
      recording: recording)
  }

  /// The report of a workload: Spool's figures, its baselines, and the latencies when profiled.
  package func report(
    name: String? = nil,
    _ spool: SpoolMeasurement,
    baselines: [Measurement],
    parameters: [String: String] = [:],
    ioBackend: String? = nil
  ) -> WorkloadReport {
    var parameters = parameters
    parameters["actions"] = String(spool.measurement.actions)
    if let before = spool.residentBytesBefore {
      parameters["residentBytesBefore"] = String(before)
    }
    if options.profile {
      parameters["latencies"] = "from a second, instrumented run of the same volume"
    }
    return WorkloadReport(
      name: name ?? workload,
      parameters: parameters,
      actions: spool.measurement.actions,
      durationSeconds: spool.measurement.seconds,
      peakRSSBytes: spool.peakRSSBytes,
      ioBackend: ioBackend,
      baselines: baselines.map {
        Baseline(name: $0.name, throughputPerSecond: $0.throughputPerSecond)
      },
      actionCases: spool.recording?.actionCases ?? [],
      effects: spool.recording?.effects ?? [],
      trace: spool.recording?.trace ?? []
    )
  }
}

/// Spool's measurement of a workload, with the memory it took and, when profiled, latencies.
package struct SpoolMeasurement: Sendable {
  package var measurement: Measurement
  /// Peak resident set size during the unprofiled run (the peak is reset before it).
  package var peakRSSBytes: Int?
  /// Resident set size before the unprofiled run.
  package var residentBytesBefore: Int?
  /// What the recorder saw in the profiled run.
  package var recording: LatencyRecording?
}

extension WorkloadRun {
  /// The context of the measurement called `measurement` (`spool`, a baseline's name), with
  /// its clock started.
  package func context(for measurement: String) -> WorkloadContext {
    WorkloadContext(
      actions: actions, options: options, label: label(measurement), progress: progress)
  }
}
