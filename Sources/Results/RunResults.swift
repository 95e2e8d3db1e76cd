import Bytes
import Foundation
import Metrics
import SystemCalls

/// Reads back what the workers streamed: their recorders merged, and the row files joined, so a report can be
/// rebuilt from a run directory after the process is gone.
public enum RunResults {
    public enum LoadError: Error, CustomStringConvertible {
        case noResults(String)
        case unreadable(String, String)

        public var description: String {
            switch self {
            case .noResults(let dir): return "\(dir) holds no raw results (expected raw/recorder-w*.json)"
            case .unreadable(let file, let why): return "cannot read \(file): \(why)"
            }
        }
    }

    /// The merged recorder of every snapshot in `<run>/raw/`: `recorder-w<i>.json` per worker and
    /// `recorder-harness.json` for the harness's own gauges (RSS, CPU), each with the segments of its
    /// `.segments.jsonl` that it counts (see `RecorderCheckpointer`).
    ///
    /// - Parameter series: false reads the snapshots only: totals are whole, per-second series hold just the
    ///   last seconds. Live threshold checks use it, so their cost does not grow with the run.
    public static func loadRecorder(run: URL, series: Bool = true) throws(LoadError) -> Recorder {
        let raw = RunBundle(run).raw
        let files = snapshotNames(raw)
        guard !files.isEmpty else { throw .noResults(run.path) }
        var merged: Recorder?
        for name in files {
            let path = raw.appendingPathComponent(name).path
            let snapshot = try readSnapshot(path)
            if merged == nil { merged = Recorder(runStartNanos: snapshot.recorder.runStartNanos) }
            merged!.merge(snapshot.recorder)
            if series && snapshot.segments > 0 {
                let stem = RunBundle.recorderStem(ofSnapshot: name) ?? name
                let segments = raw.appendingPathComponent(RunBundle.segmentsName(stem: stem))
                try readSegments(segments, upTo: snapshot.segments) { merged!.merge($0) }
            }
        }
        return merged!
    }

    /// The snapshot files of `<run>/raw/` (`recorder-w<i>.json`, `recorder-harness.json`), sorted.
    static func snapshotNames(_ raw: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: raw.path)) ?? [])
            .filter { RunBundle.recorderStem(ofSnapshot: $0) != nil }.sorted()
    }

    /// One snapshot file as `RecorderCheckpointer` writes it, read without JSONDecoder (~320 k instructions per
    /// SIP call of `callstorm report DIR` went to decoding the worker's snapshot); any other shape (a bare recorder
    /// from `writeSnapshot`, an edited file), and every error, through JSONDecoder.
    static func readSnapshot(_ path: String) throws(LoadError) -> SnapshotFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path, "no data") }
        if let written = data.withUnsafeBytes({ SnapshotFile.readWritten($0) }) { return written }
        do {
            return try JSONDecoder().decode(SnapshotFile.self, from: data)
        } catch {
            throw .unreadable(path, "\(error)")
        }
    }

    /// Hands segments 1...`last` of a `.segments.jsonl` file to `body`, in order, one at a time (a long run has
    /// thousands; the caller merges each and lets it go). Lines after `last` (written after the snapshot that
    /// was read, or cut by a kill) are ignored; a missing or unreadable segment the snapshot counts is an error,
    /// because the series would silently lose seconds.
    public static func readSegments(_ url: URL, upTo last: Int, _ body: (Recorder) -> Void) throws(LoadError) {
        guard last > 0 else { return }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadable(url.path, "missing; the snapshot counts \(last) segments")
        }
        let read = try parseSegments(data, path: url.path, after: 0, upTo: last, body).segments
        guard read == last else {
            throw .unreadable(url.path, "holds \(read) whole segments; the snapshot counts \(last)")
        }
    }

    /// Hands the whole segment lines of `data` (a `.segments.jsonl` file's bytes from just after segment `after`)
    /// to `body` until segment `last`, checking their numbers follow on; returns the last segment read and the
    /// bytes its lines took, newlines included.
    static func parseSegments(_ data: Data, path: String, after first: Int, upTo last: Int,
                              _ body: (Recorder) -> Void) throws(LoadError) -> (segments: Int, bytes: Int) {
        var read = first
        let decoder = JSONDecoder()
        var start = data.startIndex
        while read < last, start < data.endIndex, let newline = lineEnd(data, from: start) {
            let line: SegmentLine
            // As written (nearly always), read without JSONDecoder; anything else, and every error, through it.
            if let written = data[start..<newline].withUnsafeBytes({ SegmentLine.readWritten($0) }) {
                line = written
            } else {
                do {
                    line = try decoder.decode(SegmentLine.self, from: data[start..<newline])
                } catch {
                    throw .unreadable(path, "segment \(read + 1): \(error)")
                }
            }
            guard line.segment == read + 1 else {
                throw .unreadable(path, "segment \(line.segment) where \(read + 1) was expected")
            }
            body(line.recorder)
            read += 1
            start = data.index(after: newline)
        }
        return (read, start - data.startIndex)
    }

    /// The index of the first newline at or after `start`, found over the bytes: `Data.firstIndex(of:)` went
    /// through Data's subscript byte by byte (an exclusivity check each), ~0.2 M instructions per SIP call at the
    /// bench's 20 calls/s for one run's segments (docs/SIP.md).
    static func lineEnd(_ data: Data, from start: Data.Index) -> Data.Index? {
        data.withUnsafeBytes { raw -> Data.Index? in
            let offset = start - data.startIndex
            guard offset < raw.count, let base = raw.baseAddress else { return nil }
            guard let found = memchr(base + offset, 10, raw.count - offset) else { return nil }
            return data.startIndex + (base.distance(to: UnsafeRawPointer(found)))
        }
    }

    /// Replaces `url` with the recorder's JSON atomically (write to a temporary file, then rename), so a reader
    /// or a kill at any instant sees either the previous snapshot or this one.
    public static func writeSnapshot(_ recorder: Recorder, to url: URL) {
        guard let data = try? JSONEncoder().encode(recorder) else { return }
        replace(url, with: data)
    }

    /// Writes `data` to a temporary file beside `url` and renames it over `url`.
    static func replace(_ url: URL, with data: Data) {
        try? replaceFile(url, with: data)
    }

    /// Writes `data` to a temporary file beside `url` and renames it over `url`, so a reader, or a kill at any
    /// instant, sees the old file or the new one, never part of one. Unlike Foundation's `.atomic` writes it does
    /// not fsync each file: a report's files are rebuilt from the run's journal (`callstorm report`), which is what
    /// survives a crash of the machine, and a run writes dozens of them (an fsync each cost ~10 ms, measured: a
    /// third of a short run's report phase).
    public static func replaceFile(_ url: URL, with data: Data) throws {
        // POSIX calls: Foundation's Data.write and FileManager.createFile fsync on Linux, `.atomic` or not.
        let tmp = url.appendingPathExtension("tmp")
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw writeError(tmp.path, errno) }
        let failure = data.withUnsafeBytes { all in SystemCall.writeAll(all) { SystemCall.write(fd, $0) } }
        var writeErrno = EIO
        if case .error(let code)? = failure { writeErrno = code }
        guard close(fd) == 0, failure == nil else {
            let error = writeError(tmp.path, failure == nil ? errno : writeErrno)
            unlink(tmp.path)
            throw error
        }
        guard rename(tmp.path, url.path) == 0 else {
            let error = writeError(url.path, errno)
            unlink(tmp.path)
            throw error
        }
    }

    /// The write error `number` (an errno) names, as Foundation's own writes report it, so a full disk or a
    /// read-only run directory says so instead of "unknown error".
    private static func writeError(_ path: String, _ number: Int32) -> CocoaError {
        let code: CocoaError.Code
        switch number {
        case ENOSPC, EDQUOT: code = .fileWriteOutOfSpace
        case EACCES, EPERM: code = .fileWriteNoPermission
        case EROFS: code = .fileWriteVolumeReadOnly
        case ENOENT: code = .fileNoSuchFile
        default: code = .fileWriteUnknown
        }
        var info: [String: Any] = [NSFilePathErrorKey: path]
        if let posix = POSIXErrorCode(rawValue: number) { info[NSUnderlyingErrorKey] = POSIXError(posix) }
        return CocoaError(code, userInfo: info)
    }

    /// Joins `raw/<rows>-w*.csv` into `<run>/<rows>.csv` (one header). A last line without its newline (the
    /// process was killed mid-write) is dropped, so every row of the result is whole.
    public static func joinRows(run: URL, _ rows: RunBundle.Rows) throws {
        let bundle = RunBundle(run)
        let raw = bundle.raw
        let parts = ((try? FileManager.default.contentsOfDirectory(atPath: raw.path)) ?? [])
            .filter { RunBundle.isWorkerRows($0, rows) }.sorted()
        guard !parts.isEmpty else { return }
        var out = Data()
        var wroteHeader = false
        for name in parts {
            guard var data = FileManager.default.contents(atPath: raw.appendingPathComponent(name).path) else { continue }
            if let lastNewline = data.lastIndex(of: 10) {
                data = data[...lastNewline]
            } else {
                data = Data()
            }
            if data.isEmpty { continue }
            if !wroteHeader {
                out.append(data)
                wroteHeader = true
            } else if let newline = data.firstIndex(of: 10) {
                out.append(data[data.index(after: newline)...])
            }
        }
        try replaceFile(bundle.rows(rows), with: out)
    }

    /// Joins the workers' `raw/history-w*.jsonl` into `<run>/history.jsonl`, ordered by time (each line starts
    /// with `{"t":<ns>`; a worker's own lines are already in order, and ties keep worker order): a k-way merge over
    /// the files' bytes (`HistoryJoin`).
    public static func joinHistory(run: URL) throws {
        let bundle = RunBundle(run)
        let parts = ((try? FileManager.default.contentsOfDirectory(atPath: bundle.raw.path)) ?? [])
            .filter(RunBundle.isHistoryPart).sorted()
        guard !parts.isEmpty else { return }
        let files = parts.compactMap { HistoryJoin.MappedFile(path: bundle.raw.appendingPathComponent($0).path) }
        try HistoryJoin.merge(files, into: bundle.history)
    }

    /// Writes `<run>/history.jsonl` from lines and their `t`, ordered by `t`; ties keep the order given (a worker's,
    /// or a shard's, own order). Used by `callstorm merge`, whose lines are rewritten first.
    public static func writeHistory<Line: StringProtocol>(_ lines: [(t: UInt64, line: Line)], run: URL) throws {
        var order = Array(lines.indices)
        if !zip(lines, lines.dropFirst()).allSatisfy({ $0.t <= $1.t }) {
            order.sort { lines[$0].t != lines[$1].t ? lines[$0].t < lines[$1].t : $0 < $1 }
        }
        let writer = try AtomicFileWriter(RunBundle(run).history)
        for index in order { try writer.appendLine(lines[index].line) }
        try writer.commit()
    }
}

/// A snapshot as stored: `{"segments": n, "recorder": {...}}` from a `RecorderCheckpointer`, or a bare recorder
/// (`writeSnapshot`, and runs written before segments existed), which has no segments.
struct SnapshotFile: Decodable {
    let segments: Int
    let recorder: Recorder

    private enum CodingKeys: String, CodingKey { case segments, recorder }

    init(segments: Int, recorder: Recorder) {
        self.segments = segments
        self.recorder = recorder
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.recorder) {
            segments = try container.decode(Int.self, forKey: .segments)
            recorder = try container.decode(Recorder.self, forKey: .recorder)
        } else {
            segments = 0
            recorder = try Recorder(from: decoder)
        }
    }

    /// `{"segments":N,"recorder":{…}}` exactly as `RecorderCheckpointer.encoded` writes it, read without
    /// `JSONDecoder`; nil for any other shape, which `JSONDecoder` then reads.
    static func readWritten(_ raw: UnsafeRawBufferPointer) -> SnapshotFile? {
        guard let (number, recorder) = readNumberedRecorder(raw, head: "{\"segments\":") else { return nil }
        return SnapshotFile(segments: number, recorder: recorder)
    }
}

/// One line of a `.segments.jsonl` file.
struct SegmentLine: Decodable {
    let segment: Int
    let recorder: Recorder

    init(segment: Int, recorder: Recorder) {
        self.segment = segment
        self.recorder = recorder
    }

    /// `{"segment":N,"recorder":{…}}` exactly as `RecorderCheckpointer.encoded` writes it, read without
    /// `JSONDecoder` (`Recorder.readWritten`); nil for any other shape, which `JSONDecoder` then reads.
    static func readWritten(_ raw: UnsafeRawBufferPointer) -> SegmentLine? {
        guard let (number, recorder) = readNumberedRecorder(raw, head: "{\"segment\":") else { return nil }
        return SegmentLine(segment: number, recorder: recorder)
    }
}

/// `<head>N,"recorder":{…}}` as `RecorderCheckpointer.encoded` writes it: the number (at most 18 digits) and the
/// recorder (`Recorder.readWritten`); nil for anything else.
func readNumberedRecorder(_ raw: UnsafeRawBufferPointer, head: StaticString) -> (Int, Recorder)? {
    let bytes = raw.bindMemory(to: UInt8.self)
    let middle: StaticString = ",\"recorder\":"
    var i = head.utf8CodeUnitCount
    guard bytes.count > i + middle.utf8CodeUnitCount + 1, bytes.last == 0x7D,
          bytes.starts(with: UnsafeBufferPointer(start: head.utf8Start, count: i)) else { return nil }
    var number = 0
    let digits = i
    while i < bytes.count, i - digits < 18, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        number = number * 10 + Int(bytes[i] - 0x30)
        i += 1
    }
    let rest = UnsafeBufferPointer(rebasing: bytes[i...])
    guard i > digits, rest.starts(with: UnsafeBufferPointer(start: middle.utf8Start,
                                                           count: middle.utf8CodeUnitCount)),
          let recorder = Recorder.readWritten(UnsafeBufferPointer(
              rebasing: bytes[(i + middle.utf8CodeUnitCount)..<(bytes.count - 1)])) else { return nil }
    return (number, recorder)
}
