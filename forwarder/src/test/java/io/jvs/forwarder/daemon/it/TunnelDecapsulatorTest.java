package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.stream.Stream;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.jvs.forwarder.daemon.it.LbTopology.v4;
import static io.jvs.forwarder.daemon.it.LbTopology.v6;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The TUN fixture's XDP program run by the kernel on single frames ({@code BPF_PROG_TEST_RUN}): it strips
 * exactly the outer header of IP-in-IP to the real server, whatever the two families, and leaves every
 * other frame as it was. Needs root (BPF), as CI has.
 */
class TunnelDecapsulatorTest
{
    private static final byte[] SERVER_MAC = {0x02, 0, 0, 0, 0, 0x21};
    private static final byte[] DIRECTOR_MAC = {0x02, 0, 0, 0, 0, 0x12};
    private static final Inet4Address SERVER = v4("172.16.0.2");
    private static final Inet6Address SERVER6 = v6("fd00:172:16::2");
    private static final Inet4Address DIRECTOR = v4("172.16.0.1");
    private static final Inet6Address DIRECTOR6 = v6("fd00:172:16::1");
    private static final Inet4Address CLIENT = v4("10.0.0.2");
    private static final Inet6Address CLIENT6 = v6("fd00:10::2");

    private final Syscalls syscalls = Syscalls.create();

    static Stream<Arguments> tunnels()
    {
        return Stream.of(
            Arguments.of("IPv4 in IPv4", DIRECTOR, SERVER, CLIENT, LbTopology.VIP_V4),
            Arguments.of("IPv6 in IPv4", DIRECTOR, SERVER, CLIENT6, LbTopology.VIP_V6),
            Arguments.of("IPv4 in IPv6", DIRECTOR6, SERVER6, CLIENT, LbTopology.VIP_V4),
            Arguments.of("IPv6 in IPv6", DIRECTOR6, SERVER6, CLIENT6, LbTopology.VIP_V6));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tunnels")
    void shouldStripTheOuterHeaderAndPassTheInnerPacket(final String name, final InetAddress outerSource,
        final InetAddress outerDestination, final InetAddress client, final InetAddress vip)
    {
        final byte[] inner = TestPackets.ip(client, vip, TestPackets.IPPROTO_UDP,
            TestPackets.udp(client, vip, 40000, 5353, "hello".getBytes()));
        final byte[] frame = TestPackets.ethernet(SERVER_MAC, DIRECTOR_MAC, TestPackets.etherType(outerSource),
            TestPackets.encapsulate(outerSource, outerDestination, inner));

        final XdpTestRun.Result result = run(frame);

        assertThat(result.action()).isEqualTo(XdpAction.PASS);
        assertThat(result.frame()).isEqualTo(TestPackets.ethernet(SERVER_MAC, DIRECTOR_MAC,
            TestPackets.etherType(client), inner));
        final TestPackets.Frame parsed = TestPackets.parse(result.frame());
        assertThat(parsed.source()).isEqualTo(client);
        assertThat(parsed.destination()).isEqualTo(vip);
        assertThat(parsed.destinationPort()).isEqualTo(5353);
    }

    static Stream<Arguments> untouched()
    {
        final byte[] udp4 = TestPackets.udp(CLIENT, SERVER, 1, 2, new byte[8]);
        final byte[] inner4 = TestPackets.ip(CLIENT, LbTopology.VIP_V4, TestPackets.IPPROTO_UDP,
            TestPackets.udp(CLIENT, LbTopology.VIP_V4, 1, 2, new byte[8]));
        final byte[] withOptions = withOptions(TestPackets.encapsulate(DIRECTOR, SERVER, inner4));
        final byte[] fragment = TestPackets.encapsulate(DIRECTOR, SERVER, inner4);
        fragment[6] |= 0x20;
        final byte[] arp = new byte[28];
        return Stream.of(
            Arguments.of("IPIP to another address", eth(TestPackets.encapsulate(DIRECTOR, v4("172.16.0.3"), inner4))),
            Arguments.of("IPIP in IPv6 to another address",
                eth(TestPackets.encapsulate(DIRECTOR6, v6("fd00:172:16::3"), inner4))),
            Arguments.of("plain UDP to the server", eth(TestPackets.ip(CLIENT, SERVER, TestPackets.IPPROTO_UDP,
                udp4))),
            Arguments.of("GRE to the server", eth(TestPackets.ip(DIRECTOR, SERVER, 47, inner4))),
            Arguments.of("IPIP with IPv4 options", eth(withOptions)),
            Arguments.of("an IPIP fragment", eth(fragment)),
            Arguments.of("ARP", TestPackets.ethernet(SERVER_MAC, DIRECTOR_MAC, 0x0806, arp)),
            Arguments.of("Ethernet header only", TestPackets.ethernet(SERVER_MAC, DIRECTOR_MAC, 0x0800, new byte[0])),
            Arguments.of("IPv4 cut at 19 bytes", Arrays.copyOf(eth(TestPackets.encapsulate(DIRECTOR, SERVER,
                inner4)), 14 + 19)),
            Arguments.of("IPv6 cut at 39 bytes", Arrays.copyOf(eth(TestPackets.encapsulate(DIRECTOR6, SERVER6,
                inner4)), 14 + 39)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("untouched")
    void shouldPassEverythingElseUnchanged(final String name, final byte[] frame)
    {
        final XdpTestRun.Result result = run(frame);

        assertThat(result.action()).isEqualTo(XdpAction.PASS);
        assertThat(result.frame()).isEqualTo(frame);
    }

    @Test
    void shouldLeaveAFamilyAloneWhenTheServerHasNoAddressOfIt()
    {
        final byte[] inner = TestPackets.ip(CLIENT, LbTopology.VIP_V4, TestPackets.IPPROTO_UDP,
            TestPackets.udp(CLIENT, LbTopology.VIP_V4, 1, 2, new byte[8]));
        final byte[] overIpv6 = eth(TestPackets.encapsulate(DIRECTOR6, SERVER6, inner));
        final byte[] overIpv4 = eth(TestPackets.encapsulate(DIRECTOR, SERVER, inner));
        try (BpfProgram v4Only = BpfProgram.loadXdp(syscalls, "decap_v4", TunnelDecapsulator.program(SERVER, null));
             BpfProgram v6Only = BpfProgram.loadXdp(syscalls, "decap_v6", TunnelDecapsulator.program(null, SERVER6)))
        {
            assertThat(XdpTestRun.run(syscalls, v4Only, overIpv6).frame()).isEqualTo(overIpv6);
            assertThat(XdpTestRun.run(syscalls, v4Only, overIpv4).frame()).hasSize(overIpv4.length - 20);
            assertThat(XdpTestRun.run(syscalls, v6Only, overIpv4).frame()).isEqualTo(overIpv4);
            assertThat(XdpTestRun.run(syscalls, v6Only, overIpv6).frame()).hasSize(overIpv6.length - 40);
        }
    }

    @Test
    void shouldRefuseAProgramForAServerWithoutAddresses()
    {
        assertThatThrownBy(() -> TunnelDecapsulator.program(null, null))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("IPv4 or IPv6 address");
    }

    private XdpTestRun.Result run(final byte[] frame)
    {
        try (BpfProgram program = BpfProgram.loadXdp(syscalls, "decap_test",
            TunnelDecapsulator.program(SERVER, SERVER6)))
        {
            return XdpTestRun.run(syscalls, program, frame);
        }
    }

    private static byte[] eth(final byte[] packet)
    {
        final int version = (packet[0] & 0xff) >>> 4;
        return TestPackets.ethernet(SERVER_MAC, DIRECTOR_MAC, version == 4 ? TestPackets.ETH_P_IPV4 :
            TestPackets.ETH_P_IPV6, packet);
    }

    /** The same IPv4 packet with a 4-byte no-op option (IHL 6); the checksum is not the program's business. */
    private static byte[] withOptions(final byte[] packet)
    {
        final byte[] longer = new byte[packet.length + 4];
        System.arraycopy(packet, 0, longer, 0, 20);
        Arrays.fill(longer, 20, 24, (byte)1);
        System.arraycopy(packet, 20, longer, 24, packet.length - 20);
        longer[0] = 0x46;
        longer[3] += 4;
        return longer;
    }
}
