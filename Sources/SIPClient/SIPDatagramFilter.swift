import SIP

/// What the pool does with one UDP datagram an agent sends or reads: the seam through which a run's chaos acts
/// on SIP signaling. SIPClient knows nothing of faults: the owner of the pool (the Driver) installs a filter and
/// decides; the pool only drops or holds back what it is told to.
public enum SIPDatagramFate: Sendable, Equatable {
    case pass
    /// Never sent, or never read.
    case drop
    /// Sent, or read, this much later (the pool's timer is armed for it).
    case delay(nanos: UInt64)
}

/// Called on the pool's thread for every UDP datagram before it is sent (`sending`) or parsed: `agent` is the
/// agent's id, `label` the message's method or status code (`SIPStartLine.label`), `datagram` its bytes, from
/// which the owner reads its Call-ID (`SIPStartLine.callID`) to tell whose call, if any, the datagram is part of:
/// only once it decided on a fault, since most datagrams meet none and the read scans the header lines. TCP
/// streams are never filtered (a lost segment is the kernel's to retransmit).
public typealias SIPDatagramFilter = (_ agent: Int, _ sending: Bool, _ label: String, _ datagram: [UInt8])
    -> SIPDatagramFate
