import SpoolCore

/// Makes a struct or an enum a `Reducer`, as TCA's `@Reducer` macro does.
///
/// On a struct, `@Reducer` adds the `Reducer` conformance, and `@CasePathable` and
/// `@dynamicMemberLookup` to the nested `enum Action`, and to `enum State` when the state is an
/// enum, so that `\.child` case key paths and `action.child` work as in TCA. Attributes already
/// written are not added twice, and a `State` or `Action` that is a typealias is left alone. It
/// also marks `var body` `@ReducerBuilder<State, Action>` (the compiler does not carry the
/// requirement's builder over to a conformance that a macro adds in an extension). A struct
/// declares its own `body` or `reduce(into:action:)`:
///
/// ```swift
/// @Reducer
/// struct Counter {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action { case incrementButtonTapped }
///
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       switch action {
///       case .incrementButtonTapped:
///         state.count += 1
///         return .none
///       }
///     }
///   }
/// }
/// ```
///
/// A struct that declares neither gets, as with TCA's macro, a `body` that does nothing, and
/// an empty `State` (`Codable`, `Equatable`, `Hashable`, `Sendable`) and `Action` (with no case)
/// where it declares no type of that name: `@Reducer struct Placeholder {}` is a reducer.
///
/// On an enum whose cases hold reducers, `@Reducer` generates TCA's enum reducer: a
/// `State` enum and an `Action` enum with a case per case of the enum (both `@CasePathable`,
/// `@dynamicMemberLookup` and `Sendable`), a `static var body` that runs each case's reducer on
/// its case with `Scope(state: \.add, action: \.add) { AddItem() }` (or with the case's default
/// value, `case edit(Editor = Editor(mode: .full))`, as in TCA), an instance `body` that runs
/// it, and a `CaseReducer` conformance. The generated `State` is a
/// `CaseReducerState` whose `StateReducer` is the enum, so that, as in TCA, the presentation
/// and optional-state `ifLet(_:action:)` and the stack `forEach(_:action:)` run it with no
/// closure:
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case add(AddItem)
///   case edit(EditItem)
/// }
/// extension Destination.State: Equatable {}
///
/// // In the parent's body:
/// Reduce { state, action in .none }
///   .ifLet(\.$destination, action: \.destination)
/// ```
///
/// A case that holds something other than a reducer is marked, as in TCA:
/// ``ReducerCaseEphemeral()`` for state that no reducer runs and that a presentation dismisses
/// after any of its actions (TCA's alerts), ``ReducerCaseIgnored()`` for state that takes no
/// action (its `Action` case holds `Never`). A case with no value, or with several, is ignored
/// without the mark.
///
/// Cases inside `#if`, `#elseif` and `#else` clauses keep their clause: their `State` and
/// `Action` cases, and their reducers in the generated `body`, are compiled exactly when the
/// case is.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case edit(EditItem)
///   #if DEBUG
///     case inspector(Inspector)
///   #endif
/// }
/// ```
///
/// The closure forms still work when given the enum's static body
/// (`.ifLet(\.destination, action: \.destination) { Destination.body }`); `ifCaseLet` has only
/// that form.
///
/// The generated `State` is `Sendable`, because a store's state must be, but not `Equatable`:
/// as in TCA, write `extension Destination.State: Equatable {}` (in the file that declares
/// `Destination`) when every child state is `Equatable`, which a `TestStore` needs.
///
/// Where Spool differs from TCA: there is no `@ObservableState` (Spool observes a store through
/// an `AsyncSequence` of state snapshots), so `@Reducer` adds none; and an enum reducer has no
/// `CaseScope` or `scope(_:)`, as Spool has no views to switch on a store's case.
///
/// With Swift 6.3.1, a file that declares four or more enum reducers whose conformances all
/// come from `@Reducer` crashes the compiler (a segmentation fault while type-checking the
/// file). Name `Reducer` after each enum's name, which the macro then does not add again:
///
/// ```swift
/// @Reducer
/// enum Destination: Reducer {
///   case add(AddItem)
/// }
/// ```
///
/// `@Reducer` reports, as a compile error naming what is wrong: an application to a class,
/// actor, protocol or extension; a struct with neither `body` nor `reduce(into:action:)` that
/// declares a `reduce` with other labels or a `static var body` (meant as the reducer, which an
/// empty `body` would silently replace); an unmarked enum case whose one value is not an
/// unlabelled name of a reducer type (`case add(item: AddItem)`, `case add((AddItem, Int))`,
/// `case add(AddItem?)`); an `@ReducerCaseEphemeral` case without exactly one value of a
/// named type; and `#if` around a case's attributes only, which would make the case's kind
/// depend on the configuration (put the whole case in each clause instead).
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Reducer, CaseReducer)
public macro Reducer() = #externalMacro(module: "SpoolMacros", type: "ReducerMacro")

/// ``Reducer()`` on an enum reducer, with conformances for the `State` and `Action` it
/// generates, as TCA's `@Reducer(state:action:)` takes them.
///
/// The generated enums are `Sendable` already; each argument adds its protocol, which the
/// compiler synthesizes from the cases (so every child's `State` or `Action` must conform to
/// it too). The same can be written as extensions, as TCA recommends in Swift 6:
/// `extension Destination.State: Equatable {}`. On a struct reducer the arguments are a
/// compile error: its `State` and `Action` are its own to declare.
///
/// ```swift
/// @Reducer(state: .equatable, .codable, action: .equatable)
/// enum Destination {
///   case add(AddItem)
///   case edit(EditItem)
/// }
/// ```
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Reducer, CaseReducer)
public macro Reducer(
  state: _SynthesizedConformance..., action: _SynthesizedConformance...
) = #externalMacro(module: "SpoolMacros", type: "ReducerMacro")

/// A protocol that ``Reducer(state:action:)`` adds to an enum reducer's generated `State` or
/// `Action`.
///
/// ```swift
/// @Reducer(state: .hashable, action: .hashable)
/// enum Destination { case detail(Detail) }
/// ```
public struct _SynthesizedConformance: Hashable, Sendable {
  let name: String

  /// `Codable`.
  public static let codable = Self(name: "Codable")
  /// `Decodable`.
  public static let decodable = Self(name: "Decodable")
  /// `Encodable`.
  public static let encodable = Self(name: "Encodable")
  /// `Equatable`.
  public static let equatable = Self(name: "Equatable")
  /// `Hashable`.
  public static let hashable = Self(name: "Hashable")
  /// `Sendable` (which the generated enums always are).
  public static let sendable = Self(name: "Sendable")
}
