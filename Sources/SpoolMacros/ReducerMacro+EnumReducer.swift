import SwiftSyntax
import SwiftSyntaxBuilder

extension ReducerMacro {
  /// The members of an enum reducer: `State`, `Action`, the static `body` that scopes each
  /// case, and an instance `body` that runs it.
  ///
  /// The generated enums are `Sendable`, as a store's state and actions must be, and nothing
  /// more: `Equatable` (which a `TestStore` needs) is the user's to add in an extension, as in
  /// TCA, since only the user knows whether every child state is `Equatable`. `State` is a
  /// `CaseReducerState` naming the enum, so that `ifLet` and `forEach` can run the enum's
  /// `body` without being given it. Ephemeral and ignored cases keep their values as written in
  /// `State`; their `Action` cases hold the value's `Action` and `Never`, and no reducer runs
  /// them. With ephemeral cases, `State` also says whether it is in one (`_isEphemeral`), which
  /// the presentation `ifLet` reads to dismiss it after an action.
  static func enumReducerMembers(
    of enumDecl: EnumDeclSyntax,
    cases: [ReducerDeclaration.ReducerCase]
  ) -> [DeclSyntax] {
    let access = accessModifier(of: enumDecl.modifiers)
    // `{}` for an enum without cases or other members; otherwise a member per line.
    func block(_ lines: [String]) -> String {
      if lines.isEmpty { return "{}" }
      return "{\n\(lines.map { "  \($0)" }.joined(separator: "\n"))\n}"
    }
    let stateCases = cases.map { reducerCase -> String in
      switch reducerCase.kind {
      case let .reducer(reducer): "case \(reducerCase.name.text)(\(reducer).State)"
      case .ephemeral, .ignored: "case \(reducerCase.element.trimmedDescription)"
      }
    }
    let actionCases = cases.map { reducerCase -> String in
      let name = reducerCase.name.text
      switch reducerCase.kind {
      case let .reducer(reducer):
        return "case \(name)(\(reducer).Action)"
      case let .ephemeral(type):
        let label = reducerCase.element.parameterClause?.parameters.first?.firstName
          .map { "\($0.text): " } ?? ""
        return "case \(name)(\(label)\(type).Action)"
      case .ignored:
        return "case \(name)(Swift.Never)"
      }
    }
    // The enum's own name, as the nested `State` sees it: `Self` there would be `State`.
    var stateMembers = ["\(access)typealias StateReducer = \(enumDecl.name.text)"] + stateCases
    var stateConformances = "Spool.CaseReducerState, Sendable"
    // Ephemeral cases are named to the presentation `ifLet`, which dismisses them after any of
    // their actions; an enum without them needs no conformance and pays nothing.
    let ephemeral = cases.filter {
      if case .ephemeral = $0.kind { return true }
      return false
    }
    if !ephemeral.isEmpty {
      stateConformances = "Spool.CaseReducerState, Spool._EphemeralCaseReducerState, Sendable"
      let others = cases.filter {
        if case .ephemeral = $0.kind { return false }
        return true
      }
      let patterns = { (cases: [ReducerDeclaration.ReducerCase]) in
        cases.map { ".\($0.name.text)" }.joined(separator: ", ")
      }
      var switchLines = ["  case \(patterns(ephemeral)): true"]
      if !others.isEmpty { switchLines.append("  case \(patterns(others)): false") }
      stateMembers.append(
        ([
          "\(access)var _isEphemeral: Bool {",
          "  switch self {",
        ] + switchLines + ["  }", "}"]).joined(separator: "\n  ")
      )
    }
    let reducers = cases.compactMap { reducerCase -> (name: String, reducer: TypeSyntax)? in
      guard case let .reducer(reducer) = reducerCase.kind else { return nil }
      return (reducerCase.name.text, reducer)
    }
    // Case key paths spelled out (`\\Self.State.Cases.add`): `\\.add` would also be a writable
    // key path through the `@dynamicMemberLookup` of `State`, and `Scope` would take that one.
    let scopes = reducers.map {
      """
        Spool.Scope(
          state: \\Self.State.Cases.\($0.name),
          action: \\Self.Action.Cases.\($0.name)
        ) {
          \($0.reducer)()
        }
      """
    }
    let body =
      scopes.isEmpty
      ? "  Spool.EmptyReducer<Self.State, Self.Action>()"
      : scopes.joined(separator: "\n")
    let state: DeclSyntax = """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum State: \(raw: stateConformances) \(raw: block(stateMembers))
      """
    let action: DeclSyntax = """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum Action: Sendable \(raw: block(actionCases))
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
}
