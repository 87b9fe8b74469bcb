package io.jvs.forwarder.synth;

import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.TimestampPrecision;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Writes seeded, reproducible capture files of what the balancer's client-facing port receives from the
 * router in front of it, and the ipvsadm rules of the services they are addressed to, for
 * {@code jvs replay} and for tests.
 * <pre>
 * SynthSettings settings = SynthSettings.builder().seed(7).packets(1_000_000).build();
 * SynthSummary summary = TraceSynthesizer.synthesize(settings, Path.of("farm.pcap"));
 * Files.writeString(Path.of("farm.rules"), TraceSynthesizer.rules(settings));
 * </pre>
 * The traffic: clients (Zipf-popular, some on IPv6, some behind a VLAN tag) open TCP connections to
 * dual-stack services (Zipf-popular) and send UDP requests to port 53 of the first service, some in
 * fragments; routers on the clients' paths report replies as too big; a few frames are malformed.
 * Only the client-to-service direction is in the file: a direct-routing or tunnelling balancer sees no
 * replies, and a NAT balancer's replies arrive on the server side, which this trace does not model.
 * Addresses and MACs are those of {@link AddressPlan}; frames are Ethernet, timestamps follow the rate
 * exactly from the start time. The same settings give the same bytes, on any JVM: the only randomness
 * is the seed's.
 */
public final class TraceSynthesizer
{
    /** The buffer one frame is built in: a full-size frame with a VLAN tag fits with room to spare. */
    private static final int FRAME_ROOM = 4096;

    private TraceSynthesizer()
    {
    }

    /**
     * Writes the trace.
     *
     * @param settings what to write.
     * @param pcapOut  the capture file, created or truncated: classic pcap, Ethernet.
     * @return what was written.
     * @throws IOException when the file cannot be written.
     */
    public static SynthSummary synthesize(final SynthSettings settings, final Path pcapOut) throws IOException
    {
        final TimestampPrecision precision = settings.nanosecondTimestamps() ?
            TimestampPrecision.NANOSECONDS : TimestampPrecision.MICROSECONDS;
        try (Arena arena = Arena.ofConfined();
             PcapWriter writer = PcapWriter.open(pcapOut, precision, LinkType.ETHERNET, PcapWriter.DEFAULT_SNAP_LENGTH))
        {
            final MemorySegment memory = arena.allocate(FRAME_ROOM + FrameFactory.MEMORY_LENGTH, 64);
            memory.fill((byte)0);
            final long frame = memory.address();
            final FrameFactory factory = new FrameFactory(frame + FRAME_ROOM, settings.seed());
            return new TraceRun(settings, writer, frame, factory).run();
        }
    }

    /**
     * @return the rules, one ipvsadm command a line as {@code ipvsadm -S -n} writes them: for each service an
     * IPv4 and an IPv6 TCP virtual service on port 80 with its real servers, then the UDP port 53 services on
     * the first service's addresses, with the first service's servers.
     */
    public static String rules(final SynthSettings settings)
    {
        return RulesText.of(settings);
    }
}
