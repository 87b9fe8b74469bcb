package io.jvs.tools.ctl;

import io.jvs.forwarder.control.ControlProtocol;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tools/jvs ctl}: it carries ipvsadm's arguments to the daemon untouched (without its own --socket), with
 * standard input only for a restore, and passes the daemon's output, error and exit status on byte for byte;
 * without a daemon it says so as ipvsadm does without IPVS, with ipvsadm's status.
 */
class CtlCommandTest
{
    @TempDir
    Path directory;

    @Test
    void shouldCarryTheArgumentsAndPassTheAnswerOn() throws Exception
    {
        final Path socket = directory.resolve("jvs.sock");
        final CompletableFuture<ControlRequest> asked = answerOnce(socket,
            ControlResponse.Result.of(255, "listing\n", "Service not defined\n"));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        final int status = CtlCommand.run(new String[] {"--socket", socket.toString(), "-L", "-n", "-t",
            "10.0.0.1:80"}, new ByteArrayInputStream("not read".getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out), new PrintStream(err));

        assertThat(status).isEqualTo(255);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("listing\n");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Service not defined\n");
        final ControlRequest.Ipvsadm request = (ControlRequest.Ipvsadm)asked.get(10, TimeUnit.SECONDS);
        assertThat(request.arguments()).containsExactly("-L", "-n", "-t", "10.0.0.1:80");
        assertThat(request.input()).as("no -R: standard input stays unread").isEmpty();
    }

    @Test
    void shouldSendStandardInputForARestore() throws Exception
    {
        final Path socket = directory.resolve("jvs.sock");
        final CompletableFuture<ControlRequest> asked = answerOnce(socket, ControlResponse.Result.of(0, "", ""));
        final byte[] rules = "-A -t 10.0.0.1:80 -s rr\n".getBytes(StandardCharsets.UTF_8);

        final int status = CtlCommand.run(new String[] {"--socket=" + socket, "-R"}, new ByteArrayInputStream(rules),
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()));

        assertThat(status).isZero();
        final ControlRequest.Ipvsadm request = (ControlRequest.Ipvsadm)asked.get(10, TimeUnit.SECONDS);
        assertThat(request.arguments()).containsExactly("-R");
        assertThat(request.input()).isEqualTo(rules);
        assertThat(CtlCommand.readsInput(List.of("--restore"))).isTrue();
        assertThat(CtlCommand.readsInput(List.of("-S", "-n"))).isFalse();
    }

    @Test
    void shouldSayTheDaemonIsNotThereAsIpvsadmSaysIpvsIsNot()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Path missing = directory.resolve("none.sock");

        final int status = CtlCommand.run(new String[] {"--socket", missing.toString(), "-L", "-n"},
            new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("Can't initialize ipvs: ")
            .contains("Are you sure that the jvs daemon is running and " + missing + " is its control socket?");
    }

    @Test
    void shouldRefuseASocketOptionWithoutAPath()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(CtlCommand.run(new String[] {"--socket"}, new ByteArrayInputStream(new byte[0]),
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("jvs ctl: --socket needs");
    }

    /** A daemon stand-in: takes one request and gives the answer. */
    private static CompletableFuture<ControlRequest> answerOnce(final Path socket, final ControlResponse answer)
        throws Exception
    {
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return CompletableFuture.supplyAsync(() ->
        {
            try (server; SocketChannel client = server.accept())
            {
                client.configureBlocking(false);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                final ControlProtocol.Frame frame = ControlProtocol.read(client, deadline);
                final ControlRequest request = ControlProtocol.decodeRequest(frame.type(), frame.payload());
                ControlProtocol.write(client, ControlProtocol.encode(answer), deadline);
                return request;
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        });
    }
}
