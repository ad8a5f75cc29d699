import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Reducer`: makes a struct or an enum a Spool reducer, as TCA's macro of that name does.
///
/// - On a struct: adds the `Reducer` conformance, and `@CasePathable @dynamicMemberLookup` to
///   the nested `enum Action` and (when it is an enum) `enum State` that do not have them, and
///   `@ReducerBuilder` to `var body`. The struct keeps its own `body` or `reduce(into:action:)`;
///   a struct with neither gets a `body` that does nothing, and an empty `State` and `Action`
///   where it declares none, as with TCA's macro.
/// - On an enum whose cases hold reducers (`case add(AddItem)`), ephemeral state
///   (`@ReducerCaseEphemeral`) or ignored state (`@ReducerCaseIgnored`, or no single value):
///   generates the `State` and `Action` enums with a case per case, a static `body` that
///   scopes each reducer case to its reducer (made by the case's default value, if any), an
///   instance `body` that runs it, and the `CaseReducer` conformance; `State` is a `CaseReducerState` naming the enum, so `ifLet` and
///   `forEach` need no closure. Cases inside `#if` clauses keep their clauses in all of these.
///
/// Anything else is reported: see ``ReducerMacroDiagnostic``.
public enum ReducerMacro {
  /// The attributes the nested `State` and `Action` enums get, by the names under which a
  /// user may already have written them.
  static let enumAttributes: [(attribute: AttributeSyntax, spellings: Set<String>)] = [
    ("@CasePathable", ["CasePathable", "CasePaths.CasePathable"]),
    ("@dynamicMemberLookup", ["dynamicMemberLookup"]),
  ]
}

extension ReducerMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let conformances = SynthesizedConformances(node)
    switch ReducerDeclaration(declaration) {
    case let .structReducer(structDecl, missing):
      if !conformances.isEmpty {
        context.diagnose(
          Diagnostic(
            node: node,
            message: ReducerMacroDiagnostic.conformancesOnStruct(
              structName: structDecl.name.text)))
      }
      return structMembers(missing, access: accessModifier(of: structDecl.modifiers))
    case let .enumReducer(enumDecl, cases):
      return enumReducerMembers(of: enumDecl, cases: cases, conformances: conformances)
    case let .invalid(problems):
      // The one role that reports: the compiler runs every role, and each problem should be
      // reported once.
      problems.forEach(context.diagnose)
      return []
    }
  }
}

extension ReducerMacro {
  /// The members a struct without `body` or `reduce(into:action:)` gets: an empty `State` and
  /// `Action` where it declares no type of that name, and a `body` that does nothing.
  ///
  /// The empty `State` and `Action` have TCA's conformances (`Codable`, `Equatable`, `Hashable`,
  /// `Sendable`), so that such a feature can sit in any parent's state and in a `TestStore`.
  static func structMembers(
    _ missing: ReducerDeclaration.MissingStructMembers, access: String
  ) -> [DeclSyntax] {
    var members: [DeclSyntax] = []
    if missing.state {
      members.append(
        """
        \(raw: access)struct State: Codable, Equatable, Hashable, Sendable {
          \(raw: access)init() {}
        }
        """
      )
    }
    if missing.action {
      members.append("\(raw: access)enum Action: Equatable, Hashable, Sendable {}")
    }
    if missing.body {
      members.append("\(raw: access)let body = Spool.EmptyReducer<State, Action>()")
    }
    return members
  }

  /// `public ` or `package ` when the declaration has that access, so that its generated
  /// members can be used wherever it can; nothing otherwise (the members then have its access).
  static func accessModifier(of modifiers: DeclModifierListSyntax) -> String {
    for modifier in modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.public): return "public "
      case .keyword(.package): return "package "
      default: continue
      }
    }
    return ""
  }
}

extension ReducerMacro: MemberAttributeMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    // An enum reducer's members are generated with their attributes.
    guard declaration.is(StructDeclSyntax.self) else { return [] }
    if let variable = member.as(VariableDeclSyntax.self) {
      return bodyAttributes(of: variable)
    }
    guard let nestedEnum = member.as(EnumDeclSyntax.self),
      ["State", "Action"].contains(nestedEnum.name.text)
    else { return [] }
    let written = Set(
      nestedEnum.attributes.compactMap {
        $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription
      }
    )
    return enumAttributes.filter { written.isDisjoint(with: $0.spellings) }.map(\.attribute)
  }

  /// `@ReducerBuilder` for the struct's `var body`, unless it has it.
  ///
  /// The protocol's requirement carries the builder, but the compiler infers a requirement's
  /// result builder only for a conformance written on the declaration that holds `body`: with
  /// the conformance in the generated extension, a `body` of several reducers would otherwise
  /// be a plain getter and fail to compile.
  private static func bodyAttributes(of variable: VariableDeclSyntax) -> [AttributeSyntax] {
    // Only a computed `body` can have a builder; a stored one (`let body = Counter()`) cannot.
    guard !variable.isStatic,
      variable.bindings.contains(where: {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body"
          && $0.accessorBlock != nil
      })
    else { return [] }
    let hasBuilder = variable.attributes.contains {
      guard let name = $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription else {
        return false
      }
      return name.hasPrefix("ReducerBuilder") || name.hasPrefix("Spool.ReducerBuilder")
    }
    return hasBuilder ? [] : ["@Spool.ReducerBuilder<Self.State, Self.Action>"]
  }
}

extension ReducerMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    // An invalid declaration gets no conformance: the compiler would add "does not conform"
    // errors to the one that says what is wrong.
    guard ReducerDeclaration(declaration).isValid else { return [] }
    // An enum reducer is also a `CaseReducer`, so that `ifLet` and `forEach` can find its
    // `body` from its state's type. It names `Reducer` as well, even when the enum says
    // `: CaseReducer`: otherwise the compiler checks the implied `Reducer` conformance without
    // the generated members, and reports that the enum does not conform (Swift 6.3.1).
    let wanted = declaration.is(EnumDeclSyntax.self) ? ["Reducer", "CaseReducer"] : ["Reducer"]
    let inherited = Set(
      declaration.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
    )
    func declares(_ name: String) -> Bool {
      inherited.contains(name) || inherited.contains("Spool.\(name)")
    }
    let missing = wanted.filter { !declares($0) }
    if missing.isEmpty { return [] }
    let conformances = missing.map { "Spool.\($0)" }.joined(separator: ", ")
    let conformance: DeclSyntax = "extension \(type.trimmed): \(raw: conformances) {}"
    return [conformance.cast(ExtensionDeclSyntax.self)]
  }
}

/// The conformances `@Reducer(state:action:)` adds to an enum reducer's generated `State` and
/// `Action`, read from the attribute's arguments (`.codable`, `.equatable`, …), as TCA's
/// `_SynthesizedConformance` names them.
struct SynthesizedConformances {
  /// The protocols for `State`, then for `Action`, by their names in the standard library, in
  /// the order given, without repeats.
  var state: [String] = []
  var action: [String] = []

  var isEmpty: Bool { state.isEmpty && action.isEmpty }

  /// None: plain `@Reducer`.
  init() {}

  /// The protocol each member of `_SynthesizedConformance` stands for.
  static let protocols: [String: String] = [
    "codable": "Codable", "decodable": "Decodable", "encodable": "Encodable",
    "equatable": "Equatable", "hashable": "Hashable", "sendable": "Sendable",
  ]

  /// Reads `node`'s arguments: a `state:` label starts the state's list and an `action:`
  /// label the action's; an unlabelled argument belongs to the list before it (a variadic
  /// parameter). The type checker has already refused any other member or label.
  init(_ node: AttributeSyntax) {
    guard case let .argumentList(arguments) = node.arguments else { return }
    var current: WritableKeyPath<Self, [String]>?
    for argument in arguments {
      switch argument.label?.text {
      case "state": current = \.state
      case "action": current = \.action
      default: break
      }
      guard let current,
        let member = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName
          .text,
        let name = Self.protocols[member], !self[keyPath: current].contains(name)
      else { continue }
      self[keyPath: current].append(name)
    }
  }
}
