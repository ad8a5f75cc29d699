extension RootCore {
  /// `Store.send(_:reading:)` when the store is busy, or runs on an executor it was given.
  func sendReading<Value>(
    _ action: Action, _ read: (State) -> Value, isolation: isolated any StoreIsolation
  ) async -> Value {
    await lockOnExecutor(isolation: isolation)
    return sendReadingUnlocking(action, read)
  }

  /// ``sendUnlocking(_:)``, reading the state between the action's reduce (with the actions its
  /// effects sent synchronously) and the actions queued meanwhile: the consumer lock is held
  /// from before the reduce until after `read`, so nothing else is reduced in between.
  func sendReadingUnlocking<Value>(_ action: Action, _ read: (State) -> Value) -> Value {
    assertConsumerLockHeld()
    _ = sendLocked(action)
    let value = read(statePointer.pointee)
    if queue.hasPending {
      drainAfterCallerUnlocking(bindingDependencies: true)
    } else {
      queue.unlockConsumer()
    }
    return value
  }
}
