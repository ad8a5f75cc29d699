import ConcurrencyExtras
import Spool
import Testing

#if DEBUG
  /// A `send` called after its `Effect.run` operation returned, from a task the operation
  /// started and did not wait for, is reported (in debug builds, where the check runs) and the
  /// action is still sent; sends from work the operation waits for are not.
  @Suite struct EffectSendAfterReturnTests {
    enum Action: Equatable, Sendable { case escape, gather, response }

    static func store(
      escaped: LockIsolated<Task<Void, Never>?>, opened: AsyncStream<Void>
    ) -> Store<Int, Action> {
      Store(initialState: 0) {
        Reduce<Int, Action> { state, action in
          switch action {
          case .escape:
            return .run { send in
              escaped.setValue(
                Task {
                  for await _ in opened { break }
                  await send(.response)
                })
            }
          case .gather:
            return .run { send in
              await withTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { await send(.response) } }
              }
              async let last: Void = send(.response)
              await last
            }
          case .response:
            state += 1
            return .none
          }
        }
      }
    }

    @Test func aSendAfterTheOperationReturnedIsReportedAndDelivered() async {
      let escaped = LockIsolated<Task<Void, Never>?>(nil)
      let (opened, open) = AsyncStream<Void>.makeStream()
      let store = Self.store(escaped: escaped, opened: opened)
      // The whole exchange inside the known issue's scope: the escaped task reports from its
      // own task, which inherits the scope from the effect that started it.
      await withKnownIssue {
        await store.send(.escape).finish()
        open.yield(())
        await escaped.value?.value
      } matching: { issue in
        message(of: issue).hasPrefix("An action was sent from a completed effect:")
          && message(of: issue).contains("The \"Effect.run\" from \"SpoolTests/")
          && message(of: issue).contains(".response")
      }
      while await store.state == 0 { await Task.yield() }
      #expect(await store.state == 1)
    }

    @Test func sendsFromWorkTheOperationAwaitsAreNotReported() async {
      let store = Self.store(
        escaped: LockIsolated(nil), opened: AsyncStream<Void>.makeStream().stream)
      await store.send(.gather).finish()
      #expect(await store.state == 4)
    }
  }
#endif
