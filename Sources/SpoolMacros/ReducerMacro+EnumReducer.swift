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
  /// `body` without being given it.
  static func enumReducerMembers(
    of enumDecl: EnumDeclSyntax,
    cases: [ReducerDeclaration.ReducerCase]
  ) -> [DeclSyntax] {
    let access = accessModifier(of: enumDecl.modifiers)
    // `{}` for an enum without cases or other members; otherwise a member per line.
    func caseBlock(_ member: String, leading: [String] = []) -> String {
      let lines = leading + cases.map { "case \($0.name.text)(\($0.reducer).\(member))" }
      if lines.isEmpty { return "{}" }
      return "{\n\(lines.map { "  \($0)" }.joined(separator: "\n"))\n}"
    }
    // The enum's own name, as the nested `State` sees it: `Self` there would be `State`.
    let stateReducer = "\(access)typealias StateReducer = \(enumDecl.name.text)"
    let stateMembers = caseBlock("State", leading: [stateReducer])
    // Case key paths spelled out (`\\Self.State.Cases.add`): `\\.add` would also be a writable
    // key path through the `@dynamicMemberLookup` of `State`, and `Scope` would take that one.
    let scopes = cases.map {
      """
        Spool.Scope(
          state: \\Self.State.Cases.\($0.name.text),
          action: \\Self.Action.Cases.\($0.name.text)
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
      \(raw: access)enum State: Spool.CaseReducerState, Sendable \(raw: stateMembers)
      """
    let action: DeclSyntax = """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum Action: Sendable \(raw: caseBlock("Action"))
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
