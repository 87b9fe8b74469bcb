package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.TestNetwork;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A short measurement, not a test (surefire does not run it): an AF_PACKET TX ring in gen floods fA with
 * 60-byte UDP frames, and an {@link AfPacketForwardingPair} in fwd forwards them to fB with
 * {@link MacRewriteLoop} on this thread. Prints the forwarded rate, the forwarder's CPU per frame and what it
 * allocated while measuring. Run as root with the test classpath:
 * {@code java --enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp ...
 * io.jvs.forwarder.port.packet.ForwardingRateProbe [seconds] [tx version 1|2] [receive burst] [linear|paged]}
 * (the last for the forwarder's transmit ring; the generator's is always linear).
 */
public final class ForwardingRateProbe
{
    private ForwardingRateProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        final int txVersion = args.length > 1 ? Integer.parseInt(args[1]) : AfPacket.TPACKET_V3;
        final int receiveBurst = args.length > 2 ? Integer.parseInt(args[2]) : AfPacketSettings.DEFAULT.receiveBurst();
        final boolean linear = args.length <= 3 || !"paged".equals(args[3]);
        final AfPacketSettings generatorSettings = AfPacketSettings.DEFAULT.withTxRing(txVersion, 64 << 10, 4096)
            .withReceiveBurst(receiveBurst);
        final AfPacketSettings settings = generatorSettings.withLinearTransmit(linear);
        try (ForwardingNetwork net = new ForwardingNetwork("afprate");
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", settings));
            AfPacketPort generator = TestNetwork.callIn(net.gen,
                () -> AfPacketPort.open(Syscalls.create(), 9, "g0", generatorSettings, AfPacketPort.Direction.TRANSMIT)))
        {
            System.out.println(pair.describe());
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread flood = new Thread(() -> flood(generator, running), "flood");
            flood.start();
            final MacRewriteLoop loop = new MacRewriteLoop(
                pair.receivePort(), pair.transmitPort(), TestPackets.NEW_DESTINATION, TestPackets.NEW_SOURCE);
            run(loop, 500_000_000L);

            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            for (int window = 0; window < 3; window++)
            {
                pair.receiveCounters().refresh();
                final long dropsBefore = pair.receiveCounters().kernelRxDropped();
                final long forwardedBefore = loop.forwarded();
                final long offeredBefore = generator.counters().txFrames();
                final long cpuBefore = threads.getCurrentThreadCpuTime();
                final long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
                final long start = System.nanoTime();
                final long polls = run(loop, seconds * 1_000_000_000L);
                final long elapsed = System.nanoTime() - start;
                final long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
                final long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
                final long forwarded = loop.forwarded() - forwardedBefore;
                final long offered = generator.counters().txFrames() - offeredBefore;
                pair.receiveCounters().refresh();
                System.out.printf("TX TPACKET_V%d: offered %.3f Mpps, forwarded %.3f Mpps, kernel rx drops %d, " +
                    "forwarder on CPU %.0f%% at %.0f ns/frame, %.1f frames per busy poll, allocated %d bytes%n",
                    txVersion + 1, offered * 1e3 / elapsed, forwarded * 1e3 / elapsed,
                    pair.receiveCounters().kernelRxDropped() - dropsBefore, cpu * 100.0 / elapsed,
                    (double)cpu / Math.max(1, forwarded), (double)forwarded / Math.max(1, polls), allocated);
            }
            running.set(false);
            flood.join();
            System.out.println("receive: " + pair.receiveCounters());
            System.out.println("transmit: " + pair.transmitCounters());
        }
    }

    /** @return polls that received something. */
    private static long run(final MacRewriteLoop loop, final long durationNs)
    {
        final long end = System.nanoTime() + durationNs;
        long busy = 0;
        while (System.nanoTime() < end)
        {
            for (int i = 0; i < 64; i++)
            {
                if (loop.poll(0) > 0)
                {
                    busy++;
                }
            }
        }
        return busy;
    }

    private static void flood(final AfPacketPort generator, final AtomicBoolean running)
    {
        final byte[] frame = TestPackets.udpV4(4000, 5000, 18);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment memory = arena.allocate(frame.length);
            MemorySegment.copy(frame, 0, memory, JAVA_BYTE, 0, frame.length);
            final FrameBurst burst = new FrameBurst();
            final int[] all = new int[64];
            for (int i = 0; i < all.length; i++)
            {
                burst.add(memory.address(), frame.length, frame.length, 0, 0);
                all[i] = i;
            }
            while (running.get())
            {
                generator.transmit(burst, all, all.length);
                generator.flush();
            }
        }
    }
}
