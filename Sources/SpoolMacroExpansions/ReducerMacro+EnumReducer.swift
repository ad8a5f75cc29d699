import SwiftSyntax
import SwiftSyntaxBuilder

extension ReducerMacro {
  /// The members of an enum reducer: `State`, `Action`, the static `body` that scopes each
  /// case (making its reducer with the case's default value, if it has one), and an instance
  /// `body` that runs it.
  ///
  /// The generated enums are `Sendable`, as a store's state and actions must be, and nothing
  /// more: `Equatable` (which a `TestStore` needs) is the user's to add in an extension, as in
  /// TCA, since only the user knows whether every child state is `Equatable`. `State` is a
  /// `CaseReducerState` naming the enum, so that `ifLet` and `forEach` can run the enum's
  /// `body` without being given it. Ephemeral and ignored cases keep their values as written in
  /// `State`; their `Action` cases hold the value's `Action` and `Never`, and no reducer runs
  /// them. With ephemeral cases, `State` also says whether it is in one (`_isEphemeral`), which
  /// the presentation `ifLet` reads to dismiss it after an action.
  ///
  /// `conformances` (`@Reducer(state:action:)`) adds protocols to the two enums, after the
  /// ones they always have.
  static func enumReducerMembers(
    of enumDecl: EnumDeclSyntax,
    cases items: [ReducerDeclaration.CaseItem],
    conformances: SynthesizedConformances = SynthesizedConformances()
  ) -> [DeclSyntax] {
    let access = accessModifier(of: enumDecl.modifiers)
    let cases = ReducerDeclaration.CaseItem.flatten(items)
    // `{}` for an enum without cases or other members; otherwise a member per line.
    func block(_ lines: [String]) -> String {
      if lines.isEmpty { return "{}" }
      return "{\n\(lines.map { "  \($0)" }.joined(separator: "\n"))\n}"
    }
    let stateCases = conditionalLines(items) { reducerCase -> [String] in
      switch reducerCase.kind {
      case let .reducer(reducer): ["case \(reducerCase.name.text)(\(reducer).State)"]
      case .ephemeral, .ignored: ["case \(reducerCase.element.trimmedDescription)"]
      }
    }
    let actionCases = conditionalLines(items) { reducerCase -> [String] in
      let name = reducerCase.name.text
      switch reducerCase.kind {
      case let .reducer(reducer):
        return ["case \(name)(\(reducer).Action)"]
      case let .ephemeral(type):
        let label = reducerCase.element.parameterClause?.parameters.first?.firstName
          .map { "\($0.text): " } ?? ""
        return ["case \(name)(\(label)\(type).Action)"]
      case .ignored:
        return ["case \(name)(Swift.Never)"]
      }
    }
    // The enum's own name, as the nested `State` sees it: `Self` there would be `State`.
    var stateMembers = ["\(access)typealias StateReducer = \(enumDecl.name.text)"] + stateCases
    var stateConformances = "Spool.CaseReducerState, Sendable"
    // Ephemeral cases are named to the presentation `ifLet`, which dismisses them after any of
    // their actions; an enum without them needs no conformance and pays nothing.
    if cases.contains(where: \.isEphemeral) {
      stateConformances = "Spool.CaseReducerState, Spool._EphemeralCaseReducerState, Sendable"
      stateMembers.append(
        ([
          "\(access)var _isEphemeral: Bool {",
          "  switch self {",
        ] + ephemeralSwitchLines(items).map { "  \($0)" } + ["  }", "}"])
          .joined(separator: "\n  ")
      )
    }
    let extraState = conformances.state.filter { $0 != "Sendable" }
    if !extraState.isEmpty {
      stateConformances += ", " + extraState.joined(separator: ", ")
    }
    let actionConformances = (["Sendable"] + conformances.action.filter { $0 != "Sendable" })
      .joined(separator: ", ")
    // Case key paths spelled out (`\\Self.State.Cases.add`): `\\.add` would also be a writable
    // key path through the `@dynamicMemberLookup` of `State`, and `Scope` would take that one.
    let scopes = conditionalLines(items) { reducerCase -> [String] in
      guard case let .reducer(reducer) = reducerCase.kind else { return [] }
      let name = reducerCase.name.text
      return [
        "Spool.Scope(",
        "  state: \\Self.State.Cases.\(name),",
        "  action: \\Self.Action.Cases.\(name)",
        ") {",
        "  \(reducerCase.construction?.trimmedDescription ?? "\(reducer)()")",
        "}",
      ]
    }
    // An enum whose reducer cases are all in `#if` clauses that are off runs none: the
    // builder's empty block makes that an `EmptyReducer` too.
    let body =
      scopes.isEmpty
      ? "  Spool.EmptyReducer<Self.State, Self.Action>()"
      : scopes.map { "  \($0)" }.joined(separator: "\n")
    let state: DeclSyntax = """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum State: \(raw: stateConformances) \(raw: block(stateMembers))
      """
    let action: DeclSyntax = """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum Action: \(raw: actionConformances) \(raw: block(actionCases))
      """
    let staticBody: DeclSyntax = """
      @Spool.ReducerBuilder<Self.State, Self.Action>
      \(raw: access)static var body: some Spool.Reducer<Self.State, Self.Action> {
      \(raw: body)
      }
      """
    let instanceBody: DeclSyntax = """
      \(raw: access)var body: some Spool.Reducer<Self.State, Self.Action> {
        Self.body
      }
      """
    return [state, action, staticBody, instanceBody]
  }

  /// The lines `render` gives for each case of `items`, with each `#if` block's directives
  /// around its clauses' lines, so that a generated line exists exactly when its case does.
  ///
  /// A block whose clauses give no line at all is left out; one with some empty clauses keeps
  /// them, since dropping a clause would change which of the others is taken.
  private static func conditionalLines(
    _ items: [ReducerDeclaration.CaseItem],
    _ render: (ReducerDeclaration.ReducerCase) -> [String]
  ) -> [String] {
    items.flatMap { item -> [String] in
      switch item {
      case let .single(reducerCase):
        return render(reducerCase)
      case let .conditional(clauses):
        return directiveBlock(clauses) { conditionalLines($0, render) }
      }
    }
  }

  /// The `_isEphemeral` switch's cases: the cases outside `#if` blocks in one line for `true`
  /// and one for `false`, then each block's clauses in the same way, so that the switch names
  /// every case of the configuration once.
  private static func ephemeralSwitchLines(_ items: [ReducerDeclaration.CaseItem]) -> [String] {
    var ephemeral: [String] = []
    var others: [String] = []
    var blocks: [String] = []
    for item in items {
      switch item {
      case let .single(reducerCase):
        if reducerCase.isEphemeral {
          ephemeral.append(".\(reducerCase.name.text)")
        } else {
          others.append(".\(reducerCase.name.text)")
        }
      case let .conditional(clauses):
        blocks += directiveBlock(clauses) { ephemeralSwitchLines($0) }
      }
    }
    var lines: [String] = []
    if !ephemeral.isEmpty { lines.append("case \(ephemeral.joined(separator: ", ")): true") }
    if !others.isEmpty { lines.append("case \(others.joined(separator: ", ")): false") }
    return lines + blocks
  }

  /// One `#if` block: each clause's directive followed by its lines, then `#endif`; nothing
  /// when no clause has a line.
  private static func directiveBlock(
    _ clauses: [ReducerDeclaration.CaseItem.Clause],
    _ lines: ([ReducerDeclaration.CaseItem]) -> [String]
  ) -> [String] {
    let clauseLines = clauses.map { (directive: $0.directive, lines: lines($0.items)) }
    guard clauseLines.contains(where: { !$0.lines.isEmpty }) else { return [] }
    return clauseLines.flatMap { [$0.directive] + $0.lines } + ["#endif"]
  }
}

extension ReducerDeclaration.ReducerCase {
  var isEphemeral: Bool {
    if case .ephemeral = kind { return true }
    return false
  }
}
