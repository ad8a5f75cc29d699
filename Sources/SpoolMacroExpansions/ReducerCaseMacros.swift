import SwiftSyntax
import SwiftSyntaxMacros

/// `@ReducerCaseEphemeral`: marks a case of an `@Reducer` enum as holding ephemeral state.
///
/// It expands to nothing: `@Reducer` reads the mark from the case's attributes when it
/// generates the enum's `State`, `Action` and `body`.
public enum ReducerCaseEphemeralMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}

/// `@ReducerCaseIgnored`: marks a case of an `@Reducer` enum as holding state that no reducer
/// runs and no action reaches.
///
/// It expands to nothing: `@Reducer` reads the mark from the case's attributes when it
/// generates the enum's `State`, `Action` and `body`.
public enum ReducerCaseIgnoredMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}
