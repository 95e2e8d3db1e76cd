import CSSL
import Foundation

/// The files a TLS listener needs, and the CA a client must trust to accept them.
public struct TLSMaterial: Sendable, Equatable {
    /// The CA certificate (PEM) clients trust: `curl --cacert`, Python's `cafile=`, libcurl's CAINFO.
    public var caCertificatePath: String
    /// The server certificate (PEM) the listener presents.
    public var certificatePath: String
    /// The server's private key (PEM).
    public var keyPath: String

    public init(caCertificatePath: String, certificatePath: String, keyPath: String) {
        self.caCertificatePath = caCertificatePath
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }
}

/// callstorm's own certificate authority, kept in a state directory: created on first use, reused after, so a
/// target can be told once which CA to trust.
public enum LocalCertificateAuthority {
    /// The names the server certificate covers: loopback, and APNs' own hosts so a client with the APNs host
    /// name built in can be pointed at the gateway through /etc/hosts or a CONNECT proxy.
    public static let serverNames = [
        "IP:127.0.0.1", "IP:::1", "DNS:localhost", "DNS:api.push.apple.com", "DNS:api.sandbox.push.apple.com",
        "DNS:api.development.push.apple.com",
    ]

    /// The default state directory: `$CALLSTORM_STATE_DIR`, else `$XDG_STATE_HOME/callstorm`, else
    /// `~/.local/state/callstorm`.
    public static var defaultStateDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["CALLSTORM_STATE_DIR"], !dir.isEmpty { return dir }
        if let dir = env["XDG_STATE_HOME"], !dir.isEmpty { return dir + "/callstorm" }
        return NSHomeDirectory() + "/.local/state/callstorm"
    }

    /// Where the CA's private key lives (mode 0600) in a state directory.
    public static func caKeyPath(stateDirectory: String) -> String {
        stateDirectory + "/tls/ca-key.pem"
    }

    /// The CA and server certificate under `stateDirectory/tls`, created when missing. `created` says whether
    /// this call made them (so the caller can print where the CA is).
    public static func ensure(stateDirectory: String) throws(CredentialsError) -> (material: TLSMaterial, created: Bool) {
        let dir = stateDirectory + "/tls"
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .stateDirectory(path: stateDirectory, detail: "\(error.localizedDescription)")
        }
        let material = TLSMaterial(caCertificatePath: dir + "/ca.pem", certificatePath: dir + "/server.pem",
                                   keyPath: dir + "/server-key.pem")
        let caKey = caKeyPath(stateDirectory: stateDirectory)
        let fm = FileManager.default
        var created = false
        if !fm.fileExists(atPath: material.caCertificatePath) || !fm.fileExists(atPath: caKey) {
            guard cssl_make_ca(material.caCertificatePath, caKey, "callstorm local CA") == 1 else {
                throw .cannotCreate(what: "local CA", detail: lastOpenSSLError())
            }
            created = true
        }
        if created || !fm.fileExists(atPath: material.certificatePath) || !fm.fileExists(atPath: material.keyPath) {
            let sans = serverNames.joined(separator: ",")
            guard cssl_make_server_cert(material.caCertificatePath, caKey, material.certificatePath,
                                        material.keyPath, "callstorm push gateway", sans) == 1 else {
                throw .cannotCreate(what: "server certificate", detail: lastOpenSSLError())
            }
            created = true
        }
        return (material, created)
    }
}
