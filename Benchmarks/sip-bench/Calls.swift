import SIP
import SIPClient

/// `sip-bench calls N`: N whole calls (INVITE, 100, 180, 200, ACK, BYE, 200) between two `SIPUserAgent`s wired
/// back to back in memory, every message serialized and parsed as on the wire: the user agents' own cost per call,
/// without sockets or a proxy (what a SIP device costs callstorm before the kernel and Kamailio).
enum CallsBench {
    /// `apart`: seconds between calls. 40 lets every transaction end before the next call; a few keep what a device
    /// keeps at rate (at 2,400 calls/s with 3 devices per call/s, a call every ~3 s: a caller's INVITEs stay Accepted
    /// for 64*T1 = 32 s, a callee's answered BYEs for Timer J), so each agent scans tables of ~10–30 transactions.
    static func run(_ count: Int, apart: Int = 40) {
        let alice = SIPUserAgent(account: SIPAccount(user: "alice", domain: "127.0.0.1", password: "a"),
                                 transport: .udp, localPort: 5071, seed: 1)
        let bob = SIPUserAgent(account: SIPAccount(user: "bob", domain: "127.0.0.1", password: "b"),
                               transport: .udp, localPort: 5072, seed: 2)
        bob.autoAnswer = true
        var now: UInt64 = 1_000_000_000
        var ended = 0
        for _ in 0..<count {
            let call = alice.invite("sip:bob@127.0.0.1:5072", now: now)
            pump(alice, bob, now: now)
            _ = alice.bye(call, now: now)
            pump(alice, bob, now: now)
            ended += alice.takeEvents().filter { if case .ended = $0 { return true } else { return false } }.count
            _ = bob.takeEvents()
            // Let Timer K and the INVITE's Timer M end the transactions, as time would.
            now += UInt64(apart) * 1_000_000_000
            alice.advance(to: now)
            bob.advance(to: now)
        }
        print("calls \(count), ended \(ended), messages per call 7")
    }

    private static func pump(_ a: SIPUserAgent, _ b: SIPUserAgent, now: UInt64) {
        var moved = true
        while moved {
            moved = false
            for (from, to) in [(a, b), (b, a)] {
                for (bytes, _) in from.takeOutbox() {
                    moved = true
                    to.receive(datagram: bytes, source: 1, now: now)
                }
            }
        }
    }
}
