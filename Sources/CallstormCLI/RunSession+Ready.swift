import Driver
import Foundation
import Quantities

/// The moment a run is ready (its devices registered, its load about to start), told to whoever waits for it: a
/// line on stderr for a run that expects calls from outside parties (kept under `--quiet`: it is what a script
/// starts its caller on), and `--ready-file PATH`, written then, for scripts that would rather not read stderr.
extension RunSession {
    /// What `LoadDriver.onLoadStart` does for this run; nil when nobody waits.
    func readyCue(settings: DriverSettings, gatewayURL: String) -> (@Sendable (Int) -> Void)? {
        let outside = scenario.expectsOutsideCalls
        guard outside || options.readyFile != nil else { return nil }
        let window = Quantity.format(nanos: settings.plan.totalNanos)
        let file = options.readyFile.map { URL(fileURLWithPath: $0) }
        var fields = ["gateway=\(gatewayURL)", "window_seconds=\(Double(settings.plan.totalNanos) / 1e9)",
                      "run_directory=\(bundle.directory.path)"]
        if let sip = scenario.sip { fields.append("sip=\(sip.host):\(sip.port)") }
        let fixed = fields
        return { registered in
            if outside {
                FileHandle.standardError.write(Data(("callstorm: \(registered) devices registered; waiting for "
                    + "calls from outside parties for \(window)\n").utf8))
            }
            if let file { Self.writeReady(file, lines: ["registered=\(registered)"] + fixed) }
        }
    }

    /// Writes the ready file whole (a temporary file renamed into place), so a script polling for it never reads
    /// half of it.
    static func writeReady(_ file: URL, lines: [String]) {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        do {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: temporary)
            _ = try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: temporary, to: file)
        } catch {
            FileHandle.standardError.write(Data("callstorm: cannot write the ready file \(file.path): \(error)\n".utf8))
        }
    }
}
