@testable import SIPClient
import SIP

/// A `SIPCore` that records what a layer asks of it, for testing the registration client and the INVITE
/// sessions without an agent.
final class FakeCore: SIPCore {
    var local = SIPLocalHeaders(user: "alice", domain: "example.com", transport: "UDP", host: "127.0.0.1",
                                port: 5071)
    var counters = SIPCounters()
    var started: [SIPMessage] = []
    var responded: [SIPMessage] = []
    var acks: [SIPMessage] = []
    var events: [SIPEvent] = []
    var servers: Set<TransactionKey> = []

    func startClient(_ request: SIPMessage, now: UInt64) { started.append(request) }

    func respond(_ response: SIPMessage, to request: SIPMessage?, source: Int, now: UInt64) {
        responded.append(response)
    }

    func sendACK(_ ack: SIPMessage, retransmission: Bool) { acks.append(ack) }

    func hasServer(_ key: TransactionKey) -> Bool { servers.contains(key) }

    func acknowledged(_ ack: SIPMessage, key: TransactionKey, now: UInt64) { servers.remove(key) }

    func report(_ event: SIPEvent) { events.append(event) }
}
