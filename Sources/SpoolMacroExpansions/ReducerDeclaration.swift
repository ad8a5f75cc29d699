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
  /// `cases` keeps the enum's `#if` blocks, so that each generated case, and each reducer the
  /// body runs, exists under the same compilation conditions as the case it comes from.
  case enumReducer(EnumDeclSyntax, cases: [CaseItem])
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

  /// A case of an enum reducer, or an `#if` block whose clauses hold cases.
  indirect enum CaseItem {
    case single(ReducerCase)
    case conditional([Clause])

    /// One clause of an `#if` block: its directive as written (`#if DEBUG`, `#elseif os(Linux)`,
    /// `#else`) and the cases in it, in order.
    struct Clause {
      let directive: String
      let items: [CaseItem]
    }

    /// Every case, in every clause, in order: what the enum may hold in some configuration.
    static func flatten(_ items: [CaseItem]) -> [ReducerCase] {
      items.flatMap { item -> [ReducerCase] in
        switch item {
        case let .single(reducerCase): [reducerCase]
        case let .conditional(clauses): clauses.flatMap { flatten($0.items) }
        }
      }
    }
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
    /// How the body makes a reducer case's reducer, when the case says so with a default value
    /// (`case edit(Editor = Editor(mode: .full))`, `case inner(Inner.Body = Inner.body)`), as
    /// TCA reads it; `nil` for `Reducer()`.
    var construction: ExprSyntax? = nil
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
    var problems: [Diagnostic] = []
    let cases = caseItems(in: enumDecl.memberBlock.members, problems: &problems)
    guard problems.isEmpty else { return .invalid(problems: problems) }
    return .enumReducer(enumDecl, cases: cases)
  }

  /// The cases among `members`, descending into `#if` blocks, whose clauses keep their
  /// directives; members other than cases stay where they are and are not looked at.
  private static func caseItems(
    in members: MemberBlockItemListSyntax, problems: inout [Diagnostic]
  ) -> [CaseItem] {
    var items: [CaseItem] = []
    for member in members {
      if let ifConfig = member.decl.as(IfConfigDeclSyntax.self) {
        var clauses: [CaseItem.Clause] = []
        for clause in ifConfig.clauses {
          let directive = [clause.poundKeyword.text, clause.condition?.trimmedDescription]
            .compactMap { $0 }.joined(separator: " ")
          var clauseItems: [CaseItem] = []
          switch clause.elements {
          case nil:
            break
          case let .decls(decls):
            clauseItems = caseItems(in: decls, problems: &problems)
          default:
            // A member block's `#if` holds declarations; anything else cannot reach here, and
            // would be reported rather than dropped if it did.
            problems.append(
              Diagnostic(node: clause, message: ReducerMacroDiagnostic.unsupportedIfConfig)
            )
          }
          clauses.append(CaseItem.Clause(directive: directive, items: clauseItems))
        }
        items.append(.conditional(clauses))
        continue
      }
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      // `#if` around a case's attributes would make its kind (reducer, ephemeral, ignored)
      // depend on the configuration, which one expansion cannot express: it is reported, not
      // read as if the attribute were absent.
      if let conditional = caseDecl.attributes.first(where: { $0.is(IfConfigDeclSyntax.self) }) {
        let names = caseDecl.elements.map(\.name.text).joined(separator: "', '")
        problems.append(
          Diagnostic(
            node: conditional,
            message: ReducerMacroDiagnostic.conditionalCaseAttribute(caseName: names)
          )
        )
        continue
      }
      let marked = CaseMark(caseDecl.attributes)
      for element in caseDecl.elements {
        switch reducerCase(element, marked: marked) {
        case let .success(reducerCase): items.append(.single(reducerCase))
        case let .failure(problem): problems.append(problem.diagnostic)
        }
      }
    }
    return items
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
    return .success(
      ReducerCase(
        name: name, kind: .reducer(type.trimmed), element: trimmedElement,
        construction: parameter.defaultValue?.value.trimmed))
  }
}

extension VariableDeclSyntax {
  var isStatic: Bool {
    modifiers.contains { $0.name.tokenKind == .keyword(.static) }
  }
}
