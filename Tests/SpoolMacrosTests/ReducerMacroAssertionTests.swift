import MacroTesting
import SpoolMacroExpansions
import Testing

/// The macro tests can fail: every suite runs `assertMacro` with recording off (`.never`), so a
/// wrong or a missing expansion is an issue, and is never written into the test file.
///
/// Serialized: a failing `assertMacro` reads and fills InlineSnapshotTesting's unguarded global
/// cache of test sources, so two of these failures at once are a data race (ThreadSanitizer
/// reported it in CI). Passing assertions never reach that cache.
@Suite(.serialized, .macros(["Reducer": ReducerMacro.self], record: .never))
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
