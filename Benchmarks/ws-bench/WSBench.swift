import StreamIO
import CLinux
import Determinism
import Dispatch
import EventPolling
import Foundation
import HTTPServer
import WebSocket
import WebSocketClient

/// `ws-bench server [CERT KEY]`: an echo WebSocket server on a free loopback port (printed), until stdin closes.
/// `ws-bench client URL COUNT [CAFILE] [ECHOES]`: opens COUNT idle sockets, prints the client's RSS growth per
/// socket, then runs ECHOES round trips on one socket and prints the client's CPU per round trip. The server
/// runs in its own process, so the client's memory is measured alone (docs/WEBSOCKET.md has the figures).
/// `ws-bench hold …`: idle sockets to `callstorm target --tls` held through a reconnect storm (Hold.swift).
@main
enum WSBench {
    static func main() throws {
        let args = Array(CommandLine.arguments.dropFirst())
        switch args.first {
        case "server": try serve(args)
        case "client": try client(args)
        case "hold":
            do { try HoldBench.main(Array(args.dropFirst())) } catch let error as HoldBenchError {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(2)
            }
        default:
            let usage = "usage: ws-bench server [CERT KEY] | client URL COUNT [CAFILE] [ECHOES] | hold (--help)\n"
            FileHandle.standardError.write(Data(usage.utf8))
            exit(2)
        }
    }

    final class Echo: WebSocketSession {
        func opened(_ peer: WebSocketPeer) {}
        func received(_ message: Message, from peer: WebSocketPeer) {
            if case .text(let text) = message { peer.send(text: text) }
        }
        func closed(_ peer: WebSocketPeer, _ report: CloseReport) {}
    }

    static func serve(_ args: [String]) throws {
        var configuration = HTTPServerConfiguration(threads: 1, idleTimeoutSeconds: 3600, backlog: 4096)
        if args.count >= 3 { configuration.tls = TLSFiles(certificatePath: args[1], keyPath: args[2]) }
        let echo = Echo()
        let server = HTTPServer(configuration: configuration, handler: HTTPClosureHandler { request, respond in
            respond(WebSocketUpgrade.accept(request, session: echo))
        })
        try server.start()
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        while readLine() != nil {}
        server.stop()
    }

    /// Resident set size in bytes, from /proc/self/statm.
    static func rss() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = Int(text.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func client(_ args: [String]) throws {
        let url = try WebSocketURL(parsing: args[1])
        let count = Int(args[2]) ?? 1000
        let caFile = args.count > 3 && !args[3].isEmpty ? args[3] : nil
        let echoes = args.count > 4 ? Int(args[4]) ?? 0 : 0
        let tls = url.secure ? try ClientTLS(caFile: caFile) : nil
        let thread = EventThread(queue: DispatchQueue(label: "bench"), name: "bench")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var opened = 0, closed = 0, echoed = 0
        nonisolated(unsafe) var pool: WebSocketClientPool!
        nonisolated(unsafe) var first: UInt64 = 0
        thread.queue.sync {
            pool = WebSocketClientPool(thread: thread, tls: tls) { id, event in
                switch event {
                case .opened:
                    opened += 1
                    if opened + closed == count { done.signal() }
                case .closed:
                    closed += 1
                    if opened + closed == count { done.signal() }
                case .message:
                    echoed += 1
                    if echoed == echoes { done.signal() } else { pool.send(id, text: "ping \(echoed)") }
                default: break
                }
            }
        }
        _ = trimHeap(0)
        let before = rss(), heapBefore = clinux_glibc_heap_in_use()
        let start = clinux_monotonic_ns()
        thread.queue.sync {
            for i in 0..<count {
                if case .success(let id) = pool.open(url, random: SeededRandom(seed: 1, stream: UInt64(i))), i == 0 {
                    first = id
                }
            }
        }
        done.wait()
        let seconds = Double(clinux_monotonic_ns() - start) / 1e9
        // Idle: past the pool's once-a-second sweep, which gives TLS record buffers back.
        usleep(1_500_000)
        // Handshakes allocate and free large buffers; trim so RSS shows what idle sockets keep, not the peak.
        _ = trimHeap(0)
        let after = rss(), heapAfter = clinux_glibc_heap_in_use()
        print("sockets \(opened) open, \(closed) failed in \(String(format: "%.2f", seconds)) s")
        let perSocket = (after - before) / max(1, opened)
        print("rss before \(before / 1024) KB, after \(after / 1024) KB, per socket \(perSocket) B; "
              + "malloc in use per socket \((Int(heapAfter) - Int(heapBefore)) / max(1, opened)) B")
        if echoes > 0 {
            let cpu0 = cpuSeconds(), t0 = clinux_monotonic_ns()
            thread.queue.sync { _ = pool.send(first, text: "ping 0") }
            done.wait()
            let cpu = cpuSeconds() - cpu0, wall = Double(clinux_monotonic_ns() - t0) / 1e9
            let each = String(format: "%.1f", cpu / Double(echoes) * 1e6)
            print("echo \(echoes) round trips: \(each) µs client CPU each, "
                  + "\(String(format: "%.0f", Double(echoes) / wall)) per s")
        }
        thread.queue.sync { pool.shutDown() }
        thread.stop()
    }
}

/// glibc's malloc_trim (malloc.h is not in the Glibc module): returns freed heap pages to the kernel.
@_silgen_name("malloc_trim")
func trimHeap(_ pad: Int) -> Int32
