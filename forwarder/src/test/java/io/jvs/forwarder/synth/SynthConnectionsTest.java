package io.jvs.forwarder.synth;

import io.jvs.core.packet.ParsedBurst;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Follows every TCP connection of a trace by its 4-tuple: SYN first, then consecutive sequence numbers,
 * FIN or RST last; and every ICMP error about one of them while it is open.
 */
class SynthConnectionsTest
{
    private static final int SYN = 0x02;
    private static final int FIN = 0x01;
    private static final int RST = 0x04;
    private static final int ACK = 0x10;

    @TempDir
    Path directory;

    /** What the client has sent on an open connection. */
    private static final class Connection
    {
        int nextSequence;
        int acknowledgement;
        int frames;
        long openedAt;
    }

    @ParameterizedTest
    @ValueSource(longs = {2, 17, 123_456})
    void shouldOpenEveryConnectionWithSynAndCloseItWithFinOrRstInSequence(final long seed) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(60_000).clients(50)
            .icmpErrorShare(0.01).concurrentFlows(300).build();
        final Path file = directory.resolve("trace.pcap");

        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);

        final Map<String, Connection> open = new HashMap<>();
        long opened = 0;
        long closed = 0;
        long icmpChecked = 0;
        long overlapping = 0;
        final List<TraceFrames.Frame> frames = TraceFrames.read(file);
        for (int i = 0; i < frames.size(); i++)
        {
            final TraceFrames.Frame frame = frames.get(i);
            if (frame.verdict() != 0)
            {
                continue;
            }
            if (frame.protocol() == 1 || frame.protocol() == 58)
            {
                checkIcmpError(frame, open);
                icmpChecked++;
                continue;
            }
            if (frame.protocol() != 6)
            {
                continue;
            }
            final String tuple = tuple(frame.sourceHigh(), frame.sourceLow(), frame.sourcePort(),
                frame.destinationHigh(), frame.destinationLow(), frame.destinationPort());
            final int flags = frame.tcpFlags();
            final int sequence = frame.i32(frame.l4Offset() + 4);
            final int payload = frame.l4Length() - (frame.u8(frame.l4Offset() + 12) >>> 4) * 4;
            Connection connection = open.get(tuple);
            if (connection == null)
            {
                assertThat(flags).as("the first segment of %s", tuple).isEqualTo(SYN);
                assertThat(payload).isZero();
                connection = new Connection();
                connection.nextSequence = sequence + 1;
                connection.openedAt = i;
                overlapping += open.isEmpty() ? 0 : 1;
                open.put(tuple, connection);
                opened++;
                continue;
            }
            assertThat(flags & SYN).as("a SYN on the open connection %s", tuple).isZero();
            assertThat(flags & ACK).isEqualTo(ACK);
            assertThat(sequence).as("sequence of %s", tuple).isEqualTo(connection.nextSequence);
            connection.nextSequence = sequence + payload;
            connection.acknowledgement = frame.i32(frame.l4Offset() + 8);
            connection.frames++;
            if ((flags & (FIN | RST)) != 0)
            {
                assertThat(payload).isZero();
                assertThat(connection.frames).as("ACK, data, then the end").isGreaterThanOrEqualTo(3);
                open.remove(tuple);
                closed++;
            }
        }
        assertThat(open).as("connections left open at the end").isEmpty();
        assertThat(opened).isEqualTo(closed).isEqualTo(summary.tcpConnections());
        assertThat(overlapping).as("connections opened while others were open").isGreaterThan(opened * 9 / 10);
        assertThat(icmpChecked).isEqualTo(summary.icmpErrors()).isPositive();
    }

    /**
     * An ICMP error must come from the path router, go to a VIP, and quote a reply of an open connection:
     * VIP to client, the service's port to the client's, the sequence number the client last acknowledged.
     */
    private static void checkIcmpError(final TraceFrames.Frame frame, final Map<String, Connection> open)
    {
        final int icmp = frame.l4Offset();
        final int quote = icmp + 8;
        final String tuple;
        if (frame.isV6())
        {
            assertThat(frame.u8(icmp)).isEqualTo(2);
            assertThat(frame.i32(icmp + 4)).isBetween(1280, 1500);
            assertThat(frame.sourceLow()).isEqualTo(AddressPlan.PATH_ROUTER_V6.low());
            assertThat(frame.i64(quote + 8)).isEqualTo(frame.destinationHigh());
            assertThat(frame.i64(quote + 16)).isEqualTo(frame.destinationLow());
            tuple = tuple(frame.i64(quote + 24), frame.i64(quote + 32), frame.u16(quote + 42),
                frame.i64(quote + 8), frame.i64(quote + 16), frame.u16(quote + 40));
            assertThat(frame.u16(quote + 40)).isEqualTo(AddressPlan.TCP_PORT);
            assertThat(frame.i32(quote + 44)).isEqualTo(open.get(tuple).acknowledgement);
        }
        else
        {
            assertThat(frame.u8(icmp)).isEqualTo(3);
            assertThat(frame.u8(icmp + 1)).isEqualTo(4);
            assertThat(frame.u16(icmp + 6)).isBetween(576, 1500);
            assertThat(frame.sourceLow()).isEqualTo(AddressPlan.PATH_ROUTER_V4.v4() & 0xFFFF_FFFFL);
            assertThat(frame.i32(quote + 12) & 0xFFFF_FFFFL).isEqualTo(frame.destinationLow());
            assertThat(quotedHeaderChecksumValid(frame, quote)).isTrue();
            tuple = tuple(0, frame.i32(quote + 16) & 0xFFFF_FFFFL, frame.u16(quote + 22),
                0, frame.i32(quote + 12) & 0xFFFF_FFFFL, frame.u16(quote + 20));
            assertThat(frame.u16(quote + 20)).isEqualTo(AddressPlan.TCP_PORT);
            assertThat(frame.i32(quote + 24)).isEqualTo(open.get(tuple).acknowledgement);
        }
        assertThat(open).as("an ICMP error about an open connection").containsKey(tuple);
        assertThat(frame.fragment()).isEqualTo(ParsedBurst.FRAGMENT_NONE);
    }

    private static boolean quotedHeaderChecksumValid(final TraceFrames.Frame frame, final int quote)
    {
        int sum = 0;
        for (int at = quote; at < quote + 20; at += 2)
        {
            sum += frame.u16(at);
        }
        while (sum > 0xFFFF)
        {
            sum = (sum >>> 16) + (sum & 0xFFFF);
        }
        return sum == 0xFFFF;
    }

    /** A connection from the client's side: client address and port, then the VIP and port. */
    private static String tuple(final long clientHigh, final long clientLow, final int clientPort,
        final long vipHigh, final long vipLow, final int vipPort)
    {
        return clientHigh + "/" + clientLow + ":" + clientPort + ">" + vipHigh + "/" + vipLow + ":" + vipPort;
    }
}
