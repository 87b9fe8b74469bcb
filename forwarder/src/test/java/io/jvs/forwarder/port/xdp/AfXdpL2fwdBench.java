package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;

/**
 * A by-hand throughput check of the AF_XDP pair on veth (not a test: two cores are needed, one per role).
 * Run each role in its namespace, pinned to its own CPU:
 * <pre>
 *   taskset -c 1 ip netns exec fwd java ... AfXdpL2fwdBench fwd fA fB SKB 8
 *   taskset -c 0 ip netns exec gen java ... AfXdpL2fwdBench gen g0 5
 * </pre>
 * The generator is itself an AF_XDP port in copy mode (64-byte UDP frames, bursts of 64, two kicks per
 * burst); the forwarder is {@link MacRewriteLoop} over an {@link AfXdpForwardingPair}, and reports the
 * rate between its first and last received frame.
 */
public final class AfXdpL2fwdBench
{
    private static final int BURST = 64;
    private static final int FRAME_LENGTH = 60;

    private AfXdpL2fwdBench()
    {
    }

    public static void main(final String[] args)
    {
        if (args[0].equals("gen"))
        {
            generate(args[1], Integer.parseInt(args[2]));
        }
        else
        {
            forward(args[1], args[2], XdpMode.valueOf(args[3]), Integer.parseInt(args[4]));
        }
    }

    private static void generate(final String device, final int seconds)
    {
        final AfXdpSettings settings = AfXdpSettings.defaults(XdpMode.SKB).withBindMode(XdpBindMode.COPY);
        try (AfXdpForwardingPair pair = AfXdpForwardingPair.open(Syscalls.create(), device, device, settings);
             Arena arena = Arena.ofConfined())
        {
            final Port port = pair.transmitPort();
            final FrameBurst burst = new FrameBurst();
            final int[] indices = new int[BURST];
            for (int i = 0; i < BURST; i++)
            {
                final MemorySegment frame = arena.allocate(FRAME_LENGTH, 64);
                udpFrame(frame, i);
                indices[i] = burst.add(frame.address(), FRAME_LENGTH, FRAME_LENGTH, 0, 0);
            }
            final long start = System.nanoTime();
            final long end = start + seconds * 1_000_000_000L;
            long now = start;
            while (now < end)
            {
                port.transmit(burst, indices, BURST);
                port.flush();
                now = System.nanoTime();
            }
            final double elapsed = (now - start) / 1e9;
            System.out.printf("gen %s: queued %d frames in %.2f s = %.3f Mpps, %s%n", device,
                port.counters().txFrames, elapsed, port.counters().txFrames / elapsed / 1e6, port.counters());
        }
    }

    private static void forward(final String receive, final String transmit, final XdpMode mode, final int seconds)
    {
        try (AfXdpForwardingPair pair = AfXdpForwardingPair.open(Syscalls.create(), receive, transmit,
            AfXdpSettings.defaults(mode)))
        {
            System.out.println(pair.describe());
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(),
                ForwardingNetwork.SINK_MAC, ForwardingNetwork.TRANSMIT_MAC);
            final long end = System.nanoTime() + seconds * 1_000_000_000L;
            long first = 0;
            long last = 0;
            long polls = 0;
            long busyPolls = 0;
            long now;
            while ((now = System.nanoTime()) < end)
            {
                polls++;
                if (loop.poll(now) > 0)
                {
                    busyPolls++;
                    if (first == 0)
                    {
                        first = now;
                    }
                    last = now;
                }
            }
            pair.receivePort().counters().refresh();
            final double elapsed = Math.max(1, last - first) / 1e9;
            System.out.printf("fwd: received %d forwarded %d dropped %d in %.2f s = %.3f Mpps, avg burst %.1f, " +
                "polls %d%n  rx %s%n  tx %s%n", loop.received(), loop.forwarded(), loop.dropped(), elapsed,
                loop.forwarded() / elapsed / 1e6, busyPolls == 0 ? 0.0 : (double)loop.received() / busyPolls, polls,
                pair.receivePort().counters(), pair.transmitPort().counters());
        }
    }

    /** Ethernet + IPv4 + UDP, 10.77.1.1 to 10.77.2.2, 60 bytes (64 on the wire with the FCS). */
    private static void udpFrame(final MemorySegment frame, final int flow)
    {
        final byte[] bytes = new byte[FRAME_LENGTH];
        System.arraycopy(ForwardingNetwork.RECEIVE_MAC, 0, bytes, 0, 6);
        bytes[6] = 0x02;
        bytes[11] = 0x01;
        bytes[12] = 0x08;
        bytes[14] = 0x45;
        bytes[17] = (byte)(FRAME_LENGTH - 14);
        bytes[22] = 64;
        bytes[23] = 17;
        bytes[26] = 10;
        bytes[27] = 77;
        bytes[28] = 1;
        bytes[29] = 1;
        bytes[30] = 10;
        bytes[31] = 77;
        bytes[32] = 2;
        bytes[33] = 2;
        bytes[34] = (byte)(10000 + flow >>> 8);
        bytes[35] = (byte)(10000 + flow);
        bytes[36] = 0x27;
        bytes[37] = 0x0F;
        bytes[39] = (byte)(FRAME_LENGTH - 34);
        MemorySegment.copy(bytes, 0, frame, ValueLayout.JAVA_BYTE, 0, FRAME_LENGTH);
    }
}
