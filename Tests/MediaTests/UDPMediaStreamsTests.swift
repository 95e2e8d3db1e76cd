import CLinux
import Dispatch
import EventPolling
import Locking
import Media
import MediaIO
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Real UDP streams on loopback, on an event thread: packets flow both ways and the two ends' books agree.
final class UDPMediaStreamsTests: XCTestCase {
    private final class Harness: @unchecked Sendable {
        let queue = DispatchQueue(label: "media.test")
        let thread: EventThread
        var streams: UDPMediaStreams!
        let log = MediaEventLog()

        init(ports: ClosedRange<Int>? = nil) {
            thread = EventThread(queue: queue, name: "media.test.events")
            let log = self.log
            streams = queue.sync {
                UDPMediaStreams(thread: thread, ports: ports) { id, event in
                    log.events.withLock { $0.append((id, event)) }
                }
            }
        }

        func run<T>(_ work: (UDPMediaStreams) throws -> T) rethrows -> T { try queue.sync { try work(streams) } }

        func close() {
            queue.sync { streams.closeAll() }
            thread.stop()
            thread.waitUntilStopped()
        }
    }

    func testTwoStreamsOnLoopbackExchangePacketsAndTheirBooksAgree() throws {
        let h = Harness()
        defer { h.close() }
        let (a, b) = try h.run { s in
            (try s.open(MediaStreamSettings(seed: 1)).get(), try s.open(MediaStreamSettings(seed: 2)).get())
        }
        h.run { s in
            s.start(a, remote: s.localEndpoint(b)!, direction: .sendrecv)
            s.start(b, remote: s.localEndpoint(a)!, direction: .sendrecv)
        }
        XCTAssertTrue(eventually(10) {
            h.run { ($0.report(a)?.receiver.received ?? 0) >= 25 && ($0.report(b)?.receiver.received ?? 0) >= 25 }
        })
        // Both stop sending (recvonly) and keep listening: what one sent, the other received, no more, no less.
        h.run { s in
            s.update(a, remote: s.localEndpoint(b)!, direction: .recvonly)
            s.update(b, remote: s.localEndpoint(a)!, direction: .recvonly)
        }
        XCTAssertTrue(eventually(5) {
            h.run { s in
                s.report(b)!.receiver.received == s.report(a)!.sent.packets
                    && s.report(a)!.receiver.received == s.report(b)!.sent.packets
            }
        })
        let (ra, rb) = h.run { ($0.close(a)!, $0.close(b)!) }
        XCTAssertEqual(rb.receiver.lost, 0)
        XCTAssertEqual(ra.receiver.lost, 0)
        XCTAssertEqual(rb.receiver.sequence.duplicates, 0)
        XCTAssertEqual(rb.receiver.octets, ra.sent.octets)
        XCTAssertEqual(ra.malformed.total, 0)
        XCTAssertEqual(ra.sendLag.count, ra.sent.packets, "every send's lag is measured")
        XCTAssertNotNil(rb.detector.answerToAudioNanos)
        XCTAssertNotNil(rb.receiver.transit.meanMillis, "one clock on one machine: transit is read from the payload")
        XCTAssertEqual(h.run { $0.sendErrors }, 0)
        let firsts = h.log.events.withLock {
            $0.filter { if case .firstAudio = $0.1 { return true } else { return false } }
        }
        XCTAssertEqual(firsts.count, 2)
    }

    func testStreamsBindEvenPortsOfTheRangeAndSayWhenItIsFull() throws {
        let base = 42_000 + Int(clinux_monotonic_ns() % 2_000) * 2
        let h = Harness(ports: base...(base + 3))
        defer { h.close() }
        let first = try h.run { try $0.open(MediaStreamSettings(seed: 1)).get() }
        let second = try h.run { try $0.open(MediaStreamSettings(seed: 2)).get() }
        let ports = h.run { [$0.localEndpoint(first)!.port, $0.localEndpoint(second)!.port] }
        XCTAssertEqual(Set(ports), [base, base + 2])
        XCTAssertEqual(h.run { $0.open(MediaStreamSettings(seed: 3)) }, .failure(.noFreePort(base...(base + 3))))
        h.run { _ = $0.close(first) }
        let reopened = try h.run { try $0.open(MediaStreamSettings(seed: 4)).get() }
        XCTAssertEqual(h.run { $0.localEndpoint(reopened)?.port }, base, "a closed stream's port is free again")
    }

    func testGarbageOnAStreamsPortIsCountedByKind() throws {
        let h = Harness()
        defer { h.close() }
        let a = try h.run { try $0.open(MediaStreamSettings(seed: 1)).get() }
        let port = h.run { $0.localEndpoint(a)!.port }
        let probe = try XCTUnwrap(UDPProbe(port: port))
        defer { probe.close() }
        probe.send([0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])  // version 1
        probe.send([0x80, 0])  // short
        XCTAssertTrue(eventually(5) { h.run { $0.report(a)!.malformed.total } == 2 })
        XCTAssertEqual(h.run { $0.report(a)!.malformed.byKey }, ["version": 1, "short": 1])
    }
}

/// Events by stream, appended on the event thread and read by the test thread.
private final class MediaEventLog: Sendable {
    let events = Mutex<[(Int, MediaEvent)]>([])
}

/// A plain UDP socket that sends bytes to a loopback port: a stranger on a stream's port.
private struct UDPProbe {
    let fd: Int32
    let target: sockaddr_in

    init?(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        target = address
    }

    func send(_ bytes: [UInt8]) {
        var to = target
        _ = withUnsafePointer(to: &to) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bytes.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, 0, raw, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    func close() { Glibc.close(fd) }
}
