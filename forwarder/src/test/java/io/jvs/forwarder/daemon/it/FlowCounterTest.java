package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.Map;

import io.jvs.forwarder.daemon.it.FlowCounter.Flow;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import org.junit.jupiter.api.Test;

import static io.jvs.forwarder.daemon.it.LbTopology.v4;
import static io.jvs.forwarder.daemon.it.LbTopology.v6;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flow counter's XDP program run by the kernel on single frames ({@code BPF_PROG_TEST_RUN}) into a
 * real map: one entry per TCP or UDP flow of either family with its packet count, nothing for other
 * frames, and every frame passed unchanged. Needs root (BPF), as CI has.
 */
class FlowCounterTest
{
    private static final byte[] MAC_A = {0x02, 0, 0, 0, 0, 0x0a};
    private static final byte[] MAC_B = {0x02, 0, 0, 0, 0, 0x0b};
    private static final Inet4Address CLIENT = v4("198.51.100.10");
    private static final Inet4Address SERVER = v4("10.3.0.2");
    private static final Inet6Address CLIENT6 = v6("2001:db8:100::10");
    private static final Inet6Address SERVER6 = v6("fd00:3::2");

    @Test
    void shouldCountEachTcpAndUdpFlowOfEitherFamilyAndPassEveryFrame()
    {
        final Syscalls syscalls = Syscalls.create();
        try (BpfMap map = BpfMap.createHash(syscalls, FlowCounter.MAP_NAME, FlowCounter.KEY_BYTES, Long.BYTES, 64);
             BpfProgram program = BpfProgram.loadXdp(syscalls, "flows_test",
                 FlowCounter.program().link(Map.of(FlowCounter.MAP_NAME, map.fd()))))
        {
            final byte[] syn = frame(TestPackets.ip(CLIENT, SERVER, TestPackets.IPPROTO_TCP,
                TestPackets.tcp(CLIENT, SERVER, 40000, 80, 1, 0, TestPackets.TCP_SYN)));
            final byte[] synAck = frame(TestPackets.ip(SERVER, CLIENT, TestPackets.IPPROTO_TCP,
                TestPackets.tcp(SERVER, CLIENT, 80, 40000, 9, 2, TestPackets.TCP_SYN | TestPackets.TCP_ACK)));
            final byte[] udp6 = frame(TestPackets.ip(CLIENT6, SERVER6, TestPackets.IPPROTO_UDP,
                TestPackets.udp(CLIENT6, SERVER6, 5000, 53, new byte[10])));
            final byte[] icmp = frame(TestPackets.ip(CLIENT, SERVER, 1, new byte[8]));
            final byte[] arp = TestPackets.ethernet(MAC_A, MAC_B, 0x0806, new byte[28]);
            final byte[] fragment = syn.clone();
            fragment[14 + 7] = 8;

            for (final byte[] frame : new byte[][] {syn, syn, syn, synAck, udp6, icmp, arp, fragment})
            {
                final XdpTestRun.Result result = XdpTestRun.run(syscalls, program, frame);
                assertThat(result.action()).isEqualTo(XdpAction.PASS);
                assertThat(result.frame()).isEqualTo(frame);
            }

            assertThat(FlowCounter.read(syscalls, map)).containsExactlyInAnyOrderEntriesOf(Map.of(
                new Flow(6, new InetSocketAddress(CLIENT, 40000), new InetSocketAddress(SERVER, 80)), 3L,
                new Flow(6, new InetSocketAddress(SERVER, 80), new InetSocketAddress(CLIENT, 40000)), 1L,
                new Flow(17, new InetSocketAddress(CLIENT6, 5000), new InetSocketAddress(SERVER6, 53)), 1L));
        }
    }

    @Test
    void shouldReverseAFlow()
    {
        final Flow flow = new Flow(6, new InetSocketAddress(CLIENT, 1), new InetSocketAddress(SERVER, 2));

        assertThat(flow.reversed()).isEqualTo(new Flow(6, new InetSocketAddress(SERVER, 2),
            new InetSocketAddress(CLIENT, 1)));
        assertThat(flow.reversed().reversed()).isEqualTo(flow);
    }

    private static byte[] frame(final byte[] packet)
    {
        return TestPackets.ethernet(MAC_A, MAC_B, (packet[0] & 0xf0) == 0x40 ? TestPackets.ETH_P_IPV4 :
            TestPackets.ETH_P_IPV6, packet);
    }
}
