import Spool
import Testing

/// `StoreRegistryConfiguration` and `StoreRegistryError`: defaults, bad input, descriptions.
struct StoreRegistryConfigurationTests {
  @Test func theDefaultKeepsEveryStore() {
    let configuration = StoreRegistryConfiguration()
    #expect(configuration.idleTimeout == nil)
    #expect(configuration.maximumLiveStores == nil)
    #expect(configuration.runningEffects == .keepStore)
    #expect(configuration.runningEffects.description == "keepStore")
    #expect(StoreRegistryConfiguration.RunningEffectsPolicy.cancelEffects.description
      == "cancelEffects")
  }

  @Test func aBoundBelowOneCountsAsOne() {
    #expect(StoreRegistryConfiguration(maximumLiveStores: 0).maximumLiveStores == 1)
    #expect(StoreRegistryConfiguration(maximumLiveStores: -5).maximumLiveStores == 1)
    #expect(StoreRegistryConfiguration(maximumLiveStores: 7).maximumLiveStores == 7)
  }
}
