package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drop reasons of the pipeline itself, each checked by name and in the counters: no service (when unmatched
 * traffic is not passed to the host), IP options and fragments refused by the settings in every
 * combination, a connection table full of established connections; and a one-packet persistent service
 * whose template outlives its packet.
 */
class PipelineDropReasonsTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long MAC_A = 0x02_00_00_00_01_02L;
    private static final long MAC_B = 0x02_00_00_00_01_03L;

    private static DataPlaneSettings settings(final boolean passUnmatched, final boolean options,
        final boolean fragments)
    {
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        return new DataPlaneSettings(passUnmatched, options, fragments, d.expireNodestConn(),
            d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho());
    }

    private static PipelineFixture fixture(final DataPlaneSettings settings)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", MAC_A);
        fixture.settings = settings;
        return fixture.start();
    }

    /** A SYN with one NOP option word in its IP header (IHL 6). */
    private static byte[] withOptions()
    {
        final byte[] plain = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0));
        final byte[] frame = new byte[plain.length + 4];
        System.arraycopy(plain, 0, frame, 0, 34);
        frame[34] = 1;
        frame[35] = 1;
        frame[36] = 1;
        frame[37] = 1;
        System.arraycopy(plain, 34, frame, 38, plain.length - 34);
        frame[14] = 0x46;
        final int total = frame.length - 14;
        frame[16] = (byte)(total >>> 8);
        frame[17] = (byte)total;
        frame[24] = 0;
        frame[25] = 0;
        final int sum = checksum(frame, 14, 24, 0);
        frame[24] = (byte)(sum >>> 8);
        frame[25] = (byte)sum;
        return frame;
    }

    /** The first fragment (more fragments) of a SYN. */
    private static byte[] firstFragment()
    {
        return ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 80, SYN, 0), 0x2000, 0x77);
    }

    @Test
    void shouldDropWhatNoServiceMatchesWhenUnmatchedTrafficIsNotPassed()
    {
        final PipelineFixture fixture = fixture(settings(false, true, true));
        final byte[] stray = frame(JVS_MAC, ROUTER_MAC, CLIENT, IpAddress.parse("10.0.0.200"), 64,
            Segment.tcp(40000, 80, SYN, 0));
        assertThat(fixture.sendOne(stray).verdict()).isEqualTo(Verdict.drop(DropReason.NO_SERVICE));
        final byte[] error = icmpErrorV4(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113.1"), VIP, 3, 1,
            frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 41000, ACK, 0)));
        assertThat(fixture.sendOne(error).verdict()).isEqualTo(Verdict.drop(DropReason.NO_SERVICE));
        assertThat(fixture.pipeline.counters().dropped(DropReason.NO_SERVICE)).isEqualTo(2);
        assertThat(fixture.sendOne(stray).verdict()).isEqualTo(Verdict.drop(DropReason.NO_SERVICE));
        // Passed to the host by default.
        assertThat(fixture(settings(true, true, true)).sendOne(stray).verdict()).isEqualTo(Verdict.pass());
    }

    @Test
    void shouldRefuseIpOptionsAndFragmentsAsTheSettingsSay()
    {
        final boolean[][] combinations = {{true, true}, {false, true}, {true, false}, {false, false}};
        for (final boolean[] allowed : combinations)
        {
            final PipelineFixture fixture = fixture(settings(true, allowed[0], allowed[1]));
            final int options = fixture.sendOne(withOptions()).verdict();
            final int fragment = fixture.sendOne(firstFragment()).verdict();
            assertThat(Verdict.toString(options)).as("options allowed %s", allowed[0])
                .isEqualTo(allowed[0] ? "transmit:0" : "drop:ip-options");
            assertThat(Verdict.toString(fragment)).as("fragments allowed %s", allowed[1])
                .isEqualTo(allowed[1] ? "transmit:0" : "drop:fragment");
        }
    }

    @Test
    void shouldDropANewConnectionWhenTheTableIsFullOfEstablishedOnes()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", MAC_A);
        fixture.publisher = new DataPlanePublisher(fixture.plane());
        fixture.pipeline = new Pipeline(fixture.publisher, 0, 16, 16, 64, 256, 1000);
        for (int client = 0; client < 16; client++)
        {
            final IpAddress source = IpAddress.ofV4(0xC633_6400 + client);
            assertThat(Verdict.toString(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, source, VIP, 64,
                Segment.tcp(40000, 80, SYN, 0))).verdict())).isEqualTo("transmit:0");
            assertThat(Verdict.toString(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, source, VIP, 64,
                Segment.tcp(40000, 80, ACK, 0))).verdict())).isEqualTo("transmit:0");
        }
        final byte[] late = frame(JVS_MAC, ROUTER_MAC, IpAddress.ofV4(0xC633_6480), VIP, 64,
            Segment.tcp(40000, 80, SYN, 0));
        assertThat(fixture.sendOne(late).verdict()).isEqualTo(Verdict.drop(DropReason.CONNECTION_TABLE_FULL));
        assertThat(fixture.pipeline.refusal(0)).isEqualTo(DropReason.CONNECTION_TABLE_FULL);
        assertThat(fixture.pipeline.counters().dropped(DropReason.CONNECTION_TABLE_FULL)).isEqualTo(1);
    }

    @Test
    void shouldKeepAOnePacketServicesTemplateForItsTimeout()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr -p 60 -o", "-a -u 10.0.0.100:53 -r 192.168.1.3:53 -m",
                "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m")
            .neighbour("192.168.1.2", MAC_A)
            .neighbour("192.168.1.3", MAC_B)
            .start();
        final long first = mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.udp(5353, 53, 8))).frame(), 0);
        // 59 s later the same client's next datagram follows the template, not rr.
        fixture.nowNs += 59_000_000_000L;
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5354, 53, 8)))
            .frame(), 0)).isEqualTo(first);
        // Two minutes after the first, past the template's timeout, rr goes on to the other server.
        fixture.nowNs += 61_000_000_000L;
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5355, 53, 8)))
            .frame(), 0)).isNotEqualTo(first);
    }
}
