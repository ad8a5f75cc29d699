import Spool
import Testing

@testable import SpoolCore

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

  /// A timeout of zero or less would make the sweeper spin, one near `Duration`'s limit
  /// overflow its arithmetic: both are clamped before the sweeper sees them.
  @Test func idleTimeoutsOutOfRangeAreClamped() {
    func effective(_ timeout: Duration) -> Duration? {
      StoreRegistryConfiguration(idleTimeout: timeout).effectiveIdleTimeout
    }
    #expect(effective(.zero) == .milliseconds(1))
    #expect(effective(.seconds(-5)) == .milliseconds(1))
    #expect(effective(.seconds(60)) == .seconds(60))
    let longest = effective(.seconds(Int64.max))
    #expect(longest == .seconds(3_155_760_000))
    #expect((longest?.registryNanoseconds ?? 0) > 0)
    #expect(StoreRegistryConfiguration().effectiveIdleTimeout == nil)
  }
}
