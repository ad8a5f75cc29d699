#if canImport(Glibc)
  import Glibc
#endif

/// A 1 MiB tmpfs mounted on a fresh directory, for a real full disk; unmounted and removed by
/// `remove()`. Mounting needs CAP_SYS_ADMIN (root outside a restricted container).
struct SmallTmpfs {
  let directory: TemporaryDirectory

  /// Mounts one, or returns `nil` when this process may not mount.
  init?(size: String = "1m") {
    let directory = TemporaryDirectory()
    guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(size)") == 0 else {
      directory.remove()
      return nil
    }
    self.directory = directory
  }

  /// Whether this process may mount a tmpfs (tried once).
  static let canMount: Bool = {
    guard let probe = SmallTmpfs() else { return false }
    probe.remove()
    return true
  }()

  func file(_ name: String) -> String { directory.file(name) }

  func remove() {
    for name in directory.entries() { unlink(directory.file(name)) }
    umount2(directory.path, Int32(MNT_DETACH))
    rmdir(directory.path)
  }
}
