package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import io.jvs.forwarder.port.SimulatedKicks;
import io.jvs.nativebindings.Ifreq;
import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;
import io.jvs.nativebindings.packet.TpacketReq;
import io.jvs.nativebindings.packet.TpacketReq3;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * One AF_PACKET socket with its mapped ring, set up on the control path in the order the kernel needs:
 * version and reserve before the ring, the ring before the mapping, bind last (so no frame arrives before the
 * ring is there: the socket is opened with protocol 0, which receives nothing), fanout after bind, and a fanout
 * group's program after joining it. Every failure throws and leaves nothing open.
 */
final class PacketSocket implements AutoCloseable
{
    /**
     * The program of the socket's PACKET_FANOUT_CBPF/EBPF group: an int, the program's fd ({@code fanout_set_data},
     * EINVAL before the socket joins a group). linux/if_packet.h; not among the shared constants of AfPacket yet.
     */
    static final int PACKET_FANOUT_DATA = 22;
    /** No fanout program (the group's mode is not PACKET_FANOUT_EBPF). */
    static final int NO_PROGRAM = -1;

    private final Syscalls syscalls;
    private final int fd;
    private long ring;
    private long ringBytes;
    /** A simulated socket's descriptor and where its kicks go; null for a real socket. */
    private SimulatedKicks kicks;

    private PacketSocket(final Syscalls syscalls, final int fd)
    {
        this.syscalls = syscalls;
        this.fd = fd;
    }

    /**
     * A TPACKET_V3 receive ring bound to every protocol, not seeing our own transmissions, in a fanout group if
     * the settings name one.
     *
     * @param fanoutProgramFd the group's socket filter when its mode is PACKET_FANOUT_EBPF, else {@link #NO_PROGRAM}.
     */
    static PacketSocket openReceive(final Syscalls syscalls, final String device, final int ifindex,
        final AfPacketSettings settings, final int fanoutProgramFd)
    {
        final PacketSocket socket = open(syscalls, device, "receive");
        try (Arena scratch = Arena.ofConfined())
        {
            final String context = "AF_PACKET receive ring on " + device;
            socket.setInt(scratch, AfPacket.PACKET_VERSION, AfPacket.TPACKET_V3, "PACKET_VERSION", context);
            socket.setInt(scratch, AfPacket.PACKET_RESERVE, settings.headroom(), "PACKET_RESERVE", context);
            final MemorySegment request = scratch.allocate(TpacketReq3.LAYOUT);
            request.set(JAVA_INT, TpacketReq3.BLOCK_SIZE_OFFSET, settings.rxBlockSize());
            request.set(JAVA_INT, TpacketReq3.BLOCK_NR_OFFSET, settings.rxBlockCount());
            request.set(JAVA_INT, TpacketReq3.FRAME_SIZE_OFFSET, settings.rxFrameSize());
            request.set(JAVA_INT, TpacketReq3.FRAME_NR_OFFSET,
                settings.rxBlockSize() / settings.rxFrameSize() * settings.rxBlockCount());
            request.set(JAVA_INT, TpacketReq3.RETIRE_BLK_TOV_OFFSET, settings.retireTimeoutMs());
            socket.setRing(request, AfPacket.PACKET_RX_RING, TpacketReq3.SIZE,
                (long)settings.rxBlockSize() * settings.rxBlockCount(), context + " (" + settings.rxBlockCount() +
                " blocks of " + settings.rxBlockSize() + " bytes, frame size " + settings.rxFrameSize() + ")");
            // Without it a qdisc-path transmission of ours on this device would come back as a received frame.
            socket.setInt(scratch, AfPacket.PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING", context);
            socket.bind(scratch, Sockets.htons(AfPacket.ETH_P_ALL), ifindex, context);
            if (settings.fanoutGroup() != AfPacketSettings.NO_FANOUT)
            {
                socket.setInt(scratch, AfPacket.PACKET_FANOUT,
                    AfPacket.fanoutArgument(settings.fanoutGroup(), settings.fanoutModeFlags()), "PACKET_FANOUT",
                    context + " (fanout group " + settings.fanoutGroup() + ")");
            }
            if (fanoutProgramFd != NO_PROGRAM)
            {
                // The group has one program; each member setting it replaces it with the same one.
                socket.setInt(scratch, PACKET_FANOUT_DATA, fanoutProgramFd, "PACKET_FANOUT_DATA",
                    context + " (program of fanout group " + settings.fanoutGroup() + ")");
            }
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * A TX ring bound to the device with protocol 0, so it receives nothing; frames of wrong format are skipped
     * (PACKET_LOSS) rather than stopping the ring.
     */
    static PacketSocket openTransmit(
        final Syscalls syscalls, final String device, final int ifindex, final AfPacketSettings settings)
    {
        final PacketSocket socket = open(syscalls, device, "transmit");
        try (Arena scratch = Arena.ofConfined())
        {
            final String context = "AF_PACKET transmit ring on " + device;
            socket.setInt(scratch, AfPacket.PACKET_VERSION, settings.txVersion(), "PACKET_VERSION", context);
            socket.setInt(scratch, AfPacket.PACKET_LOSS, 1, "PACKET_LOSS", context);
            if (settings.linearTransmit())
            {
                socket.setInt(scratch, AfPacket.PACKET_VNET_HDR, 1, "PACKET_VNET_HDR", context);
            }
            if (settings.qdiscBypass())
            {
                socket.setInt(scratch, AfPacket.PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS", context);
            }
            final int blocks = settings.txFrameCount() / (settings.txBlockSize() / settings.txFrameSize());
            // V3 takes a tpacket_req3 whose V3-only fields are zero (block transmit does not exist).
            final MemorySegment request = scratch.allocate(TpacketReq3.LAYOUT);
            request.set(JAVA_INT, TpacketReq.BLOCK_SIZE_OFFSET, settings.txBlockSize());
            request.set(JAVA_INT, TpacketReq.BLOCK_NR_OFFSET, blocks);
            request.set(JAVA_INT, TpacketReq.FRAME_SIZE_OFFSET, settings.txFrameSize());
            request.set(JAVA_INT, TpacketReq.FRAME_NR_OFFSET, settings.txFrameCount());
            final int requestSize = settings.txVersion() == AfPacket.TPACKET_V3 ? TpacketReq3.SIZE : TpacketReq.SIZE;
            socket.setRing(request, AfPacket.PACKET_TX_RING, requestSize, (long)settings.txBlockSize() * blocks,
                context + " (" + settings.txFrameCount() + " frames of " + settings.txFrameSize() + " bytes in blocks of " +
                settings.txBlockSize() + ")");
            socket.bind(scratch, 0, ifindex, context);
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * A socket on no device whose ring is {@code ringBytes} of anonymous memory, for {@link SimulatedPacketKernel} to
     * play the kernel's side of. Its descriptor is {@link SimulatedKicks}': a transmit kick succeeds, and fails with
     * EAGAIN while the simulated kernel is behind, as real kicks do.
     */
    static PacketSocket simulated(final Syscalls syscalls, final long ringBytes)
    {
        final SimulatedKicks kicks = SimulatedKicks.open(syscalls, "a simulated AF_PACKET socket");
        final PacketSocket socket = new PacketSocket(syscalls, kicks.fd());
        socket.kicks = kicks;
        try
        {
            socket.ring = Syscalls.check("mmap", syscalls.mmap(0, ringBytes, Mmap.PROT_READ | Mmap.PROT_WRITE,
                Mmap.MAP_PRIVATE | Mmap.MAP_ANONYMOUS | Mmap.MAP_POPULATE, -1, 0), "a simulated AF_PACKET ring");
            socket.ringBytes = ringBytes;
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /** @return a simulated socket's kicks; null for a real socket. */
    SimulatedKicks kicks()
    {
        return kicks;
    }

    int fd()
    {
        return fd;
    }

    long ring()
    {
        return ring;
    }

    /** Unmaps the ring before closing, as the kernel wants. */
    @Override
    public void close()
    {
        if (ring != 0)
        {
            syscalls.munmap(ring, ringBytes);
            ring = 0;
        }
        if (kicks != null)
        {
            kicks.close();
        }
        else
        {
            syscalls.close(fd);
        }
    }

    private static PacketSocket open(final Syscalls syscalls, final String device, final String role)
    {
        final int fd = (int)Syscalls.check("socket",
            syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, 0),
            "AF_PACKET " + role + " socket for " + device);
        final PacketSocket socket = new PacketSocket(syscalls, fd);
        try (Arena scratch = Arena.ofConfined())
        {
            socket.requireUp(scratch, device);
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    private void requireUp(final Arena scratch, final String device)
    {
        final MemorySegment request = scratch.allocate(Ifreq.LAYOUT);
        final byte[] name = device.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(name, 0, request, JAVA_BYTE, Ifreq.NAME_OFFSET, Math.min(name.length, Ifreq.IFNAMSIZ - 1));
        Syscalls.check("ioctl SIOCGIFFLAGS", syscalls.ioctl(fd, Ifreq.SIOCGIFFLAGS, request.address()), device);
        if ((request.get(JAVA_SHORT, Ifreq.FLAGS_OFFSET) & Ifreq.IFF_UP) == 0)
        {
            throw new AfPacketException("interface " + device + " is down: ip link set " + device + " up");
        }
    }

    private void setRing(
        final MemorySegment request, final int option, final int requestSize, final long bytes, final String context)
    {
        Syscalls.check(option == AfPacket.PACKET_RX_RING ? "setsockopt PACKET_RX_RING" : "setsockopt PACKET_TX_RING",
            syscalls.setsockopt(fd, AfPacket.SOL_PACKET, option, request.address(), requestSize), context);
        ring = Syscalls.check("mmap", syscalls.mmap(0, bytes, Mmap.PROT_READ | Mmap.PROT_WRITE,
            Mmap.MAP_SHARED | Mmap.MAP_POPULATE, fd, 0), context + ", " + bytes + " bytes");
        ringBytes = bytes;
    }

    private void setInt(final Arena scratch, final int option, final int value, final String optionName,
        final String context)
    {
        final MemorySegment segment = scratch.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        Syscalls.check("setsockopt " + optionName,
            syscalls.setsockopt(fd, AfPacket.SOL_PACKET, option, segment.address(), Integer.BYTES), context);
    }

    private void bind(final Arena scratch, final int protocolNetworkOrder, final int ifindex, final String context)
    {
        final MemorySegment address = scratch.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT, SockaddrLl.PROTOCOL_OFFSET, (short)protocolNetworkOrder);
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, ifindex);
        Syscalls.check("bind", syscalls.bind(fd, address.address(), SockaddrLl.SIZE), context);
    }
}
