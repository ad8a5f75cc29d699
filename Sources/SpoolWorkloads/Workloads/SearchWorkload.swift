import Dependencies
import SpoolCore
import SpoolBench
import SpoolIO
import SpoolProfiling

/// `search`: words typed into ``SearchFeature`` one keystroke at a time; each keystroke
/// restarts the debounced search (cancelling the one in flight); after each word the producer
/// awaits `finish()`, which returns when that word's one search has answered. The answer is
/// read from a file through SpoolIO by a store made as any user makes one; the
/// `blocking-io` baseline is the same feature reading with blocking `pread` inside `.run`.
///
/// One unit is one keystroke. The debounce is real time on ``IOClock`` for both.
enum SearchWorkload {
  static let debounce = Duration.microseconds(200)
  static let blockSize = 4_096
  static let blocks = 256

  static let workload = Workload(
    name: "search",
    summary: "debounced keystrokes; searches cancelled and answered from a file via SpoolIO",
    defaultActions: 20_000
  ) { run in
    let engine = IOEngine.shared
    let path = try await WorkloadFile.prepare(
      name: "search", blocks: blocks, blockSize: blockSize, engine: engine)
    defer { WorkloadFile.remove(path) }
    let words = makeWords(keystrokes: run.actions)
    let keystrokes = words.reduce(0) { $0 + $1.count }
    let file = try await IOFile.open(path, on: engine)
    let spool = try await run.spool(SearchFeature.Action.self) { recorder in
      try await typeWords(
        run, "spool", words: words, keystrokes: keystrokes, engine: engine,
        instrumentation: recorder
      ) { offset in try await file.read(upTo: blockSize, at: offset) }
    }
    try await file.close()
    let blocking = try BlockingFile(path: path)
    run.progress.begin(run.label("blocking-io"), total: keystrokes)
    let baseline = try await typeWords(
      run, "blocking-io", words: words, keystrokes: keystrokes, engine: engine,
      instrumentation: nil
    ) { offset in try blocking.read(upTo: blockSize, at: offset) }
    return [
      run.report(
        spool, baselines: [baseline],
        parameters: [
          "words": String(words.count), "debounceMicroseconds": "200",
          "blockSize": String(blockSize),
        ],
        ioBackend: engine.backend.rawValue)
    ]
  }

  /// Types every word into a fresh store and waits for its answer; checks one answer per word.
  static func typeWords(
    _ run: WorkloadRun, _ name: String, words: [[String]], keystrokes: Int, engine: IOEngine,
    instrumentation: LatencyRecorder<SearchFeature.Action>?,
    read: @escaping @Sendable (UInt64) async throws -> [UInt8]
  ) async throws -> Measurement {
    let search = searcher(read: read)
    let store = Store(initialState: SearchFeature.State(), instrumentation: instrumentation) {
      SearchFeature(debounce: debounce, search: search)
    } withDependencies: {
      $0.continuousClock = IOClock(engine: engine)
    }
    let result = await Measurement.time(name, actions: keystrokes) {
      for word in words {
        for prefix in word { store.enqueue(.queryChanged(prefix)) }
        await store.finish()
        run.progress.advance(by: word.count)
      }
    }
    let state = await store.state
    try checkCount(state.keystrokes, expected: keystrokes, run.label(name), what: "keystrokes")
    // Every word is answered once its last keystroke's debounce has passed; a word may get
    // more answers when the producer is descheduled for longer than the debounce mid-word
    // (a shared machine), never fewer.
    try check(
      state.responses >= words.count && state.responses <= keystrokes, run.label(name),
      "\(state.responses) answers for \(words.count) words")
    let last = words.last?.last ?? ""
    try check(
      state.query == last && state.answeredQuery == last, run.label(name),
      "the last word was not answered")
    return result
  }

  /// A search that reads the block the query hashes to and counts the words in it that start
  /// with the query's first letter.
  static func searcher(
    read: @escaping @Sendable (UInt64) async throws -> [UInt8]
  ) -> @Sendable (String) async throws -> Int {
    { query in
      var hash: UInt64 = 14_695_981_039_346_656_037
      for byte in query.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
      let bytes = try await read(UInt64(Int(hash % UInt64(blocks)) * blockSize))
      guard let first = query.utf8.first else { return 0 }
      var matches = 0
      var atWordStart = true
      for byte in bytes {
        if atWordStart && byte == first { matches += 1 }
        atWordStart = byte == UInt8(ascii: "\n")
      }
      return matches
    }
  }

  /// Words of 3 to 8 letters, as the list of their prefixes (the queries their keystrokes
  /// make), until `keystrokes` keystrokes; the same words every run.
  static func makeWords(keystrokes: Int) -> [[String]] {
    var words: [[String]] = []
    var total = 0
    var seed: UInt64 = 42
    while total < keystrokes {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let length = min(3 + Int(seed >> 61), keystrokes - total)
      var word = ""
      var prefixes: [String] = []
      for index in 0..<max(length, 1) {
        let letter = UInt8(ascii: "a") + UInt8((seed >> (index * 5)) % 26)
        word.append(Character(Unicode.Scalar(letter)))
        prefixes.append(word)
      }
      words.append(prefixes)
      total += prefixes.count
    }
    return words
  }
}
