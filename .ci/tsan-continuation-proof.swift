// Proof for the entry in .ci/tsan-suppressions.txt (not part of the package, not built by it):
// a persistent thread resumes throwing continuations handed to it through a pthread mutex (which
// TSan understands), as SpoolIO's ring thread and pool workers do; one task awaits them one
// after another. The program shares nothing else, and each continuation is resumed once, yet
// TSan reports a data race between UnsafeContinuation.resume(returning:) and the task's next
// withUnsafeThrowingContinuation: the resume-to-await hand-off inside libswift_Concurrency is
// invisible to it.
//   swiftc -parse-as-library -sanitize=thread .ci/tsan-continuation-proof.swift -o /tmp/proof
//   /tmp/proof   # prints a "data race" report, exit status 66
//   /tmp/proof never   # the same with UnsafeContinuation<_, Never> (withUnsafeContinuation,
//                      # resume(returning:) of the non-throwing kind, as ActionQueue.park uses)
import Glibc

// @unchecked Sendable: `pending` is touched only between pthread_mutex_lock and unlock.
final class Mailbox<Failure: Error>: @unchecked Sendable {
  var mutex = pthread_mutex_t()
  var pending: [UnsafeContinuation<Int32, Failure>] = []
  init() { pthread_mutex_init(&mutex, nil) }
  func put(_ c: UnsafeContinuation<Int32, Failure>) {
    pthread_mutex_lock(&mutex); pending.append(c); pthread_mutex_unlock(&mutex)
  }
  func take() -> UnsafeContinuation<Int32, Failure>? {
    pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }
    return pending.isEmpty ? nil : pending.removeFirst()
  }
}

let mailbox = Mailbox<any Error>()
let neverMailbox = Mailbox<Never>()

func resumer(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  while true {
    if let c = mailbox.take() { c.resume(with: .success(7)) }
    if let c = neverMailbox.take() { c.resume(returning: 7) }
  }
}

@main struct Main {
  static func main() async throws {
    var thread = pthread_t()
    pthread_create(&thread, nil, resumer, nil)
    var total: Int32 = 0
    let never = CommandLine.arguments.dropFirst().first == "never"
    for _ in 0..<20_000 {
      if never {
        total &+= await withUnsafeContinuation { neverMailbox.put($0) }
      } else {
        total &+= try await withUnsafeThrowingContinuation { mailbox.put($0) }
      }
    }
    print("total", total)
  }
}
