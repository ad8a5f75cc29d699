#if canImport(Glibc)
  import Glibc
#endif
import Spool
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

    @Test func namesUncommonErrnoByNumber() {
      #expect(IOError(errno: 4095, operation: "read", target: .none).errnoName == "errno 4095")
    }
  }
}
