import SpoolCore
import SpoolIO
import SpoolJournal

/// A feature whose action adopts `JournalCodable` (and stays `Codable`): what the tests of the
/// journal's compact encoding record and replay. Its payloads cover every standard adopting
/// type, a nested adopting struct, optionals and arrays.
struct Tally: Reducer {
  struct Item: Codable, Equatable, Sendable, JournalCodable {
    var id: UInt16
    var label: String?

    func write(to writer: inout JournalRecordWriter) {
      writer.write(id)
      writer.write(label)
    }

    init(id: UInt16, label: String?) {
      self.id = id
      self.label = label
    }

    init(from reader: inout JournalRecordReader) throws {
      id = try reader.read()
      label = try reader.read()
    }
  }

  struct State: Codable, Equatable, Sendable {
    var count = 0
    var total = 0
    var labels: [String] = []
    var items: [Item] = []
  }

  enum Action: Codable, Equatable, Sendable, JournalCodable {
    case tick
    case add(Int)
    case label(String)
    case item(Item)
    case items([Item], urgent: Bool)
    case numbers(Int8, Int16, Int32, Int64, UInt, UInt32, UInt64)
    case real(Double, Float)
    case digest([UInt8])

    func write(to writer: inout JournalRecordWriter) {
      switch self {
      case .tick:
        writer.writeByte(0)
      case .add(let value):
        writer.writeByte(1)
        writer.write(value)
      case .label(let label):
        writer.writeByte(2)
        writer.write(label)
      case .item(let item):
        writer.writeByte(3)
        writer.write(item)
      case .items(let items, let urgent):
        writer.writeByte(4)
        writer.write(items)
        writer.write(urgent)
      case .numbers(let a, let b, let c, let d, let e, let f, let g):
        writer.writeByte(5)
        writer.write(a)
        writer.write(b)
        writer.write(c)
        writer.write(d)
        writer.write(e)
        writer.write(f)
        writer.write(g)
      case .real(let double, let float):
        writer.writeByte(6)
        writer.write(double)
        writer.write(float)
      case .digest(let bytes):
        writer.writeByte(7)
        writer.writeBytes(bytes)
      }
    }

    init(from reader: inout JournalRecordReader) throws {
      switch try reader.readByte() {
      case 0: self = .tick
      case 1: self = .add(try reader.read())
      case 2: self = .label(try reader.read())
      case 3: self = .item(try reader.read())
      case 4: self = .items(try reader.read(), urgent: try reader.read())
      case 5:
        self = .numbers(
          try reader.read(), try reader.read(), try reader.read(), try reader.read(),
          try reader.read(), try reader.read(), try reader.read())
      case 6: self = .real(try reader.read(), try reader.read())
      case 7: self = .digest(try reader.readBytes())
      case let other: throw reader.error("unknown Tally.Action case \(other)")
      }
    }
  }

  /// One action of each case.
  static let everyCase: [Action] = [
    .tick,
    .add(-42),
    .add(.max),
    .label("naïve — ünïcödé ✓"),
    .label(""),
    .item(Item(id: 7, label: nil)),
    .items([Item(id: 1, label: "x"), Item(id: .max, label: "")], urgent: true),
    .items([], urgent: false),
    .numbers(.min, .max, .min, .min, .max, .max, .max),
    .real(-0.125, .infinity),
    .digest([0, 0xFF, 0x80]),
  ]

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count += 1
    switch action {
    case .tick: break
    case .add(let value): state.total &+= value
    case .label(let label): state.labels.append(label)
    case .item(let item): state.items.append(item)
    case .items(let items, let urgent): if urgent { state.items += items }
    case .numbers(let a, _, _, _, _, _, _): state.total &+= Int(a)
    case .real(let double, _): state.total &+= Int(double * 8)
    case .digest(let bytes): state.total &+= bytes.count
    }
    return .none
  }
}
