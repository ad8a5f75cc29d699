import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that holds Spool's macros; the compiler loads it for `@Reducer` and
/// the case marks `@ReducerCaseEphemeral` and `@ReducerCaseIgnored`.
@main
struct SpoolMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    ReducerMacro.self, ReducerCaseEphemeralMacro.self, ReducerCaseIgnoredMacro.self,
  ]
}
