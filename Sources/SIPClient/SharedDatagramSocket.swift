import CLinux
import SIP
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `device.sockets: shared`: the one UDP socket a pool's agents share (`SIPClientPool+Shared`), as SIPp keeps one
/// socket per side. Per-device sockets put ~7,200 descriptors in one epoll set at 2,400 calls/s, and each datagram
/// woke through its own socket, was read by its own `recvmmsg` and ran the whole path (parse, agent, flush, the
/// Driver's events) alone; here one wake reads up to `batch.capacity` datagrams with one call, hands each to its
/// agent, then flushes each agent it touched once and sends what they queued with one `sendmmsg` (issue 33).
///
/// Owned by the pool on its event thread.
final class SharedDatagramSocket {
    let fd: Int32
    /// The port every agent on it names in its Via and Contact.
    let port: Int
    /// SO_RCVBUF and SO_SNDBUF as the kernel granted them (it caps an unprivileged request at
    /// `net.core.rmem_max` / `wmem_max` and reports double what it keeps for its own bookkeeping).
    let granted: (receive: Int, send: Int)
    /// One wake's datagrams: 32 a call (a UDP datagram is at most 65,507 bytes; 2 MiB a worker).
    /// Each with the kernel's receive time (SO_TIMESTAMPNS), so a datagram's wait in the socket is not measured.
    let batch = DatagramBatch(capacity: 32, stride: 65_536, stamped: true)
    /// What the agents queued, sent with one `sendmmsg`: after a read's batch, or at the end of the event thread's
    /// turn for what commands and timers sent outside a read (`flushBy`).
    let sends = DatagramSendBatch(capacity: 64, stride: 4_096)
    /// Who sends what waits in `sends`: the read under way, a flush posted to the turn's end, or nobody yet.
    var flushBy = SharedSendFlush.nobody
    /// A read's datagrams, demultiplexed and parsed (its first stage), for the agents' stage
    /// (`SIPClientPool+SharedBatch`); emptied, its storage kept, by every read.
    var parsed: [SharedDatagram] = []
    /// The agents that came since the last batch started, in order, each once (`touch`).
    private(set) var touched: [Int] = []
    /// By agent id: the batch generation that last touched it (so `touch` dedups without hashing), and the
    /// arrival of its last datagram in that batch (`arrival`).
    private var marks: [(generation: UInt32, arrival: UInt64)] = []
    private var generation: UInt32 = 0
    /// By agent id: whether it was added on this socket (a pool may also hold agents with their own sockets).
    private var members: [Bool] = []
    /// Datagrams that named no live agent on this socket (`sip.stray.no_device`): dropped.
    var stray = 0
    /// Send failures already added to the pool's books (`sends.failures` counts from the start).
    var failuresBooked = 0
    /// `recvmmsg` calls that returned datagrams, and the datagrams they returned (`sip.shared_socket.*`).
    var reads = (calls: 0, datagrams: 0)
    /// `device.coalesce`: the wait after a read that carried little (`SharedReadWindow`).
    var window = SharedReadWindow()

    /// Asked of the kernel for each buffer: ~1.5 s of the bench's top rung's datagrams per worker.
    static let bufferBytes: Int32 = 8 << 20

    private init(fd: Int32) {
        self.fd = fd
        port = Int(clinux_local_port(fd))
        granted = (Self.raise(fd, SO_RCVBUF), Self.raise(fd, SO_SNDBUF))
        _ = clinux_set_receive_stamps(fd)  // without them (never on Linux ≥ 2.6.22) the read's time stands
    }

    /// A non-blocking UDP socket bound to `host`:0, its buffers raised as far as the kernel allows.
    static func open(host: String) -> Result<SharedDatagramSocket, SIPClientError> {
        SIPSocket.udp(host: host).map { SharedDatagramSocket(fd: $0) }
    }

    /// Asks for `bufferBytes` of `option` and returns what the kernel then says it has.
    private static func raise(_ fd: Int32, _ option: Int32) -> Int {
        var asked = bufferBytes
        _ = setsockopt(fd, SOL_SOCKET, option, &asked, socklen_t(MemoryLayout<Int32>.size))
        var got: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, option, &got, &length)
        return Int(got)
    }

    /// Its window's timer too (on the event thread, as every method).
    func close() {
        window.timer?.close()
        _ = Glibc.close(fd)
    }

    /// Notes that agent `id` lives on this socket.
    func carry(_ id: Int) {
        if id >= members.count {
            members.append(contentsOf: repeatElement(false, count: id + 1 - members.count))
            marks.append(contentsOf: repeatElement((generation: UInt32(0), arrival: UInt64(0)), count: id + 1 - marks.count))
        }
        members[id] = true
    }

    /// Its books in the pool's: strays (`sip.stray.no_device`, only when some came) and reads (`sip.shared_socket.*`).
    func book(into total: inout SIPCounters) {
        if stray > 0 { total.stray["no_device", default: 0] += stray }
        total.sharedSocket = ["reads": reads.calls, "datagrams": reads.datagrams]
    }

    func carries(_ id: Int) -> Bool { id >= 0 && id < members.count && members[id] }

    /// Starts a batch: no agent touched yet.
    func startBatch() {
        generation &+= 1
        touched.removeAll(keepingCapacity: true)
    }

    /// Notes agent `id` (one this socket carries) as touched in this batch, once, by a datagram that arrived at
    /// `arrival` (the pool's clock); the latest such is `arrival(id)`.
    func touch(_ id: Int, arrival: UInt64) {
        if marks[id].generation == generation {
            marks[id].arrival = max(marks[id].arrival, arrival)
            return
        }
        marks[id] = (generation, arrival)
        touched.append(id)
    }

    /// When the last datagram agent `id` got in this batch arrived (it is in `touched`).
    func arrival(_ id: Int) -> UInt64 { marks[id].arrival }
}

/// Who flushes `SharedDatagramSocket.sends`.
enum SharedSendFlush {
    /// Nothing waits, or nothing is planned yet: the next send outside a read posts a flush.
    case nobody
    /// The read under way flushes after its batch.
    case read
    /// A flush is posted to the end of the event thread's turn.
    case posted
}

/// One datagram of a read, after the first stage: the agent it names, its sender's handle, its arrival on the
/// pool's clock, and the message parsed from it (or why it could not be).
struct SharedDatagram {
    let agent: Int
    let source: Int
    let arrival: UInt64
    let message: Result<SIPMessage, SIPParseError>
}

/// The key a shared socket reads to hand a datagram to its agent, over the datagram's bytes: the `csdev` parameter
/// each agent writes in its Contact URI (what the proxy makes the Request-URI of the requests it relays to it,
/// RFC 3261 §10.3 and §12.2.1.1) and in its Via (which the proxy returns in every response, §16.7). No string is
/// made and nothing hashed; the agent still parses the datagram once, itself.
enum SharedDemux {
    static let parameter = "csdev"

    /// The agent id `b` names: a response's top Via's `csdev`, a request's Request-URI's (its first line's); nil
    /// when it names none.
    static func agent(in b: UnsafeRawBufferPointer) -> Int? {
        let end = b.count
        let firstEnd = lineEnd(b, from: 0)
        guard end >= 8 else { return nil }
        let isResponse = b[0] == 0x53 && b[1] == 0x49 && b[2] == 0x50 && b[3] == 0x2F  // "SIP/"
        guard isResponse else { return key(b, from: 0, to: firstEnd) }
        var start = firstEnd + 2
        while start < end {
            let stop = lineEnd(b, from: start)
            if stop == start { return nil }  // the blank line: no Via
            if let colon = viaValue(b, start, stop) {
                // The top Via value: up to the line's first comma (several values may share one line).
                var comma = colon
                while comma < stop, b[comma] != 0x2C { comma += 1 }
                return key(b, from: colon, to: comma)
            }
            start = stop + 2
        }
        return nil
    }

    /// Where the line starting at `from` ends (its CR, or the end of `b`). `memchr`: a byte loop here and in `key`
    /// cost ~800 instructions a datagram (~12,000 a hold call, callgrind of bench-sip-instructions.sh).
    private static func lineEnd(_ b: UnsafeRawBufferPointer, from: Int) -> Int {
        guard from < b.count, let base = b.baseAddress, let p = memchr(base + from, 0x0D, b.count - from) else {
            return b.count
        }
        return base.distance(to: UnsafeRawPointer(p))
    }

    /// Where a `Via:` or compact `v:` header line's value starts (after its colon), nil for any other line.
    private static func viaValue(_ b: UnsafeRawBufferPointer, _ start: Int, _ stop: Int) -> Int? {
        var i = start
        guard i < stop, b[i] | 0x20 == 0x76 else { return nil }  // v
        i += 1
        if i + 1 < stop, b[i] | 0x20 == 0x69, b[i + 1] | 0x20 == 0x61 { i += 2 }  // ia
        while i < stop, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        return i < stop && b[i] == 0x3A ? i + 1 : nil
    }

    /// The number after `;csdev=` within `b[from..<to]` (written by us in lower case; a proxy returns it as is).
    private static func key(_ b: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard let base = b.baseAddress else { return nil }
        var i = from
        while i + 7 <= to, let p = memchr(base + i, 0x3B, to - i) {
            i = base.distance(to: UnsafeRawPointer(p))
            guard i + 7 <= to else { return nil }
            if b[i + 1] == 0x63, b[i + 2] == 0x73, b[i + 3] == 0x64, b[i + 4] == 0x65, b[i + 5] == 0x76,
               b[i + 6] == 0x3D {  // "csdev="
                var j = i + 7, value = 0
                while j < to, j - i < 25, b[j] >= 0x30, b[j] <= 0x39 {
                    value = value * 10 + Int(b[j] - 0x30)
                    j += 1
                }
                return j > i + 7 ? value : nil
            }
            i += 1
        }
        return nil
    }
}
