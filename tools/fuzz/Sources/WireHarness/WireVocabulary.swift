/// Header names and values of gRPC requests, good and bad, that the stream state machine fuzzing picks from
/// by index (free text is its other choice); the seed writer spells inputs with the same indices.
public enum WireVocabulary {
    public static let names = [
        ":method", ":path", ":scheme", ":authority", "content-type", "te", "grpc-timeout", "grpc-encoding",
        "host", "user-agent", "grpc-accept-encoding", "authorization", "x-echo-a", "x-data-bin", "grpc-status",
        "connection", "Content-Type", "",
    ]
    public static let values = [
        "POST", "GET", "/hearth.echo.v1.Echo/Get", "/hearth.echo.v1.Echo/Update", "/", "//", "/a/b/c", "http",
        "localhost", "application/grpc", "application/grpc+proto", "application/grpc;x=y", "application/grpcx",
        "APPLICATION/GRPC", "trailers", "identity", "gzip", "1S", "100m", "99999999H", "123456789n", "0u", "5x",
        "AAEC", "AAE=", "====", "-", "",
    ]
}
