import CustomDump
import OrderedCollections

/// The state of a navigation stack: an ordered collection of features, each identified by a
/// ``StackElementID``.
///
/// Run its elements with ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)``
/// and a ``StackAction``. Push with ``append(_:)`` (or a ``StackAction/push(id:state:)``
/// action), pop with ``popLast()``, ``pop(from:)`` or a ``StackAction/popFrom(id:)`` action;
/// an element's effects end when it is popped.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   var path = StackState<Step.State>()
/// }
/// case .startTapped:
///   state.path.append(Step.State())  // ID 0 in a new stack
///   return .none
/// ```
///
/// IDs are numbered by the stack itself, from 0, and never reused by it (see
/// ``StackElementID``): where TCA draws them from a dependency, Spool keeps the next number in
/// the stack, so that they are the same in live and test stores and so that a test's
/// expected state (`$0.path.append(…)`) gets the same ID the reducer got. The counter is not
/// part of equality or of dumps. An element's effects follow its ID: to end them, pop it;
/// a new stack assigned over an old one (`state.path = StackState()`) numbers from 0 again,
/// and its elements would take over the effects of the old elements with the same IDs.
///
/// - Complexity: Look-up, append and pop of the last element are O(1) on average; pops from
///   an ID are O(k) in the k elements popped.
public struct StackState<Element> {
  /// The elements by ID, in stack order.
  @usableFromInline var elements: OrderedDictionary<StackElementID, Element>
  /// The number of the next element appended: one more than the greatest ID the stack held.
  @usableFromInline var nextGeneration: Int
  /// The IDs the stack held when a `forEach` last ran it: the elements whose effects may be
  /// running. Written only by that reducer, which cancels the effects of every ID here that
  /// the stack no longer holds, whoever removed it. Not part of equality, hashing or dumps.
  @usableFromInline var mounted: OrderedSet<StackElementID>

  /// An empty stack.
  ///
  /// ```swift
  /// var path = StackState<Step.State>()
  /// ```
  public init() {
    self.elements = [:]
    self.nextGeneration = 0
    self.mounted = []
  }

  /// A stack of `elements`, the first at the bottom, numbered from 0.
  ///
  /// - Parameter elements: The elements, bottom first.
  ///
  /// ```swift
  /// let path = StackState([Step.State(), Step.State()])  // IDs 0 and 1
  /// ```
  public init(_ elements: some Sequence<Element>) {
    self.init()
    for element in elements { append(element) }
  }

  /// The IDs of the elements, bottom first.
  public var ids: OrderedSet<StackElementID> { elements.keys }

  /// The element with the ID `id`; `nil` if there is none. Setting `nil` removes it (and
  /// nothing above it); setting an element for an ID that is not in the stack pushes it with
  /// that ID.
  ///
  /// - Complexity: O(1) on average to read or change an element; O(n) to remove one that is
  ///   not the last.
  ///
  /// ```swift
  /// state.path[id: 0]?.title = "Draft"
  /// ```
  public subscript(id id: StackElementID) -> Element? {
    get { elements[id] }
    set {
      if newValue != nil, elements[id] == nil {
        nextGeneration = Swift.max(nextGeneration, id.generation + 1)
      }
      elements[id] = newValue
    }
    _modify {
      if elements[id] == nil {
        var value: Element?
        defer {
          if let value { self[id: id] = value }
        }
        yield &value
      } else {
        yield &elements[id]
      }
    }
  }

  /// Pushes `element` on top of the stack, with the next ID.
  ///
  /// - Parameter element: The element to push.
  ///
  /// ```swift
  /// state.path.append(Detail.State(id: item.id))
  /// ```
  public mutating func append(_ element: Element) {
    elements[StackElementID(generation: nextGeneration)] = element
    nextGeneration += 1
  }

  /// Pops the top element; `nil` if the stack is empty.
  ///
  /// - Returns: The element popped.
  ///
  /// ```swift
  /// state.path.popLast()
  /// ```
  @discardableResult
  public mutating func popLast() -> Element? {
    elements.isEmpty ? nil : elements.removeLast().value
  }

  /// Pops the element with the ID `id` and every element above it.
  ///
  /// Does nothing if `id` is not in the stack.
  ///
  /// - Parameter id: The lowest ID to pop.
  ///
  /// ```swift
  /// state.path.pop(from: id)
  /// ```
  public mutating func pop(from id: StackElementID) {
    guard let index = elements.index(forKey: id) else { return }
    elements.removeSubrange(index...)
  }

  /// Pops every element above the one with the ID `id`, which stays on top.
  ///
  /// Does nothing if `id` is not in the stack.
  ///
  /// - Parameter id: The ID of the element to leave on top.
  ///
  /// ```swift
  /// state.path.pop(to: rootID)
  /// ```
  public mutating func pop(to id: StackElementID) {
    guard let index = elements.index(forKey: id) else { return }
    elements.removeSubrange((index + 1)...)
  }

  /// Pops every element; the next one appended still gets a new ID.
  ///
  /// ```swift
  /// state.path.removeAll()
  /// ```
  public mutating func removeAll() {
    elements.removeAll()
  }
}

extension StackState: RandomAccessCollection, MutableCollection {
  /// The position of the bottom element.
  public var startIndex: Int { 0 }
  /// The position after the top element.
  public var endIndex: Int { elements.count }
  /// The element at `position`, from the bottom; setting it keeps the element's ID.
  public subscript(position: Int) -> Element {
    get { elements.values[position] }
    set { elements.values[position] = newValue }
  }
}

extension StackState: RangeReplaceableCollection {
  /// Replaces the elements at `subrange` with `newElements`, which get new IDs, numbered in
  /// order after any the stack has used.
  ///
  /// This is what `removeLast(_:)`, `removeFirst(_:)`, `insert(_:at:)` and the other
  /// `RangeReplaceableCollection` methods call: the elements they remove end their effects
  /// as a pop does, and the elements they add are new to the stack, as ``append(_:)``'s are.
  ///
  /// - Parameters:
  ///   - subrange: The positions to replace, from the bottom.
  ///   - newElements: The elements to put there, bottom first.
  /// - Complexity: O(n + m), for n elements in the stack and m new ones.
  ///
  /// ```swift
  /// state.path.removeLast(2)  // pops the top two elements
  /// ```
  public mutating func replaceSubrange(
    _ subrange: Range<Int>, with newElements: some Collection<Element>
  ) {
    elements.removeSubrange(subrange)
    var position = subrange.lowerBound
    for element in newElements {
      // A fresh ID: a new element must never take over the effects of a popped one.
      _ = elements.updateValue(
        element, forKey: StackElementID(generation: nextGeneration), insertingAt: position)
      nextGeneration += 1
      position += 1
    }
  }
}

extension StackState: ExpressibleByArrayLiteral {
  /// A stack of the elements, the first at the bottom, numbered from 0.
  ///
  /// ```swift
  /// var path: StackState<Step.State> = [Step.State()]
  /// ```
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension StackState: Equatable where Element: Equatable {
  /// Whether two stacks hold the same elements under the same IDs, in the same order; the
  /// number of the next element is not compared.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elements == rhs.elements
  }
}

extension StackState: Hashable where Element: Hashable {
  /// Hashes the elements and their IDs, as `==` compares them.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

extension StackState: CustomDumpReflectable {
  /// Dumps the elements by ID, bottom first: `[#0: …, #1: …]`.
  public var customDumpMirror: Mirror {
    Mirror(
      self,
      unlabeledChildren: zip(elements.keys, elements.values).map { (key: $0, value: $1) },
      displayStyle: .dictionary
    )
  }
}
