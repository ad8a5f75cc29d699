import Spool
import Synchronization
import Testing

/// `PresentationState`'s copy-on-write box: copies share it until one is written, `==` of
/// copies that share it does not compare the child, and a feature may present itself.
@Suite struct PresentationStateTests {
  /// A child state that counts how often its `==` runs, in a counter of its own (tests run in
  /// parallel: a shared counter would count the other tests' comparisons too).
  struct Counted: Equatable, Sendable {
    final class Comparisons: Sendable {
      let count = Mutex(0)
    }

    let comparisons: Comparisons
    var value = 0

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.comparisons.count.withLock { $0 += 1 }
      return lhs.value == rhs.value
    }
  }

  /// A state that contains itself, with no `indirect`: possible because the child is boxed.
  struct Folder: Hashable, Sendable {
    var name: String
    @Presents var subfolder: Folder?
  }

  @Test func copiesThatShareTheBoxAreEqualWithoutComparingTheChild() {
    let comparisons = Counted.Comparisons()
    let original = PresentationState(wrappedValue: Counted(comparisons: comparisons, value: 1))
    let copy = original
    #expect(copy == original)
    #expect(comparisons.count.withLock { $0 } == 0)
    let separate = PresentationState(wrappedValue: Counted(comparisons: comparisons, value: 1))
    #expect(separate == original)
    #expect(comparisons.count.withLock { $0 } == 1)
  }

  @Test func writingACopyLeavesTheOriginalAsItWas() {
    let comparisons = Counted.Comparisons()
    let original = PresentationState(wrappedValue: Counted(comparisons: comparisons, value: 1))
    var copy = original
    copy.wrappedValue?.value = 2
    #expect(original.wrappedValue?.value == 1)
    #expect(copy.wrappedValue?.value == 2)
    #expect(copy != original)
    copy.wrappedValue = Counted(comparisons: comparisons, value: 1)
    #expect(copy == original)
    copy.wrappedValue = nil
    #expect(copy.wrappedValue == nil && original.wrappedValue?.value == 1)
  }

  @Test func aStateMayPresentItself() {
    var root = Folder(name: "root")
    root.subfolder = Folder(name: "a")
    root.subfolder?.subfolder = Folder(name: "b")
    let snapshot = root
    root.subfolder?.subfolder?.name = "c"
    #expect(snapshot.subfolder?.subfolder?.name == "b")
    #expect(root.subfolder?.subfolder?.name == "c")
    #expect(root != snapshot)
    var hashes = Set<PresentationState<Folder>>()
    hashes.insert(snapshot.$subfolder)
    hashes.insert(PresentationState(wrappedValue: snapshot.subfolder))
    #expect(hashes.count == 1)
  }

  @CasePathable
  enum Screen: Equatable, Sendable {
    case counter(Int)
    case title(String)
  }

  @Test func aCaseOfThePresentedChildIsReadAndWritten() {
    @Presents var screen: Screen? = .counter(1)
    #expect($screen[case: \.counter] == 1)
    #expect($screen[case: \.title] == nil)
    $screen[case: \.counter]? += 1
    #expect(screen == .counter(2))
    $screen[case: \.counter] = nil
    #expect(screen == nil)
    // Nothing presented: chaining changes nothing, setting a value presents it.
    $screen[case: \.counter]? += 1
    #expect(screen == nil)
    $screen[case: \.counter] = 5
    #expect(screen == .counter(5))
  }

  @Test func changingAnotherCaseOfThePresentedChildIsReported() {
    @Presents var screen: Screen? = .counter(1)
    withKnownIssue {
      $screen[case: \.title]?.append("!")
    } matching: {
      message(of: $0) == #"Can't modify unrelated case "counter""#
    }
    withKnownIssue {
      $screen[case: \.title] = nil
    } matching: {
      message(of: $0) == #"Can't modify unrelated case "counter""#
    }
    #expect(screen == .counter(1))
  }
}
