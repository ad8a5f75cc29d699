#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO
import Synchronization

/// The exclusive lock a journal holds while it is written: `flock` on `path.lock`, so that no
/// second writer (in this process or another) writes the same files. A ``SharedJournal``
/// holds it from `open` to ``SharedJournal/close()``: each run starts the segment after the
/// last one on disk, so two runs at once would both write that segment. A ``JournalRecorder``
/// holds it from its creation to ``JournalRecorder/finish(finalState:)``: a second recorder
/// would truncate, or continue into, the very files the first one appends to.
///
/// The kernel releases the lock when the process dies, however it dies, so a crash never
/// leaves the journal locked; the lock file itself stays (it holds nothing).
final class JournalLock: Sendable {
  /// The descriptor holding the lock; -1 once released.
  private let descriptor: Atomic<Int32>

  /// The path of the lock file of the journal at `path`.
  static func path(of path: String) -> String { "\(path).lock" }

  /// Takes the lock of the journal at `path`, without waiting.
  ///
  /// - Parameter holder: What holds the journal open, for the error (`"SharedJournal"`).
  /// - Throws: ``JournalError/Code/inUse``, naming the lock file, when another writer holds
  ///   it; the `IOError` of opening the lock file.
  init(path: String, holder: String) throws(JournalError) {
    let lockPath = Self.path(of: path)
    let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      let problem = IOError(errno: errno, operation: "open", target: .path(lockPath))
      throw JournalError(file: lockPath, offset: 0, problem: .io(problem))
    }
    var result: Int32
    repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
    guard result == 0 else {
      let code = errno
      close(fd)
      if code == EWOULDBLOCK {
        throw JournalError(
          file: lockPath, offset: 0,
          problem: .inUse(
            "another \(holder) has \(path) open, in this process or another; close it first"))
      }
      let problem = IOError(errno: code, operation: "flock", target: .path(lockPath))
      throw JournalError(file: lockPath, offset: 0, problem: .io(problem))
    }
    descriptor = Atomic(fd)
  }

  /// Releases the lock; later calls do nothing.
  func release() {
    let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
    if fd >= 0 { close(fd) }
  }

  deinit { release() }
}

extension JournalFiles {
  /// Removes the temporary files that an atomic write into the journal at `path` left when
  /// its process died partway (`.base.N.journal.spool-…` and `.base.N.index.spool-…`), and
  /// returns how many. Only with the journal's lock held: then no other run is writing one.
  static func removeTemporaries(of path: String) -> Int {
    let folder = FileOperations.directoryName(of: path)
    let base = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    guard let directory = opendir(folder) else { return 0 }
    let temporaries = FileOperations.entryNames(in: directory).filter {
      isTemporary($0, base: base)
    }
    closedir(directory)
    var removed = 0
    for name in temporaries where unlink("\(folder)/\(name)") == 0 { removed += 1 }
    return removed
  }

  /// Whether `name` is a temporary file of a segment or index of the journal whose base name
  /// is `base`: `.` + `base.N.journal` or `base.N.index` + `.spool-` + anything.
  static func isTemporary(_ name: String, base: String) -> Bool {
    let prefix = "." + base + "."
    guard name.hasPrefix(prefix), let marker = name.firstRange(of: ".spool-") else { return false }
    let middle = name[name.index(name.startIndex, offsetBy: prefix.count)..<marker.lowerBound]
    let kinds = [".journal", ".index"]
    guard let kind = kinds.first(where: { middle.hasSuffix($0) }) else { return false }
    let digits = middle.dropLast(kind.count)
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
  }
}
