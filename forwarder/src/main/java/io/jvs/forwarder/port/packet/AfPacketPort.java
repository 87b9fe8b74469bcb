package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.TcPrograms;
import io.jvs.nativebindings.bpf.TcxDirection;
import io.jvs.nativebindings.bpf.TcxLink;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.TpacketStatsV3;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A port on an AF_PACKET socket pair: a TPACKET_V3 receive ring whose frames are lent to bursts in place, and a
 * PACKET_TX_RING on a second socket into which transmitted frames are copied. See the package documentation
 * for what AF_PACKET means for the host (the kernel still processes every frame we receive).
 * <p>
 * Per burst: {@link #receive} makes no system call (it reads the ring); {@link #transmit} copies into free
 * slots and makes none; {@link #release} hands fully released blocks back with a store; {@link #flush} makes
 * one {@code sendto(MSG_DONTWAIT)} when frames were queued (or a previous kick was refused for lack of
 * buffer). Nothing allocates after {@link #open}. One thread polls a port; {@link #close} is idempotent.
 * <p>
 * With {@link AfPacketSettings#steal()} other than NONE a receiving port also owns a tcx ingress link on its
 * device that drops every frame, or exactly jvs's traffic, after the socket's copy (see the package
 * documentation), attached once the socket is bound and detached first on close. With fanout mode
 * PACKET_FANOUT_EBPF the receive socket installs the group's program after joining it.
 */
public final class AfPacketPort implements Port
{
    /** Which rings a port has: each is a socket and a mapping of its own. */
    public enum Direction
    {
        /** Only the receive ring: {@link #transmit} drops and counts everything as txRingFull. */
        RECEIVE,
        /** Only the transmit ring: {@link #receive} returns nothing. */
        TRANSMIT,
        /** Both rings, for forwarding back out of the interface frames came in by. */
        BOTH;

        boolean receives()
        {
            return this != TRANSMIT;
        }

        boolean transmits()
        {
            return this != RECEIVE;
        }
    }

    private final int index;
    private final String name;
    private final String device;
    private final Syscalls syscalls;
    private final AfPacketSettings settings;
    private final Direction direction;
    private final AfPacketCounters counters = new AfPacketCounters(this);
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statistics = arena.allocate(TpacketStatsV3.LAYOUT);
    private final MemorySegment optionLength = arena.allocate(JAVA_INT);
    private final MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
    private PacketSocket receiveSocket;
    private PacketSocket transmitSocket;
    private ReceiveRing receiveRing;
    private TransmitRing transmitRing;
    private TcxLink stealLink;
    private int queuedSinceKick;
    private boolean kickRefused;
    private boolean closed;

    private AfPacketPort(
        final int index, final String device, final Syscalls syscalls, final AfPacketSettings settings,
        final Direction direction)
    {
        this.index = index;
        this.device = device;
        this.name = "afpacket:" + device;
        this.syscalls = syscalls;
        this.settings = settings;
        this.direction = direction;
    }

    /**
     * Opens the rings on an interface of the calling thread's network namespace.
     *
     * @param syscalls  the system calls, used by this port only from now on (not thread-safe).
     * @param index     the port's number.
     * @param device    the interface, e.g. "eth0"; it must exist and be up.
     * @param settings  ring geometry and options.
     * @param direction which rings to open.
     * @return the port, ready to poll.
     * @throws AfPacketException when the interface is missing or down.
     * @throws io.jvs.nativebindings.NativeCallException when a system call fails (EPERM names CAP_NET_RAW).
     */
    public static AfPacketPort open(
        final Syscalls syscalls, final int index, final String device, final AfPacketSettings settings,
        final Direction direction)
    {
        return open(syscalls, index, device, settings, direction, AfPacketPrograms.NONE);
    }

    /**
     * Opens the rings as {@link #open(Syscalls, int, String, AfPacketSettings, Direction)} does, with the BPF
     * objects the settings call for: the fanout group's program (mode PACKET_FANOUT_EBPF) and the maps of the
     * selective steal ({@link AfPacketSteal#JVS_TRAFFIC}). The group's array of sockets is in the order they
     * joined, so with {@code FanoutPrograms.clientDispatch} the workers open their ports one after another, worker
     * 0 first: socket {@code i} is then worker {@code i}'s (until one leaves the group).
     *
     * @param programs what the settings need, shared by the device's ports; the caller closes them.
     * @throws IllegalArgumentException when the settings need a program or maps that {@code programs} lacks, or
     *                                  {@code programs} has a fanout program the settings do not use.
     */
    public static AfPacketPort open(
        final Syscalls syscalls, final int index, final String device, final AfPacketSettings settings,
        final Direction direction, final AfPacketPrograms programs)
    {
        checkPrograms(device, settings, direction, programs);
        final AfPacketPort port = new AfPacketPort(index, device, syscalls, settings, direction);
        try
        {
            final int ifindex = syscalls.ifNameToIndex(device);
            if (ifindex < 0)
            {
                throw new AfPacketException("no interface named " + device + " in this network namespace");
            }
            if (direction.receives())
            {
                port.receiveSocket = PacketSocket.openReceive(syscalls, device, ifindex, settings,
                    settings.fanoutByProgram() ? programs.fanout().fd() : PacketSocket.NO_PROGRAM);
                port.receiveRing = new ReceiveRing(
                    port.receiveSocket.ring(), settings.rxBlockSize(), settings.rxBlockCount());
                if (settings.stealFrames())
                {
                    port.stealLink = steal(syscalls, device, settings.steal(), programs.jvsTraffic());
                }
            }
            if (direction.transmits())
            {
                port.transmitSocket = PacketSocket.openTransmit(syscalls, device, ifindex, settings);
                port.transmitRing = new TransmitRing(
                    port.transmitSocket.ring(), settings.txVersion(), settings.txFrameSize(), settings.txFrameCount(),
                    settings.linearTransmit());
            }
            return port;
        }
        catch (final RuntimeException ex)
        {
            port.close();
            throw ex;
        }
    }

    /**
     * A port with both rings on no device: their memory is anonymous and {@link SimulatedPacketKernel} plays the
     * kernel's side (see {@link PacketSocket#simulated}). It steals nothing and joins no fanout group.
     */
    static AfPacketPort simulated(final Syscalls syscalls, final int index, final AfPacketSettings settings)
    {
        final AfPacketPort port = new AfPacketPort(index, "simulated" + index, syscalls, settings, Direction.BOTH);
        try
        {
            port.receiveSocket = PacketSocket.simulated(syscalls, (long)settings.rxBlockSize() * settings.rxBlockCount());
            port.receiveRing = new ReceiveRing(port.receiveSocket.ring(), settings.rxBlockSize(),
                settings.rxBlockCount());
            final int blocks = settings.txFrameCount() / (settings.txBlockSize() / settings.txFrameSize());
            port.transmitSocket = PacketSocket.simulated(syscalls, (long)settings.txBlockSize() * blocks);
            port.transmitRing = new TransmitRing(port.transmitSocket.ring(), settings.txVersion(),
                settings.txFrameSize(), settings.txFrameCount(), settings.linearTransmit());
            return port;
        }
        catch (final RuntimeException ex)
        {
            port.close();
            throw ex;
        }
    }

    /** @return the socket of the receive ring (a simulated port's, for {@link SimulatedPacketKernel}). */
    PacketSocket receiveSocket()
    {
        return receiveSocket;
    }

    /** @return the socket of the transmit ring. */
    PacketSocket transmitSocket()
    {
        return transmitSocket;
    }

    private static void checkPrograms(final String device, final AfPacketSettings settings,
        final Direction direction, final AfPacketPrograms programs)
    {
        if (!direction.receives())
        {
            return;
        }
        if (settings.fanoutByProgram() && programs.fanout() == null)
        {
            throw new IllegalArgumentException("AF_PACKET port on " + device + ": fanout group " +
                settings.fanoutGroup() + " is PACKET_FANOUT_EBPF, which needs the group's program " +
                "(AfPacketPrograms.withFanout, e.g. FanoutPrograms.load)");
        }
        if (!settings.fanoutByProgram() && programs.fanout() != null)
        {
            throw new IllegalArgumentException("AF_PACKET port on " + device + ": a fanout program was given but " +
                "the settings' fanout is not PACKET_FANOUT_EBPF (" + settings.describe() + ")");
        }
        if (settings.steal() == AfPacketSteal.JVS_TRAFFIC && programs.jvsTraffic() == null)
        {
            throw new IllegalArgumentException("AF_PACKET port on " + device + ": stealing JVS_TRAFFIC needs the " +
                "VIP, real-server and local-address maps (AfPacketPrograms.withJvsTraffic)");
        }
    }

    /** After the bind: no frame is dropped before the socket can have its copy. The link holds the program. */
    private static TcxLink steal(
        final Syscalls syscalls, final String device, final AfPacketSteal mode, final XdpVipFilter jvsTraffic)
    {
        try (BpfProgram program = mode == AfPacketSteal.ALL ? TcPrograms.loadDropAll(syscalls) :
            TcPrograms.loadStealJvsTraffic(syscalls, jvsTraffic))
        {
            return TcxLink.attach(syscalls, program, device, TcxDirection.INGRESS);
        }
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public String name()
    {
        return name;
    }

    /** @return the interface. */
    public String device()
    {
        return device;
    }

    /** @return the rings this port has, their geometry and options. */
    public String describe()
    {
        return name + " " + direction + ": " + settings.describe() + (stealLink == null ? "" :
            settings.steal() == AfPacketSteal.ALL ? "; steals frames (tcx ingress drop)" :
                "; steals jvs's traffic (tcx ingress drop of what jvs forwards)");
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        final ReceiveRing ring = receiveRing;
        if (ring == null || closed)
        {
            return 0;
        }
        final int limit = Math.min(burst.count + settings.receiveBurst(), FrameBurst.MAX_FRAMES);
        return ring.receive(burst, nowNs, limit, counters);
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        final TransmitRing ring = transmitRing;
        if (ring == null || closed)
        {
            counters.add(PortCountersDescriptor.TX_RING_FULL, count);
            return 0;
        }
        int queued = 0;
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            final int frame = indices[i];
            final int length = burst.length(frame);
            final int result = ring.offer(burst.address(frame), length);
            if (result == TransmitRing.QUEUED)
            {
                queued++;
                bytes += length;
            }
            else if (result == TransmitRing.RING_FULL)
            {
                counters.add(PortCountersDescriptor.TX_RING_FULL, 1);
            }
            else
            {
                counters.add(PortCountersDescriptor.TX_TOO_LONG, 1);
            }
        }
        counters.add(PortCountersDescriptor.TX_FRAMES, queued);
        counters.add(PortCountersDescriptor.TX_COPIED, queued);
        counters.add(PortCountersDescriptor.TX_BYTES, bytes);
        queuedSinceKick += queued;
        return queued;
    }

    @Override
    public void release(final FrameBurst burst)
    {
        if (receiveRing != null && !closed)
        {
            receiveRing.release(burst, counters);
        }
    }

    @Override
    public void flush()
    {
        if ((queuedSinceKick == 0 && !kickRefused) || closed)
        {
            return;
        }
        final long result = syscalls.kickTransmit(transmitSocket.fd());
        counters.add(PortCountersDescriptor.WAKEUPS, 1);
        queuedSinceKick = 0;
        // Refused, mostly for want of socket buffer (EAGAIN, ENOBUFS): the frames stay in the ring as SEND_REQUEST
        // and the next flush kicks again. Whatever the reason, since the kick's errno is a hint (it is read without
        // capture); an error that persists costs one sendto per poll until it clears, and is counted.
        kickRefused = result < 0;
        if (result < 0 && result != -Errno.EAGAIN && result != -Errno.ENOBUFS)
        {
            counters.add(PortCountersDescriptor.TX_KICK_ERRORS, 1);
        }
    }

    /** Frames queued since the last kick, or left in the ring as SEND_REQUEST by a refused one. */
    @Override
    public boolean transmitPending()
    {
        return !closed && (queuedSinceKick != 0 || kickRefused);
    }

    /** @return the receive socket, for poll(2): readable when the kernel has retired a block; -1 without one. */
    public int receiveFd()
    {
        return receiveSocket == null ? -1 : receiveSocket.fd();
    }

    /**
     * Waits until the receive socket has frames, for a worker with nothing to do: one {@code poll(2)}.
     *
     * @param timeoutMs the longest wait.
     * @return whether frames are ready.
     */
    public boolean awaitFrames(final int timeoutMs)
    {
        if (receiveSocket == null || closed)
        {
            return false;
        }
        pollFd.set(JAVA_INT, PollFd.FD_OFFSET, receiveSocket.fd());
        pollFd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        pollFd.set(JAVA_SHORT, PollFd.REVENTS_OFFSET, (short)0);
        counters.add(PortCountersDescriptor.WAKEUPS, 1);
        return syscalls.pollIdle(pollFd.address(), 1, timeoutMs) > 0;
    }

    @Override
    public AfPacketCounters counters()
    {
        return counters;
    }

    /** Adds the receive socket's PACKET_STATISTICS (reset by each read) to the counters. */
    void readKernelStatistics(final PortCounters into)
    {
        if (receiveSocket == null || closed)
        {
            return;
        }
        optionLength.set(JAVA_INT, 0, TpacketStatsV3.SIZE);
        final int result = syscalls.getsockopt(receiveSocket.fd(), AfPacket.SOL_PACKET, AfPacket.PACKET_STATISTICS,
            statistics.address(), optionLength.address());
        Syscalls.check("getsockopt PACKET_STATISTICS", result, name);
        into.addKernel(PortCountersDescriptor.KERNEL_RX_DROPPED,
            Integer.toUnsignedLong(statistics.get(JAVA_INT, TpacketStatsV3.DROPS_OFFSET)));
        if (into instanceof AfPacketCounters packet)
        {
            packet.addKernel(PortCountersDescriptor.KERNEL_RX_PACKETS,
                Integer.toUnsignedLong(statistics.get(JAVA_INT, TpacketStatsV3.PACKETS_OFFSET)));
            packet.addKernel(PortCountersDescriptor.KERNEL_RX_FREEZES,
                Integer.toUnsignedLong(statistics.get(JAVA_INT, TpacketStatsV3.FREEZE_Q_CNT_OFFSET)));
        }
    }

    /** @return frames received and not yet released (for tests). */
    int framesLent()
    {
        return receiveRing == null ? 0 : receiveRing.framesLent();
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        // The originals go back to the kernel before the socket stops copying them: no window where nobody sees them.
        if (stealLink != null)
        {
            stealLink.close();
        }
        if (receiveSocket != null)
        {
            receiveSocket.close();
        }
        if (transmitSocket != null)
        {
            transmitSocket.close();
        }
        arena.close();
    }
}
