import CLinux
#if canImport(Glibc)
import Glibc
#endif
import SIP

// `sip-bench N`: parses each sample message N times (for instructions per message under callgrind, run twice with
// different N and take the difference), then keeps 10,000 parsed INVITEs alive and prints the heap they hold.
// `sip-bench calls N [SECONDS]`: N whole calls between two user agents in memory (Calls.swift), SECONDS apart (40).
if CommandLine.arguments.dropFirst().first == "calls" {
    let args = CommandLine.arguments.dropFirst(2).map { Int($0) }
    CallsBench.run(args.first.flatMap { $0 } ?? 1_000, apart: args.dropFirst().first.flatMap { $0 } ?? 40)
    exit(0)
}
let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let samples = Samples.all.map { Array($0.utf8) }
var checksum = 0
for bytes in samples {
    for _ in 0..<count {
        let message = bytes.withUnsafeBufferPointer { try? SIPParser.parse(datagram: $0) }
        // Touch what a UA reads of every message, as the osip side does.
        checksum &+= message?.headerCount ?? 0  // `headers` would build the list of strings the parser no longer makes
        checksum &+= message?.callID?.utf8.count ?? 0
        checksum &+= message?.branch?.utf8.count ?? 0
    }
}
let before = clinux_glibc_heap_in_use()
var kept: [SIPMessage] = []
kept.reserveCapacity(10_000)
for _ in 0..<10_000 {
    if let m = try? SIPParser.parse(datagram: samples[0]) { kept.append(m) }
}
let after = clinux_glibc_heap_in_use()
print("parsed \(count) x \(samples.count) messages, checksum \(checksum)")
print("heap per parsed INVITE: \((after - before) / 10_000) bytes")
