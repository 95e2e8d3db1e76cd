import Credentials
import Foundation

/// `callstorm cert voip`: issues a client certificate for certificate-based provider auth (mutual TLS), signed by
/// callstorm's local CA and shaped like Apple's VoIP Services certificates, so an APNs client configured with a
/// certificate (aioapns's `client_cert`, kalyke's VoIPCertificateClient, Pushy, Flexisip) can be tried unchanged.
enum CertCommand {
    static let help = """
        Usage: callstorm cert voip --bundle-id ID [--state-dir DIR] [--out DIR] [--team ID] [--environment ENV]

        Issues a VoIP Services-like client certificate and its key in one PEM file (as users convert Apple's
        .p12 with `openssl pkcs12 -nodes`), signed by the local CA that `callstorm gateway` trusts for client
        certificates. The certificate carries the bundle id as Apple's do: subject UID=<bundle>,
        CN "VoIP Services: <bundle>", OU=<team>, Apple's environment extensions and its topics extension
        (<bundle> and <bundle>.voip).
          --bundle-id     the app's bundle id (required)
          --state-dir     where the local CA lives (default $CALLSTORM_STATE_DIR or ~/.local/state/callstorm)
          --out           directory for voip-<bundle>.pem (default the current directory)
          --team          the team id in OU (default CALLSTORMT)
          --environment   development, production or both (default both, like VoIP Services certificates)
          --days N        validity in days (default 365)
        """

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        guard let kind = args.first, kind != "--help", kind != "help" else {
            print(help)
            return args.isEmpty ? .invalidInput : .passed
        }
        guard kind == "voip" else { throw .usage("callstorm cert issues 'voip' certificates; got '\(kind)'") }
        let parsed = try Arguments(Array(args.dropFirst()),
                                   valued: ["bundle-id", "state-dir", "out", "team", "environment", "days"],
                                   boolean: ["help"])
        if parsed.has("help") {
            print(help)
            return .passed
        }
        guard let bundle = parsed.value("bundle-id"), !bundle.isEmpty,
              !bundle.contains(where: { $0 == " " || $0 == "/" }) else {
            throw .badValue(flag: "bundle-id", value: parsed.value("bundle-id") ?? "",
                            expected: "the app's bundle id, like com.example.phone (required)")
        }
        let environment = try parsed.choice("environment", default: PushCertificateEnvironment.both)
        let team = parsed.value("team") ?? "CALLSTORMT"
        let days = try parsed.integer("days", default: 365, in: 1...36_500)
        let stateDir = parsed.value("state-dir") ?? LocalCertificateAuthority.defaultStateDirectory
        let outDir = parsed.value("out") ?? FileManager.default.currentDirectoryPath
        do {
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        } catch {
            throw .badValue(flag: "out", value: outDir, expected: "a directory callstorm can create "
                            + "(\(error.localizedDescription))")
        }
        let path = outDir + "/voip-\(bundle).pem"
        let request = PushClientCertificate.Request(bundleID: bundle, teamID: team, environment: environment,
                                                    validUntilSeconds: days * 24 * 3600)
        do {
            try PushClientCertificate.issue(request, stateDirectory: stateDir, to: path)
        } catch {
            throw .harness(error.description)
        }
        print("wrote \(path) (certificate and key; topics \(bundle), \(bundle).voip; \(environment.rawValue))")
        print("the gateway trusts it when it uses the local CA in \(stateDir)/tls")
        return .passed
    }
}
