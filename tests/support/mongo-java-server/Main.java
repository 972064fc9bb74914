import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;

/**
 * Serves an in-memory MongoDB on 127.0.0.1 for the tests: `java Main [port]` (0 or none = any free
 * port). Prints "listening <port>" once it accepts connections, and exits when its standard
 * input closes, so a test runner that dies cannot leave it behind.
 */
public class Main {
    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        MongoServer server = new MongoServer(new MemoryBackend());
        server.bind(new InetSocketAddress("127.0.0.1", port));
        System.out.println("listening " + server.getLocalAddress().getPort());
        System.out.flush();
        while (System.in.read() != -1) {
            // wait for the parent to close our stdin (or die)
        }
        server.shutdownNow();
        System.exit(0);
    }
}
