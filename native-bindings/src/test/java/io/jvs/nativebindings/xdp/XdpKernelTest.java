package io.jvs.nativebindings.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.AnonymousMemory;
import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AF_XDP layouts against the running kernel: it accepts what they describe, refuses what it should, and
 * hands back structures of their sizes. Needs root (CAP_NET_RAW, CAP_NET_ADMIN for the namespace), as CI has.
 */
class XdpKernelTest
{
    private static final int EINVAL = 22;
    private static final int EBUSY = 16;
    private static final int EOPNOTSUPP = 95;
    private static final int FRAMES = 64;
    private static final int CHUNK = 2048;
    private static final int RING = 64;

    private final Syscalls syscalls = Syscalls.create("panama");
    private Arena arena;
    private AnonymousMemory umem;

    @BeforeEach
    void mapUmem()
    {
        arena = Arena.ofShared(); // also used by the thread that joins a namespace
        umem = AnonymousMemory.map((long)FRAMES * CHUNK, false);
    }

    @AfterEach
    void unmapUmem()
    {
        umem.unmap();
        arena.close();
    }

    @Test
    void shouldRegisterA32ByteUmemOnAnonymousMemory()
    {
        final int fd = xdpSocket();
        try
        {
            assertThat(registerUmem(fd, CHUNK, 0, 0, 0, XdpUmemReg.SIZE)).isZero();
            // A second registration on the same socket is refused: the first one took.
            assertThat(registerUmem(fd, CHUNK, 0, 0, 0, XdpUmemReg.SIZE)).isEqualTo(-EBUSY);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @Test
    void shouldRefuseChunkSizesThatAreNotAPowerOfTwoUnlessUnaligned()
    {
        assertThat(registerOnNewSocket(3000, 0, 0, 0)).isEqualTo(-EINVAL);
        assertThat(registerOnNewSocket(1024, 0, 0, 0)).isEqualTo(-EINVAL);
        assertThat(registerOnNewSocket(8192, 0, 0, 0)).isEqualTo(-EINVAL);
        assertThat(registerOnNewSocket(3000, 0, AfXdp.XDP_UMEM_UNALIGNED_CHUNK_FLAG, 0)).isZero();
        assertThat(registerOnNewSocket(4096, 0, 0, 0)).isZero();
        assertThat(registerOnNewSocket(CHUNK, 0, 0x80, 0)).isEqualTo(-EINVAL);
    }

    @Test
    void shouldLimitHeadroomToTheChunkLessWhatTheKernelReserves()
    {
        final int largest = CHUNK - XdpUmemReg.RESERVED_PER_CHUNK;
        assertThat(registerOnNewSocket(CHUNK, largest, 0, 0)).isZero();
        assertThat(registerOnNewSocket(CHUNK, largest + 1, 0, 0)).isEqualTo(-EINVAL);
    }

    @Test
    void shouldReadTheTxMetadataLengthAtItsOffsetOnlyUnderItsFlag()
    {
        assertThat(registerOnNewSocket(CHUNK, 0, 0, 7)).isZero();
        assertThat(registerOnNewSocket(CHUNK, 0, AfXdp.XDP_UMEM_TX_METADATA_LEN, 7)).isEqualTo(-EINVAL);
        assertThat(registerOnNewSocket(CHUNK, 0, AfXdp.XDP_UMEM_TX_METADATA_LEN, 24)).isZero();
    }

    @Test
    void shouldAcceptTheOlder24ByteUmemRegistration()
    {
        final int fd = xdpSocket();
        try
        {
            assertThat(registerUmem(fd, CHUNK, 0, 0, 0, XdpUmemReg.FLAGS_OFFSET)).isZero();
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @Test
    void shouldHandBack128ByteMmapOffsetsWhoseRingsMap()
    {
        final int fd = xdpSocketWithRings();
        try
        {
            final MemorySegment offsets = arena.allocate(2L * XdpMmapOffsets.SIZE);
            assertThat(getsockopt(fd, AfXdp.XDP_MMAP_OFFSETS, offsets)).isEqualTo(XdpMmapOffsets.SIZE);

            assertRingMaps(fd, offsets, XdpMmapOffsets.RX_OFFSET, AfXdp.XDP_PGOFF_RX_RING, XdpDesc.SIZE);
            assertRingMaps(fd, offsets, XdpMmapOffsets.TX_OFFSET, AfXdp.XDP_PGOFF_TX_RING, XdpDesc.SIZE);
            assertRingMaps(fd, offsets, XdpMmapOffsets.FILL_OFFSET, AfXdp.XDP_UMEM_PGOFF_FILL_RING,
                AfXdp.UMEM_RING_ENTRY_SIZE);
            assertRingMaps(fd, offsets, XdpMmapOffsets.COMPLETION_OFFSET, AfXdp.XDP_UMEM_PGOFF_COMPLETION_RING,
                AfXdp.UMEM_RING_ENTRY_SIZE);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @Test
    void shouldBindToAVethQueueInCopyModeAndReportStatisticsAndOptions()
    {
        try (TestNetwork network = TestNetwork.create("xdpbind"))
        {
            final String a = network.namespace("a");
            final String b = network.namespace("b");
            network.veth(a, "xa", b, "xb");
            TestNetwork.callIn(a, () ->
            {
                final int ifindex = syscalls.ifNameToIndex("xa");
                assertThat(ifindex).isPositive();

                assertThat(bindOnNewSocket(ifindex, 0, AfXdp.XDP_ZEROCOPY)).isEqualTo(-EOPNOTSUPP);
                assertThat(bindOnNewSocket(ifindex, 1, AfXdp.XDP_COPY)).isEqualTo(-EINVAL);
                assertThat(bindOnNewSocket(ifindex, 0, (short)(AfXdp.XDP_COPY | AfXdp.XDP_ZEROCOPY)))
                    .isEqualTo(-EINVAL);

                final int fd = xdpSocketWithRings();
                try
                {
                    assertThat(bind(fd, ifindex, 0, (short)(AfXdp.XDP_COPY | AfXdp.XDP_USE_NEED_WAKEUP))).isZero();
                    assertThat(bindOnNewSocket(ifindex, 0, AfXdp.XDP_COPY)).isEqualTo(-EBUSY);

                    final MemorySegment statistics = arena.allocate(2L * XdpStatistics.SIZE);
                    assertThat(getsockopt(fd, AfXdp.XDP_STATISTICS, statistics)).isEqualTo(XdpStatistics.SIZE);
                    assertThat(statistics.get(JAVA_LONG, XdpStatistics.RX_DROPPED_OFFSET)).isZero();
                    assertThat(statistics.get(JAVA_LONG, XdpStatistics.RX_RING_FULL_OFFSET)).isZero();

                    final MemorySegment options = arena.allocate(4L * XdpOptions.SIZE);
                    options.set(JAVA_INT, XdpOptions.FLAGS_OFFSET, -1);
                    assertThat(getsockopt(fd, AfXdp.XDP_OPTIONS, options)).isEqualTo(XdpOptions.SIZE);
                    assertThat(options.get(JAVA_INT, XdpOptions.FLAGS_OFFSET) & AfXdp.XDP_OPTIONS_ZEROCOPY).isZero();
                }
                finally
                {
                    syscalls.close(fd);
                }
                return null;
            });
        }
    }

    private void assertRingMaps(
        final int fd, final MemorySegment offsets, final int ring, final long pageOffset, final int entrySize)
    {
        final long producer = offsets.get(JAVA_LONG, ring + XdpRingOffset.PRODUCER_OFFSET);
        final long consumer = offsets.get(JAVA_LONG, ring + XdpRingOffset.CONSUMER_OFFSET);
        final long flags = offsets.get(JAVA_LONG, ring + XdpRingOffset.FLAGS_OFFSET);
        final long desc = offsets.get(JAVA_LONG, ring + XdpRingOffset.DESC_OFFSET);
        // The kernel's struct xdp_ring: producer and consumer on cache lines of their own, the flags word
        // after the consumer, then the descriptors. Swapped fields in the layout would break this order.
        assertThat(producer).isZero();
        assertThat(consumer).isGreaterThanOrEqualTo(64);
        assertThat(flags).isGreaterThan(consumer).isLessThan(desc);

        final long length = desc + (long)RING * entrySize;
        final long address = syscalls.mmap(0, length, Mmap.PROT_READ | Mmap.PROT_WRITE,
            Mmap.MAP_SHARED | Mmap.MAP_POPULATE, fd, pageOffset);
        assertThat(address).as("mmap of the ring at page offset %x", pageOffset).isPositive();
        final MemorySegment mapped = MemorySegment.ofAddress(address).reinterpret(length);
        assertThat(mapped.get(JAVA_INT, producer)).isZero();
        assertThat(mapped.get(JAVA_INT, consumer)).isZero();
        assertThat(syscalls.munmap(address, length)).isZero();
    }

    private int xdpSocket()
    {
        final int fd = syscalls.socket(AfXdp.AF_XDP, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, 0);
        assertThat(fd).as("AF_XDP socket").isPositive();
        return fd;
    }

    private int xdpSocketWithRings()
    {
        final int fd = xdpSocket();
        assertThat(registerUmem(fd, CHUNK, 0, 0, 0, XdpUmemReg.SIZE)).isZero();
        for (final int ring : new int[] {AfXdp.XDP_UMEM_FILL_RING, AfXdp.XDP_UMEM_COMPLETION_RING, AfXdp.XDP_RX_RING,
            AfXdp.XDP_TX_RING})
        {
            assertThat(setIntOption(fd, ring, RING)).as("ring option %d", ring).isZero();
        }
        return fd;
    }

    private int registerOnNewSocket(final int chunkSize, final int headroom, final int flags, final int txMetadataLength)
    {
        final int fd = xdpSocket();
        try
        {
            return registerUmem(fd, chunkSize, headroom, flags, txMetadataLength, XdpUmemReg.SIZE);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    private int registerUmem(
        final int fd, final int chunkSize, final int headroom, final int flags, final int txMetadataLength,
        final int length)
    {
        final MemorySegment reg = arena.allocate(XdpUmemReg.LAYOUT);
        reg.set(JAVA_LONG, XdpUmemReg.ADDR_OFFSET, umem.address());
        reg.set(JAVA_LONG, XdpUmemReg.LEN_OFFSET, umem.length());
        reg.set(JAVA_INT, XdpUmemReg.CHUNK_SIZE_OFFSET, chunkSize);
        reg.set(JAVA_INT, XdpUmemReg.HEADROOM_OFFSET, headroom);
        reg.set(JAVA_INT, XdpUmemReg.FLAGS_OFFSET, flags);
        reg.set(JAVA_INT, XdpUmemReg.TX_METADATA_LEN_OFFSET, txMetadataLength);
        return syscalls.setsockopt(fd, AfXdp.SOL_XDP, AfXdp.XDP_UMEM_REG, reg.address(), length);
    }

    private int setIntOption(final int fd, final int option, final int value)
    {
        final MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        return syscalls.setsockopt(fd, AfXdp.SOL_XDP, option, segment.address(), Integer.BYTES);
    }

    /** @return the length the kernel wrote, or -errno. */
    private int getsockopt(final int fd, final int option, final MemorySegment value)
    {
        final MemorySegment length = arena.allocate(JAVA_INT);
        length.set(JAVA_INT, 0, (int)value.byteSize());
        final int result = syscalls.getsockopt(fd, AfXdp.SOL_XDP, option, value.address(), length.address());
        return result < 0 ? result : length.get(JAVA_INT, 0);
    }

    private int bindOnNewSocket(final int ifindex, final int queue, final short flags)
    {
        final int fd = xdpSocketWithRings();
        try
        {
            return bind(fd, ifindex, queue, flags);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    private int bind(final int fd, final int ifindex, final int queue, final short flags)
    {
        final MemorySegment address = arena.allocate(SockaddrXdp.LAYOUT);
        address.set(JAVA_SHORT, SockaddrXdp.FAMILY_OFFSET, (short)AfXdp.AF_XDP);
        address.set(JAVA_SHORT, SockaddrXdp.FLAGS_OFFSET, flags);
        address.set(JAVA_INT, SockaddrXdp.IFINDEX_OFFSET, ifindex);
        address.set(JAVA_INT, SockaddrXdp.QUEUE_ID_OFFSET, queue);
        return syscalls.bind(fd, address.address(), SockaddrXdp.SIZE);
    }
}
