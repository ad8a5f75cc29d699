// Proof for Sources/SpoolCore/Internal/ThreadSanitizerMutex.swift (not part of the package, not
// built by it): eight threads append to an array behind a Synchronization.Mutex, as
// ActionQueue.pushOverflow does, then the same behind a pthread mutex. Correct either way (the
// final count is exact), but TSan reports a "Swift access race" for Synchronization.Mutex only:
// its contended path (futex, in uninstrumented libswiftSynchronization.so) is invisible to TSan.
//   swiftc -sanitize=thread .ci/tsan-mutex-proof.swift -o /tmp/proof
//   /tmp/proof           # Synchronization.Mutex: a report, exit status 66, count exact
//   /tmp/proof pthread   # pthread mutex: no report, exit status 0, count exact
import Glibc
import Synchronization

// @unchecked Sendable: each field is touched only under its own lock (the point of the test).
final class Box: @unchecked Sendable {
  let mutex = Mutex<[Int]>([])
  var pmutex = pthread_mutex_t()
  var plist: [Int] = []
  init() { pthread_mutex_init(&pmutex, nil) }
}

let box = Box()
let useSynchronization = CommandLine.arguments.dropFirst().first != "pthread"
let threads = 8, perThread = 20_000

func work() {
  for index in 0..<perThread {
    if useSynchronization {
      box.mutex.withLock { $0.append(index) }
    } else {
      pthread_mutex_lock(&box.pmutex)
      box.plist.append(index)
      pthread_mutex_unlock(&box.pmutex)
    }
  }
}

var ids: [pthread_t] = []
for _ in 0..<threads {
  var id = pthread_t()
  pthread_create(&id, nil, { _ in work(); return nil }, nil)
  ids.append(id)
}
for id in ids { pthread_join(id, nil) }
let count = useSynchronization ? box.mutex.withLock { $0.count } : box.plist.count
print(useSynchronization ? "Synchronization.Mutex" : "pthread_mutex", "count", count,
  count == threads * perThread ? "(exact)" : "(WRONG)")
