package io.jvs.forwarder.port.packet;

import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.Tpacket2Hdr;
import io.jvs.nativebindings.packet.Tpacket3Hdr;
import org.agrona.UnsafeApi;

import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_AVAILABLE;
import static io.jvs.nativebindings.packet.AfPacket.TP_STATUS_SEND_REQUEST;

/**
 * The slots of a PACKET_TX_RING (TPACKET_V2 or V3), filled in ring order, because the kernel sends them in
 * that order from its own cursor: a slot is ours while its tp_status is AVAILABLE (read with acquire, so the
 * kernel is done with it); we copy the frame in, set its length and publish it with a release store of
 * SEND_REQUEST. The kernel sets it back to AVAILABLE once the frame has left. A busy slot under our cursor
 * means the ring is full: we stop there rather than skip it, or the kernel's cursor and ours would part.
 * <p>
 * Knows nothing of sockets (the port kicks the kernel), so it runs over plain memory as well. One thread.
 */
final class TransmitRing
{
    static final int QUEUED = 1;
    static final int RING_FULL = 0;
    static final int TOO_LONG = -1;

    private final long ring;
    private final int slotSize;
    private final int slotCount;
    private final int dataOffset;
    private final int statusOffset;
    private final int lengthOffset;
    private final boolean version3;
    private final int capacity;
    private final int vnetHeader;
    private int cursor;

    /**
     * @param ring      the address of the mapped ring; its blocks are exact multiples of the slot size, so the
     *                  slots lie end to end.
     * @param version   {@link AfPacket#TPACKET_V2} or {@link AfPacket#TPACKET_V3}.
     * @param slotSize  bytes per slot.
     * @param slotCount slots.
     * @param linear    whether the socket has PACKET_VNET_HDR: each frame then follows a virtio_net_hdr whose
     *                  hdr_len (the whole frame) makes the kernel copy it into the skb's linear buffer.
     */
    TransmitRing(final long ring, final int version, final int slotSize, final int slotCount, final boolean linear)
    {
        this.ring = ring;
        this.slotSize = slotSize;
        this.slotCount = slotCount;
        this.version3 = version == AfPacket.TPACKET_V3;
        this.dataOffset = version3 ? Tpacket3Hdr.TX_DATA_OFFSET : Tpacket2Hdr.TX_DATA_OFFSET;
        this.statusOffset = version3 ? Tpacket3Hdr.STATUS_OFFSET : Tpacket2Hdr.STATUS_OFFSET;
        this.lengthOffset = version3 ? Tpacket3Hdr.LEN_OFFSET : Tpacket2Hdr.LEN_OFFSET;
        this.vnetHeader = linear ? AfPacket.VIRTIO_NET_HDR_SIZE : 0;
        this.capacity = slotSize - dataOffset - vnetHeader;
    }

    /**
     * Copies a frame into the slot under the cursor and hands it to the kernel (it leaves at the next kick).
     *
     * @return {@link #QUEUED}, {@link #RING_FULL} or {@link #TOO_LONG}.
     */
    int offer(final long frame, final int length)
    {
        if (length > capacity)
        {
            return TOO_LONG;
        }
        final long slot = ring + (long)cursor * slotSize;
        if (UnsafeApi.getIntAcquire(null, slot + statusOffset) != TP_STATUS_AVAILABLE)
        {
            return RING_FULL;
        }
        if (vnetHeader != 0)
        {
            // flags 0 and gso_type NONE, hdr_len = length, then no GSO and no checksum offload. The u16 fields are
            // in native order: packet sockets use the legacy virtio byte order, which is the host's.
            final long header = slot + dataOffset;
            UnsafeApi.putShort(header, (short)0);
            UnsafeApi.putShort(header + AfPacket.VIRTIO_NET_HDR_LEN_OFFSET, (short)length);
            UnsafeApi.putInt(header + 4, 0);
            UnsafeApi.putShort(header + 8, (short)0);
        }
        UnsafeApi.copyMemory(frame, slot + dataOffset + vnetHeader, length);
        UnsafeApi.putInt(slot + lengthOffset, length + vnetHeader);
        if (version3)
        {
            // The kernel refuses a V3 TX frame with a next offset (EINVAL): frames are one per slot.
            UnsafeApi.putInt(slot + Tpacket3Hdr.NEXT_OFFSET_OFFSET, 0);
        }
        UnsafeApi.putIntRelease(null, slot + statusOffset, TP_STATUS_SEND_REQUEST);
        cursor = cursor + 1 == slotCount ? 0 : cursor + 1;
        return QUEUED;
    }

    /** @return the most bytes a frame may have. */
    int frameCapacity()
    {
        return capacity;
    }

    /** @return the status word of a slot (for tests). */
    int status(final int slotIndex)
    {
        return UnsafeApi.getIntAcquire(null, ring + (long)slotIndex * slotSize + statusOffset);
    }

    /** @return the address of a slot's frame bytes (for tests). */
    long frameAddress(final int slotIndex)
    {
        return ring + (long)slotIndex * slotSize + dataOffset + vnetHeader;
    }
}
