package io.jvs.perf;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.PcapWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Writes the capture behind the replay-rate figure for established flows: {@code bench pipeline}'s load as
 * a pcap. First one SYN per flow, then ACKs of randomly chosen flows; 60-byte TCP frames from clients in
 * 100.64.0.0/10 (32768 ports each) to 10.0.0.100:80, from synth's router MAC to its balancer MAC, valid
 * checksums, seeded. Rules: one rr service of 16 NAT servers (see perf/RESULTS.md).
 * <pre>
 *   java -cp perf/target/benchmarks.jar io.jvs.perf.EstablishedFlowsTrace OUT.pcap FLOWS FRAMES RATE
 * </pre>
 */
public final class EstablishedFlowsTrace
{
    private static final int FRAME = 60;
    private static final long START_NS = 1_767_225_600_000_000_000L;

    private EstablishedFlowsTrace()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        if (args.length != 4)
        {
            System.err.println("usage: EstablishedFlowsTrace OUT.pcap FLOWS FRAMES FRAMES_PER_SECOND");
            System.exit(2);
        }
        write(Path.of(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]));
    }

    /**
     * @param flows       distinct client ends, each opened by a SYN before any ACK.
     * @param frames      frames in all.
     * @param ratePerSecond frames per second of capture time.
     */
    public static void write(final Path file, final int flows, final long frames, final long ratePerSecond)
        throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
        final long frame = Frames.addressOf(buffer);
        EthernetHeader.destination(frame, 0x02_00_00_00_00_10L);
        EthernetHeader.source(frame, 0x02_00_00_00_00_FEL);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, EthernetHeader.TYPE_IPV4);
        final long ip = frame + EthernetHeader.LENGTH;
        Frames.putU8(ip, 0x45);
        Frames.putU16(ip + 2, 40);
        Frames.putU16(ip + 6, 0x4000);
        Frames.putU8(ip + 8, 64);
        Frames.putU8(ip + 9, 6);
        Frames.putI32(ip + 16, IpAddress.parse("10.0.0.100").v4());
        final long tcp = ip + 20;
        Frames.putU16(tcp + 2, 80);
        Frames.putU8(tcp + 12, 0x50);
        Frames.putU16(tcp + 14, 65535);
        final int clientBase = IpAddress.parse("100.64.0.0").v4();
        final SplittableRandom random = new SplittableRandom(1);
        final long stepNs = 1_000_000_000L / ratePerSecond;
        long now = START_NS;
        try (PcapWriter writer = PcapWriter.open(file))
        {
            for (long i = 0; i < frames; i++)
            {
                final boolean opening = i < flows;
                final int flow = opening ? (int)i : random.nextInt(flows);
                Frames.putI32(ip + 12, clientBase + (flow >>> 15));
                Frames.putU16(tcp, 1024 + (flow & 0x7FFF));
                Frames.putU8(tcp + 13, opening ? 0x02 : 0x10);
                Frames.putU16(ip + 10, 0);
                Frames.putU16(ip + 10, Checksums.ipv4HeaderChecksum(ip));
                Frames.putU16(tcp + 16, 0);
                Frames.putU16(tcp + 16, Checksums.transportChecksumV4(ip + 12, 6, tcp, 20));
                writer.write(now, frame, FRAME);
                now += stepNs;
            }
        }
    }
}
