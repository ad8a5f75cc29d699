import SwiftDiagnostics

/// What `@Reducer` reports when it is applied where it cannot generate a reducer.
///
/// Each message names the declaration or case that is wrong and what is expected instead, so
/// that the fix can be read off the message.
enum ReducerMacroDiagnostic: DiagnosticMessage {
  /// Applied to something other than a struct or an enum (the kind and name of it).
  case notStructOrEnum(kind: String)
  /// A struct with neither `body` nor `reduce(into:action:)` in its declaration, but a `reduce`
  /// with other labels or a static `body` that was meant to be one.
  case missingBody(structName: String)
  /// An unmarked enum case with one value that is not an unlabelled reducer.
  case invalidCase(caseName: String, problem: String)
  /// An `@ReducerCaseEphemeral` case that does not hold exactly one value of a named type.
  case invalidEphemeralCase(caseName: String, problem: String)
  /// `#if` around the attributes of an enum case (the names of the case's elements).
  case conditionalCaseAttribute(caseName: String)
  /// An `#if` clause in an enum reducer that holds something other than declarations.
  case unsupportedIfConfig
  /// `@Reducer(state:action:)` on a struct, whose `State` and `Action` are its own.
  case conformancesOnStruct(structName: String)

  var message: String {
    switch self {
    case let .notStructOrEnum(kind):
      return """
        '@Reducer' can only be applied to a struct or an enum, not to \(kind)
        """
    case let .missingBody(structName):
      return """
        '@Reducer' struct '\(structName)' has neither a 'body' nor a \
        'reduce(into:action:)'; declare 'var body: some ReducerOf<Self>' or \
        'func reduce(into state: inout State, action: Action) -> Effect<Action>' in it
        """
    case let .invalidCase(caseName, problem):
      return """
        '@Reducer' enum case '\(caseName)' must hold exactly one unlabelled reducer, as in \
        'case \(caseName)(\(caseName.prefix(1).uppercased() + caseName.dropFirst()))', or be \
        marked '@ReducerCaseEphemeral' or '@ReducerCaseIgnored': \(problem)
        """
    case let .invalidEphemeralCase(caseName, problem):
      return """
        '@ReducerCaseEphemeral' case '\(caseName)' must hold exactly one value of a named type \
        whose actions are its 'Action': \(problem)
        """
    case let .conditionalCaseAttribute(caseName):
      return """
        '@Reducer' enum case '\(caseName)' cannot have '#if' around its attributes: whether it \
        holds a reducer, ephemeral or ignored state must not depend on the configuration; put \
        the whole case, with its attributes, in each '#if' clause instead
        """
    case .unsupportedIfConfig:
      return """
        '@Reducer' enum can only read '#if' clauses that hold declarations, such as enum cases
        """
    case let .conformancesOnStruct(structName):
      return """
        '@Reducer(state:action:)' adds conformances to the 'State' and 'Action' that an enum \
        reducer generates; struct '\(structName)' declares its own: write the conformances \
        on them, and use '@Reducer'
        """
    }
  }

  var diagnosticID: MessageID {
    switch self {
    case .notStructOrEnum: MessageID(domain: "SpoolMacros", id: "Reducer.notStructOrEnum")
    case .missingBody: MessageID(domain: "SpoolMacros", id: "Reducer.missingBody")
    case .invalidCase: MessageID(domain: "SpoolMacros", id: "Reducer.invalidCase")
    case .invalidEphemeralCase:
      MessageID(domain: "SpoolMacros", id: "Reducer.invalidEphemeralCase")
    case .conditionalCaseAttribute:
      MessageID(domain: "SpoolMacros", id: "Reducer.conditionalCaseAttribute")
    case .unsupportedIfConfig: MessageID(domain: "SpoolMacros", id: "Reducer.unsupportedIfConfig")
    case .conformancesOnStruct:
      MessageID(domain: "SpoolMacros", id: "Reducer.conformancesOnStruct")
    }
  }

  var severity: DiagnosticSeverity { .error }
}
