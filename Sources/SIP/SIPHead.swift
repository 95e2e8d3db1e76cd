/// A message's header lines as the bytes they go on the wire as: `Name: value\r\n` each, in order, with an index
/// of where each line's name and value lie. The parser writes a received head here once (values trimmed, folded
/// lines joined), a user agent writes its own from templates (`SIPHeaderTemplate`), and the serializer copies
/// the lines out: no `String` per header on either path. A header's value becomes a `String` only when someone
/// asks for it (`SIPMessage.header(_:)`); `SIPMessage.headers` builds the list for the readers that want one.
struct SIPHead: Sendable, Equatable {
    /// One line: its name is `start..<nameEnd`, its value `valueStart..<end`; `end` is the offset of its CRLF.
    struct Line: Sendable, Equatable {
        var start: Int
        var nameEnd: Int
        var valueStart: Int
        var end: Int

        mutating func shift(by offset: Int) {
            start += offset
            nameEnd += offset
            valueStart += offset
            end += offset
        }
    }

    private(set) var bytes: [UInt8] = []
    private(set) var lines: [Line] = []

    init() {}

    init(_ headers: [SIPHeader]) {
        bytes.reserveCapacity(headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        lines.reserveCapacity(headers.count)
        for header in headers { append(name: header.name, value: header.value) }
    }

    /// A head of whole lines copied as they are: `bytes` and the index of its lines (`SIPParser.quickHead`).
    init(bytes source: ValueBytes.Bytes, lines table: UnsafeBufferPointer<Line>) {
        bytes = Array(source)
        lines = Array(table)
    }

    /// A head written in one go into arrays sized first (`bytes` and `lines` at least what `write` puts), through
    /// a pointer: a line appended piece by piece (`append(name:value:)`) made one `Array.append` and a uniqueness
    /// check per piece, ~7 a line (issue 33). What a writer would put past the room stops the process.
    init(bytes byteRoom: Int, lines lineRoom: Int, _ write: (inout Writer) -> Void) {
        var written: [Line] = []
        bytes = [UInt8](room: byteRoom) { out in
            var n = 0
            written = [Line](room: lineRoom) { room in
                var w = Writer(out: RoomWriter(out), lines: room)
                write(&w)
                n = w.out.n
                return w.count
            }
            return n
        }
        lines = written
    }

    /// `init(bytes:lines:_:)`'s cursor: whole lines, each indexed as it is written.
    struct Writer {
        fileprivate var out: RoomWriter
        fileprivate let lines: UnsafeMutableBufferPointer<Line>
        fileprivate var count = 0

        /// `name: value\r\n`, the value in up to three pieces.
        mutating func line(_ name: StaticString, _ value: ValueBytes.Bytes, _ more: StaticString = "",
                           _ last: ValueBytes.Bytes = UnsafeBufferPointer(start: nil, count: 0)) {
            let size = name.utf8CodeUnitCount + 4 + value.count + more.utf8CodeUnitCount + last.count
            precondition(count < lines.count && out.n + size <= out.out.count, "a head's room is too small")
            let start = out.n
            out.put(name)
            let nameEnd = out.n
            out.put(": ")
            out.put(value)
            out.put(more)
            out.put(last)
            (lines.baseAddress! + count).initialize(to: Line(start: start, nameEnd: nameEnd, valueStart: nameEnd + 2,
                                                             end: out.n))
            count += 1
            out.put("\r\n")
        }
    }

    var count: Int { lines.count }

    var headers: [SIPHeader] {
        bytes.withUnsafeBufferPointer { b in
            lines.map {
                SIPHeader(ValueBytes.string(b, $0.start, $0.nameEnd), ValueBytes.string(b, $0.valueStart, $0.end))
            }
        }
    }

    // MARK: - Reading

    /// The index of the first line `name` matches at or after `from`, nil when none.
    func first(_ name: SIPHeaderName, from: Int = 0) -> Int? {
        bytes.withUnsafeBufferPointer { b in
            var i = from
            while i < lines.count {
                if name.matches(b, lines[i].start, lines[i].nameEnd) { return i }
                i += 1
            }
            return nil
        }
    }

    func value(_ index: Int) -> String {
        bytes.withUnsafeBufferPointer { ValueBytes.string($0, lines[index].valueStart, lines[index].end) }
    }

    func name(_ index: Int) -> String {
        bytes.withUnsafeBufferPointer { ValueBytes.string($0, lines[index].start, lines[index].nameEnd) }
    }

    /// Runs `body` over the bytes and the value range of line `index`.
    func withValue<R>(_ index: Int, _ body: (ValueBytes.Bytes, Int, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { body($0, lines[index].valueStart, lines[index].end) }
    }

    /// Whether a line from `index` on is one `SIPMessage.keepFields()` reads (Via, From, To, Call-ID, CSeq).
    func hasKeptHeader(from index: Int) -> Bool {
        guard index < lines.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            lines[index...].contains { KeptHeader.kind(UnsafeBufferPointer(rebasing: b[$0.start..<$0.nameEnd])) != nil }
        }
    }

    // MARK: - Writing

    mutating func append(name: String, value: String) {
        reserveFirst()
        let start = bytes.count
        bytes.appendUTF8(name)
        let nameEnd = bytes.count
        bytes.append(0x3A)
        bytes.append(0x20)
        bytes.appendUTF8(value)
        lines.append(Line(start: start, nameEnd: nameEnd, valueStart: nameEnd + 2, end: bytes.count))
        bytes.append(13)
        bytes.append(10)
    }

    /// A line of a received head: its name and trimmed value as they came.
    mutating func append(name: ValueBytes.Bytes, value: ValueBytes.Bytes) {
        reserveFirst()
        let start = bytes.count
        bytes.append(contentsOf: name)
        let nameEnd = bytes.count
        bytes.append(0x3A)
        bytes.append(0x20)
        bytes.append(contentsOf: value)
        lines.append(Line(start: start, nameEnd: nameEnd, valueStart: nameEnd + 2, end: bytes.count))
        bytes.append(13)
        bytes.append(10)
    }

    /// A line named `name` (canonical) whose value is `lo..<hi` of `source`, another head's bytes.
    mutating func append(name: SIPHeaderName, value source: ValueBytes.Bytes, _ lo: Int, _ hi: Int) {
        reserveFirst()
        let start = bytes.count
        bytes.append(contentsOf: name.canonicalBytes)
        let nameEnd = bytes.count
        bytes.append(0x3A)
        bytes.append(0x20)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[lo..<hi]))
        lines.append(Line(start: start, nameEnd: nameEnd, valueStart: nameEnd + 2, end: bytes.count))
        bytes.append(13)
        bytes.append(10)
    }

    /// Whole `Name: value\r\n` lines written by `write` (a template's, copied ones), then indexed.
    mutating func appendLines(_ write: (inout [UInt8]) -> Void) {
        reserveFirst()
        let from = bytes.count
        write(&bytes)
        index(from: from)
    }

    /// `appendLines` through a cursor into room sized first (`room`: at least what `write` puts): one array made
    /// with the old lines and the new ones, not one `Array.append` per piece of each line (a template's fixed
    /// parts and its slots, ~10 a request; issue 33). What a writer would put past the room stops the process.
    mutating func appendLines(room: Int, _ write: (inout RoomWriter) -> Void) {
        let old = bytes, from = old.count
        let spare = from == 0 ? 480 : 160  // as `reserveFirst`: the lines an agent adds after (Contact, …)
        bytes = [UInt8](room: from + room + spare) { out in
            var w = RoomWriter(out)
            old.withUnsafeBufferPointer { w.put($0) }
            w.limit = from + room
            write(&w)
            precondition(w.n <= from + room, "a writer's room is too small")  // the spare caught what is past
            return w.n
        }
        if lines.capacity == 0 { lines.reserveCapacity(12) }
        index(from: from)
    }

    /// A `name: value` line put at `index` (the end when past it).
    mutating func insert(name: String, value: String, at index: Int) {
        guard index < lines.count else { return append(name: name, value: value) }
        var line = SIPHead()
        line.append(name: name, value: value)
        let at = lines[index].start, shift = line.bytes.count
        bytes.insert(contentsOf: line.bytes, at: at)
        for k in index..<lines.count { lines[k].shift(by: shift) }
        var new = line.lines[0]
        new.shift(by: at)
        lines.insert(new, at: index)
    }

    /// Removes line `index`, its CRLF included.
    mutating func remove(at index: Int) {
        let line = lines[index]
        let shift = line.end + 2 - line.start
        bytes.removeSubrange(line.start..<(line.end + 2))
        lines.remove(at: index)
        for k in index..<lines.count { lines[k].shift(by: -shift) }
    }

    var byteCount: Int { bytes.count }

    /// Bytes of whole lines whose index `appendIndex` gives (the parser's runs of lines copied as they came).
    mutating func appendBytes(_ more: ValueBytes.Bytes) { bytes.append(contentsOf: more) }

    mutating func appendIndex(_ line: Line) { lines.append(line) }

    /// A value appended to the last line's (a folded line of a received head): `more` after one space.
    mutating func fold(_ more: ValueBytes.Bytes) {
        guard var last = lines.last else { return }
        bytes.removeLast(2)
        bytes.append(32)
        bytes.append(contentsOf: more)
        last.end = bytes.count
        lines[lines.count - 1] = last
        bytes.append(13)
        bytes.append(10)
    }

    /// Room for a usual head, taken with its first line: a message's head grew, and was copied, several times.
    private mutating func reserveFirst() {
        if bytes.capacity == 0 { bytes.reserveCapacity(480) }
        if lines.capacity == 0 { lines.reserveCapacity(12) }
    }

    mutating func reserve(bytes count: Int, lines lineCount: Int) {
        bytes.reserveCapacity(count)
        lines.reserveCapacity(lineCount)
    }

    /// Indexes the lines written from `from` on: each `name:` then the value after any spaces, up to its CRLF.
    private mutating func index(from: Int) {
        let written = bytes  // shares the storage: read while `lines` grows
        let total = written.count
        written.withUnsafeBufferPointer { b in
            var start = from
            while start < total {
                var crlf = ValueBytes.findCR(b, start, total)
                while crlf + 1 < total, b[crlf + 1] != 10 { crlf = ValueBytes.findCR(b, crlf + 1, total) }
                if crlf + 1 >= total { crlf = total }
                let colon = ValueBytes.find(0x3A, b, start, crlf)
                var valueStart = min(colon + 1, crlf)
                while valueStart < crlf, b[valueStart] == 32 || b[valueStart] == 9 { valueStart += 1 }
                lines.append(Line(start: start, nameEnd: colon, valueStart: valueStart, end: crlf))
                start = crlf + 2
            }
        }
    }
}
