import Dependencies
import SpoolCore

extension Store {
  /// Creates a store that runs on `engine`'s event-loop thread, with its effects.
  ///
  /// On io_uring, the store reduces on the ring's thread (``IOEngine/storeExecutor``) and its
  /// effects prefer it (``IOEngine/taskExecutor``): an effect starts on that thread, submits its
  /// I/O there, is resumed there by the completion, and its response reaches the store without
  /// a thread hop. Keep such a feature I/O-bound: a long reduce or CPU-heavy effect delays every
  /// completion of the engine. On the thread backend the store runs as any store does, and its
  /// effects on the global executor.
  ///
  /// ```swift
  /// let store = Store(initialState: Reader.State(), on: .shared) {
  ///   Reader()
  /// }
  /// store.enqueue(.load(path: "/etc/hostname"))
  /// await store.finish()
  /// ```
  @inlinable
  public init<R: Reducer<State, Action> & SendableMetatype>(
    initialState: State,
    on engine: IOEngine,
    instrumentation: (any StoreInstrumentation<Action>)? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    self.init(
      initialState: initialState,
      options: StoreOptions(
        instrumentation: instrumentation,
        executor: engine.storeExecutor,
        effectExecutor: engine.backend == .ioUring ? engine.taskExecutor : nil),
      reducer: reducer,
      withDependencies: prepareDependencies)
  }
}
