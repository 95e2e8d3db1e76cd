import CCurl
import Foundation

/// One request on its easy handle: the completion, the response bytes, the header list curl borrows.
final class Transfer {
    /// Everything a request sets on its easy handle besides its body and the transfer's own pointers. A handle
    /// configured for one shape is reused for the next request of the same shape without `curl_easy_reset` and a
    /// dozen setopts (a raw-http device sends the same GET over and over).
    struct Shape: Equatable {
        var method: String
        var url: String
        var headers: [String]
        var timeoutMillis: Int
        var freshConnection: Bool
        var collectsHeaders: Bool
        /// Set body options stay on the handle, so a request without a body never reuses one with.
        var hasBody: Bool

        init(_ request: ClientRequest) {
            method = request.method
            url = request.url
            headers = request.headers
            timeoutMillis = request.timeoutMillis
            freshConnection = request.freshConnection
            collectsHeaders = request.collectsHeaders
            hasBody = !request.body.isEmpty
        }

        /// Equal in everything but the URL and the header lines, which a handle can take anew without a reset (a
        /// call's requests differ mostly in the conversation id in their path).
        func sameOptions(as other: Shape) -> Bool {
            method == other.method && timeoutMillis == other.timeoutMillis && freshConnection == other.freshConnection
                && collectsHeaders == other.collectsHeaders && hasBody == other.hasBody
        }
    }

    /// An easy handle waiting for its next request, with the shape it is configured for (nil: reset it first) and
    /// the header list that configuration points at.
    struct Spare {
        var easy: UnsafeMutableRawPointer
        var shape: Shape?
        var headerList: UnsafeMutablePointer<curl_slist>?
    }

    /// Owned by the transfer until the client takes it back for reuse (`takeSpare`).
    private(set) var easy: UnsafeMutableRawPointer?
    private var completion: HTTPClient.Completion?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var shape: Shape?
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    let limit: Int
    var overLimit = false

    /// - Parameter easy: a fresh or reset easy handle, now owned by the transfer.
    init(easy: UnsafeMutableRawPointer?, completion: @escaping HTTPClient.Completion, limit: Int) {
        self.easy = easy
        self.completion = completion
        self.limit = limit
    }

    deinit {
        if let headerList { curl_slist_free_all(headerList) }
        if let easy { curl_easy_cleanup(easy) }
    }

    /// Configures the handle for `request`. `spare` is what the handle was configured for before (nil for a
    /// fresh handle): the same shape needs only the body and this transfer's pointers; another shape is reset.
    func configure(_ request: ClientRequest, configuration: HTTPClient.Configuration,
                   closeContext: UnsafeMutableRawPointer, spare: Spare?) {
        guard let easy else { return }
        let shape = Shape(request)
        self.shape = shape
        if let spare, let previous = spare.shape, previous.sameOptions(as: shape) {
            if previous.url != shape.url {
                request.url.withCString { _ = ccurl_easy_setopt_string(easy, CURLOPT_URL, $0) }
            }
            if previous.headers != shape.headers {
                let list = Self.headerList(request.headers)
                ccurl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
                if let old = spare.headerList { curl_slist_free_all(old) }
                headerList = list
            } else {
                headerList = spare.headerList
            }
            let me = Unmanaged.passUnretained(self).toOpaque()
            ccurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
            if shape.collectsHeaders { ccurl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me) }
            if request.method == "POST" || (request.method != "GET" && shape.hasBody) { setBody(easy, request.body) }
            return
        }
        if let spare {
            curl_easy_reset(easy)
            if let list = spare.headerList { curl_slist_free_all(list) }
        }
        request.url.withCString { _ = ccurl_easy_setopt_string(easy, CURLOPT_URL, $0) }
        ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        if request.freshConnection {
            ccurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
            ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
        }
        ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMillis)
        ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(configuration.connectTimeoutMillis,
                                                                   request.timeoutMillis))
        let me = Unmanaged.passUnretained(self).toOpaque()
        ccurl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        ccurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
        if request.collectsHeaders {
            ccurl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
            ccurl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me)
        }
        ccurl_easy_setopt_closesocket(easy, httpClientCloseSocketCallback, closeContext)
        switch configuration.version {
        case .http1:
            ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2TLS:
            ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        }
        if let caFile = configuration.caFile {
            caFile.withCString { _ = ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, $0) }
        }
        if let proxy = configuration.proxy {
            proxy.withCString { _ = ccurl_easy_setopt_string(easy, CURLOPT_PROXY, $0) }
        }
        if let certificate = configuration.clientCertificatePath {
            // The certificate and its key in one PEM, as APNs users keep a converted .p12.
            certificate.withCString {
                _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLCERT, $0)
                _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLKEY, $0)
            }
        }
        let list = Self.headerList(request.headers)
        headerList = list
        ccurl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        switch request.method {
        case "GET":
            ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "POST":
            setBody(easy, request.body)
        default:
            request.method.withCString { _ = ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
            if !request.body.isEmpty { setBody(easy, request.body) }
        }
    }

    /// The request's header lines as curl takes them, with an empty `Expect:` first: curl would otherwise wait up
    /// to a second for `100 Continue` on bodies over 1 KiB.
    private static func headerList(_ headers: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list = curl_slist_append(nil, "Expect:")
        for header in headers { list = curl_slist_append(list, header) }
        return list
    }

    private func setBody(_ easy: UnsafeMutableRawPointer, _ body: [UInt8]) {
        ccurl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
        body.withUnsafeBytes { raw in
            // COPYPOSTFIELDS copies, so the array may go away after this call.
            let pointer = raw.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) }
            _ = ccurl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, pointer ?? UnsafeMutableRawPointer(bitPattern: 1))
        }
        if body.isEmpty { ccurl_easy_setopt_long(easy, CURLOPT_POST, 1) }
    }

    /// Gives the easy handle back (after curl is done with it) with what it is configured for; the transfer no
    /// longer cleans it up. `reusable` false (the transfer failed) has the next request reset it.
    func takeSpare(reusable: Bool) -> Spare? {
        guard let easy else { return nil }
        defer {
            self.easy = nil
            headerList = nil
        }
        return Spare(easy: easy, shape: reusable ? shape : nil, headerList: headerList)
    }

    func finish(_ result: Result<ClientResponse, TransportError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    fileprivate func append(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if body.count + count > limit {
            overLimit = true
            return 0
        }
        pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return count
    }

    /// One header line as curl hands it over. Parsed on bytes: Foundation's `trimmingCharacters` and
    /// `lowercased` cost more than the rest of a small request together (they showed in the raw-http profile).
    fileprivate func header(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        pointer.withMemoryRebound(to: UInt8.self, capacity: count) { start in
            let line = UnsafeBufferPointer(start: start, count: count)
            if count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {
                headers.removeAll()  // "HTTP/": a new response (after a redirect or 100 Continue) starts over
                return
            }
            guard let colon = line.firstIndex(of: 0x3A) else { return }
            var nameBytes = [UInt8](line[..<colon])
            for i in nameBytes.indices where nameBytes[i] >= 0x41 && nameBytes[i] <= 0x5A { nameBytes[i] |= 0x20 }
            var lower = colon + 1
            var upper = count
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
            while lower < upper, isSpace(line[lower]) { lower += 1 }
            while upper > lower, isSpace(line[upper - 1]) { upper -= 1 }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(rebasing: line[lower..<upper]), as: UTF8.self)
            headers.append((name, value))
        }
        return count
    }
}

private let transferWriteCallback: ccurl_data_callback = { pointer, size, count, userdata in
    Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue().append(pointer!, size * count)
}

private let transferHeaderCallback: ccurl_data_callback = { pointer, size, count, userdata in
    Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue().header(pointer!, size * count)
}
