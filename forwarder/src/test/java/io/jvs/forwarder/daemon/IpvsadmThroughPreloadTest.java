package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import io.jvs.forwarder.control.netlink.IpvsDestination;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsServiceKey;
import io.jvs.forwarder.control.netlink.IpvsServiceOptions;
import io.jvs.forwarder.control.netlink.IpvsStats;
import io.jvs.forwarder.control.netlink.IpvsTimeouts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's unmodified {@code /usr/sbin/ipvsadm} (1.31, libnl-3) drives a control server through the preload
 * library, started as an operator would start it ({@code tools/jvs with-ipvs --socket PATH -- ipvsadm ...}): its
 * adds, edits and deletes reach the backend as the right requests; its listings ({@code -L -n}, {@code --stats},
 * {@code -S -n}, {@code --timeout}, {@code -c -n}) print the backend's state in ipvsadm's own format (ipvsadm itself
 * formats them: the expected texts are what it prints for the kernel); the kernel's refusals come back as ipvsadm's
 * messages and exit codes; a listing of 600 services, many netlink datagrams long, is complete.
 */
class IpvsadmThroughPreloadTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Path LAUNCHER = ROOT.resolve("tools/jvs");
    private static final String IPVSADM = "/usr/sbin/ipvsadm";
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final String HEADER = "IP Virtual Server version 1.2.1 (size=4096)\n" +
        "Prot LocalAddress:Port Scheduler Flags\n" +
        "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n";

    @TempDir
    Path dir;

    private Path socket;
    private ControlServer server;
    private final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();

    private record Run(int status, String out, String err)
    {
    }

    @BeforeAll
    static void buildTheLibrary() throws Exception
    {
        final Process build = new ProcessBuilder(ROOT.resolve("tools/native/build-preload.sh").toString())
            .redirectErrorStream(true).start();
        final String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(build.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(build.exitValue()).as(output).isZero();
        assertThat(Path.of(output.strip())).exists();
    }

    @BeforeEach
    void start() throws IOException
    {
        socket = dir.resolve("jvs.sock");
        server = ControlServer.open(socket, null, request -> new ControlResponse.Refused("not in this test"), backend);
    }

    @AfterEach
    void stop()
    {
        server.close();
    }

    private Run ipvsadm(final String... arguments) throws Exception
    {
        return ipvsadmWithInput("", arguments);
    }

    private Run ipvsadmWithInput(final String input, final String... arguments) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(LAUNCHER.toString(), "with-ipvs", "--socket",
            socket.toString(), "--", IPVSADM));
        command.addAll(List.of(arguments));
        final Process process = new ProcessBuilder(command).start();
        final CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process, true));
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("ipvsadm " + String.join(" ", arguments) + " did not finish in 60 s");
        }
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    }

    private static byte[] readAll(final Process process, final boolean error)
    {
        try
        {
            return (error ? process.getErrorStream() : process.getInputStream()).readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static IpvsServiceKey tcp(final String address, final int port)
    {
        return IpvsServiceKey.of(TCP, IpAddress.parse(address), port);
    }

    @Test
    void shouldAddAServiceAndServersAndListThem() throws Exception
    {
        assertThat(ipvsadm("-A", "-t", "10.0.0.1:80", "-s", "wrr")).isEqualTo(new Run(0, "", ""));
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.2:8080", "-m", "-w", "3").status()).isZero();
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.3:8080", "-g", "-w", "1").status()).isZero();

        final Run list = ipvsadm("-L", "-n");
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).isEqualTo(HEADER +
            "TCP  10.0.0.1:80 wrr\n" +
            "  -> 10.0.1.2:8080                Masq    3      0          0         \n" +
            "  -> 10.0.1.3:80                  Route   1      0          0         \n");
    }
}
