import CasePathsCore
import IssueReporting

extension PresentationState where State: CasePathable {
  /// The presented child's state in the case `case`; `nil` if nothing is presented or the
  /// child is in another case.
  ///
  /// For a destination enum (an `@Reducer enum Destination`), this reaches into one case's
  /// state in one step. Setting a value replaces the child in that case (or presents it, when
  /// nothing is presented); setting `nil` dismisses.
  /// Changing a child that is in another case is a mistake (the code expected another
  /// destination), so it is reported as an issue and leaves the child as it was; this holds
  /// for optional chaining too (`$destination[case: \.editor]?.title = "Draft"` while a
  /// preview is presented reports). With nothing presented, setting a value presents it, and
  /// changing it through optional chaining does nothing.
  ///
  /// - Parameter path: A case key path to the destination's case, such as `\.editor`.
  ///
  /// ```swift
  /// $0.$destination[case: \.editor]?.title = "Draft"
  /// ```
  public subscript<Case>(case path: CaseKeyPath<State, Case>) -> Case? {
    get { wrappedValue.flatMap { $0[case: path] } }
    _modify {
      let child = wrappedValue
      var value = child.flatMap { $0[case: path] }
      // Checked before the yield: after it, `value` is what the caller wrote, and a caller
      // that chained through `nil` wrote nothing but still meant to change this case.
      let isInCase = value != nil
      yield &value
      if let child, !isInCase {
        let name = StoreIssueContext.caseName(of: child) ?? String(describing: child)
        reportIssue(#"Can't modify unrelated case "\#(name)""#)
        return
      }
      if child == nil, value == nil { return }
      wrappedValue = value.map { path($0) }
    }
  }
}
