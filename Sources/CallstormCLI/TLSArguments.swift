import Credentials
import Foundation
import HTTPServer

/// The TLS files a listener of `callstorm gateway` or `callstorm target` serves: `--cert`/`--key` when given,
/// else the local CA's server certificate in `--state-dir` (created on first use), whose CA file clients verify
/// against. One place, so both commands create, reuse and announce the local CA the same way.
enum TLSArguments {
    /// The files to serve, and the CA file to tell clients about (nil when the user brought their own pair).
    /// `clientCA` is the CA whose client certificates are asked for with the user's own pair; `askLocalCA` asks
    /// for client certificates signed by the local CA when that is in use (the gateway's certificate auth).
    static func files(_ parsed: Arguments, clientCA: String?, askLocalCA: Bool) throws(CLIError)
        -> (files: TLSFiles, caPath: String?) {
        if (parsed.value("cert") == nil) != (parsed.value("key") == nil) {
            let missing = parsed.value("cert") == nil ? "cert" : "key"
            throw .usage("--cert and --key go together: --\(missing) is missing")
        }
        if let cert = try parsed.readableFile("cert"), let key = try parsed.readableFile("key") {
            return (TLSFiles(certificatePath: cert, keyPath: key, clientCAPath: clientCA), nil)
        }
        let dir = parsed.value("state-dir") ?? LocalCertificateAuthority.defaultStateDirectory
        do {
            let (material, created) = try LocalCertificateAuthority.ensure(stateDirectory: dir)
            if created { FileHandle.standardError.write(Data("created a local CA in \(dir)/tls\n".utf8)) }
            let asked = clientCA ?? (askLocalCA ? material.caCertificatePath : nil)
            let files = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath,
                                 clientCAPath: asked)
            return (files, material.caCertificatePath)
        } catch {
            throw .harness(error.description)
        }
    }
}
