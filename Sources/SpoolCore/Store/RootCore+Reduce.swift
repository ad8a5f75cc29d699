import CSpoolTime
import CustomDump
import ConcurrencyExtras
import Dependencies
import IssueReporting
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// One reduce, timed or counted for the instrumentation: a producer's pass, a `send`, an action
// an effect sent synchronously; the drain loop's batches are `drainAvailableLocked`.
extension RootCore {
  /// Reduces `action` and starts the effect it returned; returns the started tasks when
  /// `collect` is true (for ``StoreTask``), none otherwise.
  @inlinable
  func processLocked(
    _ action: Action, enqueuedAt: UInt64, collect: Bool
  ) -> [Task<Void, any Error>] {
    assertConsumerLockHeld()
    let effect = reduceTimedLocked(action, enqueuedAt: enqueuedAt)
    if effect.isNone { return [] }
    return startEffectLocked(effect, of: action, collect: collect)
  }

  /// Reduces `action`, reporting it to the instrumentation if there is one.
  ///
  /// `enqueuedAt` is 0 for an action that was not queued (`send`, a producer's pass, an action
  /// an effect sent synchronously): with instrumentation, it waited for nothing, and its start
  /// is its enqueue time (two clock reads per action, not three). Sampled, an action that
  /// ``reduceIsTimedLocked()`` passes over is counted, with no clock read.
  @inlinable @inline(__always)
  func reduceTimedLocked(_ action: Action, enqueuedAt: UInt64) -> Effect<Action> {
    assertConsumerLockHeld()
    // Sampling implies an instrumentation; the untimed path reads it only when the store's
    // own cells do not count the action (binding it costs a retain and a release).
    if _slowPath(sampleInterval != 1) && enqueuedAt == 0 && !reduceIsTimedLocked() {
      let effect = reducer.reduce(into: &statePointer.pointee, action: action)
      countUntimedLocked(action)
      return effect
    }
    // Called through `instrumentation?.`, never bound to a local: a binding is a copy of the
    // reference, a retain and a release per action.
    guard instrumentation != nil else {
      return reducer.reduce(into: &statePointer.pointee, action: action)
    }
    guard timesReduces else {
      let effect = reducer.reduce(into: &statePointer.pointee, action: action)
      let time = enqueuedAt == 0 ? SpoolTime.now() : enqueuedAt
      instrumentation?.recordReduced(
        action, inPlace: timesInPlace, enqueuedAt: time, startedAt: time, endedAt: time)
      return effect
    }
    let start = SpoolTime.now()
    let effect = reducer.reduce(into: &statePointer.pointee, action: action)
    instrumentation?.recordReduced(
      action, inPlace: timesInPlace, enqueuedAt: enqueuedAt == 0 ? start : enqueuedAt,
      startedAt: start,
      endedAt: SpoolTime.now()
    )
    return effect
  }

  /// Counts an action the store reduced without timing it: in the store's own cells when it
  /// has them and they count its case, through the instrumentation otherwise.
  @inlinable @inline(__always)
  func countUntimedLocked(_ action: Action) {
    assertConsumerLockHeld()
    if let caseCounts, caseCounts._withUnsafeGuaranteedRef({ $0.count(action) }) { return }
    instrumentation?.recordCounted(action, inPlace: timesInPlace)
  }

  /// Whether the holder of the consumer lock times the action it reduces next, with
  /// sampling: every ``sampleInterval``th of the actions that were not queued (reduced on a
  /// producer's thread, sent by `send`, or sent synchronously by an effect).
  @inlinable @inline(__always)
  func reduceIsTimedLocked() -> Bool {
    assertConsumerLockHeld()
    if sampleCountdown > 1 {
      sampleCountdown &-= 1
      return false
    }
    sampleCountdown = sampleInterval
    return true
  }

  /// ``processLocked(_:enqueuedAt:collect:)`` for an action from the queue or a producer's
  /// pass, whose effects are collected: no array of tasks to return and release per action.
  @inlinable @inline(__always)
  func reduceCollectingLocked(_ action: Action, enqueuedAt: UInt64) {
    assertConsumerLockHeld()
    let effect = reduceTimedLocked(action, enqueuedAt: enqueuedAt)
    if effect.isNone { return }
    _ = startEffectLocked(effect, of: action, collect: false)
  }
}
