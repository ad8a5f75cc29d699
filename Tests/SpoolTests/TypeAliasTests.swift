import Spool
import Testing

/// `StoreOf` and `EffectOf`.
@Suite struct TypeAliasTests {
  @Test func storeOfAndEffectOfNameAFeaturesTypes() async {
    #expect(StoreOf<EffectHarness>.self == Store<EffectHarness.State, EffectAction>.self)
    #expect(EffectOf<EffectHarness>.self == Effect<EffectAction>.self)

    let respond: @Sendable (String) -> EffectOf<EffectHarness> = { .send(.response($0)) }
    let store: StoreOf<EffectHarness> = Store(initialState: EffectHarness.State()) {
      EffectHarness(effect: respond)
    }
    await store.send(.start("a"))
    #expect(await store.state.responses == ["a"])
  }
}
