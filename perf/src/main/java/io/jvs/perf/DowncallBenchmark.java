package io.jvs.perf;

import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.SockaddrIn;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

/**
 * What a system call costs through each {@link Syscalls} binding (issue 4: Panama FFM against jnr-ffi), for
 * calls the ports make: the kernel's work is the same in both, so the difference is the binding's.
 * <ul>
 *   <li>{@link #closeBadDescriptor}: {@code close(-1)}, about the cheapest system call there is, failing with
 *   EBADF: the transition, errno capture and the errno read of a failure;</li>
 *   <li>{@link #getsockopt}: {@code SO_TYPE} of a UDP socket, five arguments, two of them pointers;</li>
 *   <li>{@link #sendto}: a 64-byte datagram with MSG_DONTWAIT to a UDP socket of this process on 127.0.0.1,
 *   six arguments (jnr's path for six arguments; see {@code JnrSyscalls}). Nobody reads the receiver, so after
 *   its queue fills the kernel drops each datagram at the socket: the same work for both bindings;</li>
 *   <li>{@link #sendtoRecvfrom}: the same datagram sent and read back (recvfrom, MSG_DONTWAIT), so that it is
 *   delivered: two six-argument calls.</li>
 * </ul>
 * Setup checks every call's result once, through the binding measured.
 * <pre>
 *   java -jar perf/target/benchmarks.jar DowncallBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class DowncallBenchmark
{
    private static final int PAYLOAD = 64;
    private static final ValueLayout.OfShort NETWORK_U16 =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt NETWORK_U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The binding measured. */
    @Param({"panama", "jnr"})
    public String binding;

    private Syscalls syscalls;
    private Arena arena;
    private int sender;
    private int receiver;
    private long payload;
    private long destination;
    private long received;
    private long option;
    private long optionLength;

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        syscalls = Syscalls.create(binding);
        arena = Arena.ofShared();
        payload = arena.allocate(PAYLOAD).fill((byte)0x5A).address();
        sender = udpSocket();
        receiver = udpSocket();
        destination = bindLoopback(receiver).address();
        bindLoopback(sender);
        received = arena.allocate(2048).address();
        final MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
        length.set(ValueLayout.JAVA_INT, 0, Integer.BYTES);
        optionLength = length.address();
        option = arena.allocate(ValueLayout.JAVA_INT).address();

        expect("close(-1)", closeBadDescriptor(), -Errno.EBADF);
        expect("getsockopt", getsockopt(), 0);
        expect("SO_TYPE", MemorySegment.ofAddress(option).reinterpret(4).get(ValueLayout.JAVA_INT, 0),
            Sockets.SOCK_DGRAM);
        expect("sendto+recvfrom", sendtoRecvfrom(), 2 * PAYLOAD);
        expect("sendto", sendto(), PAYLOAD);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        syscalls.close(sender);
        syscalls.close(receiver);
        arena.close();
    }

    /**
     * @return -EBADF.
     */
    @Benchmark
    public int closeBadDescriptor()
    {
        return syscalls.close(-1);
    }

    /**
     * @return 0.
     */
    @Benchmark
    public int getsockopt()
    {
        return syscalls.getsockopt(receiver, Sockets.SOL_SOCKET, Sockets.SO_TYPE, option, optionLength);
    }

    /**
     * @return the bytes sent.
     */
    @Benchmark
    public long sendto()
    {
        return syscalls.sendto(sender, payload, PAYLOAD, Sockets.MSG_DONTWAIT, destination, SockaddrIn.SIZE);
    }

    /**
     * @return the bytes sent and received.
     */
    @Benchmark
    public long sendtoRecvfrom()
    {
        final Syscalls syscalls = this.syscalls;
        final long sent = syscalls.sendto(sender, payload, PAYLOAD, Sockets.MSG_DONTWAIT, destination, SockaddrIn.SIZE);
        return sent + syscalls.recvfrom(receiver, received, 2048, Sockets.MSG_DONTWAIT, 0, 0);
    }

    private int udpSocket()
    {
        return (int)Syscalls.check("socket", syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM, 0), "UDP");
    }

    /**
     * Binds to 127.0.0.1 on a port the kernel picks and returns the address. {@link Syscalls} has no getsockname,
     * so the socket sends a byte to a Java channel, which reads its port.
     */
    private MemorySegment bindLoopback(final int fd) throws IOException
    {
        final MemorySegment address = arena.allocate(SockaddrIn.LAYOUT);
        address.set(ValueLayout.JAVA_SHORT, SockaddrIn.FAMILY_OFFSET, (short)Sockets.AF_INET);
        address.set(NETWORK_U32, SockaddrIn.ADDR_OFFSET, SockaddrIn.INADDR_LOOPBACK);
        Syscalls.check("bind", syscalls.bind(fd, address.address(), SockaddrIn.SIZE), "UDP on 127.0.0.1");
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final MemorySegment probeAddress = arena.allocate(SockaddrIn.LAYOUT).copyFrom(address);
            probeAddress.set(NETWORK_U16, SockaddrIn.PORT_OFFSET,
                (short)((InetSocketAddress)probe.getLocalAddress()).getPort());
            Syscalls.check("sendto", syscalls.sendto(fd, payload, 1, 0, probeAddress.address(), SockaddrIn.SIZE),
                "probe");
            final InetSocketAddress source = (InetSocketAddress)probe.receive(ByteBuffer.allocate(16));
            address.set(NETWORK_U16, SockaddrIn.PORT_OFFSET, (short)source.getPort());
        }
        return address;
    }

    private static void expect(final String call, final long actual, final long expected)
    {
        if (actual != expected)
        {
            throw new IllegalStateException(call + " returned " + actual + ", expected " + expected);
        }
    }
}
