import CasePathsCore
import IssueReporting

extension StackState where Element: CasePathable {
  /// The value of the element with the ID `id` in the case `case`; `nil` if there is no such
  /// element or it is in another case.
  ///
  /// For a stack of an enum's states (an `@Reducer enum Path`), this reaches into one
  /// screen's state in one step. Setting a value puts the element in that case; setting `nil`
  /// removes the element, as ``subscript(id:)`` does. Changing an element that is in another
  /// case, or an ID the stack does not hold, is a mistake (the code expected another screen),
  /// so it is reported as an issue and leaves the stack as it was; this holds for optional
  /// chaining too (`path[id: 1, case: \.detail]?.title = "Draft"` on another case reports).
  ///
  /// - Parameters:
  ///   - id: The ID of the element.
  ///   - path: A case key path to the element's case, such as `\.detail`.
  ///
  /// ```swift
  /// $0.path[id: 1, case: \.detail]?.title = "Draft"
  /// ```
  public subscript<Case>(
    id id: StackElementID,
    case path: CaseKeyPath<Element, Case>
  ) -> Case? {
    get { self[id: id].flatMap { $0[case: path] } }
    _modify {
      let element = self[id: id]
      var value = element.flatMap { $0[case: path] }
      // Checked before the yield: after it, `value` is what the caller wrote, and a caller
      // that chained through `nil` wrote nothing but still meant to change this case.
      let isInCase = value != nil
      yield &value
      guard let element else {
        reportIssue(
          """
          Can't modify element \(id): the stack holds no element with that ID.
          """)
        return
      }
      guard isInCase else {
        let name = StoreIssueContext.caseName(of: element) ?? String(describing: element)
        reportIssue(#"Can't modify unrelated case "\#(name)""#)
        return
      }
      self[id: id] = value.map { path($0) }
    }
  }
}
