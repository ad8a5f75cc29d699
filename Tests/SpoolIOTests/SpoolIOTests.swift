import Testing

/// The root of SpoolIO's tests. Serialized within itself (other suites still run beside it):
/// `expectNoDescriptorLeak` counts the process's descriptors of files under
/// `/tmp/spool-io-test-*`, the folders every SpoolIO test works in, so a SpoolIO test running
/// beside another would count the other's files. Sockets, rings and eventfds are counted per
/// engine and need no serialization.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct SpoolIOTests {}
