/// One one-way-audio episode as the run's notes name it, written by the Driver and read back by the report's Media
/// section: `media: one-way audio on call 12 (abc@host): the callee heard nothing, no_audio_after_answer` and, when
/// a media fault explains it, `; fault media.one_way_dropped in window relay-half-open`. One type writes and reads
/// the line, so the two cannot drift.
public struct MediaOneWayNote: Sendable, Equatable, Codable {
    public var call: Int
    public var callID: String
    /// `caller` or `callee`: the end that heard nothing.
    public var end: String
    /// `no_audio_after_answer`, `stopped_mid_call`, `no_audio_after_resume`.
    public var cause: String
    /// The fault kind and window that explain the episode; nil when none does (the server's).
    public var fault: String?
    public var window: String?

    public init(call: Int, callID: String, end: String, cause: String, fault: String? = nil, window: String? = nil) {
        self.call = call
        self.callID = callID
        self.end = end
        self.cause = cause
        self.fault = fault
        self.window = window
    }

    static let prefix = "media: one-way audio on call "
    static let faultMarker = "; fault "
    static let windowMarker = " in window "

    public var text: String {
        var line = "\(Self.prefix)\(call) (\(callID)): the \(end) heard nothing, \(cause)"
        if let fault { line += Self.faultMarker + fault + Self.windowMarker + (window ?? "") }
        return line
    }

    /// Reads a note written by `text`; nil for any other note.
    public init?(parsing note: String) {
        guard note.hasPrefix(Self.prefix) else { return nil }
        let rest = Substring(note.dropFirst(Self.prefix.count))
        guard let (number, afterCall) = Self.cut(rest, at: " ("), let call = Int(number),
              let (callID, afterID) = Self.cut(afterCall, at: "): the "),
              let (end, tail) = Self.cut(afterID, at: " heard nothing, ") else { return nil }
        var cause = String(tail), fault: String?, window: String?
        if let (before, explained) = Self.cut(tail, at: Self.faultMarker) {
            cause = String(before)
            if let (kind, name) = Self.cut(explained, at: Self.windowMarker) {
                (fault, window) = (String(kind), String(name))
            } else {
                fault = String(explained)
            }
        }
        self.init(call: call, callID: String(callID), end: String(end), cause: cause, fault: fault, window: window)
    }

    /// `text` split at the first `marker` (without Foundation): what comes before and after it.
    static func cut(_ text: Substring, at marker: String) -> (Substring, Substring)? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix(marker) {
                return (text[..<index], text[text.index(index, offsetBy: marker.count)...])
            }
            index = text.index(after: index)
        }
        return nil
    }
}
