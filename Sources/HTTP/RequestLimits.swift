/// Limits that a request must keep to; each broken one has its own status.
public struct RequestLimits: Sendable {
    /// The request target; longer is 414.
    public var maxURLBytes: Int
    /// All header lines together; more is 431.
    public var maxHeaderBytes: Int
    /// How many header fields; more is 431.
    public var maxHeaderCount: Int
    /// The body, however it is framed; more is 413.
    public var maxBodyBytes: Int
    /// A POST whose path starts with `uploadPath` (a mail import) may send up to `maxUploadBytes`;
    /// with `uploadAuthorization`, only one whose `Authorization` field it accepts (so that,
    /// behind a password, nobody who has not got the API token can make Mailroom hold a large
    /// body). It is asked only for a body over `maxBodyBytes`, and it is where a wrong token is
    /// counted as a guess, so this door is no way around the count.
    public var uploadPath: String?
    public var maxUploadBytes: Int
    public var uploadAuthorization: UploadAuthorization?
    /// The client's address, for `uploadAuthorization`; each connection sets its own.
    public var peer = ""

    /// Whether the client at `peer` with this `Authorization` field (nil: none, or more than
    /// one) may send a large upload.
    public typealias UploadAuthorization = @Sendable (_ peer: String, _ authorization: String?) -> Bool

    public init(maxURLBytes: Int, maxHeaderBytes: Int, maxHeaderCount: Int, maxBodyBytes: Int,
                uploadPath: String? = nil, maxUploadBytes: Int = 0, uploadAuthorization: UploadAuthorization? = nil) {
        self.maxURLBytes = maxURLBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.uploadPath = uploadPath
        self.maxUploadBytes = maxUploadBytes
        self.uploadAuthorization = uploadAuthorization
    }

    /// The most a body may hold in a request for `target` made with `method` and `headers`.
    func maxBodyBytes(_ method: Method, _ target: String, _ headers: Headers) -> Int {
        guard let uploadPath, method == .post, target.hasPrefix(uploadPath) else { return maxBodyBytes }
        if let uploadAuthorization {
            let given = headers.values(for: "Authorization")
            guard uploadAuthorization(peer, given.count == 1 ? given[0] : nil) else { return maxBodyBytes }
        }
        return max(maxBodyBytes, maxUploadBytes)
    }

    /// The most any one request's body may hold.
    public var largestBody: Int { max(maxBodyBytes, uploadPath == nil ? 0 : maxUploadBytes) }
}
