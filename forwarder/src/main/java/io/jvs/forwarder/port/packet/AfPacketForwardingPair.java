package io.jvs.forwarder.port.packet;

import io.jvs.forwarder.l2.ForwardingPair;
import io.jvs.nativebindings.Syscalls;

/**
 * The two ports of an L2 forwarder over AF_PACKET, for {@code jvs bench l2fwd --port afpacket}
 * ({@code AfPacketForwardingPair.open(Syscalls.create(), rx, tx, AfPacketSettings.DEFAULT)}): frames are
 * received on one interface and sent out of another, or out of the same one. Hand the ports to
 * {@link io.jvs.forwarder.l2.MacRewriteLoop} (both are {@link io.jvs.forwarder.port.Port}s):
 * <pre>{@code
 * try (AfPacketForwardingPair pair = AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", AfPacketSettings.DEFAULT))
 * {
 *     MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), dstMac, srcMac);
 *     while (running) { loop.poll(System.nanoTime()); }
 * }
 * }</pre>
 * With two interfaces, the receive port has only a receive ring and the transmit port only a transmit ring;
 * with one, a single port has both and is both ports. Open it, and poll it, on one thread, in the network
 * namespace of the interfaces.
 */
public final class AfPacketForwardingPair implements ForwardingPair
{
    private final AfPacketPort receivePort;
    private final AfPacketPort transmitPort;

    private AfPacketForwardingPair(final AfPacketPort receivePort, final AfPacketPort transmitPort)
    {
        this.receivePort = receivePort;
        this.transmitPort = transmitPort;
    }

    /**
     * @param syscalls        the system calls for both ports (one thread).
     * @param receiveDevice   where frames come in.
     * @param transmitDevice  where they go out; may be the receive device.
     * @param settings        ring geometry and options for both.
     * @return the open pair: port 0 receives, port 1 transmits (the same port, index 0, for one device).
     * @throws AfPacketException when an interface is missing or down.
     * @throws io.jvs.nativebindings.NativeCallException when a system call fails (EPERM names CAP_NET_RAW).
     */
    public static AfPacketForwardingPair open(
        final Syscalls syscalls, final String receiveDevice, final String transmitDevice,
        final AfPacketSettings settings)
    {
        if (receiveDevice.equals(transmitDevice))
        {
            final AfPacketPort port = AfPacketPort.open(syscalls, 0, receiveDevice, settings, AfPacketPort.Direction.BOTH);
            return new AfPacketForwardingPair(port, port);
        }
        final AfPacketPort in = AfPacketPort.open(syscalls, 0, receiveDevice, settings, AfPacketPort.Direction.RECEIVE);
        try
        {
            final AfPacketPort out = AfPacketPort.open(
                syscalls, 1, transmitDevice, settings, AfPacketPort.Direction.TRANSMIT);
            return new AfPacketForwardingPair(in, out);
        }
        catch (final RuntimeException ex)
        {
            in.close();
            throw ex;
        }
    }

    /** @return where frames come in; {@link AfPacketPort#awaitFrames} lets an idle worker sleep. */
    @Override
    public AfPacketPort receivePort()
    {
        return receivePort;
    }

    /** @return where frames go out: the receive port itself when both devices are one. */
    @Override
    public AfPacketPort transmitPort()
    {
        return transmitPort;
    }

    /** @return the receiving port's counters. */
    public AfPacketCounters receiveCounters()
    {
        return receivePort.counters();
    }

    /** @return the transmitting port's counters (the same object for one device). */
    public AfPacketCounters transmitCounters()
    {
        return transmitPort.counters();
    }

    /** @return both ports' rings, bypass and fanout, one line each. */
    @Override
    public String describe()
    {
        return receivePort == transmitPort ? receivePort.describe() :
            receivePort.describe() + System.lineSeparator() + transmitPort.describe();
    }

    @Override
    public void close()
    {
        // Idempotent ports: closing one port twice (one device) is harmless.
        transmitPort.close();
        receivePort.close();
    }
}
