import Testing

/// The message an issue was reported with, as a matcher of TCA's failure messages reads it:
/// `withKnownIssue { … } matching: { message(of: $0).hasPrefix("…") }`.
func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}
