import Credentials
import Foundation
import Locking
import SIP
import SIPClient
import StreamIO
import TestSupport
import XCTest

/// A Kamailio with the forking routes, a push catcher for its gateway, the caller `alice` and any number of
/// devices of the user `bob` (each with an instance of its own; sleeping ones with push parameters), over one
/// transport.
final class ForkWorld {
    let gateway: PushCatcher
    let kamailio: KamailioProcess
    let harness: PoolHarness
    let transport: SIPTransportKind
    let domain: String
    let alice: Int
    /// The Contacts of the last 200 to a REGISTER of `bob`'s.
    private let lastBindings = BindingCount()

    /// The local CA's state (TLS, WSS).
    private let directory: URL

    init(_ transport: SIPTransportKind, noLate: Bool = false) throws {
        gateway = try PushCatcher()
        var defines = [KamailioOptions.forkDefine] + KamailioOptions.pushDefines(
            url: "http://127.0.0.1:\(gateway.port)", token: nil)
        if noLate { defines.append(KamailioOptions.forkNoLateDefine) }
        directory = try TemporaryDirectory.make("sip-fork")
        var options = KamailioOptions(defines: defines)
        var tls: ClientTLS?
        if transport != .udp, transport != .tcp {
            let material = try LocalCertificateAuthority.ensure(stateDirectory: directory.path).material
            options.listeners = KamailioListeners(tls: transport == .tls, webSocket: transport == .ws,
                                                  secureWebSocket: transport == .wss,
                                                  certificatePath: material.certificatePath, keyPath: material.keyPath)
            if transport.isSecure { tls = try ClientTLS(caFile: material.caCertificatePath) }
        }
        kamailio = try KamailioProcess(options: options)
        let ports = kamailio.ports
        let port = ([.tls: ports.tls, .ws: ports.webSocket, .wss: ports.secureWebSocket][transport] ?? nil)
            ?? kamailio.port
        harness = try PoolHarness(proxyPort: port, tls: tls)
        self.transport = transport
        domain = "127.0.0.1:\(port)"
        alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), transport, seed: 1)
        try register(alice)
    }

    func stop() {
        harness.close()
        kamailio.stop()
        gateway.stop()
        TemporaryDirectory.remove(directory)
    }

    var log: String { String(kamailio.log.suffix(3000)) }

    /// An awake device of bob's, registered.
    func awake(seed: UInt64) throws -> Int {
        let account = SIPAccount(user: "bob", domain: domain, password: "callstorm",
                                 instance: SIPAccount.instanceURN(device: "awake-\(seed)", seed: 7))
        let agent = try harness.add(account, transport, seed: seed)
        try register(agent)
        return agent
    }

    /// A device of bob's that registers its push binding and goes to sleep (its socket closed); its account, for
    /// the agent its wake opens.
    func sleeping(token: String, seed: UInt64) throws -> SIPAccount {
        let push = PushContactParameters.apnsVoIP(token: String(repeating: token, count: 32), team: "ABCD123456",
                                                  bundle: "com.example.app")
        let account = SIPAccount(user: "bob", domain: domain, password: "callstorm", push: push,
                                 instance: SIPAccount.instanceURN(device: "sleeping-\(seed)", seed: 7))
        let agent = try harness.add(account, transport, seed: seed)
        try register(agent)
        harness.close(agent)
        return account
    }

    /// The device of `account` woken by its push: a new socket and its wake REGISTER.
    func wake(_ account: SIPAccount, seed: UInt64) throws -> Int {
        let agent = try harness.add(account, transport, seed: seed)
        try register(agent)
        return agent
    }

    func invite() -> String {
        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        return call
    }

    func rings(_ agent: Int, _ call: String) -> Bool {
        eventually(10) { [harness] in
            harness.events(agent).contains { if case .incoming(call, _) = $0 { return true }; return false }
        }
    }

    func bindings() -> Int { lastBindings.count.withLock { $0 } }

    func voipPushes() -> Int { gateway.requests().filter { $0.lowercased().contains("apns-push-type: voip") }.count }

    func backgroundPushes() -> [String] {
        gateway.requests().filter { $0.lowercased().contains("apns-push-type: background") }
    }

    private func register(_ agent: Int) throws {
        let bindings = lastBindings
        harness.perform(agent) { agent, now in
            agent.onMessage = { _, sent, message in
                guard !sent, message.status == 200, message.cseq?.method == .register else { return }
                bindings.count.withLock { $0 = message.contacts.count }
            }
            agent.register(now: now)
        }
        guard eventually(10, { [harness] in
            harness.events(agent).contains { if case .registered = $0 { return true }; return false }
        }) else {
            throw NotRegistered(description: "agent \(agent) did not register: \(harness.events(agent))\n\(log)")
        }
    }
}

/// The Contacts a registrar's last 200 listed, set on the pool's thread and read on the test's.
final class BindingCount: Sendable {
    let count = Mutex(0)
}

/// A device of the world whose REGISTER was not answered 200: the test fails with Kamailio's log.
struct NotRegistered: Error, CustomStringConvertible {
    let description: String
}
