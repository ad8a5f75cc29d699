import SpoolCore

/// Marks a case of an `@Reducer` enum as holding ephemeral state: state that no reducer runs,
/// shown until its first action, as TCA's `@ReducerCaseEphemeral` marks an alert.
///
/// The case's `State` case holds the value as written, and its `Action` case holds the value
/// type's `Action` (so the type names its actions `Action`, as a nested type or a typealias: a
/// generic parameter is not a member; `typealias Action = Never` for one that has none). No
/// reducer runs it. When the enum is a presentation's destination
/// (`ifLet(\.$destination, action: \.destination)`), an action sent to the case (`.destination(.presented(.alert(.confirm)))`) reaches the parent, and then the
/// destination is dismissed, unless the parent presented another case meanwhile. Spool has no
/// `AlertState`; any `Sendable` value type with an `Action` can be ephemeral:
///
/// ```swift
/// struct Prompt<Button: Equatable & Sendable>: Equatable, Sendable {
///   typealias Action = Button  // what the prompt's actions are
///   var message: String
/// }
///
/// @Reducer
/// enum Destination {
///   case edit(EditItem)
///   @ReducerCaseEphemeral
///   case confirmDeletion(Prompt<ConfirmDeletion>)
///
///   enum ConfirmDeletion: Equatable, Sendable { case delete, keep }
/// }
/// // Destination.State.confirmDeletion(Prompt<ConfirmDeletion>)
/// // Destination.Action.confirmDeletion(ConfirmDeletion)
/// ```
///
/// The case must hold exactly one value of a named type; `@Reducer` reports anything else.
@attached(peer)
public macro ReducerCaseEphemeral() =
  #externalMacro(module: "SpoolMacros", type: "ReducerCaseEphemeralMacro")

/// Marks a case of an `@Reducer` enum as holding state that no reducer runs and no action
/// reaches, as TCA's `@ReducerCaseIgnored` does.
///
/// The case's `State` case is the case as written, and its `Action` case holds `Never`, so that
/// `\.meeting` is a case key path of both, as in TCA. A case with no value or with several is
/// ignored without the mark, as in TCA:
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case edit(EditItem)
///   @ReducerCaseIgnored
///   case preview(Item)
///   case welcome                  // ignored: no value
///   case meeting(Item, note: String)  // ignored: two values
/// }
/// // Destination.State.preview(Item), .welcome, .meeting(Item, note: String)
/// // Destination.Action.preview(Never), .welcome(Never), .meeting(Never)
/// ```
@attached(peer)
public macro ReducerCaseIgnored() =
  #externalMacro(module: "SpoolMacros", type: "ReducerCaseIgnoredMacro")
