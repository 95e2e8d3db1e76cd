import SIPClient
import SIPEmbedded

/// Parties callstorm does not simulate, on the twin's network (the stand-ins for SIPp in the end-to-end tests):
/// real agents in a pool of their own, seeded apart from the devices.
extension SIPRig {
    final class OutsideParty {
        private(set) var pool: MemorySIPPool!
        private(set) var events: [Int: [SIPEvent]] = [:]
        private(set) var agent = 0
        /// The final status every INVITE gets at once (486: a busy service), after the 180 when `rings`; nil: the
        /// INVITE is answered (`answers`) or left alone, and the proxy's timers end it with 408.
        let refuses: Int?

        /// `user` at the proxy, registered when `registers` (a UAS the devices call: SIPp's uas.xml after
        /// register.xml), answering every INVITE when `answers`, refusing each with `refuses`; `rings`: a 180 goes
        /// first (else only the agent's 100).
        init(rig: SIPRig, user: String, registers: Bool = false, answers: Bool = false, refuses: Int? = nil,
             rings: Bool = true) {
            self.refuses = refuses
            pool = MemorySIPPool(network: rig.network, proxyPort: 5060) { [unowned self] agent, event in
                events[agent, default: []].append(event)
                if case .incoming(let callID, _) = event, let status = self.refuses {
                    pool.perform(agent) { _ = $0.decline(callID, status: status, now: $1) }
                }
            }
            let account = SIPAccount(user: user, domain: "127.0.0.1", password: "callstorm")
            agent = (try? pool.add(account: account, transport: .udp, seed: 0xDEAD).get()) ?? 0
            pool.agent(agent)?.autoAnswer = answers
            pool.agent(agent)?.autoRing = rings
            if registers {
                pool.perform(agent) { $0.register(now: $1) }
                rig.loop.runPending()
            }
        }

        /// Calls device `user` through the proxy; returns the Call-ID.
        @discardableResult
        func call(_ user: String) -> String {
            var callID = ""
            pool.perform(agent) { callID = $0.invite("sip:\(user)@127.0.0.1", now: $1) }
            return callID
        }

        var counters: SIPCounters { pool.counters }
    }
}
