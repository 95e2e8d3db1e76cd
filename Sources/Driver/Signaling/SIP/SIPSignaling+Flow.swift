import Metrics
import SIPClient

/// Flow recovery's figures (`device.reconnect`, docs/SIP.md "A proxy restart"): what an awake device did after its
/// connection to the registrar broke.
extension SIPSignaling {
    /// The devices' policy in the agents' terms.
    var reconnectPolicy: SIPReconnectPolicy {
        let backoff = SIPReconnectPolicy.Backoff(rawValue: spec.reconnect.backoff.rawValue) ?? .none
        return SIPReconnectPolicy(backoff: backoff, baseNanos: spec.reconnect.baseNanos,
                                  maxNanos: spec.reconnect.maxNanos)
    }

    /// Books a recovery step: `sip.reconnects`, `sip.reregister` (loss → 200), `sip.reregister_failed.<code>`.
    func flowRecovery(_ local: Int, _ step: SIPFlowEvent) {
        let now = self.now
        switch step {
        case .reconnected: books.count(.sipReconnects, at: now)
        case .reregistered(let took):
            books.record(.sipReregister, micros: Int64(took / 1000), at: now)
        case .reregisterFailed(let status): books.count(.sipReregisterFailed(status), at: now)
        }
    }
}
