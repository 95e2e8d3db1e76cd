import Foundation

/// The listeners beyond SIP over UDP and TCP a Kamailio gets (issue 35): SIP over TLS, over WebSocket (`ws`, on a
/// TCP port of its own) and over secure WebSocket (`wss`, on a TLS port of its own), with the certificate the TLS
/// ones present. A value: the command line and the tls module's file it makes are tested without starting anything.
public struct KamailioListeners: Sendable, Equatable {
    public var tls: Bool
    public var webSocket: Bool
    public var secureWebSocket: Bool
    /// The server certificate (PEM) and its key, e.g. callstorm's local CA's (`LocalCertificateAuthority`).
    public var certificatePath: String
    public var keyPath: String

    public init(tls: Bool = true, webSocket: Bool = true, secureWebSocket: Bool = true, certificatePath: String,
                keyPath: String) {
        self.tls = tls
        self.webSocket = webSocket
        self.secureWebSocket = secureWebSocket
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// Whether any listener needs the tls module.
    public var needsTLS: Bool { tls || secureWebSocket }

    /// The tls module's configuration: the certificate for every server connection, TLS 1.2 and later, clients
    /// not asked for one (phones authenticate with digest). Kamailio's own client side (it opens no TLS
    /// connection in this configuration) verifies nothing.
    public var tlsConfiguration: String {
        """
        [server:default]
        method = TLSv1.2+
        verify_certificate = no
        require_certificate = no
        certificate = \(certificatePath)
        private_key = \(keyPath)

        [client:default]
        method = TLSv1.2+
        verify_certificate = no
        require_certificate = no

        """
    }

    /// The defines that load what these listeners need: `WITH_TLS` with `TLS_CONFIG` (the file written from
    /// `tlsConfiguration`), `WITH_WEBSOCKET`.
    public func defines(tlsConfigurationPath: String) -> [String] {
        var defines: [String] = []
        if needsTLS { defines += ["WITH_TLS", "TLS_CONFIG=\"\(tlsConfigurationPath)\""] }
        if webSocket || secureWebSocket { defines.append("WITH_WEBSOCKET") }
        return defines
    }
}

/// The ports one Kamailio listens on, all on 127.0.0.1: SIP over UDP and TCP share `sip`; the others are there
/// when its `KamailioListeners` ask for them.
public struct KamailioPorts: Sendable, Equatable {
    public var sip: Int
    public var tls: Int?
    public var webSocket: Int?
    public var secureWebSocket: Int?

    public init(sip: Int, tls: Int? = nil, webSocket: Int? = nil, secureWebSocket: Int? = nil) {
        self.sip = sip
        self.tls = tls
        self.webSocket = webSocket
        self.secureWebSocket = secureWebSocket
    }

    /// `-l` arguments for every listener.
    var listenArguments: [String] {
        var args = ["-l", "udp:127.0.0.1:\(sip)", "-l", "tcp:127.0.0.1:\(sip)"]
        if let tls { args += ["-l", "tls:127.0.0.1:\(tls)"] }
        if let webSocket { args += ["-l", "tcp:127.0.0.1:\(webSocket)"] }
        if let secureWebSocket { args += ["-l", "tls:127.0.0.1:\(secureWebSocket)"] }
        return args
    }

    /// Free ports for `listeners` (distinct from each other); nil when none could be found.
    static func free(for listeners: KamailioListeners?) -> KamailioPorts? {
        guard let sip = KamailioServer.freePort() else { return nil }
        var ports = KamailioPorts(sip: sip)
        guard let listeners else { return ports }
        var taken: Set<Int> = [sip]
        func another() -> Int? {
            for _ in 0..<10 {
                if let port = KamailioServer.freePort(), taken.insert(port).inserted { return port }
            }
            return nil
        }
        if listeners.tls { guard let port = another() else { return nil }; ports.tls = port }
        if listeners.webSocket { guard let port = another() else { return nil }; ports.webSocket = port }
        if listeners.secureWebSocket { guard let port = another() else { return nil }; ports.secureWebSocket = port }
        return ports
    }
}
