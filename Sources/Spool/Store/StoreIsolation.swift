/// The serial executor that a store and all the stores scoped from it share.
///
/// `Store` is an actor whose `unownedExecutor` is this actor's: the root store and its scoped
/// children then run on one serial executor, so a child forwards to its root without an actor
/// hop, and the drain loop (isolated to this actor) excludes `send` and vice versa. The drain
/// loop does not hold the `Store` itself, so that a store nobody references is deinitialized.
@usableFromInline
actor StoreIsolation {
  @usableFromInline init() {}
}
