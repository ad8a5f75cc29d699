import MacroTesting
import SpoolMacroExpansions
import Testing

/// `@Reducer` on an enum of reducers: TCA's enum reducer.
@Suite(.macros(["Reducer": ReducerMacro.self], record: .never))
struct ReducerMacroEnumTests {
  @Test func generatesStateActionAndBody() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case add(AddItem)
        case edit(EditItem)
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case add(AddItem)
        case edit(EditItem)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case add(AddItem.State)
          case edit(EditItem.State)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case add(AddItem.Action)
          case edit(EditItem.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.add,
            action: \Self.Action.Cases.add
          ) {
            AddItem()
          }
          Spool.Scope(
            state: \Self.State.Cases.edit,
            action: \Self.Action.Cases.edit
          ) {
            EditItem()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  /// `@Reducer(state:action:)`: each argument adds its protocol to the generated enum, after
  /// the ones it always has, once.
  @Test func conformanceArgumentsAddTheirProtocols() {
    assertMacro {
      """
      @Reducer(state: .codable, .equatable, .sendable, .equatable, action: .hashable)
      enum Destination {
        case add(AddItem)
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case add(AddItem)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable, Codable, Equatable {
          typealias StateReducer = Destination
          case add(AddItem.State)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable, Hashable {
          case add(AddItem.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.add,
            action: \Self.Action.Cases.add
          ) {
            AddItem()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  /// A reducer case's default value is how the body makes its reducer.
  @Test func aCaseDefaultValueMakesTheReducer() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case edit(Editor = Editor(mode: .full))
        case inner(Inner.CaseBody = Inner.body)
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case edit(Editor = Editor(mode: .full))
        case inner(Inner.CaseBody = Inner.body)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case edit(Editor.State)
          case inner(Inner.CaseBody.State)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case edit(Editor.Action)
          case inner(Inner.CaseBody.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.edit,
            action: \Self.Action.Cases.edit
          ) {
            Editor(mode: .full)
          }
          Spool.Scope(
            state: \Self.State.Cases.inner,
            action: \Self.Action.Cases.inner
          ) {
            Inner.body
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  @Test func aPublicEnumGetsPublicMembers() {
    assertMacro {
      """
      @Reducer
      public enum Destination {
        case detail(Feature.Detail), settings(Settings)
      }
      """
    } expansion: {
      #"""
      public enum Destination {
        case detail(Feature.Detail), settings(Settings)

        @CasePathable
        @dynamicMemberLookup
        public enum State: Spool.CaseReducerState, Sendable {
          public typealias StateReducer = Destination
          case detail(Feature.Detail.State)
          case settings(Settings.State)
        }

        @CasePathable
        @dynamicMemberLookup
        public enum Action: Sendable {
          case detail(Feature.Detail.Action)
          case settings(Settings.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        public static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.detail,
            action: \Self.Action.Cases.detail
          ) {
            Feature.Detail()
          }
          Spool.Scope(
            state: \Self.State.Cases.settings,
            action: \Self.Action.Cases.settings
          ) {
            Settings()
          }
        }

        public var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  @Test func anEnumWithoutCasesHasAnEmptyBody() {
    assertMacro {
      """
      @Reducer
      enum Nothing {
      }
      """
    } expansion: {
      """
      enum Nothing {

          @CasePathable
          @dynamicMemberLookup
          enum State: Spool.CaseReducerState, Sendable {
            typealias StateReducer = Nothing
          }

          @CasePathable
          @dynamicMemberLookup
          enum Action: Sendable {
          }

          @Spool.ReducerBuilder<Self.State, Self.Action>
          static var body: some Spool.Reducer<Self.State, Self.Action> {
            Spool.EmptyReducer<Self.State, Self.Action>()
          }

          var body: some Spool.Reducer<Self.State, Self.Action> {
            Self.body
          }
      }

      extension Nothing: Spool.Reducer, Spool.CaseReducer {
      }
      """
    }
  }

  /// A conformance written on the enum is not added again: `: Reducer` gets only
  /// `CaseReducer`, and `: CaseReducer` only `Reducer` (which the compiler needs named, as with
  /// `@Reducer` alone, to see the generated members).
  @Test func aWrittenConformanceIsNotAddedTwice() {
    assertMacro {
      """
      @Reducer
      enum Destination: Reducer {
        case add(AddItem)
      }
      """
    } expansion: {
      #"""
      enum Destination: Reducer {
        case add(AddItem)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case add(AddItem.State)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case add(AddItem.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.add,
            action: \Self.Action.Cases.add
          ) {
            AddItem()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.CaseReducer {
      }
      """#
    }
    assertMacro {
      """
      @Reducer
      enum Destination: Spool.CaseReducer {
        case add(AddItem)
      }
      """
    } expansion: {
      #"""
      enum Destination: Spool.CaseReducer {
        case add(AddItem)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case add(AddItem.State)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case add(AddItem.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.add,
            action: \Self.Action.Cases.add
          ) {
            AddItem()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer {
      }
      """#
    }
  }

  // MARK: @ReducerCaseIgnored and @ReducerCaseEphemeral (TCA's `testEnum_CaseIgnored`,
  // `testEnum_Attributes`)

  @Test func ignoredCasesHoldStateAndNeverActions() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case timeline(Timeline)
        @ReducerCaseIgnored
        case meeting(Meeting)
        case welcome
        case note(Meeting, text: String)
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case timeline(Timeline)
        @ReducerCaseIgnored
        case meeting(Meeting)
        case welcome
        case note(Meeting, text: String)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case timeline(Timeline.State)
          case meeting(Meeting)
          case welcome
          case note(Meeting, text: String)
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case timeline(Timeline.Action)
          case meeting(Swift.Never)
          case welcome(Swift.Never)
          case note(Swift.Never)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.timeline,
            action: \Self.Action.Cases.timeline
          ) {
            Timeline()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  @Test func ephemeralCasesHoldStateAndTheirTypesActions() {
    assertMacro {
      """
      @Reducer
      public enum Destination {
        case edit(Edit)
        @ReducerCaseEphemeral
        case alert(Prompt<Alert>)
        @Spool.ReducerCaseEphemeral
        case toast(message: Toast)
        @ReducerCaseIgnored
        case preview(Item)
      }
      """
    } expansion: {
      #"""
      public enum Destination {
        case edit(Edit)
        @ReducerCaseEphemeral
        case alert(Prompt<Alert>)
        @Spool.ReducerCaseEphemeral
        case toast(message: Toast)
        @ReducerCaseIgnored
        case preview(Item)

        @CasePathable
        @dynamicMemberLookup
        public enum State: Spool.CaseReducerState, Spool._EphemeralCaseReducerState, Sendable {
          public typealias StateReducer = Destination
          case edit(Edit.State)
          case alert(Prompt<Alert>)
          case toast(message: Toast)
          case preview(Item)
          public var _isEphemeral: Bool {
            switch self {
            case .alert, .toast:
              true
            case .edit, .preview:
              false
            }
          }
        }

        @CasePathable
        @dynamicMemberLookup
        public enum Action: Sendable {
          case edit(Edit.Action)
          case alert(Prompt<Alert>.Action)
          case toast(message: Toast.Action)
          case preview(Swift.Never)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        public static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.edit,
            action: \Self.Action.Cases.edit
          ) {
            Edit()
          }
        }

        public var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  @Test func onlyEphemeralCasesNeedNoFalseBranch() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        @ReducerCaseEphemeral
        case alert(Prompt<Alert>)
      }
      """
    } expansion: {
      """
      enum Destination {
        @ReducerCaseEphemeral
        case alert(Prompt<Alert>)

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Spool._EphemeralCaseReducerState, Sendable {
          typealias StateReducer = Destination
          case alert(Prompt<Alert>)
          var _isEphemeral: Bool {
            switch self {
            case .alert:
              true
            }
          }
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case alert(Prompt<Alert>.Action)
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.EmptyReducer<Self.State, Self.Action>()
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """
    }
  }

  @Test func ifConfigClausesCarryTheirCasesIntoStateActionAndBody() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case edit(Edit)
        #if os(Linux)
          case server(Server)
          @ReducerCaseEphemeral
          case notice(Prompt<Notice>)
        #elseif DEBUG
          case debug(Debug)
        #else
          case other(Other)
          case empty
        #endif

        #if TRACE
          #if VERBOSE
            @ReducerCaseIgnored
            case trace(Trace)
          #endif
          func helper() {}
        #endif
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case edit(Edit)
        #if os(Linux)
          case server(Server)
          @ReducerCaseEphemeral
          case notice(Prompt<Notice>)
        #elseif DEBUG
          case debug(Debug)
        #else
          case other(Other)
          case empty
        #endif

        #if TRACE
          #if VERBOSE
            @ReducerCaseIgnored
            case trace(Trace)
          #endif
          func helper() {}
        #endif

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Spool._EphemeralCaseReducerState, Sendable {
          typealias StateReducer = Destination
          case edit(Edit.State)
          #if os(Linux)
          case server(Server.State)
          case notice(Prompt<Notice>)
          #elseif DEBUG
          case debug(Debug.State)
          #else
          case other(Other.State)
          case empty
          #endif
          #if TRACE
          #if VERBOSE
          case trace(Trace)
          #endif
          #endif
          var _isEphemeral: Bool {
            switch self {
            case .edit:
              false
            #if os(Linux)
            case .notice:
              true
            case .server:
              false
            #elseif DEBUG
            case .debug:
              false
            #else
            case .other, .empty:
              false
            #endif
            #if TRACE
            #if VERBOSE
            case .trace:
              false
            #endif
            #endif
            }
          }
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case edit(Edit.Action)
          #if os(Linux)
          case server(Server.Action)
          case notice(Prompt<Notice>.Action)
          #elseif DEBUG
          case debug(Debug.Action)
          #else
          case other(Other.Action)
          case empty(Swift.Never)
          #endif
          #if TRACE
          #if VERBOSE
          case trace(Swift.Never)
          #endif
          #endif
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.edit,
            action: \Self.Action.Cases.edit
          ) {
            Edit()
          }
          #if os(Linux)
          Spool.Scope(
            state: \Self.State.Cases.server,
            action: \Self.Action.Cases.server
          ) {
            Server()
          }
          #elseif DEBUG
          Spool.Scope(
            state: \Self.State.Cases.debug,
            action: \Self.Action.Cases.debug
          ) {
            Debug()
          }
          #else
          Spool.Scope(
            state: \Self.State.Cases.other,
            action: \Self.Action.Cases.other
          ) {
            Other()
          }
          #endif
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }

  @Test func ifConfigClausesWithoutReducersAreLeftOutOfTheBody() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case edit(Edit)
        #if DEBUG
          case marker(Int, String)
        #endif
        #if TRACE
          static let name = "trace"
        #endif
      }
      """
    } expansion: {
      #"""
      enum Destination {
        case edit(Edit)
        #if DEBUG
          case marker(Int, String)
        #endif
        #if TRACE
          static let name = "trace"
        #endif

        @CasePathable
        @dynamicMemberLookup
        enum State: Spool.CaseReducerState, Sendable {
          typealias StateReducer = Destination
          case edit(Edit.State)
          #if DEBUG
          case marker(Int, String)
          #endif
        }

        @CasePathable
        @dynamicMemberLookup
        enum Action: Sendable {
          case edit(Edit.Action)
          #if DEBUG
          case marker(Swift.Never)
          #endif
        }

        @Spool.ReducerBuilder<Self.State, Self.Action>
        static var body: some Spool.Reducer<Self.State, Self.Action> {
          Spool.Scope(
            state: \Self.State.Cases.edit,
            action: \Self.Action.Cases.edit
          ) {
            Edit()
          }
        }

        var body: some Spool.Reducer<Self.State, Self.Action> {
          Self.body
        }
      }

      extension Destination: Spool.Reducer, Spool.CaseReducer {
      }
      """#
    }
  }
}

