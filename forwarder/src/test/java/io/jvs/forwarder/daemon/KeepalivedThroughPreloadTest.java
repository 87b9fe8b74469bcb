package io.jvs.forwarder.daemon;

import com.sun.net.httpserver.HttpServer;
import io.jvs.core.net.IpAddress;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import io.jvs.forwarder.control.netlink.IpvsDestination;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsNetlinkRequest;
import io.jvs.forwarder.control.netlink.IpvsServiceKey;
import io.jvs.forwarder.control.netlink.IpvsServiceOptions;
import io.jvs.forwarder.daemon.it.PreloadLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's unmodified keepalived (2.2, libnl-3), started through {@code tools/jvs with-ipvs} with its own pid files
 * and only its health checker ({@code -C}), configures the backend from an unmodified {@code virtual_server} block
 * and keeps it in step with its MISC_CHECKs: the service with its scheduler and persistence, each real server with
 * its weight; a server whose check fails is removed, or set to weight 0 under {@code inhibit_on_failure}, and put back
 * when its check passes again; stopping keepalived removes what it made. TCP_CHECK and HTTP_GET against listeners on
 * loopback take a server out when its listener closes or answers 500, and put it back when it recovers.
 */
class KeepalivedThroughPreloadTest
{
    private static final IpvsServiceKey SERVICE = IpvsServiceKey.of(6, IpAddress.parse("10.0.0.50"), 80);
    private static final IpAddress FIRST = IpAddress.parse("10.0.1.2");
    private static final IpAddress SECOND = IpAddress.parse("10.0.1.3");

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();

    @TempDir
    Path dir;

    private ControlServer server;
    private Process keepalived;
    private final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();

    @BeforeAll
    static void buildTheLibrary() throws Exception
    {
        PreloadLibrary.build();
    }

    @BeforeEach
    void start() throws Exception
    {
        server = ControlServer.open(dir.resolve("jvs.sock"), null, request -> new ControlResponse.Refused("no"),
            backend);
    }

    @AfterEach
    void stop() throws Exception
    {
        if (keepalived != null)
        {
            keepalived.destroy();
            if (!keepalived.waitFor(20, TimeUnit.SECONDS))
            {
                keepalived.destroyForcibly();
            }
        }
        server.close();
    }

    @Test
    void shouldConfigureTheBackendAndFollowItsHealthChecks() throws Exception
    {
        final Path up = dir.resolve("up");
        Files.writeString(up, "");
        final Path conf = Files.writeString(dir.resolve("keepalived.conf"), """
            global_defs {
                router_id jvs_test
            }
            virtual_server 10.0.0.50 80 {
                delay_loop 1
                lb_algo wrr
                lb_kind NAT
                persistence_timeout 120
                protocol TCP
                real_server 10.0.1.2 8080 {
                    weight 3
                    inhibit_on_failure
                    MISC_CHECK {
                        misc_path "/usr/bin/test -e %s"
                    }
                }
                real_server 10.0.1.3 8080 {
                    weight 2
                    MISC_CHECK {
                        misc_path "/bin/false"
                    }
                }
            }
            """.formatted(up));
        final Path log = dir.resolve("keepalived.log");
        keepalived = new ProcessBuilder(ROOT.resolve("tools/jvs").toString(), "with-ipvs", "--socket",
            dir.resolve("jvs.sock").toString(), "--", "/usr/sbin/keepalived", "-n", "-l", "-D", "-C", "-f",
            conf.toString(), "-p", dir.resolve("keepalived.pid").toString(), "-c",
            dir.resolve("checkers.pid").toString(), "-r", dir.resolve("vrrp.pid").toString())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();

        // Up: the service as configured, the first server at its weight, the second gone after its first check.
        await(log, () -> weight(FIRST) == 3 && backend.destination(SERVICE, SECOND, 8080) == null &&
            backend.applied().stream().anyMatch(change -> change instanceof IpvsNetlinkRequest.DelDest));
        final IpvsServiceOptions options = backend.options(SERVICE);
        assertThat(options.scheduler()).isEqualTo("wrr");
        assertThat(options.timeout()).isEqualTo(120);
        assertThat(options.mergeFlags(0) & IpvsNetlink.SVC_F_PERSISTENT).isNotZero();
        assertThat(backend.destination(SERVICE, FIRST, 8080).forwarding()).isEqualTo(IpvsNetlink.CONN_F_MASQ);
        assertThat(backend.applied()).filteredOn(change -> change instanceof IpvsNetlinkRequest.NewDest)
            .as("both servers were added before their checks ran").hasSize(2);

        // The first server's check fails: inhibited, weight 0; it passes again: its weight is back.
        Files.delete(up);
        await(log, () -> weight(FIRST) == 0);
        Files.writeString(up, "");
        await(log, () -> weight(FIRST) == 3);

        // Stopping keepalived removes the service it made.
        keepalived.destroy();
        assertThat(keepalived.waitFor(20, TimeUnit.SECONDS)).isTrue();
        await(log, () -> backend.serviceCount() == 0);
        assertThat(Files.readString(log)).contains("Initializing ipvs").doesNotContain("Can't initialize ipvs");
    }

    @Test
    void shouldFollowTcpAndHttpChecksOfLoopbackListeners() throws Exception
    {
        final IpvsServiceKey service = IpvsServiceKey.of(6, IpAddress.parse("10.0.0.60"), 80);
        final IpAddress loopback = IpAddress.parse("127.0.0.1");
        final AtomicInteger status = new AtomicInteger(200);
        final HttpServer http = HttpServer.create(
            new InetSocketAddress("127.0.0.1", 0), 8);
        http.createContext("/health", exchange ->
        {
            exchange.sendResponseHeaders(status.get(), 2);
            try (OutputStream body = exchange.getResponseBody())
            {
                body.write("ok".getBytes(StandardCharsets.US_ASCII));
            }
        });
        http.start();
        ServerSocketChannel first = listener(0);
        final ServerSocketChannel second = listener(0);
        final int firstPort = ((InetSocketAddress)first.getLocalAddress()).getPort();
        final int secondPort = ((InetSocketAddress)second.getLocalAddress()).getPort();
        final int httpPort = http.getAddress().getPort();
        try
        {
            final Path conf = Files.writeString(dir.resolve("keepalived.conf"), """
                virtual_server 10.0.0.60 80 {
                    delay_loop 1
                    lb_algo rr
                    lb_kind NAT
                    protocol TCP
                    real_server 127.0.0.1 %d {
                        weight 1
                        TCP_CHECK {
                            connect_timeout 1
                            retry 1
                        }
                    }
                    real_server 127.0.0.1 %d {
                        weight 1
                        TCP_CHECK {
                            connect_timeout 1
                            retry 1
                        }
                    }
                    real_server 127.0.0.1 %d {
                        weight 1
                        HTTP_GET {
                            url {
                                path /health
                                status_code 200
                            }
                            connect_timeout 1
                            retry 1
                        }
                    }
                }
                """.formatted(firstPort, secondPort, httpPort));
            final Path log = dir.resolve("keepalived.log");
            keepalived = new ProcessBuilder(ROOT.resolve("tools/jvs").toString(), "with-ipvs", "--socket",
                dir.resolve("jvs.sock").toString(), "--", "/usr/sbin/keepalived", "-n", "-l", "-D", "-C", "-f",
                conf.toString(), "-p", dir.resolve("keepalived.pid").toString(), "-c",
                dir.resolve("checkers.pid").toString(), "-r", dir.resolve("vrrp.pid").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            await(log, () -> backend.listDests(service).size() == 3);

            // The first listener goes: out within retry x delay_loop (and keepalived's timeouts), the others stay.
            first.close();
            await(log, () -> backend.destination(service, loopback, firstPort) == null);
            assertThat(backend.destination(service, loopback, secondPort)).isNotNull();
            assertThat(backend.destination(service, loopback, httpPort)).isNotNull();
            first = listener(firstPort);
            await(log, () -> backend.destination(service, loopback, firstPort) != null);

            // The HTTP server answers 500: out; 200 again: back.
            status.set(500);
            await(log, () -> backend.destination(service, loopback, httpPort) == null);
            status.set(200);
            await(log, () -> backend.destination(service, loopback, httpPort) != null);
            assertThat(backend.listDests(service)).hasSize(3);
        }
        finally
        {
            http.stop(0);
            first.close();
            second.close();
        }
    }

    /** A TCP listener on loopback that accepts (the kernel completes handshakes into its backlog). */
    private static ServerSocketChannel listener(final int port) throws IOException
    {
        final ServerSocketChannel channel = ServerSocketChannel.open();
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        channel.bind(new InetSocketAddress("127.0.0.1", port), 64);
        return channel;
    }

    private int weight(final IpAddress server)
    {
        final IpvsDestination destination = backend.destination(SERVICE, server, 8080);
        return destination == null ? -1 : destination.weight();
    }

    /** Waits up to 20 s for the condition, failing with keepalived's log. */
    private void await(final Path log, final BooleanSupplier condition) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not reached in 20 s; backend " + backend.listServices() + ", changes " +
                    backend.applied() + "; keepalived's log:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            Thread.sleep(100);
        }
    }
}
