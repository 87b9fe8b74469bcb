package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a reload cannot change: a file that changes the workers (or the interfaces) is refused whole with a message
 * that a restart is needed, and the weight changed in the same file is not applied; the control socket's
 * {@code reload} request answers with the same refusal.
 */
class DaemonReloadRestartTest
{
    private static final int PORT = 8080;

    @TempDir
    Path directory;

    @Test
    void shouldRefuseAReloadThatNeedsARestartAndChangeNothing() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlrst").realServers(1).build())
        {
            final String server = DaemonConfigs.endpoint(topology.realServers().get(0).ipv4(), PORT);
            final String service = "-A -t " + DaemonConfigs.endpoint(topology.vip4(), PORT) + " -s rr\n" +
                "-a -t " + DaemonConfigs.endpoint(topology.vip4(), PORT) + " -r " + server + " -m -w 1\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + service))
            {
                daemon.rewrite(directory, DaemonConfigs.twoArm().replace("workers 1\n", "workers 2\n") +
                    service.replace("-m -w 1", "-m -w 5"));
                daemon.signal("HUP");
                final String refusal = daemon.awaitLog("reload (SIGHUP) refused", Duration.ofSeconds(10));
                assertThat(refusal).contains("workers").contains("needs a restart");
                assertThat(daemon.request("reload")).startsWith("error ").contains("needs a restart");
                final Map<String, Long> status = daemon.status();
                assertThat(status).containsEntry("workers", 1L).containsEntry("server." + server + ".weight", 1L);

                daemon.rewrite(directory, DaemonConfigs.twoArm().replace("interface " +
                    LbTopology.DIRECTOR_SERVER_DEVICE + " port afxdp xdp-mode drv", "interface " +
                    LbTopology.DIRECTOR_SERVER_DEVICE + " port afpacket") + service);
                assertThat(daemon.request("reload")).startsWith("error ").contains("interfaces")
                    .contains("needs a restart");
            }
        }
    }
}
