package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.Tpacket3Hdr;
import io.jvs.nativebindings.packet.TpacketBlockDesc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The block walk over synthetic TPACKET_V3 blocks in plain memory, laid out as the kernel lays them out: a
 * block goes back only when walked to its end and every frame lent from it is released, a burst may stop in
 * the middle of a block, truncated frames are skipped, partial checksums are completed.
 */
class AfPacketReceiveRingTest
{
    private static final int BLOCK_SIZE = 4096;
    private static final int BLOCKS = 3;
    private static final int HEADROOM = 128;
    /** Where the kernel puts an Ethernet frame from its header: TPACKET_ALIGN(68 + 16) + reserve - 14. */
    private static final int MAC_OFFSET = 96 + HEADROOM - 14;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment ring = arena.allocate((long)BLOCK_SIZE * BLOCKS, 4096);
    private final AfPacketCounters counters = new AfPacketCounters(null);
    private final ReceiveRing receiveRing = new ReceiveRing(ring.address(), BLOCK_SIZE, BLOCKS);
    private final FrameBurst burst = new FrameBurst();

    @AfterEach
    void free()
    {
        arena.close();
    }

    @Test
    void shouldReceiveNothingWhileTheKernelOwnsTheBlock()
    {
        writeBlock(0, List.of(TestPackets.experimental(1, 60)), 0);
        blockStatus(0, AfPacket.TP_STATUS_KERNEL);

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isZero();
    }

    @Test
    void shouldLendFramesInPlaceWithTheirHeadroomAndReturnTheBlockAfterTheLastRelease()
    {
        final List<byte[]> frames = List.of(
            TestPackets.experimental(1, 60), TestPackets.experimental(2, 1000), TestPackets.experimental(3, 61));
        writeBlock(0, frames, AfPacket.TP_STATUS_BLK_TMO);

        assertThat(receiveRing.receive(burst, 77, FrameBurst.MAX_FRAMES, counters)).isEqualTo(3);

        for (int i = 0; i < 3; i++)
        {
            assertThat(bytes(burst.address(i), burst.length(i))).isEqualTo(frames.get(i));
            assertThat(burst.address(i)).isBetween(ring.address(), ring.address() + BLOCK_SIZE);
            assertThat(burst.headroom(i)).isEqualTo(MAC_OFFSET - Tpacket3Hdr.HDRLEN).isGreaterThanOrEqualTo(HEADROOM);
            assertThat(burst.handle(i)).isZero();
            assertThat(burst.receiveTimeNs(i)).isEqualTo(77);
        }
        assertThat(counters.rxFrames()).isEqualTo(3);
        assertThat(counters.rxBytes()).isEqualTo(60 + 1000 + 61);
        assertThat(counters.blocksRetiredByTimeout()).isEqualTo(1);
        assertThat(blockStatus(0)).as("lent frames keep the block").isNotZero();

        receiveRing.release(burst, counters);

        assertThat(blockStatus(0)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
        assertThat(counters.blocksReturned()).isEqualTo(1);
        assertThat(receiveRing.framesLent()).isZero();
    }

    @Test
    void shouldKeepABlockWhoseWalkABurstLimitInterruptedUntilItIsWalkedToTheEnd()
    {
        writeBlock(0, List.of(frame(1), frame(2), frame(3), frame(4), frame(5)), 0);
        writeBlock(1, List.of(frame(6), frame(7)), 0);

        assertThat(receiveRing.receive(burst, 1, 2, counters)).isEqualTo(2);
        receiveRing.release(burst, counters);
        assertThat(blockStatus(0)).as("frames 3..5 not walked yet").isNotZero();

        burst.clear();
        assertThat(receiveRing.receive(burst, 2, 4, counters)).isEqualTo(4);
        assertThat(sequences()).containsExactly(3, 4, 5, 6);
        assertThat(burst.handle(2)).isZero();
        assertThat(burst.handle(3)).isOne();
        assertThat(blockStatus(0)).as("walked, but frames 3..5 still lent").isNotZero();

        receiveRing.release(burst, counters);
        assertThat(blockStatus(0)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
        assertThat(blockStatus(1)).as("frame 7 not walked yet").isNotZero();

        burst.clear();
        assertThat(receiveRing.receive(burst, 3, FrameBurst.MAX_FRAMES, counters)).isOne();
        receiveRing.release(burst, counters);
        assertThat(blockStatus(1)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
        assertThat(counters.blocksReturned()).isEqualTo(2);
    }

    @Test
    void shouldLeaveOtherPortsFramesOfAMixedBurstAlone()
    {
        final MemorySegment elsewhere = arena.allocate(64);
        burst.add(elsewhere.address(), 60, 60, 0, 0, 0);
        writeBlock(0, List.of(frame(1)), 0);

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isOne();
        assertThat(burst.count).isEqualTo(2);
        receiveRing.release(burst, counters);

        assertThat(blockStatus(0)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
        assertThat(counters.blocksReturned()).isOne();
        assertThat(receiveRing.framesLent()).isZero();
    }

    @Test
    void shouldNotReadABlockAgainWhenOneReceiveGoesRoundTheRingWhileItsFramesAreLent()
    {
        for (int block = 0; block < BLOCKS; block++)
        {
            writeBlock(block, List.of(frame(block)), 0);
        }

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isEqualTo(BLOCKS);
        assertThat(receiveRing.receive(burst, 2, FrameBurst.MAX_FRAMES, counters)).isZero();
        assertThat(sequences()).containsExactly(0, 1, 2);

        receiveRing.release(burst, counters);
        assertThat(counters.blocksReturned()).isEqualTo(BLOCKS);
        burst.clear();
        assertThat(receiveRing.receive(burst, 3, FrameBurst.MAX_FRAMES, counters)).isZero();
    }

    @Test
    void shouldWrapAroundTheRing()
    {
        for (int round = 0; round < 3; round++)
        {
            for (int block = 0; block < BLOCKS; block++)
            {
                final int sequence = round * 100 + block;
                writeBlock(block, List.of(frame(sequence)), 0);
                burst.clear();
                assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isOne();
                assertThat(sequences()).containsExactly(sequence);
                receiveRing.release(burst, counters);
                assertThat(blockStatus(block)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
            }
        }
        assertThat(counters.blocksReturned()).isEqualTo(3L * BLOCKS);
    }

    @Test
    void shouldSkipTruncatedFramesAndReturnABlockOfOnlySuch()
    {
        writeBlock(0, List.of(frame(1)), 0);
        truncate(0, 0);
        writeBlock(1, List.of(frame(2), frame(3)), 0);
        truncate(1, 1);

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isOne();

        assertThat(sequences()).containsExactly(2);
        assertThat(counters.truncatedFrames()).isEqualTo(2);
        assertThat(blockStatus(0)).as("nothing lent from it").isEqualTo(AfPacket.TP_STATUS_KERNEL);
        receiveRing.release(burst, counters);
        assertThat(blockStatus(1)).isEqualTo(AfPacket.TP_STATUS_KERNEL);
    }

    @Test
    void shouldCompletePartialChecksumsOfFramesMarkedCsumNotReady()
    {
        final byte[] udp = TestPackets.udpV4(1234, 5678, 33);
        final int field = 14 + 20 + 6;
        final byte[] partial = udp.clone();
        ByteBuffer.wrap(partial).putShort(field, (short)TestPackets.pseudoHeaderSum(udp, 14));
        writeBlock(0, List.of(partial, TestPackets.experimental(9, 60)), 0);
        frameStatus(0, 0, AfPacket.TP_STATUS_USER | AfPacket.TP_STATUS_CSUMNOTREADY);
        frameStatus(0, 1, AfPacket.TP_STATUS_USER | AfPacket.TP_STATUS_CSUMNOTREADY);

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isEqualTo(2);

        assertThat(bytes(burst.address(0), burst.length(0))).isEqualTo(udp);
        assertThat(counters.checksumsCompleted()).isOne();
        assertThat(counters.checksumsNotCompleted()).isOne();
    }

    @Test
    void shouldPutBackTheVlanTagTheDeviceStripped()
    {
        final byte[] untagged = TestPackets.experimental(5, 60);
        writeBlock(0, List.of(untagged, untagged), 0);
        frameStatus(0, 0, AfPacket.TP_STATUS_USER | AfPacket.TP_STATUS_VLAN_VALID);
        header(0, 0).set(JAVA_INT, Tpacket3Hdr.VLAN_TCI_OFFSET, 0x2042);
        frameStatus(0, 1, AfPacket.TP_STATUS_USER | AfPacket.TP_STATUS_VLAN_VALID | AfPacket.TP_STATUS_VLAN_TPID_VALID);
        header(0, 1).set(JAVA_INT, Tpacket3Hdr.VLAN_TCI_OFFSET, 7);
        header(0, 1).set(JAVA_SHORT, Tpacket3Hdr.VLAN_TPID_OFFSET, (short)0x88A8);

        assertThat(receiveRing.receive(burst, 1, FrameBurst.MAX_FRAMES, counters)).isEqualTo(2);

        final ByteBuffer expected = ByteBuffer.allocate(64);
        expected.put(untagged, 0, 12).putShort((short)0x8100).putShort((short)0x2042).put(untagged, 12, 48);
        assertThat(bytes(burst.address(0), burst.length(0))).isEqualTo(expected.array());
        assertThat(burst.headroom(0)).isEqualTo(MAC_OFFSET - Tpacket3Hdr.HDRLEN - 4);
        expected.putShort(12, (short)0x88A8).putShort(14, (short)7);
        assertThat(bytes(burst.address(1), burst.length(1))).isEqualTo(expected.array());
        assertThat(counters.vlanTagsRestored()).isEqualTo(2);
        assertThat(counters.rxBytes()).isEqualTo(128);
    }

    private static byte[] frame(final int sequence)
    {
        return TestPackets.experimental(sequence, 60 + sequence);
    }

    private int[] sequences()
    {
        final int[] sequences = new int[burst.count];
        for (int i = 0; i < burst.count; i++)
        {
            sequences[i] = MemorySegment.ofAddress(burst.address(i) + 14).reinterpret(4)
                .get(JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0);
        }
        return sequences;
    }

    /** Lays out frames as the kernel does and hands the block to user space. */
    private void writeBlock(final int block, final List<byte[]> frames, final int extraStatus)
    {
        final MemorySegment descriptor = ring.asSlice((long)block * BLOCK_SIZE, BLOCK_SIZE);
        descriptor.fill((byte)0xEE);
        descriptor.set(JAVA_INT, TpacketBlockDesc.VERSION_OFFSET, AfPacket.TPACKET_V3);
        descriptor.set(JAVA_INT, TpacketBlockDesc.NUM_PKTS_OFFSET, frames.size());
        descriptor.set(JAVA_INT, TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET, TpacketBlockDesc.SIZE);
        int offset = TpacketBlockDesc.SIZE;
        for (int i = 0; i < frames.size(); i++)
        {
            final byte[] frame = frames.get(i);
            final int next = AfPacket.tpacketAlign(offset + MAC_OFFSET + frame.length);
            final MemorySegment header = descriptor.asSlice(offset);
            header.set(JAVA_INT, Tpacket3Hdr.NEXT_OFFSET_OFFSET, i + 1 < frames.size() ? next - offset : 0);
            header.set(JAVA_INT, Tpacket3Hdr.LEN_OFFSET, frame.length);
            header.set(JAVA_INT, Tpacket3Hdr.SNAPLEN_OFFSET, frame.length);
            header.set(JAVA_INT, Tpacket3Hdr.STATUS_OFFSET, AfPacket.TP_STATUS_USER);
            header.set(JAVA_SHORT, Tpacket3Hdr.MAC_OFFSET, (short)MAC_OFFSET);
            header.set(JAVA_SHORT, Tpacket3Hdr.NET_OFFSET, (short)(MAC_OFFSET + 14));
            MemorySegment.copy(frame, 0, header, JAVA_BYTE, MAC_OFFSET, frame.length);
            offset = next;
        }
        assertThat(offset).as("the test's frames fit a block").isLessThanOrEqualTo(BLOCK_SIZE);
        blockStatus(block, AfPacket.TP_STATUS_USER | extraStatus);
    }

    private MemorySegment header(final int block, final int frame)
    {
        long offset = (long)block * BLOCK_SIZE + TpacketBlockDesc.SIZE;
        for (int i = 0; i < frame; i++)
        {
            offset += ring.get(JAVA_INT, offset + Tpacket3Hdr.NEXT_OFFSET_OFFSET);
        }
        return ring.asSlice(offset);
    }

    private void truncate(final int block, final int frame)
    {
        final MemorySegment header = header(block, frame);
        header.set(JAVA_INT, Tpacket3Hdr.SNAPLEN_OFFSET, header.get(JAVA_INT, Tpacket3Hdr.LEN_OFFSET) - 1);
    }

    private void frameStatus(final int block, final int frame, final int status)
    {
        header(block, frame).set(JAVA_INT, Tpacket3Hdr.STATUS_OFFSET, status);
    }

    private void blockStatus(final int block, final int status)
    {
        ring.set(JAVA_INT, (long)block * BLOCK_SIZE + TpacketBlockDesc.BLOCK_STATUS_OFFSET, status);
    }

    private int blockStatus(final int block)
    {
        return ring.get(JAVA_INT, (long)block * BLOCK_SIZE + TpacketBlockDesc.BLOCK_STATUS_OFFSET);
    }

    private static byte[] bytes(final long address, final int length)
    {
        return MemorySegment.ofAddress(address).reinterpret(length).toArray(JAVA_BYTE);
    }
}
