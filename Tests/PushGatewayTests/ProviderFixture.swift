import Credentials
import Foundation
import PushGateway
import TestSupport

/// What a gateway interop test stands on: a temporary state directory with the local CA, an ES256 provider key
/// on disk (`AuthKey_<kid>.p8`) and its public half, and a gateway configuration that verifies tokens with it.
struct ProviderFixture {
    let directory: String
    let tls: TLSMaterial
    let keyPath: String
    let configuration: APNsGateway.Configuration

    init(bundleID: String, keyID: String, teamID: String) throws {
        directory = try TemporaryDirectory.make("provider").path
        tls = try LocalCertificateAuthority.ensure(stateDirectory: directory).material
        keyPath = directory + "/AuthKey_\(keyID).p8"
        try ES256Key.generate(privateKeyPath: keyPath, publicKeyPath: directory + "/public.pem")
        let keys = ProviderKeys(teamID: teamID, keys: [keyID: try ES256Key(contentsOf: directory + "/public.pem")])
        configuration = .init(validator: .init(bundleID: bundleID, keys: keys))
    }

    func remove() {
        TemporaryDirectory.remove(URL(fileURLWithPath: directory))
    }
}
