import HTTPWire

/// The request's header lines as libcurl reads `CURLOPT_HTTPHEADER`, so a server sees the same headers whichever
/// client a run uses: `Name: value` is sent (a caller's `Host` or `Content-Length` in place of the client's own);
/// `Name:` with nothing after the colon is not sent and keeps the client from adding its own of that name;
/// `Name;` sends the header empty; a line with neither is dropped. Then what libcurl adds unless told not to:
/// `Accept: */*`, and for a body set as POST fields `Content-Type: application/x-www-form-urlencoded`. (libcurl's
/// `Expect: 100-continue` is never sent: HTTPClient's header list switches it off.)
extension WireSender {
    static func headers(_ lines: [String], sendsBody: Bool) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lines.count + 2)
        var namesAccept = false
        var namesType = false
        for line in lines {
            let name: String
            var value: Substring = ""
            if let colon = line.firstIndex(of: ":") {
                name = String(line[..<colon])
                value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            } else if line.last == ";" {
                name = String(line.dropLast())
            } else {
                continue
            }
            namesAccept = namesAccept || WireRequest.named(name, "accept")
            namesType = namesType || WireRequest.named(name, "content-type")
            if value.isEmpty && !line.hasSuffix(";") { continue }
            headers.append((name, String(value)))
        }
        if !namesAccept { headers.append(("Accept", "*/*")) }
        if sendsBody && !namesType { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return headers
    }
}
