package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

import io.jvs.forwarder.port.SimulatedKicks;
import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.Ifreq;
import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.xdp.AfXdp;
import io.jvs.nativebindings.xdp.SockaddrXdp;
import io.jvs.nativebindings.xdp.XdpDesc;
import io.jvs.nativebindings.xdp.XdpMmapOffsets;
import io.jvs.nativebindings.xdp.XdpOptions;
import io.jvs.nativebindings.xdp.XdpRingOffset;

/**
 * One AF_XDP socket bound to a (device, queue), with its four rings mapped. The first socket on a UMEM owns
 * it (registers it); later ones share it with exactly XDP_SHARED_UMEM and the owner's fd, as the kernel
 * demands, and inherit its copy or zero-copy mode. Every socket here has fill and completion rings of its
 * own, which the kernel requires when a shared socket sits on another device or queue.
 * <p>
 * Order matters: the rings are mapped before bind (the kernel maps them only while the socket is unbound),
 * and unmapped before close (a mapping holds the socket, and with it the queue, until it goes).
 */
final class XdpSocket implements AutoCloseable
{
    private static final int RING_COUNT = 4;
    /** ioctl: the interface's hardware address, a struct sockaddr at the union of the ifreq. */
    private static final long SIOCGIFHWADDR = 0x8927;
    /** The MAC in that sockaddr: after the union's start and the 2-byte sa_family. */
    private static final int HARDWARE_ADDRESS_OFFSET = Ifreq.IFNAMSIZ + Short.BYTES;
    private static final int MAC_LENGTH = 6;
    private static final int BUSY_POLL_MICROSECONDS = 20;

    private final Syscalls syscalls;
    private final String device;
    private final int ifindex;
    private final int queue;
    private final long[] mappingAddresses = new long[RING_COUNT];
    private final long[] mappingLengths = new long[RING_COUNT];
    private final byte[] mac = new byte[MAC_LENGTH];
    private int fd = -1;
    /** A simulated socket's descriptor and where its kicks go; null for a real socket. */
    private SimulatedKicks kicks;
    private int mappings;
    private XdpRing rx;
    private XdpRing tx;
    private XdpRing fill;
    private XdpRing completion;
    private boolean zeroCopy;
    private String modeNote = "";
    private int busyRetries;

    private XdpSocket(final Syscalls syscalls, final String device, final int ifindex, final int queue)
    {
        this.syscalls = syscalls;
        this.device = device;
        this.ifindex = ifindex;
        this.queue = queue;
    }

    /**
     * Opens, sets up and binds a socket in the calling thread's network namespace.
     *
     * @param owner null for the UMEM's owner, else the owner socket to share the UMEM with.
     * @throws AfXdpPortException  when the interface is missing or down.
     * @throws NativeCallException when the kernel refuses a step (it names the step, errno and privilege).
     */
    static XdpSocket open(final Syscalls syscalls, final String device, final int queue, final Umem umem,
        final XdpSocket owner, final AfXdpSettings settings)
    {
        final int ifindex = syscalls.ifNameToIndex(device);
        if (ifindex < 0)
        {
            throw new AfXdpPortException("there is no interface named " + device + " in this network namespace");
        }
        final String context = "AF_XDP socket on " + device + " queue " + queue;
        final XdpSocket socket = new XdpSocket(syscalls, device, ifindex, queue);
        socket.fd = (int)Syscalls.check("socket", syscalls.socket(AfXdp.AF_XDP, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC,
            0), context);
        try (Arena arena = Arena.ofConfined())
        {
            socket.checkUp(arena);
            if (owner == null)
            {
                umem.register(socket.fd, context);
            }
            socket.setRingSize(arena, AfXdp.XDP_UMEM_FILL_RING, settings.fillRingSize(), context);
            socket.setRingSize(arena, AfXdp.XDP_UMEM_COMPLETION_RING, settings.completionRingSize(), context);
            socket.setRingSize(arena, AfXdp.XDP_RX_RING, settings.rxRingSize(), context);
            socket.setRingSize(arena, AfXdp.XDP_TX_RING, settings.txRingSize(), context);
            socket.mapRings(arena, settings, context);
            socket.bind(arena, owner, settings.bindMode(), context);
            socket.zeroCopy = socket.readZeroCopy(arena, context);
            if (settings.busyPollBudget() > 0)
            {
                socket.preferBusyPolling(arena, settings.busyPollBudget(), context);
            }
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /** Where a simulated ring keeps its indexes, flags and entries: each on a cache line of its own. */
    static final long SIMULATED_PRODUCER = 0;
    static final long SIMULATED_CONSUMER = 128;
    static final long SIMULATED_FLAGS = 256;
    static final long SIMULATED_ENTRIES = 384;

    /**
     * A socket bound to no device whose four rings are anonymous memory, for {@link SimulatedXdpKernel} to play the
     * kernel's side. Its descriptor is {@link SimulatedKicks}': kicks succeed, and fail with EAGAIN while the
     * simulated kernel is behind, as a real copy-mode socket's do. The TX ring asks for kicks, as a copy-mode
     * socket's does.
     *
     * @param name what the port calls its device, e.g. "warm-up0".
     */
    static XdpSocket simulated(final Syscalls syscalls, final String name, final AfXdpSettings settings)
    {
        final XdpSocket socket = new XdpSocket(syscalls, name, 0, 0);
        socket.kicks = SimulatedKicks.open(syscalls, "a simulated AF_XDP socket");
        socket.fd = socket.kicks.fd();
        try
        {
            socket.rx = socket.mapSimulated(settings.rxRingSize(), XdpDesc.SIZE);
            socket.tx = socket.mapSimulated(settings.txRingSize(), XdpDesc.SIZE);
            socket.fill = socket.mapSimulated(settings.fillRingSize(), AfXdp.UMEM_RING_ENTRY_SIZE);
            socket.completion = socket.mapSimulated(settings.completionRingSize(), AfXdp.UMEM_RING_ENTRY_SIZE);
            socket.tx.flags(AfXdp.XDP_RING_NEED_WAKEUP);
            socket.modeNote = " (simulated)";
            return socket;
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    private XdpRing mapSimulated(final int size, final int entrySize)
    {
        final long length = XdpRing.mappingLength(SIMULATED_ENTRIES, size, entrySize);
        final long address = Syscalls.check("mmap", syscalls.mmap(0, length, Mmap.PROT_READ | Mmap.PROT_WRITE,
            Mmap.MAP_PRIVATE | Mmap.MAP_ANONYMOUS | Mmap.MAP_POPULATE, -1, 0), "a simulated AF_XDP ring");
        mappingAddresses[mappings] = address;
        mappingLengths[mappings] = length;
        mappings++;
        return new XdpRing(MemorySegment.ofAddress(address).reinterpret(length), size, SIMULATED_PRODUCER,
            SIMULATED_CONSUMER, SIMULATED_FLAGS, SIMULATED_ENTRIES, entrySize);
    }

    /**
     * Reads the interface's flags and MAC. An AF_XDP socket answers no interface ioctls (EOPNOTSUPP): ask
     * through a UDP socket, which needs no privilege.
     */
    private void checkUp(final Arena arena)
    {
        final MemorySegment request = arena.allocate(Ifreq.LAYOUT);
        request.setString(Ifreq.NAME_OFFSET, device);
        final int udp = (int)Syscalls.check("socket", syscalls.socket(Sockets.AF_INET,
            Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0), "asking whether " + device + " is up");
        final MemorySegment hardware = arena.allocate(Ifreq.LAYOUT);
        hardware.setString(Ifreq.NAME_OFFSET, device);
        final int result = syscalls.ioctl(udp, Ifreq.SIOCGIFFLAGS, request.address());
        final int hardwareResult = syscalls.ioctl(udp, SIOCGIFHWADDR, hardware.address());
        syscalls.close(udp);
        Syscalls.check("ioctl SIOCGIFFLAGS", result, device);
        Syscalls.check("ioctl SIOCGIFHWADDR", hardwareResult, device);
        MemorySegment.copy(hardware, ValueLayout.JAVA_BYTE, HARDWARE_ADDRESS_OFFSET, mac, 0, MAC_LENGTH);
        if ((request.get(ValueLayout.JAVA_SHORT, Ifreq.FLAGS_OFFSET) & Ifreq.IFF_UP) == 0)
        {
            throw new AfXdpPortException("interface " + device + " is down: bring it up first (ip link set " +
                device + " up)");
        }
    }

    /** The 20 µs busy-poll time is DPDK af_xdp's: long enough for a burst, short enough not to stall TX. */
    private void preferBusyPolling(final Arena arena, final int budget, final String context)
    {
        final MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
        value.set(ValueLayout.JAVA_INT, 0, 1);
        Syscalls.check("setsockopt SO_PREFER_BUSY_POLL", syscalls.setsockopt(fd, Sockets.SOL_SOCKET,
            Sockets.SO_PREFER_BUSY_POLL, value.address(), Integer.BYTES), context);
        value.set(ValueLayout.JAVA_INT, 0, BUSY_POLL_MICROSECONDS);
        Syscalls.check("setsockopt SO_BUSY_POLL", syscalls.setsockopt(fd, Sockets.SOL_SOCKET,
            Sockets.SO_BUSY_POLL, value.address(), Integer.BYTES), context);
        value.set(ValueLayout.JAVA_INT, 0, budget);
        Syscalls.check("setsockopt SO_BUSY_POLL_BUDGET", syscalls.setsockopt(fd, Sockets.SOL_SOCKET,
            Sockets.SO_BUSY_POLL_BUDGET, value.address(), Integer.BYTES), context);
    }

    private void setRingSize(final Arena arena, final int option, final int size, final String context)
    {
        final MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
        value.set(ValueLayout.JAVA_INT, 0, size);
        Syscalls.check("setsockopt " + ringName(option), syscalls.setsockopt(fd, AfXdp.SOL_XDP, option,
            value.address(), Integer.BYTES), context + ", " + size + " entries");
    }

    private void mapRings(final Arena arena, final AfXdpSettings settings, final String context)
    {
        final MemorySegment offsets = arena.allocate(XdpMmapOffsets.SIZE, 8);
        final MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
        length.set(ValueLayout.JAVA_INT, 0, XdpMmapOffsets.SIZE);
        Syscalls.check("getsockopt XDP_MMAP_OFFSETS", syscalls.getsockopt(fd, AfXdp.SOL_XDP, AfXdp.XDP_MMAP_OFFSETS,
            offsets.address(), length.address()), context);
        rx = map(offsets, XdpMmapOffsets.RX_OFFSET, AfXdp.XDP_PGOFF_RX_RING, settings.rxRingSize(), XdpDesc.SIZE,
            context);
        tx = map(offsets, XdpMmapOffsets.TX_OFFSET, AfXdp.XDP_PGOFF_TX_RING, settings.txRingSize(), XdpDesc.SIZE,
            context);
        fill = map(offsets, XdpMmapOffsets.FILL_OFFSET, AfXdp.XDP_UMEM_PGOFF_FILL_RING, settings.fillRingSize(),
            AfXdp.UMEM_RING_ENTRY_SIZE, context);
        completion = map(offsets, XdpMmapOffsets.COMPLETION_OFFSET, AfXdp.XDP_UMEM_PGOFF_COMPLETION_RING,
            settings.completionRingSize(), AfXdp.UMEM_RING_ENTRY_SIZE, context);
    }

    private XdpRing map(final MemorySegment offsets, final int ring, final long pageOffset, final int size,
        final int entrySize, final String context)
    {
        final long producer = offsets.get(ValueLayout.JAVA_LONG, ring + XdpRingOffset.PRODUCER_OFFSET);
        final long consumer = offsets.get(ValueLayout.JAVA_LONG, ring + XdpRingOffset.CONSUMER_OFFSET);
        final long entries = offsets.get(ValueLayout.JAVA_LONG, ring + XdpRingOffset.DESC_OFFSET);
        final long flags = offsets.get(ValueLayout.JAVA_LONG, ring + XdpRingOffset.FLAGS_OFFSET);
        final long length = XdpRing.mappingLength(entries, size, entrySize);
        final long address = Syscalls.check("mmap", syscalls.mmap(0, length, Mmap.PROT_READ | Mmap.PROT_WRITE,
            Mmap.MAP_SHARED | Mmap.MAP_POPULATE, fd, pageOffset), context + ", ring at page offset 0x" +
            Long.toHexString(pageOffset));
        mappingAddresses[mappings] = address;
        mappingLengths[mappings] = length;
        mappings++;
        return new XdpRing(MemorySegment.ofAddress(address).reinterpret(length), size, producer, consumer, flags,
            entries, entrySize);
    }

    private void bind(final Arena arena, final XdpSocket owner, final XdpBindMode mode, final String context)
    {
        if (owner != null)
        {
            // Exactly XDP_SHARED_UMEM: any mode flag beside it is EINVAL; the mode is the owner's.
            bindRetryingBusy(arena, AfXdp.XDP_SHARED_UMEM, owner.fd, context + " sharing the UMEM of " + owner.name());
            zeroCopy = owner.zeroCopy;
            return;
        }
        switch (mode)
        {
            case COPY -> bindRetryingBusy(arena, flags(AfXdp.XDP_COPY), 0, context + " in copy mode");
            case ZEROCOPY -> bindRetryingBusy(arena, flags(AfXdp.XDP_ZEROCOPY), 0, context + " in zero-copy mode");
            case AUTO ->
            {
                final int result = bindRetryingBusyQuietly(arena, flags(AfXdp.XDP_ZEROCOPY), 0);
                if (result == -Errno.EOPNOTSUPP)
                {
                    modeNote = " (zero-copy not supported by " + device + ": fell back to copy)";
                    bindRetryingBusy(arena, flags(AfXdp.XDP_COPY), 0, context + " in copy mode");
                }
                else
                {
                    Syscalls.check("bind", result, context + " (zero-copy if the driver offers it, else copy)" +
                        (result == -Errno.EBUSY ? ", after retrying for 1 s" : ""));
                }
            }
            default -> throw new IllegalStateException("unknown bind mode " + mode);
        }
    }

    private static short flags(final short mode)
    {
        return (short)(mode | AfXdp.XDP_USE_NEED_WAKEUP);
    }

    private void bindRetryingBusy(final Arena arena, final short flags, final int sharedFd, final String context)
    {
        final int result = bindRetryingBusyQuietly(arena, flags, sharedFd);
        Syscalls.check("bind", result, context + (result == -Errno.EBUSY ? ", after retrying for 1 s" : ""));
    }

    /** The kernel releases a queue some milliseconds after its last socket closes: EBUSY until then. */
    private int bindRetryingBusyQuietly(final Arena arena, final short flags, final int sharedFd)
    {
        final MemorySegment address = arena.allocate(SockaddrXdp.LAYOUT);
        address.set(ValueLayout.JAVA_SHORT, SockaddrXdp.FAMILY_OFFSET, (short)AfXdp.AF_XDP);
        address.set(ValueLayout.JAVA_SHORT, SockaddrXdp.FLAGS_OFFSET, flags);
        address.set(ValueLayout.JAVA_INT, SockaddrXdp.IFINDEX_OFFSET, ifindex);
        address.set(ValueLayout.JAVA_INT, SockaddrXdp.QUEUE_ID_OFFSET, queue);
        address.set(ValueLayout.JAVA_INT, SockaddrXdp.SHARED_UMEM_FD_OFFSET, sharedFd);
        final long deadline = System.nanoTime() + AfXdpSettings.BIND_RETRY_NS;
        int result;
        while ((result = syscalls.bind(fd, address.address(), SockaddrXdp.SIZE)) == -Errno.EBUSY &&
            System.nanoTime() - deadline < 0)
        {
            busyRetries++;
            LockSupport.parkNanos(5_000_000L);
        }
        return result;
    }

    private boolean readZeroCopy(final Arena arena, final String context)
    {
        final MemorySegment options = arena.allocate(XdpOptions.LAYOUT);
        final MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
        length.set(ValueLayout.JAVA_INT, 0, XdpOptions.SIZE);
        Syscalls.check("getsockopt XDP_OPTIONS", syscalls.getsockopt(fd, AfXdp.SOL_XDP, AfXdp.XDP_OPTIONS,
            options.address(), length.address()), context);
        return (options.get(ValueLayout.JAVA_INT, XdpOptions.FLAGS_OFFSET) & AfXdp.XDP_OPTIONS_ZEROCOPY) != 0;
    }

    private static String ringName(final int option)
    {
        return switch (option)
        {
            case AfXdp.XDP_RX_RING -> "XDP_RX_RING";
            case AfXdp.XDP_TX_RING -> "XDP_TX_RING";
            case AfXdp.XDP_UMEM_FILL_RING -> "XDP_UMEM_FILL_RING";
            default -> "XDP_UMEM_COMPLETION_RING";
        };
    }

    int fd()
    {
        return fd;
    }

    /** @return a simulated socket's kicks; null for a real socket. */
    SimulatedKicks kicks()
    {
        return kicks;
    }

    String device()
    {
        return device;
    }

    int ifindex()
    {
        return ifindex;
    }

    int queue()
    {
        return queue;
    }

    /** @return the device's MAC address, read when the socket was opened. */
    byte[] mac()
    {
        return mac.clone();
    }

    XdpRing rx()
    {
        return rx;
    }

    XdpRing tx()
    {
        return tx;
    }

    XdpRing fill()
    {
        return fill;
    }

    XdpRing completion()
    {
        return completion;
    }

    boolean zeroCopy()
    {
        return zeroCopy;
    }

    /** @return binds that met EBUSY and were retried. */
    int busyRetries()
    {
        return busyRetries;
    }

    /** @return "copy" or "zero-copy", with a note when AUTO fell back. */
    String mode()
    {
        return (zeroCopy ? "zero-copy" : "copy") + modeNote;
    }

    String name()
    {
        return device + "/" + queue;
    }

    /** Unmaps the rings, then closes the socket: in that order, or the queue stays bound. Idempotent. */
    @Override
    public void close()
    {
        for (int i = mappings - 1; i >= 0; i--)
        {
            syscalls.munmap(mappingAddresses[i], mappingLengths[i]);
        }
        mappings = 0;
        rx = null;
        tx = null;
        fill = null;
        completion = null;
        if (kicks != null)
        {
            kicks.close();
            fd = -1;
        }
        else if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
    }
}
