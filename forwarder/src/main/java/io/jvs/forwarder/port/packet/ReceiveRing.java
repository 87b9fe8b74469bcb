package io.jvs.forwarder.port.packet;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.PortCountersDescriptor;
import org.agrona.UnsafeApi;

import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_BLK_TMO;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_CSUMNOTREADY;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_KERNEL;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_USER;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_VLAN_TPID_VALID;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_VLAN_VALID;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.HDRLEN;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.LEN_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.MAC_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.NEXT_OFFSET_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.SNAPLEN_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.STATUS_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.VLAN_TCI_OFFSET;
import static io.jvs.nativebindings.packet.Tpacket3Hdr.VLAN_TPID_OFFSET;
import static io.jvs.nativebindings.packet.TpacketBlockDesc.BLOCK_STATUS_OFFSET;
import static io.jvs.nativebindings.packet.TpacketBlockDesc.NUM_PKTS_OFFSET;
import static io.jvs.nativebindings.packet.TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET;

/**
 * Walks a TPACKET_V3 receive ring and lends its frames to bursts in place. The kernel fills the blocks in
 * order and hands each over by setting TP_STATUS_USER in its block_status (read here with acquire, so the
 * frames it wrote are visible). A block goes back (block_status = 0, a release store, so our reads of it are
 * done first) once it has been walked to its end and every frame lent from it has been released: a burst may
 * end in the middle of a block, and a block's frames may be spread over several bursts.
 * <p>
 * A frame's handle is its block's number. Frames are lent with the bytes between the kernel's header and the
 * frame as headroom (PACKET_RESERVE plus alignment) and no tailroom (the next frame's header follows). Before a
 * frame is lent, a VLAN tag the device stripped is put back and a partial checksum completed.
 * No other port can keep a frame of the ring (none shares its memory, so none sets {@link FrameBurst#taken} on
 * one): release takes back every frame of ours in the burst. The pipeline may move a frame's address into its
 * headroom; it stays inside the ring, and the handle still names the block.
 * <p>
 * Knows nothing of sockets, so it runs over a synthetic block in plain memory as well. One thread; allocates
 * nothing after construction.
 */
final class ReceiveRing
{
    private static final int VLAN_TAG = 4;
    private static final int MAC_ADDRESSES = 12;
    private static final int ETH_P_8021Q = 0x8100;

    private final long ring;
    private final int blockSize;
    private final int blockCount;
    private final long ringBytes;
    private final int[] lent;
    private int block;
    private boolean walking;
    private int framesLeft;
    private long nextHeader;

    /**
     * @param ring       the address of the mapped ring.
     * @param blockSize  bytes per block.
     * @param blockCount blocks.
     */
    ReceiveRing(final long ring, final int blockSize, final int blockCount)
    {
        this.ring = ring;
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.ringBytes = (long)blockSize * blockCount;
        this.lent = new int[blockCount];
    }

    /**
     * Appends the frames that have arrived, up to {@code limit} in all in the burst.
     *
     * @return how many were appended.
     */
    int receive(final FrameBurst burst, final long nowNs, final int limit, final AfPacketCounters counters)
    {
        final int start = burst.count;
        long bytes = 0;
        while (burst.count < limit)
        {
            if (framesLeft == 0 && !openNextBlock(counters))
            {
                break;
            }
            final long header = nextHeader;
            final int status = UnsafeApi.getInt(header + STATUS_OFFSET);
            final int length = UnsafeApi.getInt(header + LEN_OFFSET);
            final int captured = UnsafeApi.getInt(header + SNAPLEN_OFFSET);
            final int macOffset = UnsafeApi.getShort(header + MAC_OFFSET) & 0xFFFF;
            nextHeader = header + UnsafeApi.getInt(header + NEXT_OFFSET_OFFSET);
            if (captured >= length)
            {
                long frame = header + macOffset;
                int frameLength = length;
                if ((status & TP_STATUS_VLAN_VALID) != 0)
                {
                    frame = restoreVlanTag(header, frame, status);
                    frameLength += VLAN_TAG;
                    counters.add(PortCountersDescriptor.VLAN_TAGS_RESTORED, 1);
                }
                if ((status & TP_STATUS_CSUMNOTREADY) != 0)
                {
                    completeChecksum(frame, frameLength, counters);
                }
                burst.add(frame, frameLength, frameLength, (int)(frame - header) - HDRLEN, nowNs, block);
                lent[block]++;
                bytes += frameLength;
            }
            else
            {
                counters.add(PortCountersDescriptor.TRUNCATED, 1);
            }
            if (--framesLeft == 0)
            {
                closeWalkedBlock(counters);
            }
        }
        final int received = burst.count - start;
        counters.add(PortCountersDescriptor.RX_FRAMES, received);
        counters.add(PortCountersDescriptor.RX_BYTES, bytes);
        return received;
    }

    /**
     * Takes back the frames of the burst; a block whose walk is over and whose last frame this was goes back
     * to the kernel.
     */
    void release(final FrameBurst burst, final AfPacketCounters counters)
    {
        for (int i = 0, count = burst.count; i < count; i++)
        {
            // A burst may hold other ports' frames too; ours lie inside the ring.
            if (Long.compareUnsigned(burst.address(i) - ring, ringBytes) >= 0)
            {
                continue;
            }
            final int owner = (int)burst.handle(i);
            if (--lent[owner] == 0 && !(walking && owner == block))
            {
                returnBlock(owner, counters);
            }
        }
    }

    /** @return frames lent and not yet released, over all blocks (for tests). */
    int framesLent()
    {
        int total = 0;
        for (final int count : lent)
        {
            total += count;
        }
        return total;
    }

    /**
     * The device took the frame's VLAN tag off (RX VLAN offload) and the kernel reports it beside the frame: put it
     * back in front of the EtherType, using 4 bytes of headroom, so the frame leaves as it arrived.
     *
     * @return the frame's new first byte.
     */
    private static long restoreVlanTag(final long header, final long frame, final int status)
    {
        final int protocolId = (status & TP_STATUS_VLAN_TPID_VALID) != 0 ?
            UnsafeApi.getShort(header + VLAN_TPID_OFFSET) & 0xFFFF : ETH_P_8021Q;
        final int tagControl = UnsafeApi.getInt(header + VLAN_TCI_OFFSET) & 0xFFFF;
        final long tagged = frame - VLAN_TAG;
        UnsafeApi.copyMemory(frame, tagged, MAC_ADDRESSES);
        Frames.putU16(tagged + MAC_ADDRESSES, protocolId);
        Frames.putU16(tagged + MAC_ADDRESSES + 2, tagControl);
        return tagged;
    }

    private static void completeChecksum(final long frame, final int length, final AfPacketCounters counters)
    {
        if (ChecksumCompletion.complete(frame, length))
        {
            counters.add(PortCountersDescriptor.CHECKSUMS_COMPLETED, 1);
        }
        else
        {
            counters.add(PortCountersDescriptor.CHECKSUMS_NOT_COMPLETED, 1);
        }
    }

    private boolean openNextBlock(final AfPacketCounters counters)
    {
        // A block with frames still lent has been walked and not yet given back: its TP_STATUS_USER is ours, not
        // a new hand-over. A receive that went round the whole ring stops here rather than read it again.
        if (walking || lent[block] != 0)
        {
            return false;
        }
        final long descriptor = ring + (long)block * blockSize;
        final int status = UnsafeApi.getIntAcquire(null, descriptor + BLOCK_STATUS_OFFSET);
        if ((status & TP_STATUS_USER) == 0)
        {
            return false;
        }
        if ((status & TP_STATUS_BLK_TMO) != 0)
        {
            counters.add(PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT, 1);
        }
        walking = true;
        framesLeft = UnsafeApi.getInt(descriptor + NUM_PKTS_OFFSET);
        nextHeader = descriptor + UnsafeApi.getInt(descriptor + OFFSET_TO_FIRST_PKT_OFFSET);
        if (framesLeft == 0)
        {
            closeWalkedBlock(counters);
            return openNextBlock(counters);
        }
        return true;
    }

    private void closeWalkedBlock(final AfPacketCounters counters)
    {
        walking = false;
        if (lent[block] == 0)
        {
            returnBlock(block, counters);
        }
        block = block + 1 == blockCount ? 0 : block + 1;
    }

    private void returnBlock(final int owner, final AfPacketCounters counters)
    {
        UnsafeApi.putIntRelease(null, ring + (long)owner * blockSize + BLOCK_STATUS_OFFSET, TP_STATUS_KERNEL);
        counters.add(PortCountersDescriptor.BLOCKS_RETURNED, 1);
    }
}
