import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// Reads a Kamailio's log while the run goes, on a thread of its own (never a worker's): every 250 ms it reads
/// what was appended since and counts it into `KamailioLogFindings`. So a run learns that the server it started
/// ran out of memory while the log is still being written, without reading a log of millions of lines at the end
/// and without touching the hot path.
///
/// Thread safety: `findings` from any thread; `stop` from the owner's, once (idempotent).
public final class KamailioLogWatch: @unchecked Sendable {
    private let path: String
    private let state = Mutex<State>(State())
    private var thread: Thread?
    /// Called once, on the watch's thread, when the log first shows the server out of memory: so the run can say
    /// so while it goes. Set before `start`.
    public var onExhausted: (@Sendable (KamailioLogFindings) -> Void)?

    private struct State {
        var findings = KamailioLogFindings()
        var offset: UInt64 = 0
        /// The part of the last read after its last newline: a line Kamailio is still writing.
        var partial = ""
        var stopped = false
    }

    /// Watches the file at `path` from its current end on (`fromStart` reads what it holds already too).
    public init(path: String, fromStart: Bool = true) {
        self.path = path
        if !fromStart, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64 {
            state.withLock { $0.offset = size }
        }
    }

    /// Starts the reading thread.
    public func start() {
        let thread = Thread { [self] in
            var told = false
            while !state.withLock({ $0.stopped }) {
                readNew()
                let now = findings
                if !told, now.exhausted {
                    told = true
                    onExhausted?(now)
                }
                usleep(250_000)
            }
        }
        thread.name = "callstorm.kamailio-log"
        self.thread = thread
        thread.start()
    }

    /// What the log said so far.
    public var findings: KamailioLogFindings { state.withLock { $0.findings } }

    /// Stops the thread and reads the rest once more (the server's last lines, after it stopped); returns the
    /// findings.
    @discardableResult
    public func stop() -> KamailioLogFindings {
        state.withLock { $0.stopped = true }
        while readNew(final: true) {}
        return findings
    }

    /// Reads what was appended since the last read (at most 8 MB, so a flood of error lines never holds much
    /// memory here) and counts its complete lines (`final`: the last one too); whether it read anything.
    @discardableResult
    func readNew(final: Bool = false) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return state.withLock { s in
            guard (try? handle.seek(toOffset: s.offset)) != nil else { return false }
            let data = (try? handle.read(upToCount: 8 << 20)) ?? Data()
            guard !data.isEmpty || (final && !s.partial.isEmpty) else { return false }
            s.offset += UInt64(data.count)
            var text = s.partial + String(decoding: data, as: UTF8.self)
            if let last = text.lastIndex(of: "\n"), !final {
                s.partial = String(text[text.index(after: last)...])
                text = String(text[...last])
            } else if !final {
                s.partial = text
                return true
            } else {
                s.partial = ""
            }
            s.findings.read(text: text)
            return true
        }
    }
}
