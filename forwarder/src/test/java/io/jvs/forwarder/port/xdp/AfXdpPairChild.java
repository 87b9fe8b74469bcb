package io.jvs.forwarder.port.xdp;

import java.io.InputStream;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;

/**
 * A process that holds an AF_XDP forwarding pair for {@link AfXdpKillTest}, started inside the test's fwd
 * namespace: {@code AfXdpPairChild RX TX SKB|DRV}. It opens the pair, prints {@code ready <description>},
 * forwards on a thread of its own, and closes the pair and exits at the end of its input (so it never
 * outlives a test JVM that dies).
 */
public final class AfXdpPairChild
{
    private AfXdpPairChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final AfXdpSettings settings = AfXdpSettings.defaults(XdpMode.valueOf(args[2])).withChunks(4096)
            .withRings(1024, 1024, 1024, 1024);
        try (AfXdpForwardingPair pair = AfXdpForwardingPair.open(Syscalls.create(), args[0], args[1], settings))
        {
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(),
                ForwardingNetwork.SINK_MAC, ForwardingNetwork.TRANSMIT_MAC);
            final Thread forwarder = new Thread(() ->
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    if (loop.poll(System.nanoTime()) == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "forwarder");
            System.out.println("ready " + pair.describe());
            System.out.flush();
            forwarder.start();
            final InputStream input = System.in;
            while (input.read() >= 0)
            {
                // Nothing to obey: only the end of input matters.
            }
            forwarder.interrupt();
            forwarder.join();
        }
    }
}
