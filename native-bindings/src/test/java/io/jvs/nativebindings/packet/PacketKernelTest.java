package io.jvs.nativebindings.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.SockaddrIn;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AF_PACKET layouts against the running kernel: header sizes it reports, a TPACKET_V3 ring it fills with
 * a real datagram, a TPACKET_V2 TX ring it sends from, statistics and fanout arguments it accepts. Runs on
 * the loopback of a fresh namespace so nothing else's traffic appears. Needs root, as CI has.
 */
class PacketKernelTest
{
    private static final int EINVAL = 22;
    private static final int ENOSPC = 28;
    /** The IEEE local experimental EtherType: the stack ignores it, so only our sockets see these frames. */
    private static final int ETH_P_EXPERIMENTAL = 0x88B5;
    private static final int UDP_PORT = 40_000;
    private static final int PAYLOAD = 64;
    /** Header fields in network byte order, at offsets of any alignment. */
    private static final ValueLayout.OfShort NETWORK_U16 = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt NETWORK_U32 = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Syscalls syscalls = Syscalls.create("panama");
    private Arena arena;

    @BeforeEach
    void openArena()
    {
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeArena()
    {
        arena.close();
    }

    @Test
    void shouldReportTheFrameHeaderSizesOfTheLayouts()
    {
        final int fd = packetSocket(0);
        try
        {
            assertThat(headerLength(fd, AfPacket.TPACKET_V2)).isEqualTo(Tpacket2Hdr.SIZE);
            assertThat(headerLength(fd, AfPacket.TPACKET_V3)).isEqualTo(Tpacket3Hdr.SIZE);
            assertThat(headerLength(fd, 7)).isEqualTo(-EINVAL);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    @Test
    void shouldFillAV3RingWithADatagramWhereTheLayoutsSay()
    {
        try (TestNetwork network = TestNetwork.create("pktring"))
        {
            final String namespace = network.namespace("r");
            TestNetwork.callIn(namespace, () ->
            {
                receiveOneDatagramThroughAV3Ring();
                return null;
            });
        }
    }

    @Test
    void shouldSendFromAV2TxRingWhereTheLayoutsSay()
    {
        try (TestNetwork network = TestNetwork.create("pkttx"))
        {
            final String namespace = network.namespace("t");
            TestNetwork.callIn(namespace, () ->
            {
                sendOneFrameThroughAV2TxRing();
                return null;
            });
        }
    }

    @Test
    void shouldAcceptBothFanoutArgumentFormsAndTheGroupSize()
    {
        try (TestNetwork network = TestNetwork.create("pktfan"))
        {
            final String namespace = network.namespace("f");
            TestNetwork.callIn(namespace, () ->
            {
                joinAFanoutGroupOfTwo();
                return null;
            });
        }
    }

    private void receiveOneDatagramThroughAV3Ring()
    {
        final int loopback = syscalls.ifNameToIndex("lo");
        final int blockSize = 1 << 16;
        final int blocks = 2;
        final int frameSize = 2048;
        final int privateBytes = 16;
        final int fd = packetSocket(0);
        final int udp = syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM, 0);
        long ring = 0;
        try
        {
            assertThat(setIntOption(fd, AfPacket.PACKET_VERSION, AfPacket.TPACKET_V3)).isZero();
            final MemorySegment request = arena.allocate(TpacketReq3.LAYOUT);
            request.set(JAVA_INT, TpacketReq3.BLOCK_SIZE_OFFSET, blockSize);
            request.set(JAVA_INT, TpacketReq3.BLOCK_NR_OFFSET, blocks);
            request.set(JAVA_INT, TpacketReq3.FRAME_SIZE_OFFSET, frameSize);
            request.set(JAVA_INT, TpacketReq3.FRAME_NR_OFFSET, blockSize / frameSize * blocks);
            request.set(JAVA_INT, TpacketReq3.RETIRE_BLK_TOV_OFFSET, 10);
            request.set(JAVA_INT, TpacketReq3.SIZEOF_PRIV_OFFSET, privateBytes);
            assertThat(syscalls.setsockopt(fd, AfPacket.SOL_PACKET, AfPacket.PACKET_RX_RING, request.address(),
                TpacketReq3.SIZE)).isZero();

            ring = syscalls.mmap(0, (long)blockSize * blocks, Mmap.PROT_READ | Mmap.PROT_WRITE, Mmap.MAP_SHARED, fd, 0);
            assertThat(ring).as("mmap of the 2-block ring").isPositive();
            final MemorySegment block = MemorySegment.ofAddress(ring).reinterpret(blockSize);
            // The kernel opens the first block at setup: its private area right after the descriptor.
            assertThat(block.get(JAVA_INT, TpacketBlockDesc.OFFSET_TO_PRIV_OFFSET)).isEqualTo(TpacketBlockDesc.SIZE);
            assertThat(block.get(JAVA_INT, TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET))
                .isEqualTo(TpacketBlockDesc.SIZE + privateBytes);
            assertThat(block.get(JAVA_INT, TpacketBlockDesc.BLOCK_STATUS_OFFSET)).isEqualTo(AfPacket.TP_STATUS_KERNEL);

            assertThat(setIntOption(fd, AfPacket.PACKET_IGNORE_OUTGOING, 1)).isZero();
            assertThat(bindPacket(fd, Sockets.htons(AfPacket.ETH_P_ALL), loopback)).isZero();

            final MemorySegment destination = loopbackAddress();
            assertThat(syscalls.bind(udp, destination.address(), SockaddrIn.SIZE)).isZero();
            final MemorySegment payload = arena.allocate(PAYLOAD);
            payload.fill((byte)0x5A);
            assertThat(syscalls.sendto(udp, payload.address(), PAYLOAD, 0, destination.address(), SockaddrIn.SIZE))
                .isEqualTo(PAYLOAD);

            waitForBlock(fd, block);
            assertThat(block.get(JAVA_INT, TpacketBlockDesc.NUM_PKTS_OFFSET)).isEqualTo(1);
            final int first = block.get(JAVA_INT, TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET);
            final MemorySegment header = block.asSlice(first);
            final int frameLength = 14 + 20 + 8 + PAYLOAD;
            assertThat(header.get(JAVA_INT, Tpacket3Hdr.NEXT_OFFSET_OFFSET)).isZero();
            assertThat(header.get(JAVA_INT, Tpacket3Hdr.LEN_OFFSET)).isEqualTo(frameLength);
            assertThat(header.get(JAVA_INT, Tpacket3Hdr.SNAPLEN_OFFSET)).isEqualTo(frameLength);
            assertThat(header.get(JAVA_INT, Tpacket3Hdr.STATUS_OFFSET) & AfPacket.TP_STATUS_USER).isNotZero();
            assertThat(header.get(JAVA_INT, Tpacket3Hdr.SEC_OFFSET)).isPositive();
            final short mac = header.get(JAVA_SHORT, Tpacket3Hdr.MAC_OFFSET);
            assertThat(header.get(JAVA_SHORT, Tpacket3Hdr.NET_OFFSET) - mac).isEqualTo(14);

            final MemorySegment frame = header.asSlice(mac, frameLength);
            assertThat(frame.get(NETWORK_U16, 12)).isEqualTo((short)AfPacket.ETH_P_IP);
            assertThat(frame.get(JAVA_BYTE, 14 + 9)).isEqualTo((byte)17);
            assertThat(Short.toUnsignedInt(frame.get(NETWORK_U16, 14 + 20 + 2))).isEqualTo(UDP_PORT);
            assertThat(frame.get(JAVA_BYTE, frameLength - 1)).isEqualTo((byte)0x5A);

            // The kernel writes the frame's link-level address right after the aligned header.
            final MemorySegment link = header.asSlice(AfPacket.tpacketAlign(Tpacket3Hdr.SIZE), SockaddrLl.SIZE);
            assertThat(link.get(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET)).isEqualTo((short)AfPacket.AF_PACKET);
            assertThat(link.get(NETWORK_U16, SockaddrLl.PROTOCOL_OFFSET)).isEqualTo((short)AfPacket.ETH_P_IP);
            assertThat(link.get(JAVA_INT, SockaddrLl.IFINDEX_OFFSET)).isEqualTo(loopback);
            assertThat(link.get(JAVA_BYTE, SockaddrLl.PKTTYPE_OFFSET)).isEqualTo((byte)AfPacket.PACKET_HOST);
            assertThat(link.get(JAVA_BYTE, SockaddrLl.HALEN_OFFSET)).isEqualTo((byte)6);
            block.set(JAVA_INT, TpacketBlockDesc.BLOCK_STATUS_OFFSET, AfPacket.TP_STATUS_KERNEL);

            final MemorySegment statistics = arena.allocate(2L * TpacketStatsV3.SIZE);
            assertThat(getsockopt(fd, AfPacket.PACKET_STATISTICS, statistics)).isEqualTo(TpacketStatsV3.SIZE);
            assertThat(statistics.get(JAVA_INT, TpacketStatsV3.PACKETS_OFFSET)).isEqualTo(1);
            assertThat(statistics.get(JAVA_INT, TpacketStatsV3.DROPS_OFFSET)).isZero();
        }
        finally
        {
            if (ring > 0)
            {
                syscalls.munmap(ring, (long)blockSize * blocks);
            }
            syscalls.close(udp);
            syscalls.close(fd);
        }
    }

    private void sendOneFrameThroughAV2TxRing()
    {
        final int loopback = syscalls.ifNameToIndex("lo");
        final int protocol = Sockets.htons(ETH_P_EXPERIMENTAL);
        final int blockSize = 4096;
        final int frameSize = 2048;
        final int frameLength = 60;
        final int receiver = packetSocket(protocol);
        final int sender = packetSocket(0);
        long ring = 0;
        try
        {
            assertThat(setIntOption(receiver, AfPacket.PACKET_IGNORE_OUTGOING, 1)).isZero();
            assertThat(bindPacket(receiver, protocol, loopback)).isZero();

            assertThat(setIntOption(sender, AfPacket.PACKET_VERSION, AfPacket.TPACKET_V2)).isZero();
            final MemorySegment request = arena.allocate(TpacketReq.LAYOUT);
            request.set(JAVA_INT, TpacketReq.BLOCK_SIZE_OFFSET, blockSize);
            request.set(JAVA_INT, TpacketReq.BLOCK_NR_OFFSET, 1);
            request.set(JAVA_INT, TpacketReq.FRAME_SIZE_OFFSET, frameSize);
            request.set(JAVA_INT, TpacketReq.FRAME_NR_OFFSET, blockSize / frameSize);
            assertThat(syscalls.setsockopt(sender, AfPacket.SOL_PACKET, AfPacket.PACKET_TX_RING, request.address(),
                TpacketReq.SIZE)).isZero();
            ring = syscalls.mmap(0, blockSize, Mmap.PROT_READ | Mmap.PROT_WRITE, Mmap.MAP_SHARED, sender, 0);
            assertThat(ring).as("mmap of the TX ring").isPositive();
            assertThat(bindPacket(sender, 0, loopback)).isZero();

            final MemorySegment slot = MemorySegment.ofAddress(ring).reinterpret(frameSize);
            assertThat(slot.get(JAVA_INT, Tpacket2Hdr.STATUS_OFFSET)).isEqualTo(AfPacket.TP_STATUS_AVAILABLE);
            final MemorySegment frame = slot.asSlice(Tpacket2Hdr.TX_DATA_OFFSET, frameLength);
            final byte[] destinationMac = {2, 0, 0, 0, 0, 1};
            final byte[] sourceMac = {2, 0, 0, 0, 0, 2};
            MemorySegment.copy(destinationMac, 0, frame, JAVA_BYTE, 0, 6);
            MemorySegment.copy(sourceMac, 0, frame, JAVA_BYTE, 6, 6);
            frame.set(NETWORK_U16, 12, (short)ETH_P_EXPERIMENTAL);
            for (int i = 14; i < frameLength; i++)
            {
                frame.set(JAVA_BYTE, i, (byte)i);
            }
            slot.set(JAVA_INT, Tpacket2Hdr.LEN_OFFSET, frameLength);
            JAVA_INT.varHandle().setRelease(slot, (long)Tpacket2Hdr.STATUS_OFFSET, AfPacket.TP_STATUS_SEND_REQUEST);

            // Without MSG_DONTWAIT the kernel sends the ring's frames and waits for them to complete.
            assertThat(syscalls.sendto(sender, 0, 0, 0, 0, 0)).isEqualTo(frameLength);
            assertThat((int)JAVA_INT.varHandle().getAcquire(slot, (long)Tpacket2Hdr.STATUS_OFFSET))
                .isEqualTo(AfPacket.TP_STATUS_AVAILABLE);

            final MemorySegment received = arena.allocate(frameSize);
            final MemorySegment from = arena.allocate(SockaddrLl.LAYOUT);
            final MemorySegment fromLength = arena.allocate(JAVA_INT);
            fromLength.set(JAVA_INT, 0, SockaddrLl.SIZE);
            assertThat(poll(receiver, PollFd.POLLIN, 2000)).isEqualTo(PollFd.POLLIN);
            assertThat(syscalls.recvfrom(receiver, received.address(), frameSize, Sockets.MSG_DONTWAIT, from.address(),
                fromLength.address())).isEqualTo(frameLength);
            assertThat(received.asSlice(0, frameLength).mismatch(frame)).isEqualTo(-1);
            // The kernel reports the address up to the end of its hardware address, but never less than a whole
            // struct sockaddr_ll: so its size is the layout's.
            assertThat(fromLength.get(JAVA_INT, 0)).isEqualTo(SockaddrLl.SIZE);
            assertThat(from.get(JAVA_BYTE, SockaddrLl.HALEN_OFFSET)).isEqualTo((byte)6);
            assertThat(from.get(NETWORK_U16, SockaddrLl.PROTOCOL_OFFSET)).isEqualTo((short)ETH_P_EXPERIMENTAL);
            assertThat(from.get(JAVA_INT, SockaddrLl.IFINDEX_OFFSET)).isEqualTo(loopback);
            assertThat(from.get(JAVA_BYTE, SockaddrLl.PKTTYPE_OFFSET)).isEqualTo((byte)AfPacket.PACKET_OTHERHOST);
            assertThat(from.asSlice(SockaddrLl.ADDR_OFFSET, 6).toArray(JAVA_BYTE)).containsExactly(sourceMac);
        }
        finally
        {
            if (ring > 0)
            {
                syscalls.munmap(ring, blockSize);
            }
            syscalls.close(sender);
            syscalls.close(receiver);
        }
    }

    private void joinAFanoutGroupOfTwo()
    {
        final int loopback = syscalls.ifNameToIndex("lo");
        final int protocol = Sockets.htons(ETH_P_EXPERIMENTAL);
        final int group = 4242;
        final int[] members = new int[3];
        try
        {
            for (int i = 0; i < members.length; i++)
            {
                members[i] = packetSocket(protocol);
                assertThat(bindPacket(members[i], protocol, loopback)).isZero();
            }
            final MemorySegment arguments = arena.allocate(FanoutArgs.LAYOUT);
            arguments.set(JAVA_SHORT, FanoutArgs.ID_OFFSET, (short)group);
            arguments.set(JAVA_SHORT, FanoutArgs.TYPE_FLAGS_OFFSET, (short)AfPacket.PACKET_FANOUT_HASH);
            arguments.set(JAVA_INT, FanoutArgs.MAX_NUM_MEMBERS_OFFSET, 2);
            assertThat(syscalls.setsockopt(members[0], AfPacket.SOL_PACKET, AfPacket.PACKET_FANOUT, arguments.address(),
                FanoutArgs.SIZE)).isZero();

            final MemorySegment readBack = arena.allocate(JAVA_LONG);
            assertThat(getsockopt(members[0], AfPacket.PACKET_FANOUT, readBack.asSlice(0, Integer.BYTES)))
                .isEqualTo(Integer.BYTES);
            assertThat(readBack.get(JAVA_INT, 0)).isEqualTo(AfPacket.fanoutArgument(group, AfPacket.PACKET_FANOUT_HASH));

            final int hash = AfPacket.fanoutArgument(group, AfPacket.PACKET_FANOUT_HASH);
            assertThat(setIntOption(members[1], AfPacket.PACKET_FANOUT, hash)).isZero();
            // The group was made for two members: a third is refused, and a different mode is never accepted.
            assertThat(setIntOption(members[2], AfPacket.PACKET_FANOUT, hash)).isEqualTo(-ENOSPC);
            assertThat(setIntOption(members[2], AfPacket.PACKET_FANOUT,
                AfPacket.fanoutArgument(group, AfPacket.PACKET_FANOUT_LB))).isEqualTo(-EINVAL);
        }
        finally
        {
            for (final int fd : members)
            {
                if (fd > 0)
                {
                    syscalls.close(fd);
                }
            }
        }
    }

    private void waitForBlock(final int fd, final MemorySegment block)
    {
        final long deadlineNs = System.nanoTime() + 5_000_000_000L;
        while ((blockStatus(block) & AfPacket.TP_STATUS_USER) == 0)
        {
            assertThat(System.nanoTime() - deadlineNs).as("block handed over within 5 s").isNegative();
            poll(fd, PollFd.POLLIN, 100);
        }
    }

    private static int blockStatus(final MemorySegment block)
    {
        return (int)JAVA_INT.varHandle().getAcquire(block, (long)TpacketBlockDesc.BLOCK_STATUS_OFFSET);
    }

    /** @return the revents, or -errno. */
    private int poll(final int fd, final short events, final int timeoutMs)
    {
        final MemorySegment pollfd = arena.allocate(PollFd.LAYOUT);
        pollfd.set(JAVA_INT, PollFd.FD_OFFSET, fd);
        pollfd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, events);
        final int ready = syscalls.poll(pollfd.address(), 1, timeoutMs);
        return ready < 0 ? ready : pollfd.get(JAVA_SHORT, PollFd.REVENTS_OFFSET);
    }

    private int packetSocket(final int protocol)
    {
        final int fd = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, protocol);
        assertThat(fd).as("AF_PACKET socket").isPositive();
        return fd;
    }

    private int bindPacket(final int fd, final int protocolNetworkOrder, final int ifindex)
    {
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT, SockaddrLl.PROTOCOL_OFFSET, (short)protocolNetworkOrder);
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, ifindex);
        return syscalls.bind(fd, address.address(), SockaddrLl.SIZE);
    }

    private MemorySegment loopbackAddress()
    {
        final MemorySegment address = arena.allocate(SockaddrIn.LAYOUT);
        address.set(JAVA_SHORT, SockaddrIn.FAMILY_OFFSET, (short)Sockets.AF_INET);
        address.set(NETWORK_U16, SockaddrIn.PORT_OFFSET, (short)UDP_PORT);
        address.set(NETWORK_U32, SockaddrIn.ADDR_OFFSET, SockaddrIn.INADDR_LOOPBACK);
        return address;
    }

    private int headerLength(final int fd, final int version)
    {
        final MemorySegment value = arena.allocate(JAVA_INT);
        value.set(JAVA_INT, 0, version);
        final int result = getsockopt(fd, AfPacket.PACKET_HDRLEN, value);
        return result < 0 ? result : value.get(JAVA_INT, 0);
    }

    private int setIntOption(final int fd, final int option, final int value)
    {
        final MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        return syscalls.setsockopt(fd, AfPacket.SOL_PACKET, option, segment.address(), Integer.BYTES);
    }

    /** @return the length the kernel wrote, or -errno. */
    private int getsockopt(final int fd, final int option, final MemorySegment value)
    {
        final MemorySegment length = arena.allocate(JAVA_INT);
        length.set(JAVA_INT, 0, (int)value.byteSize());
        final int result = syscalls.getsockopt(fd, AfPacket.SOL_PACKET, option, value.address(), length.address());
        return result < 0 ? result : length.get(JAVA_INT, 0);
    }
}
