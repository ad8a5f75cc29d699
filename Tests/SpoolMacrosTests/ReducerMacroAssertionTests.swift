import MacroTesting
import SpoolMacros
import Testing

/// The macro tests can fail: every suite runs `assertMacro` with recording off (`.never`), so a
/// wrong or a missing expansion is an issue, and is never written into the test file.
@Suite(.macros(["Reducer": ReducerMacro.self], record: .never))
struct ReducerMacroAssertionTests {
  @Test func aWrongExpansionFails() {
    withKnownIssue {
      assertMacro {
        """
        @Reducer
        struct Feature {
          var body: some ReducerOf<Self> { EmptyReducer() }
        }
        """
      } expansion: {
        // The conformance is missing.
        """
        struct Feature {
          var body: some ReducerOf<Self> { EmptyReducer() }
        }
        """
      }
    }
  }

  @Test func aMissingExpansionFails() {
    withKnownIssue {
      assertMacro {
        """
        @Reducer
        struct Feature {
          var body: some ReducerOf<Self> { EmptyReducer() }
        }
        """
      }
    }
  }

  @Test func anUnexpectedDiagnosticFails() {
    withKnownIssue {
      assertMacro {
        """
        @Reducer
        struct Feature {
        }
        """
      } expansion: {
        """
        struct Feature {
        }
        """
      }
    }
  }
}
