package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.nativebindings.netlink.Link;
import io.jvs.nativebindings.netlink.NetlinkEvent;
import io.jvs.nativebindings.netlink.Rtnetlink;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path MTU a worker learnt towards a real server from a router's error about a tunnelled packet is kept for the
 * server's next hop as the kernel keeps a route exception (__ip_rt_update_pmtu, net.ipv4.route.mtu_expires): a
 * smaller one replaces it, a larger one does not while it lives, and after ten minutes it is gone.
 */
class KernelTopologyPathMtuTest
{
    private static final IpAddress SERVER = IpAddress.parse("10.1.0.11");
    private static final long SECOND = 1_000_000_000L;

    private static KernelTopology kernel() throws Exception
    {
        final JvsConfig config = JvsConfig.parse("box.conf", List.of("interface lc port afpacket",
            "neighbour 10.1.0.11 mac 02:00:00:00:00:11"), Path.of(""));
        final KernelTopology kernel = new KernelTopology(config, null, null);
        kernel.apply(new NetlinkEvent.LinkChanged(new Link(7, "lc", 1,
            Rtnetlink.IFF_UP | Rtnetlink.IFF_RUNNING | Rtnetlink.IFF_LOWER_UP, 0x020000000001L, 1500, "veth")));
        return kernel;
    }

    private static int mtu(final KernelTopology kernel)
    {
        return kernel.topology(List.of(SERVER)).neighbours().get(SERVER).mtu();
    }

    @Test
    void shouldKeepTheSmallestPathMtuLearntForTenMinutes() throws Exception
    {
        final KernelTopology kernel = kernel();
        assertThat(mtu(kernel)).as("the interface's").isZero();

        assertThat(kernel.learnPathMtu(SERVER, 1400, SECOND)).isTrue();
        assertThat(mtu(kernel)).isEqualTo(1400);
        assertThat(kernel.learnPathMtu(SERVER, 1450, 2 * SECOND)).as("larger: ignored while it lives").isFalse();
        assertThat(kernel.learnPathMtu(SERVER, 1400, 300 * SECOND)).as("the same: lives longer").isFalse();
        assertThat(kernel.learnPathMtu(SERVER, 1300, 300 * SECOND)).as("smaller").isTrue();
        assertThat(mtu(kernel)).isEqualTo(1300);

        assertThat(kernel.expirePathMtus(899 * SECOND)).isFalse();
        assertThat(mtu(kernel)).isEqualTo(1300);
        assertThat(kernel.expirePathMtus(900 * SECOND)).as("expired").isTrue();
        assertThat(mtu(kernel)).isZero();
        assertThat(kernel.learnPathMtu(SERVER, 1450, 901 * SECOND)).isTrue();
        assertThat(mtu(kernel)).isEqualTo(1450);
    }

    @Test
    void shouldLogWhatChangedOnlyOnceTheSnapshotCarryingItIsPublished() throws Exception
    {
        // A line read as "in effect" was written while the snapshot was being made, and the maps updated before it
        // was published once took 13 ms: a test that acted on the line met the old MTU.
        final java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        DaemonLog.redirect(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
        try
        {
            final KernelTopology kernel = kernel();
            assertThat(kernel.learnPathMtu(SERVER, 1400, SECOND)).isTrue();
            assertThat(mtu(kernel)).isEqualTo(1400);
            assertThat(kernel.expirePathMtus(900 * SECOND)).isTrue();
            assertThat(log.toString(java.nio.charset.StandardCharsets.UTF_8)).as("nothing published yet").isEmpty();

            kernel.published();
            final String[] lines = log.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n");
            assertThat(lines).hasSize(2);
            assertThat(lines[0]).contains(" info path mtu to 10.1.0.11: 1400 ");
            assertThat(lines[1]).endsWith(" info path mtu to 10.1.0.11: expired");
            kernel.published();
            assertThat(log.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n")).as("said once").hasSize(2);
        }
        finally
        {
            DaemonLog.redirect(System.err);
        }
    }
}
