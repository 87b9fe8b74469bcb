package io.jvs.forwarder.synth;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SynthTraceTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(longs = {1, 20260101, -7})
    void shouldWriteAsManyPacketsAsAskedOnTheRateSchedule(final long seed) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(12_345).ratePps(30_000).build();
        final Path file = directory.resolve("trace.pcap");

        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);
        final List<TraceFrames.Frame> frames = TraceFrames.read(file);

        assertThat(summary.packets()).isEqualTo(12_345);
        assertThat(frames).hasSize(12_345);
        for (int i = 0; i < frames.size(); i++)
        {
            final long expected = SynthSettings.DEFAULT_START_EPOCH_NS + i * 1_000_000_000L / 30_000;
            assertThat(frames.get(i).timestampNs()).as("frame %d", i).isEqualTo(expected);
        }
        assertThat(summary.firstTimestampNs()).isEqualTo(frames.getFirst().timestampNs());
        assertThat(summary.lastTimestampNs()).isEqualTo(frames.getLast().timestampNs());
        assertThat(summary.tcpPackets() + summary.udpPackets() + summary.icmpErrors() + summary.malformedPackets())
            .isEqualTo(summary.packets());
    }

    @ParameterizedTest
    @ValueSource(longs = {3, 99})
    void shouldWriteWellFormedFramesWithRightChecksumsAndTheNamedDefectsOtherwise(final long seed) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(40_000).malformedShare(0.02)
            .icmpErrorShare(0.01).build();
        final Path file = directory.resolve("trace.pcap");

        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);

        final Map<DropReason, Long> drops = new EnumMap<>(DropReason.class);
        long wellFormed = 0;
        long ipv6 = 0;
        long vlan = 0;
        long fragments = 0;
        long icmp = 0;
        for (final TraceFrames.Frame frame : TraceFrames.read(file))
        {
            if (frame.verdict() != 0)
            {
                assertThat(Verdict.kind(frame.verdict())).isEqualTo(Verdict.DROP);
                drops.merge(DropReason.of(Verdict.reason(frame.verdict())), 1L, Long::sum);
                continue;
            }
            wellFormed++;
            assertThat(frame.checksumsValid()).as("checksums of a well-formed frame").isTrue();
            assertThat(frame.ttl()).isEqualTo(64);
            assertThat((long)frame.u16(0) << 32 | frame.i32(2) & 0xFFFF_FFFFL).isEqualTo(AddressPlan.BALANCER_MAC);
            assertThat((long)frame.u16(6) << 32 | frame.i32(8) & 0xFFFF_FFFFL).isEqualTo(AddressPlan.ROUTER_MAC);
            ipv6 += frame.isV6() ? 1 : 0;
            vlan += frame.u16(EthernetHeader.TYPE_OFFSET) == EthernetHeader.TYPE_VLAN ? 1 : 0;
            fragments += frame.fragment() != ParsedBurst.FRAGMENT_NONE ? 1 : 0;
            icmp += frame.protocol() == 1 || frame.protocol() == 58 ? 1 : 0;
        }
        assertThat(wellFormed).isEqualTo(summary.packets() - summary.malformedPackets());
        assertThat(ipv6).isEqualTo(summary.ipv6Packets());
        assertThat(vlan).isEqualTo(summary.vlanPackets());
        assertThat(fragments).isEqualTo(summary.fragments()).isPositive();
        assertThat(icmp).isEqualTo(summary.icmpErrors()).isPositive();

        final Map<DropReason, Long> expected = new EnumMap<>(DropReason.class);
        for (final MalformedKind kind : MalformedKind.values())
        {
            assertThat(summary.malformed(kind)).as(kind.label()).isPositive();
            expected.merge(kind.dropReason(), summary.malformed(kind), Long::sum);
        }
        assertThat(drops).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(longs = {5, 6})
    void shouldMixTrafficInTheSharesConfigured(final long seed) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(100_000).clients(5000)
            .zipfExponent(0.5).ipv6Share(0.3).vlanShare(0.25).udpShare(0.3).fragmentShare(0.2).rstShare(0.4)
            .malformedShare(0.01).icmpErrorShare(0.004).build();
        final Path file = directory.resolve("trace.pcap");

        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);

        final Set<String> clients = new HashSet<>();
        final Set<String> v6Clients = new HashSet<>();
        final Set<String> taggedClients = new HashSet<>();
        long datagrams = 0;
        long largeDatagrams = 0;
        long resets = 0;
        for (final TraceFrames.Frame frame : TraceFrames.read(file))
        {
            if (frame.verdict() != 0 || frame.protocol() == 1 || frame.protocol() == 58)
            {
                continue;
            }
            final String client = frame.sourceHigh() + "/" + frame.sourceLow();
            clients.add(client);
            if (frame.isV6())
            {
                v6Clients.add(client);
            }
            if (frame.u16(EthernetHeader.TYPE_OFFSET) == EthernetHeader.TYPE_VLAN)
            {
                taggedClients.add(client);
            }
            if (frame.protocol() == 17 && frame.fragment() != ParsedBurst.FRAGMENT_LATER)
            {
                datagrams++;
                largeDatagrams += frame.fragment() == ParsedBurst.FRAGMENT_FIRST ? 1 : 0;
            }
            resets += (frame.tcpFlags() & 0x04) != 0 ? 1 : 0;
        }
        assertThat(clients).hasSizeGreaterThan(1000);
        assertThat((double)v6Clients.size() / clients.size()).isCloseTo(0.3, within(0.05));
        assertThat((double)taggedClients.size() / clients.size()).isCloseTo(0.25, within(0.05));
        assertThat((double)summary.udpFlows() / (summary.udpFlows() + summary.tcpConnections()))
            .isCloseTo(0.3, within(0.03));
        assertThat((double)largeDatagrams / datagrams).isCloseTo(0.2, within(0.03));
        assertThat((double)resets / summary.tcpConnections()).isCloseTo(0.4, within(0.03));
        assertThat(resets).isEqualTo(summary.resetConnections());
        assertThat((double)summary.malformedPackets() / summary.packets()).isCloseTo(0.01, within(0.002));
        assertThat((double)summary.icmpErrors() / summary.packets()).isCloseTo(0.004, within(0.001));
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12})
    void shouldMakeTheFirstServiceTheMostPopular(final long seed) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(50_000).services(6).build();
        final Path file = directory.resolve("trace.pcap");

        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);

        final long[] syns = new long[settings.services()];
        for (final TraceFrames.Frame frame : TraceFrames.read(file))
        {
            if (frame.verdict() == 0 && frame.protocol() == 6 && frame.tcpFlags() == 0x02)
            {
                final int service = frame.isV6() ?
                    (int)(frame.destinationLow() - AddressPlan.FIRST_VIP_V6.low()) :
                    (int)frame.destinationLow() - AddressPlan.FIRST_VIP_V4.v4();
                syns[service]++;
            }
        }
        assertThat(syns).containsExactly(summary.tcpConnectionsPerService().stream().mapToLong(Long::longValue)
            .toArray());
        for (int service = 1; service < syns.length; service++)
        {
            assertThat(syns[0]).as("service 0 against %d", service).isGreaterThan(syns[service]);
        }
        assertThat(syns[1]).isGreaterThan(syns[5]);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldWriteMicrosecondFilesOnRequest(final boolean nanoseconds) throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().packets(1000).ratePps(300_000)
            .nanosecondTimestamps(nanoseconds).build();
        final Path file = directory.resolve("trace.pcap");

        TraceSynthesizer.synthesize(settings, file);

        final List<TraceFrames.Frame> frames = TraceFrames.read(file);
        final long last = frames.getLast().timestampNs() - SynthSettings.DEFAULT_START_EPOCH_NS;
        final long exact = 999 * 1_000_000_000L / 300_000;
        assertThat(last).isEqualTo(nanoseconds ? exact : exact / 1000 * 1000);
        final ByteBuffer header = ByteBuffer.wrap(java.nio.file.Files.readAllBytes(file), 0, 4);
        assertThat(Integer.reverseBytes(header.getInt())).isEqualTo(nanoseconds ? 0xA1B23C4D : 0xA1B2C3D4);
    }
}
