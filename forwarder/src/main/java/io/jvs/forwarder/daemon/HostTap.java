package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.Ifreq;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The exception path to the host: a TAP device through which frames that jvs took from an interface but that
 * belong to the host (the pipeline's {@code pass} verdict: traffic of a NAT real server that is no connection
 * of jvs's, a TCP segment to a VIP of no connection, which the kernel answers with a reset) reach the kernel's
 * stack. An XDP program cannot give a frame back once it has redirected it, and an AF_PACKET port's steal
 * program has already dropped the original, so the frame is written to the TAP, where the kernel receives it as
 * if from a wire. The TAP carries the interface's MAC, so frames addressed to the interface are for the host.
 * <p>
 * One device per jvs interface ({@code jvsN} for port N), multi-queue: each worker writes to a queue of its
 * own (IFF_MULTI_QUEUE, one descriptor per worker), so no two threads share a descriptor. The device has no
 * address; it only feeds the stack, whose answers leave by the routes as usual. Strict reverse-path filtering
 * would drop what arrives on it, so it is turned off there. It disappears when the daemon's descriptors close.
 */
final class HostTap implements AutoCloseable
{
    private static final long TUNSETIFF = 0x400454caL;
    private static final long SIOCGIFFLAGS = 0x8913;
    private static final long SIOCSIFFLAGS = 0x8914;
    private static final long SIOCSIFHWADDR = 0x8924;
    private static final short IFF_TAP = 0x0002;
    private static final short IFF_NO_PI = 0x1000;
    private static final short IFF_MULTI_QUEUE = 0x0100;
    private static final short ARPHRD_ETHER = 1;
    private static final int HWADDR_DATA_OFFSET = Ifreq.IFNAMSIZ + Short.BYTES;

    private final String name;
    private final int[] queues;
    private final Syscalls[] syscalls;
    private final long[] written;
    private final long[] failed;
    private boolean closed;

    private HostTap(final String name, final int workers)
    {
        this.name = name;
        this.queues = new int[workers];
        this.syscalls = new Syscalls[workers];
        this.written = new long[workers * 8];
        this.failed = new long[workers * 8];
    }

    /**
     * Creates the device with one queue per worker, gives it the interface's MAC and brings it up.
     *
     * @param control        the opening thread's bindings.
     * @param workerSyscalls each worker's bindings, used for its writes.
     * @param name           the device name, at most 15 characters.
     * @param mac            the interface's MAC.
     */
    static HostTap open(final Syscalls control, final Syscalls[] workerSyscalls, final String name, final byte[] mac)
    {
        final HostTap tap = new HostTap(name, workerSyscalls.length);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment request = arena.allocate(Ifreq.LAYOUT);
            for (int w = 0; w < workerSyscalls.length; w++)
            {
                final int fd = (int)Syscalls.check("open", control.open("/dev/net/tun",
                    Syscalls.O_RDWR | Syscalls.O_NONBLOCK | Syscalls.O_CLOEXEC), "the host path's TAP " + name);
                tap.queues[w] = fd;
                tap.syscalls[w] = workerSyscalls[w];
                request.fill((byte)0);
                name(request, name);
                request.set(JAVA_SHORT, Ifreq.FLAGS_OFFSET, (short)(IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE));
                Syscalls.check("ioctl(TUNSETIFF)", control.ioctl(fd, TUNSETIFF, request.address()),
                    "creating TAP " + name + " queue " + w + " (needs CAP_NET_ADMIN and /dev/net/tun)");
            }
            final int socket = (int)Syscalls.check("socket", control.socket(Sockets.AF_INET,
                Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0), "setting up TAP " + name);
            try
            {
                setMac(control, socket, request, name, mac);
                // SIOCSIFFLAGS sets every flag a user may change (dev_change_flags): read them and add IFF_UP, or
                // IFF_MULTICAST would be cleared with the rest.
                request.fill((byte)0);
                name(request, name);
                Syscalls.check("ioctl(SIOCGIFFLAGS)", control.ioctl(socket, SIOCGIFFLAGS, request.address()),
                    "reading TAP " + name + "'s flags");
                request.set(JAVA_SHORT, Ifreq.FLAGS_OFFSET,
                    (short)(request.get(JAVA_SHORT, Ifreq.FLAGS_OFFSET) | Ifreq.IFF_UP));
                Syscalls.check("ioctl(SIOCSIFFLAGS)", control.ioctl(socket, SIOCSIFFLAGS, request.address()),
                    "bringing TAP " + name + " up");
            }
            finally
            {
                control.close(socket);
            }
            tap.sysctl("net/ipv4/conf/" + name + "/rp_filter", "0");
            tap.sysctl("net/ipv6/conf/" + name + "/accept_ra", "0");
            return tap;
        }
        catch (final RuntimeException ex)
        {
            tap.close(control);
            throw ex;
        }
    }

    private static void setMac(final Syscalls control, final int socket, final MemorySegment request,
        final String name, final byte[] mac)
    {
        request.fill((byte)0);
        name(request, name);
        request.set(JAVA_SHORT, Ifreq.FLAGS_OFFSET, ARPHRD_ETHER);
        MemorySegment.copy(mac, 0, request, JAVA_BYTE, HWADDR_DATA_OFFSET, 6);
        Syscalls.check("ioctl(SIOCSIFHWADDR)", control.ioctl(socket, SIOCSIFHWADDR, request.address()),
            "giving TAP " + name + " its interface's MAC");
    }

    /**
     * Gives the TAP its interface's new MAC. The frames the worker writes into it keep their destination, the
     * interface's MAC; with another one on the TAP, eth_type_trans marks them PACKET_OTHERHOST and ip_rcv drops
     * them, so the host would no longer answer what jvs passes it (a reset for a VIP port without a service).
     * A TAP takes a new address while up (tun sets IFF_LIVE_ADDR_CHANGE on it).
     *
     * @param control the calling thread's bindings.
     * @param mac     the MAC in the low 48 bits.
     */
    void mac(final Syscalls control, final long mac)
    {
        final byte[] bytes = macBytes(mac);
        try (Arena arena = Arena.ofConfined())
        {
            final int socket = (int)Syscalls.check("socket", control.socket(Sockets.AF_INET,
                Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0), "setting up TAP " + name);
            try
            {
                setMac(control, socket, arena.allocate(Ifreq.LAYOUT), name, bytes);
            }
            finally
            {
                control.close(socket);
            }
        }
    }

    /** @return the MAC in the low 48 bits as six bytes, first on the wire first. */
    static byte[] macBytes(final long mac)
    {
        final byte[] bytes = new byte[6];
        for (int i = 0; i < 6; i++)
        {
            bytes[i] = (byte)(mac >>> (40 - 8 * i));
        }
        return bytes;
    }

    private static void name(final MemorySegment request, final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length >= Ifreq.IFNAMSIZ)
        {
            throw new IllegalArgumentException("interface name " + name + " is longer than 15 characters");
        }
        MemorySegment.copy(bytes, 0, request, JAVA_BYTE, Ifreq.NAME_OFFSET, bytes.length);
    }

    private void sysctl(final String key, final String value)
    {
        final Path path = Path.of("/proc/sys", key);
        try
        {
            if (Files.exists(path))
            {
                Files.writeString(path, value);
            }
        }
        catch (final IOException ex)
        {
            DaemonLog.warning("cannot set " + key.replace('/', '.') + " = " + value + " for the host path: " +
                ex.getMessage());
        }
    }

    String name()
    {
        return name;
    }

    /**
     * A worker hands one frame to the host (its own queue of the device; no errno capture, no allocation).
     *
     * @return whether the device took it.
     */
    boolean write(final int worker, final long address, final int length)
    {
        final long result = syscalls[worker].writeFrame(queues[worker], address, length);
        if (result == length)
        {
            written[worker * 8]++;
            return true;
        }
        failed[worker * 8]++;
        return false;
    }

    /** @return frames handed to the host (racy sum, for status). */
    long written()
    {
        long sum = 0;
        for (int w = 0; w < queues.length; w++)
        {
            sum += written[w * 8];
        }
        return sum;
    }

    /** @return frames the device refused (its queue full while the kernel lagged). */
    long failed()
    {
        long sum = 0;
        for (int w = 0; w < queues.length; w++)
        {
            sum += failed[w * 8];
        }
        return sum;
    }

    private void close(final Syscalls control)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final int fd : queues)
        {
            if (fd > 0)
            {
                control.close(fd);
            }
        }
    }

    @Override
    public void close()
    {
        close(Syscalls.create());
    }

    @Override
    public String toString()
    {
        return name;
    }
}
