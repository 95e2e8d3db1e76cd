#if canImport(Glibc)
import Glibc
#endif

/// The pool's datagram filter, and the UDP datagrams it delayed, waiting on the pool's tick.
struct HeldDatagrams {
    var filter: SIPDatagramFilter?
    var sends: [(due: UInt64, agent: Int, bytes: [UInt8], address: sockaddr_in)] = []
    var reads: [(due: UInt64, agent: Int, bytes: [UInt8], source: Int)] = []

    var isEmpty: Bool { sends.isEmpty && reads.isEmpty }

    /// When the first held datagram is due (`.max`: none): the pool's timer is armed for it.
    var earliestDue: UInt64 {
        var first = UInt64.max
        for item in sends where item.due < first { first = item.due }
        for item in reads where item.due < first { first = item.due }
        return first
    }

    mutating func takeDue(_ now: UInt64)
        -> ([(due: UInt64, agent: Int, bytes: [UInt8], address: sockaddr_in)],
            [(due: UInt64, agent: Int, bytes: [UInt8], source: Int)]) {
        let dueSends = sends.filter { $0.due <= now }
        let dueReads = reads.filter { $0.due <= now }
        sends.removeAll { $0.due <= now }
        reads.removeAll { $0.due <= now }
        return (dueSends, dueReads)
    }
}
