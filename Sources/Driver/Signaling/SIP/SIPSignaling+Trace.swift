import SIP
import SIPClient

/// OpenTelemetry on SIP (`observability.trace.sip_header`, off by default): a sampled call's requests carry its
/// W3C `traceparent` in the header the scenario names, so a SIP server's spans can sit under callstorm's.
extension SIPSignaling {
    /// Gives `agent` the header hook when export is on and the scenario names a SIP header.
    func tapTraceContext(_ agent: SIPUserAgent, local: Int) {
        guard let name = books.tracer?.settings.sipTraceHeader else { return }
        agent.requestHeader = { [unowned self] request in
            // REGISTER and OPTIONS belong to the device, not to a call.
            guard request.method != .register, request.method != .options,
                  let call = table.devices[local].callID,
                  let traceparent = books.tracer?.traceparent(call: call) else { return nil }
            return (name, traceparent)
        }
    }
}
