import Faults
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

    /// Books a TLS handshake (`sip.tls.full` / `.resumed`, per second) or a recovery step: `sip.reconnects`, `sip.reregister` (loss → 200), `sip.reregister_failed.<code>`;
    /// and a recovery that a target kill started is logged per device (`target.reregistering` → `.reregistered`),
    /// so a call of the device's that fails before it is known to the proxy again is the kill's.
    func flowRecovery(_ local: Int, _ step: SIPFlowEvent) {
        let now = self.now
        switch step {
        case .tlsHandshake(let resumed): books.count(.sip("tls", resumed ? "resumed" : "full"), at: now)
        case .lost:
            guard let window = killWindow() else { return }
            faultState.reregistering[local] = window
            logRecovery(TargetKillFault.reregistering, window: window, local: local)
        case .reconnected: books.count(.sipReconnects, at: now)
        case .reregistered(let took):
            books.record(.sipReregister, micros: Int64(took / 1000), at: now)
            if let window = faultState.reregistering.removeValue(forKey: local) {
                logRecovery(TargetKillFault.reregistered, window: window, local: local)
            }
        case .reregisterFailed(let status): books.count(.sipReregisterFailed(status), at: now)
        }
    }

    /// The window of the last target kill logged so far, nil before any: a connection lost after it is put down
    /// to it (the restarted target has forgotten every binding).
    private func killWindow() -> String? {
        faults.log.all.last { $0.kind == TargetKillFault.killed }?.window
    }

    private func logRecovery(_ kind: String, window: String, local: Int) {
        guard let since = faults.sinceLoad() else { return }
        faults.log.add(.init(sinceLoadNanos: since, window: window, kind: kind,
                             device: table.devices[local].identity.index, seq: 0))
    }
}
