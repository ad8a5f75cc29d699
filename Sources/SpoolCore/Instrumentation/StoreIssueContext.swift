import IssueReporting

/// What an issue that Spool reports is about: its kind, and the action it concerns when Spool
/// knows it, for an issue reporter to read while it handles the issue.
///
/// Spool reports API misuse and the errors that an effect throws and does not handle through
/// IssueReporting's `reportIssue`, whose reporters receive only a message and a source location.
/// While it reports one, Spool binds ``current`` to a context, so that a reporter can attach the
/// store's action type and the action's case to what it records (SpoolLogging's
/// `LoggingIssueReporter` does, as log metadata). The context is bound only on the path that
/// reports: the reduce and effect paths pay nothing for it.
///
/// What each report carries:
/// - an action sent or enqueued after the store shut down: ``Kind/misuse``, the
///   store's action type and the action's case;
/// - a child action that a `Scope`, `ifLet` or `forEach` could not deliver:
///   ``Kind/misuse``, the parent's action type and the action's case;
/// - an effect's unhandled error: ``Kind/unhandledEffectError``, the action type of
///   the feature whose effect threw, and the ``error``; not the action whose reduce returned the
///   effect (keeping it for every effect would cost the effect path), so the report's source
///   location, where the effect was created, says which.
///
/// Issues that Spool reports outside a store (`Task.cancel(id:)` outside an effect, say), and
/// issues that other code reports, have no context: ``current`` is `nil` for them.
///
/// ```swift
/// struct CountingReporter: IssueReporter {
///   func reportIssue(
///     _ message: @autoclosure () -> String?, severity: IssueSeverity,
///     fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
///   ) {
///     if let context = StoreIssueContext.current {
///       print(context.kind, context.actionType ?? "-", context.actionCase ?? "-")
///     }
///   }
/// }
/// ```
public struct StoreIssueContext: Sendable {
  /// What kind of issue Spool reported: a misuse of its API, or an effect's unhandled error.
  ///
  /// A struct over a private enum, so that later kinds do not break a `switch` over it: compare
  /// with the static members.
  public struct Kind: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Hashable {
      case misuse
      case unhandledEffectError
    }

    private let value: Value

    /// API misuse: an action that the store or a reducer operator could not deliver.
    public static var misuse: Self { Self(value: .misuse) }

    /// An error that an `Effect.run` threw and handled nowhere (it has no `catch:` handler).
    public static var unhandledEffectError: Self { Self(value: .unhandledEffectError) }

    /// A short name for logs: `misuse` or `unhandled-effect-error`.
    public var description: String {
      switch value {
      case .misuse: "misuse"
      case .unhandledEffectError: "unhandled-effect-error"
      }
    }
  }

  /// The kind of issue.
  public let kind: Kind

  /// The fully qualified name of the action type of the store (or the feature) that the issue
  /// concerns, `CartServer.CartFeature.Action`; `nil` when Spool does not know it.
  public let actionType: String?

  /// The name of the case of the action that the issue concerns, `addItem` (the outer case
  /// only: `child` for `.child(.saveTapped)`); `nil` when Spool does not know the action.
  public let actionCase: String?

  /// The error that an effect threw, for ``Kind/unhandledEffectError``; `nil`
  /// otherwise.
  public let error: (any Error)?

  /// The context of the issue being reported on this task, while Spool reports it; `nil`
  /// otherwise.
  ///
  /// Read it in an issue reporter's `reportIssue`: reporters are called synchronously, on the
  /// task that reports.
  public static var current: StoreIssueContext? { local.get() }

  /// The binding of ``current``.
  static let local = TaskLocal<StoreIssueContext?>(wrappedValue: nil)

  init(kind: Kind, actionType: String?, actionCase: String?, error: (any Error)?) {
    self.kind = kind
    self.actionType = actionType
    self.actionCase = actionCase
    self.error = error
  }

  /// The context of a misuse concerning `action`.
  static func misuse<Action>(_ action: Action) -> Self {
    Self(
      kind: .misuse, actionType: String(reflecting: Action.self),
      actionCase: caseName(of: action), error: nil)
  }

  /// The context of an error that an effect of a feature with actions of type `Action` threw.
  static func unhandled<Action>(_ error: any Error, actionType _: Action.Type) -> Self {
    Self(
      kind: .unhandledEffectError, actionType: String(reflecting: Action.self), actionCase: nil,
      error: error)
  }

  /// Runs `report` (which reports an issue) with ``current`` bound to this context.
  func bound(_ report: () -> Void) {
    Self.local.withValue(self, operation: report)
  }

  /// The name of the case of `value` when it is an enum, `nil` otherwise. Reflection: only for
  /// reports, never per action. Only the outer case: a payload that is itself an enum may be
  /// a child's action or plain data, and reflection cannot tell which.
  static func caseName(of value: Any) -> String? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum else { return nil }
    // A case without a payload has no child, and describes itself as its name.
    return mirror.children.first?.label ?? String(describing: value)
  }
}
