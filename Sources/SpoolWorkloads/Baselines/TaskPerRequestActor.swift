/// The `task-per-action` baseline of the `effects` workload: a plain actor that starts an
/// unstructured `Task` per request and receives its reply, as Swift code without Spool does.
package actor TaskPerRequestActor {
  private(set) var requests = 0
  private(set) var responses = 0
  private(set) var sum = 0
  private let replies: Countdown

  package init(replies: Countdown) {
    self.replies = replies
  }

  /// Starts the request's work in a task; the task replies to the actor.
  package func request(_ value: Int) {
    requests += 1
    Task { self.response(value) }
  }

  private func response(_ value: Int) {
    responses += 1
    sum &+= value
    replies.arrive()
  }

  package var figures: (requests: Int, responses: Int, sum: Int) { (requests, responses, sum) }
}
