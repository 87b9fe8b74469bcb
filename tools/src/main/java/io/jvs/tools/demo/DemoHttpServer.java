package io.jvs.tools.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A real server of the live demo: the JDK's own HTTP server answering every request with its name, so the client
 * sees which server jvs chose. Run inside a real server's namespace by {@link LiveDemo}: {@code DemoHttpServer
 * NAME ADDRESS PORT}. It prints {@value #READY} once it listens, and exits when its standard input closes (the
 * demo ended, or died), so it never outlives the demo.
 */
public final class DemoHttpServer
{
    /** The line it prints once it listens. */
    static final String READY = "listening";

    private DemoHttpServer()
    {
    }

    /**
     * @param args the name to answer with, the address and the port to listen on.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 3)
        {
            System.err.println("usage: DemoHttpServer NAME ADDRESS PORT");
            System.exit(2);
        }
        final byte[] answer = (args[0] + "\n").getBytes(StandardCharsets.US_ASCII);
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(args[1]),
            Integer.parseInt(args[2])), 256);
        server.createContext("/", exchange -> answer(exchange, answer));
        // No executor: the dispatcher thread answers, as fast as any pool for answers this small.
        server.start();
        System.out.println(READY + " " + args[1] + ":" + args[2]);
        System.out.flush();
        final InputStream in = System.in;
        while (in.read() >= 0)
        {
            // Nothing is expected; only the end of the input matters.
        }
        server.stop(0);
        System.exit(0);
    }

    private static void answer(final HttpExchange exchange, final byte[] answer) throws IOException
    {
        try (exchange)
        {
            exchange.getRequestBody().transferTo(OutputStream.nullOutputStream());
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        }
    }
}
