package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Programs that drive the running daemon through the preload library, as keepalived and ipvsadm do: a netlink
 * socket kept open across a restart of the daemon (keepalived keeps one for its life) carries its next request to
 * the new daemon, and while no daemon runs its requests are answered "No such device".
 */
class DaemonNetlinkClientTest
{
    private static final Duration EXIT = Duration.ofSeconds(30);

    private static Path library;
    private static Path client;

    @TempDir
    Path directory;

    @BeforeAll
    static void build() throws Exception
    {
        library = PreloadLibrary.build();
        client = PreloadSession.build();
    }

    @Test
    void shouldCarryAKeptNetlinkSocketOverToTheRestartedDaemon() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("nlkeep").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            final DaemonProcess first = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm());
            try (first; PreloadSession session = PreloadSession.start(client, library, first.control()))
            {
                assertThat(session.command("family")).hasSize(2).last().isEqualTo("ok");
                assertThat(session.command("add 10.9.0.1 80")).containsExactly("ok");
                assertThat(list(first)).contains("TCP  10.9.0.1:80 rr\n");

                first.signal("TERM");
                assertThat(first.awaitExit(EXIT)).as(String.join("\n", first.log())).isZero();
                assertThat(session.command("add 10.9.0.2 80")).as("no daemon")
                    .containsExactly("error 19 No such device");

                try (DaemonProcess second = DaemonProcess.start(topology.directorNamespace(), directory,
                    DaemonConfigs.twoArm()))
                {
                    assertThat(session.command("add 10.9.0.3 80")).containsExactly("ok");
                    // The new daemon started from its file, which has no services: only what came since.
                    final String listing = list(second);
                    assertThat(listing).contains("TCP  10.9.0.3:80 rr\n").doesNotContain("10.9.0.1:80")
                        .doesNotContain("10.9.0.2:80");
                    assertThat(session.command("dump")).containsExactly("service 10.9.0.3:80", "done");
                    assertThat(session.errors()).containsOnlyOnce("reconnected");
                }
            }
        }
    }

    /** @return ctl's {@code -L -n}. */
    private static String list(final DaemonProcess daemon) throws IOException
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of("-L", "-n"), new byte[0]), Duration.ofSeconds(30));
        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        return new String(((ControlResponse.Result)response).output(), StandardCharsets.UTF_8);
    }
}
