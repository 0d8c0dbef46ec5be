/// What a server calls for each request.
public typealias Handler = @Sendable (Request) -> Response

/// What a server calls for a request it refuses before the handler could see it.
public typealias ErrorHandler = @Sendable (HTTPError) -> Response
