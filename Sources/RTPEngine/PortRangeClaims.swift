import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// Media port ranges held by this process against every other callstorm process on the machine, so two
/// rtpengines started at once (test classes run side by side) never relay on the same port numbers.
///
/// Why: rtpengine binds a media port only when an offer asks for it, so a port one relay freed a moment ago can be
/// taken by another relay while the first call's far end still sends to it. The new relay then counts the stray
/// packets and latches onto their source, and its own call loses media: cross-talk no check of ours can tell from
/// a relay fault. A range is claimed in cells of `cellSize` ports, each an exclusive `flock` on a file under the
/// temporary directory; a lock dies with its process, so a killed run leaves nothing held. A cell released less
/// than `quarantine` seconds ago (its file's modification time, set at release) is taken only when no rested range
/// is left, so the last stray packets of an ended call seldom reach another relay.
public enum PortRangeClaims {
    /// Ports per cell; a range's start is a multiple of it (even, as RTP wants).
    public static let cellSize = 100
    /// Seconds a released cell rests before another claim may take it.
    public static let quarantine: TimeInterval = 20

    private static let held = Mutex<[Int: [Int32]]>([:])

    /// The directory of cell files (created when missing).
    static var directory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("callstorm-media-port-claims")
    }

    /// The cells covering `range`, claimed for this process until `release(range)`; false (nothing held) when any
    /// of them is claimed by another process, or rests after a release unless `evenResting`.
    public static func claim(_ range: ClosedRange<Int>, evenResting: Bool = false) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var fds: [Int32] = []
        for cell in cells(range) {
            let path = directory.appendingPathComponent("cell-\(cell)").path
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { fds.forEach { close($0) }; return false }
            fds.append(fd)
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, evenResting || !resting(fd) else { fds.forEach { close($0) }; return false }
        }
        held.withLock { $0[range.lowerBound, default: []] += fds }
        return true
    }

    /// Gives back the cells claimed for `range`, marked as just released when a relay `used` them (so they rest);
    /// a range not claimed is ignored.
    public static func release(_ range: ClosedRange<Int>, used: Bool = true) {
        let fds = held.withLock { $0.removeValue(forKey: range.lowerBound) } ?? []
        for fd in fds {
            if used { _ = futimens(fd, nil) }
            close(fd)
        }
    }

    /// Whether `range` is held by this process now.
    public static func isHeld(_ range: ClosedRange<Int>) -> Bool {
        held.withLock { $0[range.lowerBound] != nil }
    }

    static func cells(_ range: ClosedRange<Int>) -> ClosedRange<Int> {
        (range.lowerBound / cellSize)...(range.upperBound / cellSize)
    }

    /// Whether the cell was released within the quarantine (its file's modification time). A file never claimed
    /// before is empty: it gets one byte, so from then on only a release or that first claim moves its time.
    private static func resting(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        if info.st_size == 0 {
            var marker: UInt8 = 0x2E
            _ = write(fd, &marker, 1)
            return false
        }
        let modified = TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
        return Date().timeIntervalSince1970 - modified < quarantine
    }
}
