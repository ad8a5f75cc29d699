import ConcurrencyExtras
import CustomDump

/// The state of a presented child feature, optional: `nil` while nothing is presented.
///
/// Declare it with ``Presents``, as in TCA, and run the child with the presentation
/// `ifLet(_:action:destination:)`, which takes the key path to the projected value
/// (`\.$destination`):
///
/// ```swift
/// struct State: Equatable, Sendable {
///   @Presents var destination: Destination.State?
/// }
/// // state.destination = .editor(Editor.State())  // presents
/// // state.destination = nil                      // dismisses
/// ```
///
/// `@PresentationState var destination: Destination.State?`, TCA's older spelling, declares the
/// same property: `@Presents` is another name for this wrapper.
///
/// Where Spool differs from TCA: TCA's `@Presents` is a macro, because TCA's state is observed
/// by SwiftUI through Observation; Spool has no views to drive, so `@Presents` is this property
/// wrapper (``Presents`` names it), and a struct that holds one still gets its `Equatable`,
/// `Hashable` and `Sendable` conformances synthesized. As in TCA, the child is kept in a
/// copy-on-write box: a feature whose state contains itself (a recursive navigation) needs no
/// `indirect`, and `==` of two copies that share the box answers without comparing the child.
@propertyWrapper
public struct PresentationState<State> {
  /// The box that holds the child's state. Copy-on-write: it is mutated only through a
  /// `PresentationState` that references it alone (`isKnownUniquelyReferenced`), so a box that
  /// two values, or two threads, can see is never written.
  @usableFromInline
  final class Storage: @unchecked Sendable {
    // @unchecked Sendable, justified: the box is Sendable only through
    // `PresentationState: Sendable where State: Sendable`, and it is written only while
    // uniquely referenced by the value being mutated, which the law of exclusivity gives to one
    // thread at a time; a shared box is read only (the argument of the standard library's
    // copy-on-write collections).
    @usableFromInline var state: State?

    @usableFromInline init(_ state: State?) { self.state = state }
  }

  @usableFromInline var storage: Storage
  /// The identity of the child the presentation `ifLet` saw here when it last ran (its
  /// presence ID, erased); `nil` if it saw none. Written only by that reducer, which cancels
  /// the effects of this child when the state no longer holds it, whoever removed or replaced
  /// it. Kept beside the box, not in it, so that every write of the child keeps it. Not part
  /// of equality, hashing or dumps.
  @usableFromInline var mounted: AnyHashableSendable?

  /// The presented child's state; `nil` while nothing is presented.
  @inlinable
  public var wrappedValue: State? {
    get { storage.state }
    set {
      if isKnownUniquelyReferenced(&storage) {
        storage.state = newValue
      } else {
        storage = Storage(newValue)
      }
    }
    _modify {
      if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.state) }
      yield &storage.state
    }
  }

  /// Wraps the state of a presented child, or `nil` for none.
  ///
  /// - Parameter wrappedValue: The presented child's state.
  ///
  /// ```swift
  /// @Presents var destination: Destination.State? = nil
  /// ```
  @inlinable
  public init(wrappedValue: State?) {
    storage = Storage(wrappedValue)
    mounted = nil
  }

  /// This value: `$destination` is what `ifLet(_:action:destination:)` takes a key path to.
  @inlinable
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
    _modify { yield &self }
  }
}

/// The attribute that declares presented child state, as TCA's `@Presents` does.
///
/// ```swift
/// @Presents var alert: Alert.State?
/// ```
public typealias Presents<State> = PresentationState<State>

extension PresentationState: Equatable where State: Equatable {
  /// Equal when both hold no child or equal children; copies that share their box are equal
  /// without comparing the child (a state whose `==` is slow costs nothing here).
  ///
  /// ```swift
  /// let copy = state.$destination
  /// copy == state.$destination  // true, from the shared box
  /// ```
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.storage === rhs.storage || lhs.wrappedValue == rhs.wrappedValue
  }
}

extension PresentationState: Hashable where State: Hashable {
  /// Hashes the presented child's state (or its absence).
  ///
  /// ```swift
  /// var hasher = Hasher()
  /// state.$destination.hash(into: &hasher)
  /// ```
  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(wrappedValue)
  }
}

extension PresentationState: Sendable where State: Sendable {}

extension PresentationState: CustomDumpReflectable {
  /// Dumps as the presented state itself (or `nil`), so that a test store's diff of a parent
  /// shows the child's fields, not the wrapper.
  public var customDumpMirror: Mirror {
    Mirror(reflecting: wrappedValue as Any)
  }
}
