import SpoolMacroExpansions
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that holds Spool's macros; the compiler loads it for `@Reducer` and
/// the case marks `@ReducerCaseEphemeral` and `@ReducerCaseIgnored`.
@main
struct SpoolMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    ReducerMacro.self, ReducerCaseEphemeralMacro.self, ReducerCaseIgnoredMacro.self,
  ]
}

// The compiler finds a macro by the name `SpoolMacros.<type>` (`#externalMacro` in Spool), so
// the types it names must be declared in this module; each forwards to its expansion in
// SpoolMacroExpansions (Package.swift says why that is a library of its own).

/// `@Reducer`, expanded by ``SpoolMacroExpansions/ReducerMacro``.
public enum ReducerMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try SpoolMacroExpansions.ReducerMacro.expansion(
      of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
  }

  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    try SpoolMacroExpansions.ReducerMacro.expansion(
      of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
  }

  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    try SpoolMacroExpansions.ReducerMacro.expansion(
      of: node, attachedTo: declaration, providingExtensionsOf: type,
      conformingTo: protocols, in: context)
  }
}

/// `@ReducerCaseEphemeral`, expanded by ``SpoolMacroExpansions/ReducerCaseEphemeralMacro``.
public enum ReducerCaseEphemeralMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try SpoolMacroExpansions.ReducerCaseEphemeralMacro.expansion(
      of: node, providingPeersOf: declaration, in: context)
  }
}

/// `@ReducerCaseIgnored`, expanded by ``SpoolMacroExpansions/ReducerCaseIgnoredMacro``.
public enum ReducerCaseIgnoredMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try SpoolMacroExpansions.ReducerCaseIgnoredMacro.expansion(
      of: node, providingPeersOf: declaration, in: context)
  }
}
