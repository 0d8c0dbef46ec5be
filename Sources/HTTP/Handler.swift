/// What a server calls for each request.
public typealias Handler = @Sendable (Request) -> Response
