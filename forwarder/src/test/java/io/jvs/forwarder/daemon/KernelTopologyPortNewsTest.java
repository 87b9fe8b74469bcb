package io.jvs.forwarder.daemon;

import io.jvs.forwarder.config.JvsConfig;
import io.jvs.nativebindings.netlink.Link;
import io.jvs.nativebindings.netlink.NetlinkEvent;
import io.jvs.nativebindings.netlink.Rtnetlink;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An interface's new MAC or MTU reaches the TAP and the VIP announcements at once, and the log once the snapshot
 * that carries it is published: a line read as "in effect" was otherwise written up to a rebuild period before the
 * workers had it.
 */
class KernelTopologyPortNewsTest
{
    private static final int UP = Rtnetlink.IFF_UP | Rtnetlink.IFF_RUNNING | Rtnetlink.IFF_LOWER_UP;

    @Test
    void shouldTellTheListenerAtOnceAndLogANewMacOrMtuOnlyOnceTheSnapshotCarryingItIsPublished() throws Exception
    {
        final JvsConfig config = JvsConfig.parse("box.conf", List.of("interface lc port afpacket"), Path.of(""));
        final KernelTopology kernel = new KernelTopology(config, null, null);
        kernel.apply(new NetlinkEvent.LinkChanged(new Link(7, "lc", 1, UP, 0x020000000001L, 1500, "veth")));
        final List<Long> told = new ArrayList<>();
        kernel.onPortMac((port, mac) -> told.add(mac));
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        DaemonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
        try
        {
            kernel.apply(new NetlinkEvent.LinkChanged(new Link(7, "lc", 1, UP, 0x02000000aa01L, 1400, "veth")));
            assertThat(told).as("the TAP and the announcer follow at once").containsExactly(0x02000000aa01L);
            assertThat(log.toString(StandardCharsets.UTF_8)).as("nothing published yet").isEmpty();

            kernel.published();
            final String[] lines = log.toString(StandardCharsets.UTF_8).split("\n");
            assertThat(lines).hasSize(2);
            assertThat(lines[0]).endsWith(" info interface lc (port 0): mtu 1500 -> 1400");
            assertThat(lines[1]).endsWith(" info interface lc (port 0): mac 02:00:00:00:00:01 -> 02:00:00:00:aa:01");
            kernel.published();
            assertThat(log.toString(StandardCharsets.UTF_8).split("\n")).as("said once").hasSize(2);
        }
        finally
        {
            DaemonLog.redirect(System.err);
        }
    }
}
