/// How big and how long a soak is: its duration, its sampling interval and the volumes of its
/// feature drivers.
///
/// `spool bench soak` uses ``init(duration:window:producers:)``: a window of `--actions`
/// (default 1,000) actions per producer round, `--producers` fan-in producers, 8 echo
/// connections, 10,000 todo rows. Tests make smaller ones.
package struct SoakConfiguration: Sendable {
  /// How long the drivers keep going.
  package var duration: Duration
  /// How often the timeline is sampled.
  package var interval: Duration
  /// Actions a producer sends before it awaits the store (`finish()`) in every driver that
  /// works in windows: counter, counter-send, effects, cancellation, todos, fan-in (each
  /// producer).
  package var window: Int
  /// Concurrent producers of the fan-in store.
  package var producers: Int
  /// Block reads in flight per window of the file reader.
  package var readWindow = 64
  /// Echo clients, each with its connection child feature.
  package var connections = 8
  /// Rows of the todo list.
  package var rows = 10_000

  /// The most samples a soak keeps: longer soaks sample less often.
  package static let maximumSamples = 240

  /// A soak of `duration`, sampled every second, or every `duration / 240` when that is longer.
  package init(duration: Duration, window: Int = 1_000, producers: Int = 4) {
    self.duration = duration
    self.interval = max(.seconds(1), duration / Self.maximumSamples)
    self.window = max(1, window)
    self.producers = max(1, producers)
  }
}
