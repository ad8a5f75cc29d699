#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
import Testing

extension SpoolIOTests {
  @Suite struct IOErrorTests {
    @Test func describesOperationTargetAndErrno() {
      #expect(
        IOError(errno: ENOENT, operation: "open", target: .path("/nope")).description
          == #"open("/nope"): No such file or directory (ENOENT)"#)
      #expect(
        IOError(errno: EBADF, operation: "read", target: .descriptor(7)).description
          == "read(fd 7): Bad file descriptor (EBADF)")
      #expect(
        IOError(errno: ECONNREFUSED, operation: "connect", target: .address("127.0.0.1:9"))
          .description == "connect(127.0.0.1:9): Connection refused (ECONNREFUSED)")
      #expect(
        IOError(errno: EPERM, operation: "io_uring_setup", target: .none).description
          == "io_uring_setup(): Operation not permitted (EPERM)")
    }

    /// The target is read through its accessors: each answers only for its own kind.
    @Test func aTargetAnswersForItsOwnKindOnly() {
      let path = IOError.Target.path("/a")
      #expect(path.path == "/a" && path.descriptor == nil && path.address == nil)
      let descriptor = IOError.Target.descriptor(3)
      #expect(descriptor.descriptor == 3 && descriptor.path == nil && descriptor.address == nil)
      let address = IOError.Target.address("127.0.0.1:80")
      #expect(address.address == "127.0.0.1:80" && address.path == nil)
      #expect(IOError.Target.none.path == nil && IOError.Target.none.descriptor == nil)
      #expect(path != .address("/a") && descriptor == .descriptor(3))
    }

    @Test func namesUncommonErrnoByNumber() {
      #expect(IOError(errno: 4095, operation: "read", target: .none).errnoName == "errno 4095")
    }
  }
}
