/// What a server calls for each request.
public typealias Handler = @Sendable (Request) -> Response

/// What a server calls for a request it refuses before the handler could see it.
public typealias ErrorHandler = @Sendable (HTTPError) -> Response

/// Whether answering a request may wait on something other than the network, such as a commit:
/// a server answers those on another thread, so that its loop goes on serving the rest.
public typealias WaitPredicate = @Sendable (Request) -> Bool
