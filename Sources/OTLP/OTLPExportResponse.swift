/// What a collector said to one export (OTLP/HTTP, "Responses"): accepted, accepted in part (`partial_success`
/// of ExportTraceServiceResponse / ExportMetricsServiceResponse: the count rejected and why), asked to retry
/// (429, 502, 503, 504, with a `Retry-After` in seconds when given), or refused for good (any other status; the
/// body is a `google.rpc.Status` whose message is kept).
///
/// Parsing never traps and never throws: an answer callstorm cannot read is reported as such and the exporter
/// goes on (`make fuzz` target `otlp` feeds it arbitrary bytes).
public enum OTLPExportResponse: Sendable, Equatable {
    case accepted
    case partial(rejected: Int64, message: String)
    case retry(afterSeconds: Int?, status: Int)
    case refused(status: Int, message: String)

    /// Retry-After beyond this is read as this: a run lasts minutes, and a collector asking for an hour is down.
    public static let longestRetrySeconds = 300

    public static func parse(status: Int, retryAfter: String?, body: [UInt8]) -> OTLPExportResponse {
        switch status {
        case 200...299:
            guard let (rejected, message) = partialSuccess(body[...]), rejected != 0 || !message.isEmpty else {
                return .accepted
            }
            return .partial(rejected: rejected, message: message)
        case 429, 502, 503, 504:
            return .retry(afterSeconds: retryAfter.flatMap(seconds), status: status)
        default:
            return .refused(status: status, message: statusMessage(body[...]) ?? "")
        }
    }

    /// `Retry-After: <delay-seconds>` (RFC 9110 10.2.3); an HTTP-date is not read (nil: the exporter's own
    /// back-off applies).
    static func seconds(_ text: String) -> Int? {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 10, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let value = Int(trimmed) else { return nil }
        return min(value, longestRetrySeconds)
    }

    /// Export*ServiceResponse { partial_success 1 { rejected_* 1 (int64), error_message 2 } }; nil when the body
    /// is not that message (a collector may answer 200 with an empty or JSON body).
    static func partialSuccess(_ body: ArraySlice<UInt8>) -> (Int64, String)? {
        var outer = ProtoReader(body)
        var result: (Int64, String)?
        do {
            while let (field, value) = try outer.next() {
                guard field == 1, case .bytes(let inner) = value else { continue }
                var reader = ProtoReader(inner)
                var rejected: Int64 = 0
                var message = ""
                while let (f, v) = try reader.next() {
                    if f == 1, case .varint(let n) = v { rejected = Int64(bitPattern: n) }
                    if f == 2, case .bytes(let text) = v { message = String(decoding: text, as: UTF8.self) }
                }
                result = (rejected, message)
            }
        } catch {
            return nil
        }
        return result
    }

    /// google.rpc.Status { code 1, message 2, details 3 }: the message, when the body is one.
    static func statusMessage(_ body: ArraySlice<UInt8>) -> String? {
        var reader = ProtoReader(body)
        var message: String?
        do {
            while let (field, value) = try reader.next() {
                if field == 2, case .bytes(let text) = value { message = String(decoding: text, as: UTF8.self) }
            }
        } catch {
            return nil
        }
        return message
    }
}

extension String {
    var trimmingSpaces: String {
        let utf8 = Array(self.utf8)
        var start = 0
        var end = utf8.count
        while start < end, utf8[start] == 32 || utf8[start] == 9 { start += 1 }
        while end > start, utf8[end - 1] == 32 || utf8[end - 1] == 9 { end -= 1 }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }
}
