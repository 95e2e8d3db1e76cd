import Bytes
import Foundation
import SystemCalls
import TextEscaping

/// Joins operation histories (`history-w<i>.jsonl`, docs/CHECKER.md) into one file ordered by each line's `t`.
///
/// Each worker writes its lines in time order, so the join is a k-way merge over the files' bytes: no line becomes
/// a String and nothing is sorted. Reading every line as a String and sorting them all cost 13 % of a whole run's
/// CPU in the Locust benchmark. A file found out of order (not expected, but not assumed away) has its lines
/// sorted by `t` first, so the output is the same either way: ordered by `t`, ties in file order, then line order.
enum HistoryJoin {
    /// One line of a file: its time and its bytes `start..<end` (without the newline).
    struct Line {
        var t: UInt64
        var start: Int
        var end: Int
    }

    /// A file's bytes, mapped read-only for as long as the object lives.
    final class MappedFile {
        let base: UnsafePointer<UInt8>?
        let count: Int

        /// Nil when the file cannot be opened or mapped.
        init?(path: String) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return nil }
            count = Int(info.st_size)
            guard count > 0 else {
                base = nil
                return
            }
            guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                return nil
            }
            _ = madvise(mapped, count, MADV_SEQUENTIAL)
            base = UnsafePointer(mapped.assumingMemoryBound(to: UInt8.self))
        }

        deinit {
            if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
        }
    }

    /// The `t` of a line: the digits after its first five bytes (`{"t":`), 0 when there are none or they overflow
    /// (the checker names such a line; it sorts first). Up to 15 digits by `shortTime`, more by `longTime`. Not inlined
    /// into `nextLine`: inlined, the line loop of `Cursor.init` cost more (measured, ~0.4 k a SIP call).
    @inline(never)
    static func time(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        if start &+ 21 <= end, let t = shortTime(base + (start &+ 5)) { return t }
        return longTime(base, start, end)
    }

    /// `time` for a line too short for `shortTime`'s loads, or a time of 16 digits or more: apart, so that the
    /// common case inlines into the line loop without this one's registers saved and restored.
    ///
    /// The first 19 digits cannot overflow (10^19 - 1 < 2^64), so they are read without the overflow checks, which
    /// made this a quarter of the join (~9.6 k instructions of a SIP call's 46 lines, issue 33); only a 20th digit
    /// and on go through the checked loop.
    @inline(never)
    static func longTime(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        var i = start + 5
        var t: UInt64 = 0
        let unchecked = min(end, i + 19)
        // Eight digits at a time while eight more stay within the 19 (a history time has ~10).
        while i + 8 <= unchecked, let eight = DecimalDigits.eight(base + i) {
            t = t &* 100_000_000 &+ eight
            i += 8
        }
        while i < unchecked {
            let digit = base[i] &- 0x30
            guard digit < 10 else { return t }
            t = t &* 10 &+ UInt64(digit)
            i += 1
        }
        while i < end, base[i] >= 0x30, base[i] <= 0x39 {
            let (times10, o1) = t.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(base[i] - 0x30))
            if o1 || o2 { return 0 }
            t = sum
            i += 1
        }
        return t
    }

    /// `time`'s digits when there are at most 15 (a history's times have ~10): two loads of eight bytes read by
    /// `DecimalDigits.leading`. The eight-at-a-time loop and the digit-by-digit tail it replaces cost ~100
    /// instructions a line (~5 k of a SIP call's join; issue 33). Nil for 16 digits or more, left to `longTime`;
    /// `p` must have 16 bytes readable.
    @inline(__always)
    static func shortTime(_ p: UnsafePointer<UInt8>) -> UInt64? {
        let raw = UnsafeRawPointer(p)
        let (high, n) = DecimalDigits.leading(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)))
        guard n == 8 else { return high }
        let (low, m) = DecimalDigits.leading(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8,
                                                                                     as: UInt64.self)))
        guard m < 8 else { return nil }
        return high &* powersOfTen[m] &+ low
    }

    private static let powersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// The next non-empty line at or after `pos`, moving `pos` past it.
    static func nextLine(_ base: UnsafePointer<UInt8>, _ count: Int, _ pos: inout Int) -> Line? {
        while pos < count {
            let start = pos
            let end: Int
            if let newline = memchr(base + start, 10, count - start) {
                end = UnsafeRawPointer(newline) - UnsafeRawPointer(base)
            } else {
                end = count  // a last line without its newline (a kill mid-write) is kept: the checker names it
            }
            pos = end + 1
            if end > start { return Line(t: time(base, start, end), start: start, end: end) }
        }
        return nil
    }

    /// Reads one file's lines in `t` order: its lines found once, then sorted by `t` (ties in line order) when the
    /// file is not in order. One pass over the bytes: finding the lines twice, and sorting their indices with a
    /// comparison closure, were half the join's cost for the bench's history, which is never quite in order (an
    /// `invoke` line is stamped when its action was planned, before lines written ahead of it).
    ///
    /// A line found early is moved back into place as it is read (an insertion sort): the bench's lines are a few
    /// places out at most (40 of 5,521 lines out, 120 moves in all), where the standard library's stable sort of
    /// the whole array cost ~5 k instructions a call. Past `shiftBudget` moves the rest are appended as found and
    /// the whole array sorted once; `(t, start)` is unique, so either way gives the one order.
    struct Cursor {
        let base: UnsafePointer<UInt8>
        let count: Int
        fileprivate var lines: [Line] = []
        private var index = 0
        /// The pages behind the lines read, given back as the cursor goes (a mapped file's only).
        fileprivate var behind: DropBehind

        init(base: UnsafePointer<UInt8>, count: Int, mapped: Bool = false) {
            self.base = base
            self.count = count
            behind = DropBehind(base: mapped ? base : nil)
            var pos = 0
            var last: UInt64 = 0
            var sortAtEnd = false
            var shifts = 0
            let shiftBudget = 4_096 + count / 8
            lines.reserveCapacity(count / 96)
            while let line = HistoryJoin.nextLine(base, count, &pos) {
                behind.release(before: pos)
                lines.append(line)
                guard line.t < last else {
                    last = line.t
                    continue
                }
                guard !sortAtEnd, shifts < shiftBudget else {
                    sortAtEnd = true
                    continue
                }
                // Ties stay after the earlier lines (strictly greater moves back): the stable order by `t`.
                var j = lines.count - 1
                while j > 0, lines[j - 1].t > line.t {
                    lines[j] = lines[j - 1]
                    j -= 1
                }
                shifts += lines.count - 1 - j
                lines[j] = line
            }
            // (t, start) is unique and start follows the file's order, so this is the stable order by t.
            if sortAtEnd { lines.sort { $0.t != $1.t ? $0.t < $1.t : $0.start < $1.start } }
            behind.restart()
        }

        mutating func next() -> Line? {
            guard index < lines.count else { return nil }
            index += 1
            behind.release(before: lines[index - 1].start)
            return lines[index - 1]
        }
    }

    /// Gives a mapped file's pages back to the kernel behind a reader that goes through it about in order
    /// (`madvise(MADV_DONTNEED)` every `step` bytes, `margin` bytes behind): a read-only private mapping's page
    /// read again is read from the file again, so the bytes are the same whatever is given back, and a line out of
    /// order further back than `margin` costs a read, not a wrong byte. Mapped whole and kept, the worker's
    /// history counted in the process's RSS through the join, at the end of the run with the run's memory still
    /// held: 96 MB of a 273 MB peak for a 60 s SIP run at 400 calls/s (docs/CHECKER.md, 2026-12-07).
    struct DropBehind {
        static let step = 4 << 20
        static let margin = 1 << 20
        /// Nil: not a mapping (nothing is given back).
        let base: UnsafePointer<UInt8>?
        private(set) var released = 0
        private var resumeFrom = 0

        init(base: UnsafePointer<UInt8>?) { self.base = base }

        mutating func release(before offset: Int) {
            guard let base, offset - resumeFrom >= Self.step + Self.margin else { return }
            let upTo = (offset - Self.margin) & ~(Int(getpagesize()) - 1)
            guard upTo > released else { return }
            _ = madvise(UnsafeMutableRawPointer(mutating: base + released), upTo - released, MADV_DONTNEED)
            released = upTo
            resumeFrom = upTo
        }

        /// For a second pass from the start: what was given back is read again as the pass comes to it.
        mutating func restart() {
            released = 0
            resumeFrom = 0
        }
    }

    /// `merge` for one file (a run with one worker): its lines in order, each run of lines that follow each other
    /// in the file written as one, without the scan over the cursors' heads.
    private static func writeLines(of cursor: Cursor, _ writer: AtomicFileWriter) throws -> Int {
        var behind = cursor.behind
        return try cursor.lines.withUnsafeBufferPointer { lines in
            guard var run = lines.first.map({ $0.start..<$0.end }) else { return 0 }
            for line in lines.dropFirst() {
                behind.release(before: run.lowerBound)  // the run not yet written is read at its write
                if line.start == run.upperBound + 1 {
                    run = run.lowerBound..<line.end
                } else {
                    try writer.appendLine(UnsafeBufferPointer(start: cursor.base + run.lowerBound, count: run.count))
                    run = line.start..<line.end
                }
            }
            try writer.appendLine(UnsafeBufferPointer(start: cursor.base + run.lowerBound, count: run.count))
            return lines.count
        }
    }

    /// `merge`'s loop over the cursors and their head lines: writes every line to `writer` in order, returns how many.
    private static func mergeLines(_ cursors: UnsafeMutableBufferPointer<Cursor>,
                                   _ heads: UnsafeMutableBufferPointer<Line?>,
                                   _ writer: AtomicFileWriter) throws -> Int {
        var lines = 0
        // The run not yet written: lines start..<end of cursor `runOf`, their newlines included.
        var runOf = -1
        var run = 0..<0
        // A linear scan for the smallest head: k is the worker count (a handful), where a heap gains nothing.
        while true {
            var best = -1
            var bestT: UInt64 = .max
            for i in heads.indices {
                if let head = heads[i], best < 0 || head.t < bestT {
                    best = i
                    bestT = head.t
                }
            }
            guard best >= 0, let line = heads[best] else { break }
            if best == runOf, line.start == run.upperBound + 1 {
                run = run.lowerBound..<line.end
            } else {
                if runOf >= 0 {
                    try writer.appendLine(UnsafeBufferPointer(start: cursors[runOf].base + run.lowerBound,
                                                              count: run.count))
                }
                runOf = best
                run = line.start..<line.end
            }
            lines += 1
            heads[best] = cursors[best].next()
        }
        if runOf >= 0 {
            try writer.appendLine(UnsafeBufferPointer(start: cursors[runOf].base + run.lowerBound, count: run.count))
        }
        return lines
    }

    /// Merges `files` (in the order given, which breaks ties) into `output`, replaced atomically. Returns the
    /// number of lines written. Lines that follow each other in their file are written as one run of bytes.
    @discardableResult
    static func merge(_ files: [MappedFile], into output: URL) throws -> Int {
        var cursors: [Cursor] = files.compactMap { file in
            file.base.map { Cursor(base: $0, count: file.count, mapped: true) }
        }
        let writer = try AtomicFileWriter(output)
        if cursors.count == 1 {
            let lines = try writeLines(of: cursors[0], writer)
            try writer.commit()
            withExtendedLifetime(files) {}
            return lines
        }
        var heads: [Line?] = cursors.indices.map { cursors[$0].next() }
        // Through the arrays' buffers: `heads[best] = cursors[best].next()` checked both arrays' uniqueness per line
        // (one history line each, issue 33).
        let lines = try cursors.withUnsafeMutableBufferPointer { cursors in
            try heads.withUnsafeMutableBufferPointer { heads in try mergeLines(cursors, heads, writer) }
        }
        try writer.commit()
        withExtendedLifetime(files) {}
        return lines
    }
}

/// Writes a file through a 1 MiB buffer into `<name>.tmp`, renamed over the target by `commit`, so a reader sees
/// the old file or the whole new one.
final class AtomicFileWriter {
    private let url: URL
    private let tmpPath: String
    private var fd: Int32
    /// `capacity` bytes, `used` of them filled: copied into with `memcpy`, where `[UInt8].append(contentsOf:)` of
    /// a mapped run of lines went byte by byte (~5 k instructions of a SIP call's join, issue 33).
    private let buffer: UnsafeMutablePointer<UInt8>
    private var used = 0
    private static let flushAt = 1 << 20
    private static let capacity = flushAt + 4096

    init(_ url: URL) throws {
        self.url = url
        tmpPath = url.path + ".tmp"
        fd = open(tmpPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: tmpPath]) }
        buffer = .allocate(capacity: Self.capacity)
    }

    deinit {
        buffer.deallocate()
        if fd >= 0 {
            close(fd)
            unlink(tmpPath)
        }
    }

    func appendLine(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if bytes.count >= Self.capacity - used {
            try flush()
            if bytes.count >= Self.capacity {
                // Longer than the buffer (a file's lines in one run): written from where they are.
                try writeOut(UnsafeRawBufferPointer(bytes))
                buffer[0] = 10
                used = 1
                return
            }
        }
        if let base = bytes.baseAddress { memcpy(buffer + used, base, bytes.count) }
        used += bytes.count
        buffer[used] = 10
        used += 1
        if used >= Self.flushAt { try flush() }
    }

    func appendLine<S: StringProtocol>(_ text: S) throws {
        if try text.utf8.withContiguousStorageIfAvailable({ try appendLine($0) }) != nil { return }
        var copy = String(text)
        try copy.withUTF8 { try appendLine($0) }
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws {
        let failure = SystemCall.writeAll(bytes) { SystemCall.write(fd, $0) }
        guard failure == nil else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: tmpPath]) }
    }

    private func flush() throws {
        guard used > 0 else { return }
        try writeOut(UnsafeRawBufferPointer(start: buffer, count: used))
        used = 0
    }

    func commit() throws {
        try flush()
        close(fd)
        fd = -1
        guard rename(tmpPath, url.path) == 0 else {
            unlink(tmpPath)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}
