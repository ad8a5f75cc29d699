import Foundation

extension Report {
  /// Chrome trace-event JSON (the "JSON object format") of every workload's trace sample.
  ///
  /// Each workload is a process; each track a thread. Reduces and signpost intervals are
  /// complete events (`X`), point events are instants (`i`), and queue waits and effects,
  /// which overlap, are async slices (`b`/`e`). Times are microseconds from the earliest
  /// interval of the report. A workload with a ``Timeline`` (the soak, which has no trace
  /// sample) gets counter tracks (`C`): RSS, actions per second, p99 of queue wait and reduce,
  /// live effects, one value per sample at its time since the start of the run.
  ///
  /// The events are encoded one at a time into the output as they are made: memory beyond the
  /// report and the output is one event, not a list of every event and its encoded tree (a
  /// report at ``maximumFileSize`` would need several times its size for those).
  func chromeTraceBytes() -> [UInt8] {
    // Room for the whole output up front (pages never written are never resident): growing
    // by doubling would hold the old and the new buffer at once, one and a half outputs.
    var estimate = 64
    for workload in workloads {
      estimate += workload.timeline.map { $0.samples.count * 512 } ?? 0
      for interval in workload.trace {
        estimate += 2 * (interval.name.utf8.count + interval.track.utf8.count + 128)
      }
    }
    var writer = ChromeTraceWriter(capacity: estimate)
    let origin = workloads.compactMap { $0.trace.lazy.map(\.startNanoseconds).min() }.min() ?? 0
    var nextAsyncID = 1
    for (index, workload) in workloads.enumerated() {
      let pid = index + 1
      writer.append(.metadata("process_name", pid: pid, tid: nil, name: workload.name))
      var tracks: [String: Int] = [:]
      for interval in workload.trace {
        let tid: Int
        if let known = tracks[interval.track] {
          tid = known
        } else {
          tid = tracks.count + 1
          tracks[interval.track] = tid
          writer.append(.metadata("thread_name", pid: pid, tid: tid, name: interval.track))
        }
        let offset = interval.startNanoseconds &- Swift.min(origin, interval.startNanoseconds)
        let start = Double(offset) / 1e3
        let duration = Double(interval.durationNanoseconds) / 1e3
        var event = ChromeTraceEvent(
          name: interval.name, cat: interval.kind.rawValue, ph: "X", ts: start, pid: pid, tid: tid)
        switch interval.kind {
        case .reduce, .interval:
          event.dur = duration
          writer.append(event)
        case .event:
          event.ph = "i"
          event.s = "t"
          writer.append(event)
        case .queueWait, .effect:
          event.ph = "b"
          event.id = nextAsyncID
          writer.append(event)
          event.ph = "e"
          event.ts = start + duration
          writer.append(event)
          nextAsyncID += 1
        }
      }
      for sample in workload.timeline?.samples ?? [] {
        let time = sample.elapsedSeconds * 1e6
        let counters: [(String, [String: Double])] = [
          ("RSS (MiB)", ["rss": Double(sample.residentBytes) / 1_048_576]),
          ("actions/s", ["actions": sample.throughputPerSecond]),
          (
            "p99 (µs)",
            [
              "queueWait": Double(sample.queueWait.p99Nanoseconds) / 1e3,
              "reduce": Double(sample.reduce.p99Nanoseconds) / 1e3,
            ]
          ),
          ("live effects", ["live": Double(sample.liveEffects)]),
        ]
        for (name, values) in counters {
          var event = ChromeTraceEvent(
            name: name, cat: "timeline", ph: "C", ts: time, pid: pid, tid: nil)
          event.args = ChromeTraceEvent.Arguments(values: values)
          writer.append(event)
        }
      }
    }
    return writer.finish()
  }
}

/// Writes a ``ChromeTrace`` event by event: the same JSON as encoding the whole value (keys
/// sorted, `displayTimeUnit` before `traceEvents`), without holding every event at once.
struct ChromeTraceWriter {
  private var bytes: [UInt8] = []
  private var isFirst = true
  private let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// A writer whose output has room for `capacity` bytes before it grows.
  init(capacity: Int) {
    bytes.reserveCapacity(capacity)
    bytes.append(contentsOf: #"{"displayTimeUnit":"ns","traceEvents":["#.utf8)
  }

  mutating func append(_ event: ChromeTraceEvent) {
    if !isFirst { bytes.append(UInt8(ascii: ",")) }
    isFirst = false
    do {
      bytes.append(contentsOf: try encoder.encode(event))
    } catch {
      preconditionFailure("Internal inconsistency: a trace event is not encodable: \(error)")
    }
  }

  /// The whole trace, with a final newline.
  consuming func finish() -> [UInt8] {
    bytes.append(contentsOf: Array("]}\n".utf8))
    return bytes
  }
}

/// The top level of a Chrome trace file.
struct ChromeTrace: Codable {
  var traceEvents: [ChromeTraceEvent]
  var displayTimeUnit = "ns"
}

/// One trace event; field names are the format's own.
struct ChromeTraceEvent: Codable {
  /// `args`: a name (metadata events) or named values (counter events), as flat keys.
  struct Arguments: Codable {
    var values: [String: Double] = [:]
    var name: String?

    init(name: String) { self.name = name }
    init(values: [String: Double]) { self.values = values }

    private struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Key.self)
      for key in container.allKeys {
        if key.stringValue == "name" {
          name = try container.decode(String.self, forKey: key)
        } else {
          values[key.stringValue] = try container.decode(Double.self, forKey: key)
        }
      }
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      if let name { try container.encode(name, forKey: Key(stringValue: "name")) }
      for (key, value) in values { try container.encode(value, forKey: Key(stringValue: key)) }
    }
  }

  var name: String
  var cat: String?
  var ph: String
  var ts: Double?
  var dur: Double?
  var pid: Int
  var tid: Int?
  var id: Int?
  var s: String?
  var args: Arguments?

  init(name: String, cat: String?, ph: String, ts: Double?, pid: Int, tid: Int?) {
    self.name = name
    self.cat = cat
    self.ph = ph
    self.ts = ts
    self.pid = pid
    self.tid = tid
  }

  static func metadata(_ kind: String, pid: Int, tid: Int?, name: String) -> Self {
    var event = ChromeTraceEvent(name: kind, cat: nil, ph: "M", ts: nil, pid: pid, tid: tid)
    event.args = Arguments(name: name)
    return event
  }
}
