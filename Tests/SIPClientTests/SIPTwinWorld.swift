import Determinism
import PushModel
import SIP
import SIPClient
import SIPEmbedded

/// The SIP embedded twin for its own tests: a network under a manual clock, the twin proxy on port 5060, and one
/// pool of real agents; every event the agents report and every push the proxy sends are kept. `settle()` runs
/// the network at this instant; `advance(by:)` moves the clock, firing what comes due on the way.
final class SIPTwinWorld {
    let clock = ManualClock()
    let network: SIPNetwork
    let proxy: SIPTwinProxy
    var pool: MemorySIPPool!
    private(set) var events: [Int: [SIPEvent]] = [:]
    private(set) var pushes: [APNsPush] = []

    /// `push`: the push timeout of the push route, nil for none. `fork`: the forking routes (WITH_FORK), telling
    /// a late-waking device unless `lateTold` is false (WITH_FORK_NO_LATE).
    init(push: UInt64? = nil, challenges: Bool = true, fork: Bool = false, lateTold: Bool = true) {
        network = SIPNetwork(clock: clock)
        let box = PushBox()
        let route = push.map { SIPTwinProxy.PushRoute(timeoutNanos: $0) { box.pushes.append($0) } }
        proxy = SIPTwinProxy(network: network, configuration: .init(challengesRegister: challenges, push: route,
                                                                     fork: fork, forkTellsLateWake: lateTold))
        pushBox = box
        pool = MemorySIPPool(network: network, proxyPort: 5060) { [unowned self] agent, event in
            events[agent, default: []].append(event)
        }
    }

    private let pushBox: PushBox
    private final class PushBox { var pushes: [APNsPush] = [] }

    /// Opens an agent for `user` (with an RFC 8599 push binding when `token` is given, an RFC 5626 instance when
    /// `instance` is: one device of a user with several, the same instance at each of its wakes).
    func agent(_ user: String, transport: SIPTransportKind = .udp, token: String? = nil, seed: UInt64 = 1,
               instance: String? = nil) -> Int {
        let push = token.map { PushContactParameters.apnsVoIP(token: $0, team: "TEAMID", bundle: "com.example.app") }
        let account = SIPAccount(user: user, domain: "127.0.0.1", password: "callstorm", push: push,
                                 instance: instance.map { SIPAccount.instanceURN(device: $0, seed: 1) })
        return try! pool.add(account: account, transport: transport, seed: seed).get()
    }

    /// Registers `agent` and runs the network until it is answered.
    func register(_ agent: Int) {
        pool.perform(agent) { $0.register(now: $1) }
        settle()
    }

    func settle() {
        while network.hasDueWork { network.run() }
        pushes = pushBox.pushes
    }

    func advance(by nanos: UInt64) {
        let end = clock.nowNanos() + nanos
        while let due = network.nextDeadline, due <= end {
            if due > clock.nowNanos() { clock.advance(to: due) }
            settle()
        }
        clock.advance(to: end)
        settle()
    }

    func events(_ agent: Int) -> [SIPEvent] { events[agent] ?? [] }

    /// The Call-ID of the last incoming call `agent` heard of.
    func incoming(_ agent: Int) -> String? {
        for event in events(agent).reversed() { if case .incoming(let call, _) = event { return call } }
        return nil
    }

    /// Statuses the packets delivered to `endpoint` carried (responses only), in order.
    func statuses(to endpoint: SIPEndpoint) -> [String] {
        network.delivered.filter { $0.to == endpoint && Int($0.label) != nil }.map(\.label)
    }
}
