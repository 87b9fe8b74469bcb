package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code vip-arp on} the box does not hold its virtual addresses, so its kernel cannot answer a ping to one:
 * jvs answers echo requests to them itself, back out of the port they came in on, as the kernel's icmp_echo and
 * icmpv6_echo_reply would. Without it, and for any other address, the request goes to the host as before.
 */
class PipelineVipEchoTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress CLIENT6 = IpAddress.parse("2001:db8:1::7");
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::100");
    private static final int ICMP = 1;
    private static final int ICMPV6 = 58;

    private static PipelineFixture fixture(final boolean answerVipEcho)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m",
                "-A -u [2001:db8::100]:53 -s rr", "-a -u [2001:db8::100]:53 -r [2001:db8:2::1]:53 -m")
            .neighbour("192.168.1.1", 0x02_00_00_00_01_01L)
            .neighbour("2001:db8:2::1", 0x02_00_00_00_01_02L);
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        fixture.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(),
            d.expireNodestConn(), d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), answerVipEcho);
        return fixture.start();
    }

    private static byte[] echoV4(final IpAddress destination)
    {
        final ByteBuffer icmp = ByteBuffer.allocate(8 + 24);
        icmp.put((byte)8).put((byte)0).putShort((short)0).putShort((short)0x1234).putShort((short)7);
        icmp.put(payload(24));
        icmp.putShort(2, (short)checksum(icmp.array(), 0, icmp.capacity(), 0));
        return rawIpv4(JVS_MAC, ROUTER_MAC, CLIENT, destination, 61, ICMP, 0x4000, 99, icmp.array());
    }

    private static byte[] echoV6(final IpAddress destination)
    {
        final int length = 8 + 16;
        final ByteBuffer frame = ByteBuffer.allocate(14 + 40 + length);
        frame.putShort((short)(JVS_MAC >>> 32)).putInt((int)JVS_MAC);
        frame.putShort((short)(ROUTER_MAC >>> 32)).putInt((int)ROUTER_MAC);
        frame.putShort((short)0x86DD);
        frame.putInt(6 << 28).putShort((short)length).put((byte)ICMPV6).put((byte)55)
            .putLong(CLIENT6.high()).putLong(CLIENT6.low()).putLong(destination.high()).putLong(destination.low());
        frame.put((byte)128).put((byte)0).putShort((short)0).putShort((short)0x4321).putShort((short)3);
        frame.put(payload(16));
        frame.putShort(14 + 40 + 2, (short)checksum(frame.array(), 14 + 40, length,
            sumWords(frame.array(), 14 + 8, 32) + length + ICMPV6));
        return frame.array();
    }

    @Test
    void shouldAnswerAnEchoRequestToAVirtualAddress()
    {
        final PipelineFixture fixture = fixture(true);
        final byte[] request = echoV4(VIP);

        final PipelineFixture.Result reply = fixture.sendOne(request);

        assertThat(Verdict.toString(reply.verdict())).isEqualTo(Verdict.toString(Verdict.transmit(0)));
        final byte[] frame = reply.frame();
        assertThat(frame).hasSize(request.length);
        assertThat(mac(frame, 0)).as("to the sender").isEqualTo(ROUTER_MAC);
        assertThat(mac(frame, 6)).as("from the port").isEqualTo(JVS_MAC);
        assertThat(i32(frame, 14 + 12)).as("from the VIP").isEqualTo(VIP.v4());
        assertThat(i32(frame, 14 + 16)).isEqualTo(CLIENT.v4());
        assertThat(frame[14 + 8] & 0xFF).as("a fresh TTL").isEqualTo(64);
        assertThat(checksum(frame, 14, 20, 0)).as("IPv4 header checksum").isZero();
        assertThat(frame[34] & 0xFF).as("echo reply").isZero();
        assertThat(checksum(frame, 34, frame.length - 34, 0)).as("ICMP checksum").isZero();
        for (int b = 34 + 4; b < frame.length; b++)
        {
            assertThat(frame[b]).as("identifier, sequence and data unchanged at " + b).isEqualTo(request[b]);
        }
        assertThat(fixture.pipeline.counters().get(WorkerCountersDescriptor.ICMP_ECHO_ANSWERED)).isEqualTo(1);
    }

    @Test
    void shouldAnswerAnIcmpv6EchoRequestToAVirtualAddress()
    {
        final PipelineFixture fixture = fixture(true);
        final byte[] request = echoV6(VIP6);

        final PipelineFixture.Result reply = fixture.sendOne(request);

        assertThat(Verdict.toString(reply.verdict())).isEqualTo(Verdict.toString(Verdict.transmit(0)));
        final byte[] frame = reply.frame();
        assertThat(mac(frame, 0)).isEqualTo(ROUTER_MAC);
        final ByteBuffer view = ByteBuffer.wrap(frame);
        assertThat(view.getLong(14 + 8)).isEqualTo(VIP6.high());
        assertThat(view.getLong(14 + 16)).isEqualTo(VIP6.low());
        assertThat(view.getLong(14 + 24)).isEqualTo(CLIENT6.high());
        assertThat(view.getLong(14 + 32)).isEqualTo(CLIENT6.low());
        assertThat(frame[14 + 7] & 0xFF).as("hop limit").isEqualTo(64);
        assertThat(frame[54] & 0xFF).as("echo reply").isEqualTo(129);
        final int length = frame.length - 54;
        assertThat(checksum(frame, 54, length, sumWords(frame, 14 + 8, 32) + length + ICMPV6))
            .as("ICMPv6 checksum with its pseudo-header").isZero();
        assertThat(fixture.pipeline.counters().get(WorkerCountersDescriptor.ICMP_ECHO_ANSWERED)).isEqualTo(1);
    }

    @Test
    void shouldLeaveEchoRequestsToTheHostWithoutVipArpOrForOtherAddresses()
    {
        final PipelineFixture off = fixture(false);
        assertThat(Verdict.toString(off.sendOne(echoV4(VIP)).verdict())).isEqualTo("pass");
        assertThat(Verdict.toString(off.sendOne(echoV6(VIP6)).verdict())).isEqualTo("pass");

        final PipelineFixture on = fixture(true);
        assertThat(Verdict.toString(on.sendOne(echoV4(IpAddress.parse("10.0.0.1"))).verdict()))
            .as("the box's own address: its kernel answers").isEqualTo("pass");
        assertThat(Verdict.toString(on.sendOne(echoV6(IpAddress.parse("2001:db8::1"))).verdict())).isEqualTo("pass");
        assertThat(on.pipeline.counters().get(WorkerCountersDescriptor.ICMP_ECHO_ANSWERED)).isZero();
    }
}
