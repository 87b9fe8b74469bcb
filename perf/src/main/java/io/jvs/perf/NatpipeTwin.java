package io.jvs.perf;

import io.jvs.core.memory.CachePrefetch;
import io.jvs.core.packet.Frames;
import io.jvs.forwarder.memory.HugePageAllocator;
import io.jvs.forwarder.memory.NativeCachePrefetch;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The per-packet work of {@code ../shared/bench/natpipe} (the hand-written C peer of {@code bench pipeline --mode
 * nat}), written in Java as directly as the C and nothing more: the same frames written per burst, the same two
 * passes, the same 32-byte entries at load 0.5 in huge pages, the same checksum arithmetic, no classification, no
 * neighbour lookup, no latency histogram, no sweep, no drop accounting by reason, no frame descriptors. It measures
 * what the language costs on the C's own work on this machine, beside the C and beside jvs in the same run
 * ({@code perf/pipeline-vs-c.sh}), so that jvs's ratio to the C can be split into the language's part and the part
 * of jvs's extra stages.
 * <p>
 * The departures, each what jvs itself does where the language leaves no choice: Java has no prefetch instruction,
 * so the first pass gathers the burst's home lines and one call of the native prefetch routine the pipeline uses
 * ({@link NativeCachePrefetch}) brings them in, where the C prefetches each as it parses; and the 60-byte template
 * is copied in 8-byte moves ({@link Frames#copy}), where the C's memcpy is inlined.
 * <pre>
 *   taskset -c 1 java -cp perf/target/benchmarks.jar io.jvs.perf.NatpipeTwin FLOWS SECONDS
 *   java-twin flows=... Mpps=... ns/packet=... drops=0 check=1
 * </pre>
 */
public final class NatpipeTwin
{
    private static final int BURST = 32;
    private static final int SERVERS = 16;
    private static final int FRAME_STRIDE = 2048;
    private static final int FRAME_LENGTH = 60;
    /** Counters a cache line apart, as the C's {@code srv_pkts[s * 8]}. */
    private static final int COUNTER_STRIDE = 8;

    // The C's entry_t, field by field.
    private static final int ENTRY = 32;
    private static final int CLIENT_ADDRESS = 0;
    private static final int VIRTUAL_ADDRESS = 4;
    private static final int CLIENT_PORT = 8;
    private static final int VIRTUAL_PORT = 10;
    private static final int SERVER_ADDRESS = 12;
    private static final int SERVER_PORT = 16;
    private static final int STATE = 18;
    private static final int SERVER = 19;
    private static final int EXPIRES = 20;
    private static final int USED = 24;

    private final long flows;
    private final long table;
    private final long mask;
    private final long[] serverPackets = new long[SERVERS * COUNTER_STRIDE];
    private final long[] serverBytes = new long[SERVERS * COUNTER_STRIDE];
    private final int[] serverAddress = new int[SERVERS];
    private final long[] serverMac = new long[SERVERS];
    // The buffers are held, not only their addresses: a direct buffer's memory is freed once the buffer is collected.
    private final ByteBuffer frameMemory = BufferUtil.allocateDirectAligned(BURST * FRAME_STRIDE, 4096);
    private final long frames = BufferUtil.address(frameMemory);
    private final ByteBuffer templateMemory = BufferUtil.allocateDirectAligned(64, 64);
    private final long template = BufferUtil.address(templateMemory);
    private final UnsafeBuffer prefetchList = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BURST * 8, 64));
    private final CachePrefetch prefetch = NativeCachePrefetch.best();
    private final long[] home = new long[BURST];
    private final int virtualAddress = 0x0A00_0064;
    private final int clientBase = 0x6440_0000;
    private long random = 0x9E37_79B9_7F4A_7C15L;
    private long packets;
    private long drops;
    private int tick;

    private NatpipeTwin(final long flows)
    {
        this.flows = flows;
        long slots = 1;
        while (slots < flows * 2)
        {
            slots <<= 1;
        }
        mask = slots - 1;
        // Resident from the start, as the C's memset makes its table.
        table = HugePageAllocator.FAULTED_IN.allocate(slots * ENTRY).address();
        for (int s = 0; s < SERVERS; s++)
        {
            serverAddress[s] = 0xC0A8_0100 + s + 1;
            serverMac[s] = 0x0200_0000_0100L + s + 1;
        }
        for (long f = 0; f < flows; f++)
        {
            final long entry = insert(clientBase + (int)(f >>> 15), (int)(1024 + (f & 0x7FFF)), virtualAddress, 80);
            final int server = (int)(f % SERVERS);
            UnsafeApi.putByte(entry + SERVER, (byte)server);
            UnsafeApi.putInt(entry + SERVER_ADDRESS, serverAddress[server]);
            UnsafeApi.putShort(entry + SERVER_PORT, (short)80);
            UnsafeApi.putByte(entry + STATE, (byte)1);
        }
        final byte[] ethernet = {2, 0, 0, 0, 0, 0x10, 2, 0, 0, 0, 0, (byte)0xFE, 8, 0};
        for (int b = 0; b < 64; b++)
        {
            UnsafeApi.putByte(template + b, b < ethernet.length ? ethernet[b] : 0);
        }
        final long ip = template + 14;
        UnsafeApi.putByte(ip, (byte)0x45);
        UnsafeApi.putByte(ip + 3, (byte)40);
        UnsafeApi.putByte(ip + 6, (byte)0x40);
        UnsafeApi.putByte(ip + 8, (byte)64);
        UnsafeApi.putByte(ip + 9, (byte)6);
        UnsafeApi.putInt(ip + 16, Integer.reverseBytes(virtualAddress));
        final long tcp = ip + 20;
        UnsafeApi.putByte(tcp + 3, (byte)80);
        UnsafeApi.putByte(tcp + 12, (byte)0x50);
        UnsafeApi.putByte(tcp + 13, (byte)0x10);
        UnsafeApi.putByte(tcp + 14, (byte)0xFF);
        UnsafeApi.putByte(tcp + 15, (byte)0xFF);
    }

    public static void main(final String[] args)
    {
        final long flows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        final double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        if (flows < 1 || flows > 1L << 27 || !(seconds > 0))
        {
            System.err.println("usage: NatpipeTwin [FLOWS (1..134217728)] [SECONDS (> 0)]");
            System.exit(2);
        }
        final NatpipeTwin twin = new NatpipeTwin(flows);
        final long start = System.nanoTime();
        final long deadline = start + (long)(seconds * 1e9);
        while (true)
        {
            twin.burst();
            if ((twin.packets & 0xFFFF) < BURST && System.nanoTime() > deadline)
            {
                break;
            }
        }
        final double elapsed = (System.nanoTime() - start) / 1e9;
        long counted = 0;
        for (int s = 0; s < SERVERS; s++)
        {
            counted += twin.serverPackets[s * COUNTER_STRIDE];
        }
        System.out.printf("java-twin flows=%d Mpps=%.2f ns/packet=%.1f drops=%d check=%d%n", flows,
            twin.packets / elapsed / 1e6, elapsed * 1e9 / twin.packets, twin.drops, counted == twin.packets ? 1 : 0);
    }

    private long home(final int address, final int port)
    {
        final long key = ((address & 0xFFFF_FFFFL) << 16 | port) * 0x9E37_79B9_7F4A_7C15L;
        return (key >>> 20) & mask & ~1L;
    }

    private long insert(final int clientAddress, final int clientPort, final int virtual, final int virtualPort)
    {
        for (long i = home(clientAddress, clientPort); ; i = (i + 1) & mask)
        {
            final long entry = table + i * ENTRY;
            if (UnsafeApi.getInt(entry + USED) == 0)
            {
                UnsafeApi.putInt(entry + USED, 1);
                UnsafeApi.putInt(entry + CLIENT_ADDRESS, clientAddress);
                UnsafeApi.putShort(entry + CLIENT_PORT, (short)clientPort);
                UnsafeApi.putInt(entry + VIRTUAL_ADDRESS, virtual);
                UnsafeApi.putShort(entry + VIRTUAL_PORT, (short)virtualPort);
                return entry;
            }
        }
    }

    /** @return the entry's address, or 0. */
    private long lookup(final int clientAddress, final int clientPort, final int virtual, final int virtualPort)
    {
        for (long i = home(clientAddress, clientPort); ; i = (i + 1) & mask)
        {
            final long entry = table + i * ENTRY;
            if (UnsafeApi.getInt(entry + USED) == 0)
            {
                return 0;
            }
            if (UnsafeApi.getInt(entry + CLIENT_ADDRESS) == clientAddress &&
                (UnsafeApi.getShort(entry + CLIENT_PORT) & 0xFFFF) == clientPort &&
                UnsafeApi.getInt(entry + VIRTUAL_ADDRESS) == virtual &&
                (UnsafeApi.getShort(entry + VIRTUAL_PORT) & 0xFFFF) == virtualPort)
            {
                return entry;
            }
        }
    }

    // The C's csum_upd32 and csum_upd16, with its mix of byte orders (a field read as stored, values in host order):
    // the same arithmetic, whether or not the sum it gives is the right one.
    private static int checksumUpdate32(final int checksum, final int from, final int to)
    {
        int sum = ~checksum & 0xFFFF;
        sum += ~(from >>> 16) & 0xFFFF;
        sum += ~from & 0xFFFF;
        sum += to >>> 16;
        sum += to & 0xFFFF;
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return ~sum & 0xFFFF;
    }

    private static int checksumUpdate16(final int checksum, final int from, final int to)
    {
        int sum = ~checksum & 0xFFFF;
        sum += ~from & 0xFFFF;
        sum += to;
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return ~sum & 0xFFFF;
    }

    private static int networkShort(final long address)
    {
        return Short.reverseBytes(UnsafeApi.getShort(address)) & 0xFFFF;
    }

    private static int networkInt(final long address)
    {
        return Integer.reverseBytes(UnsafeApi.getInt(address));
    }

    private void burst()
    {
        // The "NIC" writes the burst.
        long state = random;
        for (int i = 0; i < BURST; i++)
        {
            state ^= state << 13;
            state ^= state >>> 7;
            state ^= state << 17;
            final long flow = Long.remainderUnsigned(state, flows);
            final long frame = frames + (long)i * FRAME_STRIDE;
            Frames.copy(template, frame, FRAME_LENGTH);
            UnsafeApi.putInt(frame + 26, Integer.reverseBytes(clientBase + (int)(flow >>> 15)));
            UnsafeApi.putShort(frame + 34, Short.reverseBytes((short)(1024 + (flow & 0x7FFF))));
        }
        random = state;

        // Pass 1: parse, hash, gather the home lines.
        final long list = prefetchList.addressOffset();
        int toPrefetch = 0;
        for (int i = 0; i < BURST; i++)
        {
            final long frame = frames + (long)i * FRAME_STRIDE;
            home[i] = -1;
            if (UnsafeApi.getShort(frame + 12) != (short)0x0008)
            {
                continue;
            }
            final long ip = frame + 14;
            final int versionAndLength = UnsafeApi.getByte(ip) & 0xFF;
            if (versionAndLength >>> 4 != 4 || (versionAndLength & 15) < 5)
            {
                continue;
            }
            final int totalLength = networkShort(ip + 2);
            if (totalLength < 40 || 14 + totalLength > FRAME_LENGTH || UnsafeApi.getByte(ip + 9) != 6)
            {
                continue;
            }
            final long slot = home(networkInt(ip + 12), networkShort(ip + 20));
            home[i] = slot;
            UnsafeApi.putLong(list + (long)toPrefetch++ * 8, table + slot * ENTRY);
        }
        prefetch.lines(list, toPrefetch);
        tick++;

        // Pass 2: track, count, rewrite.
        for (int i = 0; i < BURST; i++)
        {
            if (home[i] == -1)
            {
                drops++;
                continue;
            }
            final long frame = frames + (long)i * FRAME_STRIDE;
            final long ip = frame + 14;
            final long tcp = ip + 20;
            final long entry = lookup(networkInt(ip + 12), networkShort(tcp), networkInt(ip + 16),
                networkShort(tcp + 2));
            if (entry == 0)
            {
                drops++;
                continue;
            }
            if ((UnsafeApi.getByte(tcp + 13) & 0x01) != 0)
            {
                UnsafeApi.putByte(entry + STATE, (byte)2);
            }
            UnsafeApi.putInt(entry + EXPIRES, tick + 900);
            final int server = UnsafeApi.getByte(entry + SERVER) & 0xFF;
            serverPackets[server * COUNTER_STRIDE]++;
            serverBytes[server * COUNTER_STRIDE] += FRAME_LENGTH;
            if ((UnsafeApi.getByte(ip + 8) & 0xFF) <= 1)
            {
                drops++;
                continue;
            }
            final int oldDestination = UnsafeApi.getInt(ip + 16);
            final int newDestinationHost = UnsafeApi.getInt(entry + SERVER_ADDRESS);
            final int oldPort = UnsafeApi.getShort(tcp + 2) & 0xFFFF;
            final int newPortHost = UnsafeApi.getShort(entry + SERVER_PORT) & 0xFFFF;
            final int oldDestinationHost = Integer.reverseBytes(oldDestination);
            UnsafeApi.putShort(ip + 10, (short)checksumUpdate32(UnsafeApi.getShort(ip + 10) & 0xFFFF,
                oldDestinationHost, newDestinationHost));
            final int ttlBefore = networkShort(ip + 8);
            UnsafeApi.putByte(ip + 8, (byte)(UnsafeApi.getByte(ip + 8) - 1));
            UnsafeApi.putShort(ip + 10, (short)checksumUpdate16(UnsafeApi.getShort(ip + 10) & 0xFFFF, ttlBefore,
                networkShort(ip + 8)));
            UnsafeApi.putShort(tcp + 16, (short)checksumUpdate16(checksumUpdate32(
                UnsafeApi.getShort(tcp + 16) & 0xFFFF, oldDestinationHost, newDestinationHost),
                Short.reverseBytes((short)oldPort) & 0xFFFF, newPortHost));
            UnsafeApi.putInt(ip + 16, Integer.reverseBytes(newDestinationHost));
            UnsafeApi.putShort(tcp + 2, Short.reverseBytes((short)newPortHost));
            final long mac = serverMac[server];
            for (int b = 0; b < 6; b++)
            {
                UnsafeApi.putByte(frame + b, (byte)(mac >>> (40 - 8 * b)));
            }
            UnsafeApi.putInt(frame + 6, 0x0000_0002);
            UnsafeApi.putShort(frame + 10, (short)0x1000);
            packets++;
        }
    }
}
