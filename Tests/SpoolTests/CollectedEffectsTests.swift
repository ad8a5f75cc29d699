import ConcurrencyExtras
import Testing

@testable import SpoolCore

/// The rule of the effects a pass collects, synchronously: no store, no task runs.
@Suite struct CollectedEffectsTests {
  typealias Collected = CollectedEffects<Int>

  /// The box of `effect`, which must not be `.none`.
  func box(_ effect: Effect<Int>) -> Effect<Int>.Box {
    guard let box = effect.box else { preconditionFailure("a test effect is .none") }
    return box
  }

  var plainRun: Effect<Int>.Box { box(.run { _ in }) }

  /// A reserved effect as a pass collects it: reserved in `registry` under `id`.
  func reserved(
    _ id: String, in registry: EffectRegistry, origin: Int = 0
  ) -> Collected.Reserved {
    let id = AnyHashableSendable(id)
    let token = registry.reserve(ids: [id])
    return Collected.Reserved(token: token, id: id, box: plainRun, origin: origin)
  }

  @Test func plainRunsFromAPassAreCollectedAndOthersStartNow() {
    #expect(Collected.route(plainRun, forTask: false) == .collectRun)
    // `send` wants the tasks back: a collected run has none yet.
    #expect(Collected.route(plainRun, forTask: true) == .startRun)
    // A priority of its own needs a task of its own.
    #expect(Collected.route(box(.run(priority: .high) { _ in }), forTask: false) == .startRun)
  }

  @Test func cancellableRunsAreReservedAndOtherShapesArePlanned() {
    let cancellable = box(
      Effect<Int>.run { _ in }.cancellable(id: "search", cancelInFlight: true))
    #expect(Collected.route(cancellable, forTask: false) == .collectReserved)
    // What the reservation is made of: the ID, `cancelInFlight` and the inner run.
    let (id, cancelInFlight, run) = Collected.cancellableRun(cancellable)
    #expect(id == AnyHashableSendable("search"))
    #expect(cancelInFlight)
    #expect(run.isRun)
    let kept = Collected.cancellableRun(box(Effect<Int>.run { _ in }.cancellable(id: 7)))
    #expect(kept.id == AnyHashableSendable(7))
    #expect(!kept.cancelInFlight)
    #expect(Collected.route(cancellable, forTask: true) == .startCancellable)
    let merged = Effect<Int>.merge(.run { _ in }, .run { _ in }).cancellable(id: "both")
    #expect(Collected.route(box(merged), forTask: false) == .plan)
    #expect(Collected.route(box(.send(1)), forTask: false) == .plan)
    #expect(Collected.route(box(.cancel(id: "search")), forTask: false) == .plan)
  }

  @Test func collectedRunsStartBeforeAnyOtherEffect() {
    let others: [Effect<Int>] = [
      .run(priority: .high) { _ in }, .run { _ in }.cancellable(id: "a"), .cancel(id: "a"),
      .send(1), .merge(.run { _ in }, .run { _ in }),
    ]
    for effect in others {
      #expect(Collected.route(box(effect), forTask: false).startsCollectedRunsFirst)
    }
    #expect(Collected.route(plainRun, forTask: true).startsCollectedRunsFirst)
    // Only a run that joins the collected ones waits with them.
    #expect(!Collected.route(plainRun, forTask: false).startsCollectedRunsFirst)
  }

  @Test func theBatchLimitStartsTheRuns() {
    var collected = Collected()
    #expect(collected.isEmpty)
    for index in 1..<Collected.batchLimit {
      let full = collected.collect(run: plainRun, origin: index, keepsOrigins: true)
      #expect(!full)
    }
    let full = collected.collect(run: plainRun, origin: 64, keepsOrigins: true)
    #expect(full)
    let batch = collected.takeRuns()
    #expect(batch?.count == Collected.batchLimit)
    #expect(batch?.takeOrigin(63) == 64)
    let none = collected.takeRuns()
    #expect(none == nil)
    #expect(collected.isEmpty)
  }

  @Test func theBatchLimitStartsTheReservedEffects() {
    let registry = EffectRegistry(startsImmediately: true)
    var collected = Collected()
    for index in 1..<Collected.batchLimit {
      let full = collected.collect(reserved: reserved("\(index)", in: registry, origin: index))
      #expect(!full)
    }
    let full = collected.collect(reserved: reserved("last", in: registry, origin: 64))
    #expect(full)
    var started: [Int] = []
    collected.startReserved { started.append($0.origin) }
    #expect(started == Array(1...64))
    #expect(collected.isEmpty)
  }

  @Test func thePassEndStartsReservedEffectsBeforeRuns() {
    let registry = EffectRegistry(startsImmediately: true)
    var collected = Collected()
    // Collected runs first, then a reserved one: the reserved still starts first.
    _ = collected.collect(run: plainRun, origin: 1, keepsOrigins: false)
    _ = collected.collect(reserved: reserved("search", in: registry, origin: 2))
    var order: [String] = []
    collected.startAll(
      reserved: { order.append("reserved \($0.origin)") },
      runs: { order.append("runs \($0.count)") })
    #expect(order == ["reserved 2", "runs 1"])
    #expect(collected.isEmpty)
    order = []
    collected.startAll(
      reserved: { _ in order.append("reserved") }, runs: { _ in order.append("runs") })
    #expect(order.isEmpty)
  }

  @Test func shutdownDropsEverythingAndGivesTheTokensBack() {
    let registry = EffectRegistry(startsImmediately: true)
    var collected = Collected()
    _ = collected.collect(run: plainRun, origin: 1, keepsOrigins: false)
    _ = collected.collect(reserved: reserved("a", in: registry))
    _ = collected.collect(reserved: reserved("b", in: registry))
    #expect(registry.count == 2)
    registry.shutdown()
    collected.drop(givingBackTo: registry)
    #expect(collected.isEmpty)
    // `finish()` waits for the registry's count: no slot of a dropped effect is left in it.
    #expect(registry.count == 0)
  }
}
