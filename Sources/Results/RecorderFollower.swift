import Foundation
import Metrics

/// The merged recorder of a run that is still going, read again every few seconds (the capacity and saturation
/// watches): the same recorder `RunResults.loadRecorder` gives, but each read parses only the segments appended
/// since the last one, keeping those already read merged.
///
/// Why: `loadRecorder` parses every segment of the run each time, so its cost grows with the run: at second 90 of
/// the capacity bench (~2,700 calls/s, two workers) each watch parsed and merged ~7 MB every two seconds on the two
/// cores the workers and the target share. Not thread-safe: one watch, one follower.
public final class RecorderFollower {
    private let raw: URL
    private let runPath: String
    /// Per snapshot file: the segments read so far, merged, and where the next segment's line starts.
    private var streams: [String: Stream] = [:]

    private struct Stream {
        var merged: Recorder
        var segments = 0
        var offset = 0
    }

    public init(run: URL) {
        raw = RunBundle(run).raw
        runPath = run.path
    }

    /// The merged recorder of every snapshot in the run's `raw/` with all the segments each counts, as
    /// `RunResults.loadRecorder(run:)` returns it.
    public func load() throws(RunResults.LoadError) -> Recorder {
        let files = RunResults.snapshotNames(raw)
        guard !files.isEmpty else { throw .noResults(runPath) }
        var merged: Recorder?
        for name in files {
            let snapshot = try RunResults.readSnapshot(raw.appendingPathComponent(name).path)
            if merged == nil { merged = Recorder(runStartNanos: snapshot.recorder.runStartNanos) }
            merged!.merge(snapshot.recorder)
            guard snapshot.segments > 0 else { continue }
            let stem = RunBundle.recorderStem(ofSnapshot: name) ?? name
            let stream = try follow(name, stem: stem, upTo: snapshot.segments,
                                    runStartNanos: snapshot.recorder.runStartNanos)
            merged!.merge(stream.merged)
        }
        return merged!
    }

    /// `name`'s stream with its segments read up to `last`: only the bytes after those read before.
    private func follow(_ name: String, stem: String, upTo last: Int,
                        runStartNanos: UInt64) throws(RunResults.LoadError) -> Stream {
        // Taken out while it grows, so merging into it copies nothing; a read that fails leaves it out, and the
        // next read starts that file again from its first segment.
        var stream = streams.removeValue(forKey: name) ?? Stream(merged: Recorder(runStartNanos: runStartNanos))
        guard stream.segments < last else {
            streams[name] = stream
            return stream
        }
        let url = raw.appendingPathComponent(RunBundle.segmentsName(stem: stem))
        guard let tail = Self.bytes(of: url, from: stream.offset) else {
            throw .unreadable(url.path, "missing; the snapshot counts \(last) segments")
        }
        let (read, bytes) = try RunResults.parseSegments(tail, path: url.path, after: stream.segments,
                                                          upTo: last) { stream.merged.merge($0) }
        guard read == last else {
            throw .unreadable(url.path, "holds \(read) whole segments; the snapshot counts \(last)")
        }
        stream.segments = read
        stream.offset += bytes
        streams[name] = stream
        return stream
    }

    /// The file's bytes from `offset` to its end; nil when it cannot be opened.
    private static func bytes(of url: URL, from offset: Int) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(offset))) != nil else { return nil }
        return (try? handle.readToEnd()) ?? Data()
    }
}
