import Synchronization

/// An object that a store creates only when first needed (its state observers, its effect
/// registry), in one atomic word, so that an idle store that never needs it pays a word.
///
/// The word is 0 while nothing was created, ``closedMark`` once the owner closed it before
/// anything was created, or else the object, retained by the cell until the cell goes away.
/// One compare-and-swap decides between a creator and ``close(_:)``: either the creator
/// publishes first and `close` closes its object, or it finds the cell closed and closes its
/// own before publishing it, so every object a reader can get has seen `close` if `close`
/// was called.
@usableFromInline
struct LazyReference<Object: AnyObject>: ~Copyable {
  @usableFromInline let bits = Atomic<Int>(0)

  /// Marks a cell closed before anything was created: an odd value, which no object's
  /// address is.
  @usableFromInline static var closedMark: Int { 1 }

  @inlinable init() {}

  /// Calls `body` with the object, if it was created; `nil` otherwise. One atomic load.
  @inlinable
  func withExisting<T>(_ body: (Object) -> T) -> T? {
    let current = bits.load(ordering: .acquiring)
    guard current != 0, current != Self.closedMark else { return nil }
    // Retained by the cell until it goes away, and the cell's owner is alive during the call.
    return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef(body)
  }

  /// The object, created with `make` if nobody did yet; if the cell was closed first, the new
  /// object is handed to `close` before anyone can see it.
  @inlinable
  func object(make: () -> Object, close: (Object) -> Void) -> Object {
    if let existing = withExisting({ $0 }) { return existing }
    let new = make()
    let address = Int(bitPattern: Unmanaged.passRetained(new).toOpaque())
    var expected = 0
    while true {
      if expected == Self.closedMark { close(new) }
      let (exchanged, current) = bits.compareExchange(
        expected: expected, desired: address, ordering: .acquiringAndReleasing
      )
      if exchanged { return new }
      if current == 0 || current == Self.closedMark {
        // Closed meanwhile (0 → closed): close the new object, and publish it then.
        expected = current
        continue
      }
      Unmanaged.passUnretained(new).release()
      return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped)
        .takeUnretainedValue()
    }
  }

  /// Closes the cell: `close` runs on the object if one was created; otherwise the cell is
  /// marked, and a later ``object(make:close:)`` closes what it creates. Closing twice runs
  /// `close` on the object twice; owners close once, or with an idempotent `close`.
  @inlinable
  func close(_ close: (Object) -> Void) {
    let (exchanged, current) = bits.compareExchange(
      expected: 0, desired: Self.closedMark, ordering: .acquiringAndReleasing
    )
    guard !exchanged, current != Self.closedMark else { return }
    Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef(close)
  }

  deinit {
    let current = bits.load(ordering: .acquiring)
    guard current != 0, current != Self.closedMark else { return }
    Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped).release()
  }
}
