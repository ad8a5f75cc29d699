import SwiftDiagnostics
import SwiftSyntax

/// What `@Reducer` found in the declaration it is attached to, after checking it.
///
/// Every role of the macro analyses the declaration the same way, so that they agree on whether
/// it is valid; only the member role reports the problems, so each is reported once.
enum ReducerDeclaration {
  /// A struct reducer; `missing` lists what `@Reducer` declares for it (nothing when it has a
  /// `body` or a `reduce(into:action:)`).
  case structReducer(StructDeclSyntax, missing: MissingStructMembers)
  /// An enum whose cases hold reducers, ephemeral or ignored state: TCA's enum reducer.
  case enumReducer(EnumDeclSyntax, cases: [ReducerCase])
  /// A declaration that `@Reducer` cannot expand; `problems` says why, at least one entry.
  case invalid(problems: [Diagnostic])

  /// What a struct without `body` or `reduce(into:action:)` leaves to `@Reducer`, as TCA's
  /// macro fills them in: an empty `State` and `Action` where it declares no type of that name,
  /// and a `body` that does nothing.
  struct MissingStructMembers: Equatable {
    var state = false
    var action = false
    var body = false
  }

  /// One case of an enum reducer: `case add(AddItem)` has name `add` and kind
  /// `.reducer(AddItem)`.
  struct ReducerCase {
    /// What the case holds, which decides its `State` and `Action` cases and its reducer.
    enum Kind {
      /// A reducer: state `Reducer.State`, actions `Reducer.Action`, run by the body.
      case reducer(TypeSyntax)
      /// Ephemeral state (`@ReducerCaseEphemeral`): state as written, actions the type's
      /// `Action` (under the value's label, if any), no reducer; a presentation dismisses it
      /// after any of its actions.
      case ephemeral(TypeSyntax)
      /// Ignored (`@ReducerCaseIgnored`, or no value, or several): state as written, an action
      /// case of `Never`, no reducer.
      case ignored
    }

    let name: TokenSyntax
    let kind: Kind
    /// The case as written, without attributes: the `State` case of an ephemeral or ignored one.
    let element: EnumCaseElementSyntax
  }

  init(_ declaration: some DeclGroupSyntax) {
    if let structDecl = declaration.as(StructDeclSyntax.self) {
      self = Self.analyse(structDecl)
    } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      self = Self.analyse(enumDecl)
    } else {
      let (node, kind): (any SyntaxProtocol, String)
      if let classDecl = declaration.as(ClassDeclSyntax.self) {
        (node, kind) = (classDecl.classKeyword, "class '\(classDecl.name.text)'")
      } else if let actorDecl = declaration.as(ActorDeclSyntax.self) {
        (node, kind) = (actorDecl.actorKeyword, "actor '\(actorDecl.name.text)'")
      } else if let protocolDecl = declaration.as(ProtocolDeclSyntax.self) {
        (node, kind) = (protocolDecl.protocolKeyword, "protocol '\(protocolDecl.name.text)'")
      } else if let extensionDecl = declaration.as(ExtensionDeclSyntax.self) {
        (node, kind) = (extensionDecl.extensionKeyword, "an extension")
      } else {
        (node, kind) = (declaration, "this declaration")
      }
      let message = ReducerMacroDiagnostic.notStructOrEnum(kind: kind)
      self = .invalid(problems: [Diagnostic(node: node, message: message)])
    }
  }

  var isValid: Bool {
    if case .invalid = self { return false }
    return true
  }

  private static func analyse(_ structDecl: StructDeclSyntax) -> Self {
    let members = structDecl.memberBlock.members.map(\.decl)
    let hasBody = members.contains { member in
      guard let variable = member.as(VariableDeclSyntax.self), !variable.isStatic else {
        return false
      }
      return variable.bindings.contains {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body"
      }
    }
    let reduceFunctions = members.compactMap { member -> FunctionDeclSyntax? in
      guard let function = member.as(FunctionDeclSyntax.self), function.name.text == "reduce"
      else { return nil }
      return function
    }
    let hasReduce = reduceFunctions.contains {
      $0.signature.parameterClause.parameters.map(\.firstName.text) == ["into", "action"]
    }
    if hasBody || hasReduce { return .structReducer(structDecl, missing: MissingStructMembers()) }
    // A `reduce` with other labels, or a static `body`, was meant to be the reducer: an empty
    // body in its place would compile and silently do nothing, so it is reported instead.
    let hasStaticBody = members.contains { member in
      guard let variable = member.as(VariableDeclSyntax.self), variable.isStatic else {
        return false
      }
      return variable.bindings.contains {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body"
      }
    }
    if !reduceFunctions.isEmpty || hasStaticBody {
      return .invalid(
        problems: [
          Diagnostic(
            node: structDecl.name,
            message: ReducerMacroDiagnostic.missingBody(structName: structDecl.name.text)
          )
        ]
      )
    }
    let typeNames = Set(
      members.compactMap {
        $0.as(StructDeclSyntax.self)?.name.text ?? $0.as(EnumDeclSyntax.self)?.name.text
          ?? $0.as(TypeAliasDeclSyntax.self)?.name.text ?? $0.as(ClassDeclSyntax.self)?.name.text
      }
    )
    return .structReducer(
      structDecl,
      missing: MissingStructMembers(
        state: !typeNames.contains("State"), action: !typeNames.contains("Action"), body: true
      )
    )
  }

  private static func analyse(_ enumDecl: EnumDeclSyntax) -> Self {
    var cases: [ReducerCase] = []
    var problems: [Diagnostic] = []
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      let marked = CaseMark(caseDecl.attributes)
      for element in caseDecl.elements {
        switch reducerCase(element, marked: marked) {
        case let .success(reducerCase): cases.append(reducerCase)
        case let .failure(problem): problems.append(problem.diagnostic)
        }
      }
    }
    guard problems.isEmpty else { return .invalid(problems: problems) }
    return .enumReducer(enumDecl, cases: cases)
  }

  /// The attribute that marks a case as holding something other than a reducer.
  private enum CaseMark {
    case none, ephemeral, ignored

    /// `@ReducerCaseIgnored` wins over `@ReducerCaseEphemeral`, as in TCA.
    init(_ attributes: AttributeListSyntax) {
      let names = Set(
        attributes.compactMap { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription }
      )
      if !names.isDisjoint(with: ["ReducerCaseIgnored", "Spool.ReducerCaseIgnored"]) {
        self = .ignored
      } else if !names.isDisjoint(with: ["ReducerCaseEphemeral", "Spool.ReducerCaseEphemeral"]) {
        self = .ephemeral
      } else {
        self = .none
      }
    }
  }

  /// A case's problem, carried as an `Error` only to use `Result`.
  private struct CaseProblem: Error {
    let diagnostic: Diagnostic
  }

  private static func reducerCase(
    _ element: EnumCaseElementSyntax, marked: CaseMark
  ) -> Result<ReducerCase, CaseProblem> {
    let name = element.name.trimmed
    let trimmedElement = element.trimmed.with(\.trailingComma, nil)
    func problem(_ text: String, at node: some SyntaxProtocol) -> CaseProblem {
      let message: ReducerMacroDiagnostic =
        marked == .ephemeral
        ? .invalidEphemeralCase(caseName: name.text, problem: text)
        : .invalidCase(caseName: name.text, problem: text)
      return CaseProblem(diagnostic: Diagnostic(node: node, message: message))
    }
    let parameters = element.parameterClause?.parameters ?? []
    // A case without a value, or with several, cannot hold a reducer: TCA ignores it unmarked.
    if marked == .ignored || (marked == .none && parameters.count != 1) {
      return .success(ReducerCase(name: name, kind: .ignored, element: trimmedElement))
    }
    guard parameters.count == 1, let parameter = parameters.first else {
      let count = parameters.isEmpty ? "no associated value" : "\(parameters.count) values"
      return .failure(problem("it has \(count)", at: element))
    }
    // Only a type's name can be a reducer that the generated body creates with `Reducer()`, or
    // ephemeral state whose actions are its `.Action`: tuples, optionals, functions,
    // existentials and the like cannot.
    let type = parameter.type
    guard type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) else {
      let kind = marked == .ephemeral ? "type" : "reducer type"
      return .failure(
        problem("'\(type.trimmedDescription)' is not the name of a \(kind)", at: type)
      )
    }
    if marked == .ephemeral {
      return .success(
        ReducerCase(name: name, kind: .ephemeral(type.trimmed), element: trimmedElement)
      )
    }
    if let label = parameter.firstName, label.tokenKind != .wildcard {
      return .failure(
        problem("its associated value has the label '\(label.text)'", at: parameter)
      )
    }
    return .success(ReducerCase(name: name, kind: .reducer(type.trimmed), element: trimmedElement))
  }
}

extension VariableDeclSyntax {
  var isStatic: Bool {
    modifiers.contains { $0.name.tokenKind == .keyword(.static) }
  }
}
