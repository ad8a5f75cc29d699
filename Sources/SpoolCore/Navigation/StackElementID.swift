import CustomDump

/// The identity of an element of a ``StackState``.
///
/// A stack numbers its elements as it appends them, from 0: the first element a stack ever
/// holds is `0`, the next `1`, and a number is not reused once its element is popped. So IDs
/// are the same on every run, in a test store as in a live store, and a test names them with
/// integer literals, as TCA's tests do.
///
/// ```swift
/// await store.send(\.path[id: 0].saveTapped)
/// await store.receive(\.path.popFrom)
/// ```
public struct StackElementID: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral {
  /// The element's number in its stack.
  public let generation: Int

  /// The ID numbered `generation`.
  ///
  /// - Parameter generation: The element's number in its stack, from 0.
  ///
  /// ```swift
  /// let second = StackElementID(generation: 1)
  /// ```
  public init(generation: Int) {
    self.generation = generation
  }

  /// The ID numbered `value`: `0` is the first element a stack ever held.
  ///
  /// - Parameter value: The element's number in its stack.
  public init(integerLiteral value: Int) {
    self.init(generation: value)
  }

  /// Orders IDs by the order in which their elements were appended.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.generation < rhs.generation
  }
}

extension StackElementID: CustomStringConvertible, CustomDumpStringConvertible {
  /// `#` and the number: `#0`.
  public var description: String { "#\(generation)" }
  /// `#` and the number, in a test store's diffs.
  public var customDumpDescription: String { description }
}
