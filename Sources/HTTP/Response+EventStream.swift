extension Response {
    /// A 200 answer whose body is an event stream: the server keeps the connection open and
    /// writes the hub's events to it.
    public var isEventStream: Bool {
        status.code == 200 && (headers["Content-Type"]?.hasPrefix("text/event-stream") ?? false)
    }
}
