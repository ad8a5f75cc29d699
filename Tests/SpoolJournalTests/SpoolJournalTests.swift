import Testing

/// The root of SpoolJournal's tests. Serialized, because the tests count the process's open
/// descriptors before and after each scenario.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct SpoolJournalTests {}
