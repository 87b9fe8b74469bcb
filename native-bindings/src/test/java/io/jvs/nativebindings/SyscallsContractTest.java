package io.jvs.nativebindings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.jvs.nativebindings.Errno.EAFNOSUPPORT;
import static io.jvs.nativebindings.Errno.EAGAIN;
import static io.jvs.nativebindings.Errno.EBADF;
import static io.jvs.nativebindings.Errno.EDESTADDRREQ;
import static io.jvs.nativebindings.Errno.EFAULT;
import static io.jvs.nativebindings.Errno.EINVAL;
import static io.jvs.nativebindings.Errno.ENODEV;
import static io.jvs.nativebindings.Errno.ENOPROTOOPT;
import static io.jvs.nativebindings.Errno.ENOTTY;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract of {@link Syscalls}, run for both bindings: every call returns its result, or {@code -errno}
 * when it fails, with the same values from Panama and from jnr-ffi. Nothing here needs privileges except the
 * bpf(2) call, which CI (root) has.
 */
class SyscallsContractTest
{
    private static final ValueLayout.OfShort NETWORK_U16 =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt NETWORK_U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int MAP_FIXED_NOREPLACE = 0x100000;
    private static final int BPF_MAP_CREATE = 0;
    private static final int BPF_MAP_TYPE_ARRAY = 2;
    private static final int BPF_ATTR_SIZE = 144;
    private static final int PAYLOAD = 64;
    /** A domain number no kernel has (AF_MAX is below it). */
    private static final int EAFNOSUPPORT_DOMAIN = 255;

    private Arena arena;

    @BeforeEach
    void openArena()
    {
        arena = Arena.ofConfined();
    }

    @AfterEach
    void closeArena()
    {
        arena.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldOpenAndCloseSocketsAndRefuseBadOnes(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        assertThat(syscalls.name()).isEqualTo(binding);

        final int fd = syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        assertThat(fd).isGreaterThan(2);
        assertThat(syscalls.close(fd)).isZero();
        assertThat(syscalls.close(fd)).isEqualTo(-EBADF);
        assertThat(syscalls.close(-1)).isEqualTo(-EBADF);

        assertThat(syscalls.socket(12345, Sockets.SOCK_DGRAM, 0)).isEqualTo(-EAFNOSUPPORT);
        assertThat(syscalls.socket(Sockets.AF_INET, 99, 0)).isEqualTo(-EINVAL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldOpenReadAndWriteFilesAndCountWithAnEventFd(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        assertThat(syscalls.open("/nonexistent/jvs", Syscalls.O_RDWR)).isEqualTo(-Errno.ENOENT);

        final MemorySegment buffer = arena.allocate(16);
        final int zero = syscalls.open("/dev/zero", Syscalls.O_RDWR | Syscalls.O_CLOEXEC);
        assertThat(zero).isGreaterThan(2);
        buffer.fill((byte)7);
        assertThat(syscalls.read(zero, buffer.address(), 16)).isEqualTo(16);
        assertThat(buffer.toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte)0);
        assertThat(syscalls.write(zero, buffer.address(), 16)).isEqualTo(16);
        assertThat(syscalls.writeFrame(zero, buffer.address(), 5)).isEqualTo(5);
        assertThat(syscalls.close(zero)).isZero();
        assertThat(syscalls.read(zero, buffer.address(), 16)).isEqualTo(-EBADF);
        assertThat(syscalls.write(zero, buffer.address(), 16)).isEqualTo(-EBADF);
        assertThat(syscalls.writeFrame(zero, buffer.address(), 16)).isEqualTo(-EBADF);

        final int event = syscalls.eventfd(0, Syscalls.O_NONBLOCK | Syscalls.O_CLOEXEC);
        assertThat(event).isGreaterThan(2);
        try
        {
            assertThat(syscalls.read(event, buffer.address(), 8)).isEqualTo(-Errno.EAGAIN);
            buffer.set(ValueLayout.JAVA_LONG, 0, 3);
            assertThat(syscalls.writeFrame(event, buffer.address(), 8)).isEqualTo(8);
            assertThat(syscalls.write(event, buffer.address(), 8)).isEqualTo(8);
            buffer.set(ValueLayout.JAVA_LONG, 0, 0);
            assertThat(syscalls.read(event, buffer.address(), 8)).isEqualTo(8);
            assertThat(buffer.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(6);
            assertThat(syscalls.write(event, buffer.address(), 4)).isEqualTo(-EINVAL);
        }
        finally
        {
            syscalls.close(event);
        }
        assertThat(syscalls.eventfd(0, 0x40)).isEqualTo(-EINVAL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldMakeASocketPairWhoseKicksCarryEmptyDatagrams(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final MemorySegment fds = arena.allocate(JAVA_INT, 2);

        assertThat(syscalls.socketpair(Sockets.AF_UNIX, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0, fds.address()))
            .isZero();

        final int one = fds.getAtIndex(JAVA_INT, 0);
        final int other = fds.getAtIndex(JAVA_INT, 1);
        try
        {
            assertThat(one).isGreaterThan(2);
            assertThat(other).isGreaterThan(2).isNotEqualTo(one);
            assertThat(syscalls.kickReceive(other)).isEqualTo(-EAGAIN);
            assertThat(syscalls.kickTransmit(one)).isZero();
            assertThat(syscalls.kickReceive(other)).as("the empty datagram the kick sent").isZero();
            assertThat(syscalls.kickReceive(other)).isEqualTo(-EAGAIN);
        }
        finally
        {
            syscalls.close(one);
            syscalls.close(other);
        }
        assertThat(syscalls.socketpair(EAFNOSUPPORT_DOMAIN, Sockets.SOCK_DGRAM, 0, fds.address()))
            .isEqualTo(-EAFNOSUPPORT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldPinAThreadToACpuAndRefuseOnesItCannotUse(final String binding) throws Exception
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int[] results = new int[3];
        final Thread thread = new Thread(() ->
        {
            results[0] = syscalls.pinThread(0);
            results[1] = syscalls.pinThread(1023);
            results[2] = syscalls.pinThread(-1);
        });
        thread.start();
        thread.join();
        assertThat(results).containsExactly(0, -EINVAL, -EINVAL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldBindOnceAndRefuseShortAddressesAndBadDescriptors(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int fd = udpSocket(syscalls);
        try
        {
            final MemorySegment address = loopback(0);
            assertThat(syscalls.bind(fd, address.address(), 4)).isEqualTo(-EINVAL);
            assertThat(syscalls.bind(fd, address.address(), SockaddrIn.SIZE)).isZero();
            assertThat(syscalls.bind(fd, address.address(), SockaddrIn.SIZE)).isEqualTo(-EINVAL);
            assertThat(syscalls.bind(-1, address.address(), SockaddrIn.SIZE)).isEqualTo(-EBADF);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldSetAndGetSocketOptionsWithTheirLengths(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int fd = udpSocket(syscalls);
        try
        {
            final MemorySegment value = arena.allocate(JAVA_LONG);
            final MemorySegment length = arena.allocate(JAVA_INT);
            value.set(JAVA_INT, 0, 65536);
            assertThat(syscalls.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, value.address(), 4)).isZero();

            length.set(JAVA_INT, 0, 8);
            assertThat(syscalls.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, value.address(),
                length.address())).isZero();
            // The kernel doubles the size asked for, to leave room for its bookkeeping.
            assertThat(value.get(JAVA_INT, 0)).isEqualTo(2 * 65536);
            assertThat(length.get(JAVA_INT, 0)).isEqualTo(4);

            length.set(JAVA_INT, 0, 4);
            assertThat(syscalls.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_TYPE, value.address(),
                length.address())).isZero();
            assertThat(value.get(JAVA_INT, 0)).isEqualTo(Sockets.SOCK_DGRAM);

            assertThat(syscalls.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, value.address(), 0))
                .isEqualTo(-EINVAL);
            assertThat(syscalls.getsockopt(fd, Sockets.SOL_SOCKET, 9999, value.address(), length.address()))
                .isEqualTo(-ENOPROTOOPT);
            assertThat(syscalls.getsockopt(-1, Sockets.SOL_SOCKET, Sockets.SO_TYPE, value.address(), length.address()))
                .isEqualTo(-EBADF);
            assertThat(syscalls.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, 8, 4)).isEqualTo(-EFAULT);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldMapAndUnmapPassingAllSixArguments(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int protection = Mmap.PROT_READ | Mmap.PROT_WRITE;
        final int flags = Mmap.MAP_PRIVATE | Mmap.MAP_ANONYMOUS;

        final long address = syscalls.mmap(0, 8192, protection, flags, -1, 0);
        assertThat(address).isPositive();
        final MemorySegment mapped = MemorySegment.ofAddress(address).reinterpret(8192);
        mapped.set(JAVA_LONG, 8184, 42L);
        assertThat(mapped.get(JAVA_LONG, 8184)).isEqualTo(42L);
        assertThat(syscalls.munmap(address + 1, 4096)).isEqualTo(-EINVAL);
        assertThat(syscalls.munmap(address, 8192)).isZero();

        // The address hint (first) and the offset (sixth) arrive as given: a fixed mapping lands where asked,
        // an aligned offset is accepted and an unaligned one refused.
        assertThat(syscalls.mmap(address, 4096, protection, flags | MAP_FIXED_NOREPLACE, -1, 0)).isEqualTo(address);
        assertThat(syscalls.munmap(address, 4096)).isZero();
        final long offsetMapping = syscalls.mmap(0, 4096, protection, flags, -1, 4096);
        assertThat(offsetMapping).isPositive();
        assertThat(syscalls.munmap(offsetMapping, 4096)).isZero();
        assertThat(syscalls.mmap(0, 4096, protection, flags, -1, 1)).isEqualTo(-EINVAL);
        assertThat(syscalls.mmap(0, 0, protection, flags, -1, 0)).isEqualTo(-EINVAL);
        assertThat(syscalls.mmap(0, 4096, protection, Mmap.MAP_SHARED, -1, 0)).isEqualTo(-EBADF);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldPollReadinessAndReportBadDescriptorsAndPointers(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int fd = udpSocket(syscalls);
        try
        {
            final MemorySegment pollfds = arena.allocate(PollFd.LAYOUT, 2);
            pollfds.set(JAVA_INT, PollFd.FD_OFFSET, fd);
            pollfds.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, (short)(PollFd.POLLIN | PollFd.POLLOUT));
            pollfds.set(JAVA_INT, PollFd.SIZE + PollFd.FD_OFFSET, 1_000_000);
            pollfds.set(JAVA_SHORT, PollFd.SIZE + PollFd.EVENTS_OFFSET, PollFd.POLLIN);

            assertThat(syscalls.poll(pollfds.address(), 2, 0)).isEqualTo(2);
            assertThat(pollfds.get(JAVA_SHORT, PollFd.REVENTS_OFFSET)).isEqualTo(PollFd.POLLOUT);
            assertThat(pollfds.get(JAVA_SHORT, PollFd.SIZE + PollFd.REVENTS_OFFSET)).isEqualTo(PollFd.POLLNVAL);

            pollfds.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
            assertThat(syscalls.poll(pollfds.address(), 1, 0)).isZero();
            assertThat(syscalls.poll(8, 1, 0)).isEqualTo(-EFAULT);
            // The idle worker's poll, without errno capture, answers the same.
            assertThat(syscalls.pollIdle(pollfds.address(), 2, 0)).isEqualTo(1);
            assertThat(pollfds.get(JAVA_SHORT, PollFd.SIZE + PollFd.REVENTS_OFFSET)).isEqualTo(PollFd.POLLNVAL);
            assertThat(syscalls.pollIdle(pollfds.address(), 1, 0)).isZero();
            assertThat(syscalls.pollIdle(8, 1, 0)).isEqualTo(-EFAULT);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldSendAndReceiveADatagramWithItsSourceAddress(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int receiver = udpSocket(syscalls);
        final int sender = udpSocket(syscalls);
        try
        {
            final MemorySegment receiverAddress = boundLoopback(syscalls, receiver);
            final MemorySegment senderAddress = boundLoopback(syscalls, sender);
            final MemorySegment payload = arena.allocate(PAYLOAD);
            payload.copyFrom(MemorySegment.ofArray("sixty-four bytes from jvs, to see each of them arrive intact...!"
                .getBytes(StandardCharsets.US_ASCII)));

            assertThat(syscalls.sendto(sender, payload.address(), PAYLOAD, Sockets.MSG_DONTWAIT,
                receiverAddress.address(), SockaddrIn.SIZE)).isEqualTo(PAYLOAD);

            final MemorySegment received = arena.allocate(2 * PAYLOAD);
            final MemorySegment from = arena.allocate(SockaddrIn.LAYOUT);
            final MemorySegment fromLength = arena.allocate(JAVA_INT);
            fromLength.set(JAVA_INT, 0, SockaddrIn.SIZE);
            assertThat(syscalls.recvfrom(receiver, received.address(), received.byteSize(), Sockets.MSG_DONTWAIT,
                from.address(), fromLength.address())).isEqualTo(PAYLOAD);
            assertThat(received.asSlice(0, PAYLOAD).mismatch(payload)).isEqualTo(-1);
            assertThat(fromLength.get(JAVA_INT, 0)).isEqualTo(SockaddrIn.SIZE);
            assertThat(from.get(NETWORK_U16, SockaddrIn.PORT_OFFSET))
                .isEqualTo(senderAddress.get(NETWORK_U16, SockaddrIn.PORT_OFFSET));
            assertThat(from.get(NETWORK_U32, SockaddrIn.ADDR_OFFSET)).isEqualTo(SockaddrIn.INADDR_LOOPBACK);

            // Nothing left: a non-blocking receive says so; no source address asked for is fine too.
            assertThat(syscalls.recvfrom(receiver, received.address(), received.byteSize(), Sockets.MSG_DONTWAIT, 0, 0))
                .isEqualTo(-EAGAIN);
            assertThat(syscalls.sendto(sender, payload.address(), PAYLOAD, Sockets.MSG_DONTWAIT, 0, 0))
                .isEqualTo(-EDESTADDRREQ);
            assertThat(syscalls.sendto(sender, payload.address(), PAYLOAD, 0, receiverAddress.address(), 3))
                .isEqualTo(-EINVAL);
            assertThat(syscalls.sendto(sender, 8, PAYLOAD, 0, receiverAddress.address(), SockaddrIn.SIZE))
                .isEqualTo(-EFAULT);
            assertThat(syscalls.sendto(-1, payload.address(), PAYLOAD, 0, receiverAddress.address(), SockaddrIn.SIZE))
                .isEqualTo(-EBADF);
            assertThat(syscalls.recvfrom(-1, received.address(), PAYLOAD, Sockets.MSG_DONTWAIT, 0, 0))
                .isEqualTo(-EBADF);
            // The data-path kicks: sendto/recvfrom with no buffer and no address, errno read without capture.
            assertThat(syscalls.kickTransmit(sender)).isEqualTo(-EDESTADDRREQ);
            assertThat(syscalls.kickReceive(receiver)).isEqualTo(-EAGAIN);
            assertThat(syscalls.kickTransmit(-1)).isEqualTo(-EBADF);
            assertThat(syscalls.kickReceive(-1)).isEqualTo(-EBADF);
        }
        finally
        {
            syscalls.close(sender);
            syscalls.close(receiver);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldAskInterfacesByIoctlAndByName(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final int fd = udpSocket(syscalls);
        try
        {
            final int loopback = syscalls.ifNameToIndex("lo");
            assertThat(loopback).isPositive();
            assertThat(syscalls.ifNameToIndex("no-such-if0")).isEqualTo(-ENODEV);

            final MemorySegment request = ifreq("lo");
            assertThat(syscalls.ioctl(fd, Ifreq.SIOCGIFINDEX, request.address())).isZero();
            assertThat(request.get(JAVA_INT, Ifreq.IFINDEX_OFFSET)).isEqualTo(loopback);
            assertThat(syscalls.ioctl(fd, Ifreq.SIOCGIFFLAGS, request.address())).isZero();
            assertThat(request.get(JAVA_SHORT, Ifreq.FLAGS_OFFSET) & Ifreq.IFF_UP).isEqualTo(Ifreq.IFF_UP);
            assertThat(syscalls.ioctl(fd, Ifreq.SIOCGIFMTU, request.address())).isZero();
            assertThat(request.get(JAVA_INT, Ifreq.MTU_OFFSET)).isEqualTo(65536);

            assertThat(syscalls.ioctl(fd, Ifreq.SIOCGIFINDEX, ifreq("no-such-if0").address())).isEqualTo(-ENODEV);
            assertThat(syscalls.ioctl(fd, 0x89FF_0000L, request.address())).isEqualTo(-ENOTTY);
            assertThat(syscalls.ioctl(-1, Ifreq.SIOCGIFINDEX, request.address())).isEqualTo(-EBADF);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldCallBpfThroughSyscallAndReturnItsDescriptorOrError(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        // union bpf_attr for BPF_MAP_CREATE: map_type, key_size, value_size, max_entries (kernel-bypass.md).
        final MemorySegment attribute = arena.allocate(BPF_ATTR_SIZE, 8);
        attribute.set(JAVA_INT, 0, BPF_MAP_TYPE_ARRAY);
        attribute.set(JAVA_INT, 4, 4);
        attribute.set(JAVA_INT, 8, 8);
        attribute.set(JAVA_INT, 12, 1);
        final long map = syscalls.bpf(BPF_MAP_CREATE, attribute.address(), BPF_ATTR_SIZE);
        assertThat(map).as("BPF_MAP_CREATE as root").isGreaterThan(2);
        assertThat(syscalls.close((int)map)).isZero();

        attribute.set(JAVA_INT, 4, 0);
        assertThat(syscalls.bpf(BPF_MAP_CREATE, attribute.address(), BPF_ATTR_SIZE)).isEqualTo(-EINVAL);
        assertThat(syscalls.bpf(9999, attribute.address(), BPF_ATTR_SIZE)).isEqualTo(-EINVAL);
        assertThat(syscalls.bpf(BPF_MAP_CREATE, 8, BPF_ATTR_SIZE)).isEqualTo(-EFAULT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldTurnAFailureIntoAnExceptionNamingCallErrnoAndMeaning(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        assertThatThrownBy(() -> Syscalls.check("close", syscalls.close(-1), "descriptor -1"))
            .isInstanceOfSatisfying(NativeCallException.class, ex ->
            {
                assertThat(ex.call()).isEqualTo("close");
                assertThat(ex.errno()).isEqualTo(EBADF);
            })
            .hasMessage("close failed: EBADF (bad file descriptor), descriptor -1");

        assertThatThrownBy(() -> Syscalls.check("if_nametoindex", syscalls.ifNameToIndex("no-such-if0"), "no-such-if0"))
            .hasMessage("if_nametoindex failed: ENODEV (no such device), no-such-if0: " +
                "no interface of that name or index in this network namespace");

        final int fd = (int)Syscalls.check("socket", syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM, 0), "UDP");
        assertThat(fd).isGreaterThan(2);
        assertThat(Syscalls.check("close", syscalls.close(fd), "UDP")).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldAllocateNothingOnTheDataPath(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
            .as("this JVM measures allocation per thread").isTrue();
        final int receiver = udpSocket(syscalls);
        final int sender = udpSocket(syscalls);
        try
        {
            final MemorySegment destination = boundLoopback(syscalls, receiver);
            final MemorySegment buffer = arena.allocate(PAYLOAD);
            final MemorySegment pollfd = arena.allocate(PollFd.LAYOUT);
            pollfd.set(JAVA_INT, PollFd.FD_OFFSET, receiver);
            pollfd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);

            // One datagram waits at the receiver for the whole test, so that the idle poll finds it every round.
            assertThat(syscalls.sendto(sender, buffer.address(), PAYLOAD, Sockets.MSG_DONTWAIT, destination.address(),
                SockaddrIn.SIZE)).isEqualTo(PAYLOAD);
            dataPath(syscalls, sender, pollfd.address(), 20_000);
            // Compilation in a window (an OSR, a deoptimisation) can allocate once; an allocation per call would
            // show in every window, so the quietest of five counts.
            long fewestBytes = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                final long checksum = dataPath(syscalls, sender, pollfd.address(), 20_000);
                fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
                assertThat(checksum).isEqualTo(20_000L * (1 - EAGAIN - EBADF));
            }
            // 20,000 rounds of three calls: even 16 bytes per round would come to 320 KB.
            assertThat(fewestBytes).isLessThan(16 * 1024);
        }
        finally
        {
            syscalls.close(sender);
            syscalls.close(receiver);
        }
    }

    @Test
    void shouldChooseTheBindingByNameAndRefuseOthers()
    {
        assertThat(Syscalls.create().name()).isEqualTo(System.getProperty(Syscalls.PROPERTY, "panama"));
        assertThatThrownBy(() -> Syscalls.create("jni"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("-Djvs.native must be panama or jnr, not jni");
    }

    @Test
    void shouldNameTheMissingCapabilityWhenTheKernelRefuses()
    {
        assertThat(new NativeCallException("socket", Errno.EPERM, "AF_PACKET on eth0").getMessage())
            .isEqualTo("socket failed: EPERM (operation not permitted), AF_PACKET on eth0: " +
                "opening AF_PACKET and AF_XDP sockets needs CAP_NET_RAW");
        assertThat(new NativeCallException("setsockopt XDP_UMEM_REG", Errno.ENOBUFS, "64 MiB UMEM").getMessage())
            .startsWith("setsockopt XDP_UMEM_REG failed: ENOBUFS (no buffer space available), 64 MiB UMEM: ")
            .contains("CAP_IPC_LOCK", "RLIMIT_MEMLOCK");
        assertThat(new NativeCallException("bpf BPF_LINK_CREATE", Errno.EPERM, "XDP on eth0").getMessage())
            .contains("CAP_BPF", "CAP_NET_ADMIN");
        assertThat(new NativeCallException("setsockopt", Errno.EPERM, "PACKET_QDISC_BYPASS").getMessage())
            .contains("CAP_NET_RAW", "CAP_NET_ADMIN", "CAP_BPF", "CAP_IPC_LOCK");
        assertThat(new NativeCallException("bind", Errno.EOPNOTSUPP, "XDP_ZEROCOPY on veth0").getMessage())
            .endsWith("copy mode");
        assertThat(new NativeCallException("bind", Errno.EBUSY, "veth0 queue 0").getMessage()).contains("retry");
        assertThat(new NativeCallException("bpf BPF_LINK_CREATE", Errno.ERANGE, "DRV mode").getMessage())
            .contains("3506");
        assertThat(new NativeCallException("mmap", 4095, "ring").getMessage())
            .isEqualTo("mmap failed: errno 4095 (see errno(3)), ring");
    }

    /**
     * One round of what a port's worker calls per burst: the idle poll that finds a frame waiting, the receive kick
     * (on a socket with nothing to read, as a kick usually finds it) and the transmit kick, with the failure it acts
     * on. Not the calls that capture errno (sendto, recvfrom, poll, close): no port calls them per burst, and whether
     * they allocate is the JDK's JIT's choice (whether it inlines its check of the capture segment), which
     * {@link KickWorstCaseAllocationTest} shows the data path's calls do not depend on.
     */
    private static long dataPath(final Syscalls syscalls, final int quietFd, final long pollfd, final int rounds)
    {
        long sum = 0;
        for (int i = 0; i < rounds; i++)
        {
            sum += syscalls.pollIdle(pollfd, 1, 0);
            sum += syscalls.kickReceive(quietFd);
            sum += syscalls.kickTransmit(-1);
        }
        return sum;
    }

    private static int udpSocket(final Syscalls syscalls)
    {
        final int fd = syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        assertThat(fd).isGreaterThan(2);
        return fd;
    }

    private MemorySegment loopback(final int port)
    {
        final MemorySegment address = arena.allocate(SockaddrIn.LAYOUT);
        address.set(JAVA_SHORT, SockaddrIn.FAMILY_OFFSET, (short)Sockets.AF_INET);
        address.set(NETWORK_U16, SockaddrIn.PORT_OFFSET, (short)port);
        address.set(NETWORK_U32, SockaddrIn.ADDR_OFFSET, SockaddrIn.INADDR_LOOPBACK);
        return address;
    }

    /**
     * Binds to 127.0.0.1 on a port the kernel picks (no fixed port: other builds share this machine), and
     * returns the address it got. Syscalls has no getsockname, so the socket sends a byte to a Java channel,
     * which reads the source port.
     */
    private MemorySegment boundLoopback(final Syscalls syscalls, final int fd)
    {
        final MemorySegment address = loopback(0);
        assertThat(syscalls.bind(fd, address.address(), SockaddrIn.SIZE)).isZero();
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final MemorySegment probeAddress = loopback(((InetSocketAddress)probe.getLocalAddress()).getPort());
            final MemorySegment oneByte = arena.allocate(1);
            assertThat(syscalls.sendto(fd, oneByte.address(), 1, 0, probeAddress.address(), SockaddrIn.SIZE))
                .isEqualTo(1);
            final InetSocketAddress source = (InetSocketAddress)probe.receive(ByteBuffer.allocate(16));
            address.set(NETWORK_U16, SockaddrIn.PORT_OFFSET, (short)source.getPort());
            return address;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private MemorySegment ifreq(final String name)
    {
        final MemorySegment request = arena.allocate(Ifreq.LAYOUT);
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(bytes, 0, request, JAVA_BYTE, Ifreq.NAME_OFFSET, Math.min(bytes.length, Ifreq.IFNAMSIZ - 1));
        return request;
    }
}
