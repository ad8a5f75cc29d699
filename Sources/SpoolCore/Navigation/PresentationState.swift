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
/// Where Spool differs from TCA: TCA's `@Presents` is a macro, because TCA's state is observed
/// by SwiftUI through Observation; Spool has no views to drive, so `@Presents` is this property
/// wrapper (``Presents`` names it), and a struct that holds one still gets its `Equatable`,
/// `Hashable` and `Sendable` conformances synthesized. The child is stored inline, not boxed: a
/// feature whose state contains itself needs an indirect enum for its destination.
@propertyWrapper
public struct PresentationState<State> {
  /// The presented child's state; `nil` while nothing is presented.
  public var wrappedValue: State?

  /// Wraps the state of a presented child, or `nil` for none.
  ///
  /// - Parameter wrappedValue: The presented child's state.
  ///
  /// ```swift
  /// @Presents var destination: Destination.State? = nil
  /// ```
  public init(wrappedValue: State?) {
    self.wrappedValue = wrappedValue
  }

  /// This value: `$destination` is what `ifLet(_:action:destination:)` takes a key path to.
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

extension PresentationState: Equatable where State: Equatable {}
extension PresentationState: Hashable where State: Hashable {}
extension PresentationState: Sendable where State: Sendable {}

extension PresentationState: CustomDumpReflectable {
  /// Dumps as the presented state itself (or `nil`), so that a test store's diff of a parent
  /// shows the child's fields, not the wrapper.
  public var customDumpMirror: Mirror {
    Mirror(reflecting: wrappedValue as Any)
  }
}
