import Spool
import Testing

/// `StackState` numbers its elements from 0 and never reuses a number; equality compares
/// elements and IDs, not the counter. `PresentationState` is a value like its state.
@Suite struct StackStateTests {
  @Test func idsCountFromZeroAndAreNotReused() {
    var stack = StackState(["a", "b"])
    #expect(stack.ids == [0, 1])
    stack.popLast()
    stack.append("c")
    #expect(stack.ids == [0, 2])
    stack.removeAll()
    stack.append("d")
    #expect(stack.ids == [3])
    #expect(Array(stack) == ["d"])
  }

  @Test func settingAnIDPushesAndLaterAppendsNumberAfterIt() {
    var stack = StackState<String>()
    stack[id: 5] = "x"
    stack.append("y")
    #expect(stack.ids == [5, 6])
    stack[id: 5]? += "!"
    #expect(stack[id: 5] == "x!")
    stack[id: 5] = nil
    #expect(stack.ids == [6])
  }

  @Test func popFromAndPopTo() {
    var stack: StackState = ["a", "b", "c", "d"]
    stack.pop(to: 1)
    #expect(stack.ids == [0, 1])
    stack.pop(from: 1)
    #expect(stack.ids == [0])
    stack.pop(from: 9)
    #expect(stack.ids == [0])
  }

  @Test func equalityComparesElementsAndIDsNotTheCounter() {
    var popped = StackState(["a", "b"])
    popped.popLast()
    #expect(popped == StackState(["a"]))
    #expect(popped.hashValue == StackState(["a"]).hashValue)
    var other = StackState<String>()
    other[id: 1] = "a"
    #expect(other != StackState(["a"]))
  }

  @Test func replacingARangeRemovesAndNumbersNewElementsAfterAnyUsed() {
    var stack: StackState = ["a", "b", "c", "d"]
    stack.removeLast(2)
    #expect(stack.ids == [0, 1])
    stack.insert("x", at: 0)
    #expect(stack.ids == [4, 0, 1])
    #expect(Array(stack) == ["x", "a", "b"])
    stack[1] = "A"
    #expect(stack[id: 0] == "A")
    #expect(stack.ids == [4, 0, 1])
    stack.removeFirst()
    stack.removeAll()
    stack.append("y")
    #expect(stack.ids == [5])
  }

  @CasePathable
  enum Screen: Equatable {
    case counter(Int)
    case title(String)
  }

  @Test func aCaseOfAnElementIsReadAndWrittenByID() {
    var stack = StackState<Screen>([.counter(1), .title("a")])
    #expect(stack[id: 0, case: \.counter] == 1)
    #expect(stack[id: 0, case: \.title] == nil)
    stack[id: 0, case: \.counter]? += 1
    stack[id: 1, case: \.title]?.append("b")
    #expect(Array(stack) == [.counter(2), .title("ab")])
    stack[id: 1, case: \.title] = nil
    #expect(stack.ids == [0])
  }

  @Test func changingAnotherCaseOrAMissingIDIsReported() {
    var stack = StackState<Screen>([.counter(1)])
    withKnownIssue {
      stack[id: 0, case: \.title]?.append("!")
    } matching: {
      message(of: $0) == #"Can't modify unrelated case "counter""#
    }
    withKnownIssue {
      stack[id: 0, case: \.title] = nil
    } matching: {
      message(of: $0) == #"Can't modify unrelated case "counter""#
    }
    withKnownIssue {
      stack[id: 3, case: \.counter] = 5
    } matching: {
      message(of: $0).hasPrefix("Can't modify element #3: the stack holds no element")
    }
    #expect(Array(stack) == [.counter(1)])
  }

  @Test func presentationStateIsAValueLikeItsState() {
    var presented = PresentationState(wrappedValue: 1)
    let copy = presented
    presented.wrappedValue = 2
    #expect(copy.wrappedValue == 1)
    #expect(presented != copy)
    #expect(Set([presented, copy, presented]).count == 2)
    #expect(PresentationState<Int>(wrappedValue: nil) == PresentationState(wrappedValue: nil))
  }
}
