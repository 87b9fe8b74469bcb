package io.jvs.core.packet;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * What the parser learned about each frame of a burst: one record of {@link #RECORD_LENGTH} bytes a frame, off the
 * heap, so that everything known of a packet sits on one cache line and a loop over the burst holds one address for
 * it, instead of an array base per field (which a loop over many fields cannot keep in registers, and reloads).
 * <p>
 * Offsets are from the frame's first byte. Addresses are held as two longs in network order, an IPv4
 * address in the low 32 bits of the low word, as in {@link io.jvs.core.net.FlowTuple}. For ICMP the
 * source port holds the type and the destination port the code. Each setter stores its field's width: ports as
 * the headers carry them, the L3 offset (at most 26, after three VLAN tags), kinds, protocol, flags and TTL as bytes.
 * An index outside the burst's capacity throws, as an array would.
 */
public final class ParsedBurst
{
    /** The frame is not IP (and not ARP): the host decides what it is. */
    public static final int KIND_OTHER = 0;
    public static final int KIND_IPV4 = 4;
    public static final int KIND_IPV6 = 6;
    public static final int KIND_ARP = 8;

    public static final int FRAGMENT_NONE = 0;
    /** The first fragment: offset 0, more to come; it carries the upper-layer header. */
    public static final int FRAGMENT_FIRST = 1;
    /** A later fragment: no upper-layer header. */
    public static final int FRAGMENT_LATER = 2;

    /** Bytes of one frame's record: one cache line. */
    public static final int RECORD_LENGTH = 64;
    private static final int RECORD_SHIFT = 6;

    private static final int SOURCE_HIGH = 0;
    private static final int SOURCE_LOW = 8;
    private static final int DESTINATION_HIGH = 16;
    private static final int DESTINATION_LOW = 24;
    private static final int IP_END = 32;
    private static final int L4_OFFSET = 36;
    private static final int FRAGMENT_ID = 40;
    private static final int SOURCE_PORT = 44;
    private static final int DESTINATION_PORT = 46;
    private static final int L3_OFFSET = 48;
    private static final int KIND = 49;
    private static final int PROTOCOL = 50;
    private static final int TCP_FLAGS = 51;
    private static final int TTL = 52;
    private static final int FRAGMENT = 53;
    private static final int HAS_PORTS = 54;

    public final int capacity;
    /** Holds the records' memory for as long as this burst lives. */
    private final ByteBuffer memory;
    private final long base;

    /**
     * @param capacity the largest burst.
     */
    public ParsedBurst(final int capacity)
    {
        this.capacity = capacity;
        this.memory = BufferUtil.allocateDirectAligned(Math.max(1, capacity) * RECORD_LENGTH, RECORD_LENGTH);
        this.base = BufferUtil.address(memory);
    }

    /**
     * The address of frame {@code i}'s record, for a loop that reads many of its fields: the index is checked here,
     * once, and the {@code ...At} accessors read at the address without checking. Besides the check they save, each
     * inlined accessor counts against C2's budget for the method it is inlined into (DesiredMethodLimit), and the
     * pipeline's fast loop reads some thirty fields a frame.
     *
     * @param i the frame's index in the burst.
     * @return the address, valid for as long as this burst lives.
     */
    public long record(final int i)
    {
        return base + ((long)Objects.checkIndex(i, capacity) << RECORD_SHIFT);
    }

    public int kind(final int i)
    {
        return kindAt(record(i));
    }

    public static int kindAt(final long record)
    {
        return UnsafeApi.getByte(record + KIND) & 0xFF;
    }

    public void kind(final int i, final int kind)
    {
        UnsafeApi.putByte(record(i) + KIND, (byte)kind);
    }

    public int l3Offset(final int i)
    {
        return l3OffsetAt(record(i));
    }

    public static int l3OffsetAt(final long record)
    {
        return UnsafeApi.getByte(record + L3_OFFSET) & 0xFF;
    }

    public void l3Offset(final int i, final int offset)
    {
        UnsafeApi.putByte(record(i) + L3_OFFSET, (byte)offset);
    }

    public int l4Offset(final int i)
    {
        return l4OffsetAt(record(i));
    }

    public static int l4OffsetAt(final long record)
    {
        return UnsafeApi.getInt(record + L4_OFFSET);
    }

    public void l4Offset(final int i, final int offset)
    {
        UnsafeApi.putInt(record(i) + L4_OFFSET, offset);
    }

    /**
     * @return bytes of the upper-layer segment present in this packet (the IP payload after extension headers): from
     *         the L4 offset to the end of the IP packet.
     */
    public int l4Length(final int i)
    {
        return l4LengthAt(record(i));
    }

    public static int l4LengthAt(final long record)
    {
        return UnsafeApi.getInt(record + IP_END) - UnsafeApi.getInt(record + L4_OFFSET);
    }

    /** The end of the IP packet, from the frame start (frames may carry Ethernet padding after it). */
    public int ipEnd(final int i)
    {
        return ipEndAt(record(i));
    }

    public static int ipEndAt(final long record)
    {
        return UnsafeApi.getInt(record + IP_END);
    }

    public void ipEnd(final int i, final int end)
    {
        UnsafeApi.putInt(record(i) + IP_END, end);
    }

    public int protocol(final int i)
    {
        return protocolAt(record(i));
    }

    public static int protocolAt(final long record)
    {
        return UnsafeApi.getByte(record + PROTOCOL) & 0xFF;
    }

    public void protocol(final int i, final int protocol)
    {
        UnsafeApi.putByte(record(i) + PROTOCOL, (byte)protocol);
    }

    public long sourceHigh(final int i)
    {
        return sourceHighAt(record(i));
    }

    public static long sourceHighAt(final long record)
    {
        return UnsafeApi.getLong(record + SOURCE_HIGH);
    }

    public void sourceHigh(final int i, final long high)
    {
        UnsafeApi.putLong(record(i) + SOURCE_HIGH, high);
    }

    public long sourceLow(final int i)
    {
        return sourceLowAt(record(i));
    }

    public static long sourceLowAt(final long record)
    {
        return UnsafeApi.getLong(record + SOURCE_LOW);
    }

    public void sourceLow(final int i, final long low)
    {
        UnsafeApi.putLong(record(i) + SOURCE_LOW, low);
    }

    public long destinationHigh(final int i)
    {
        return destinationHighAt(record(i));
    }

    public static long destinationHighAt(final long record)
    {
        return UnsafeApi.getLong(record + DESTINATION_HIGH);
    }

    public void destinationHigh(final int i, final long high)
    {
        UnsafeApi.putLong(record(i) + DESTINATION_HIGH, high);
    }

    public long destinationLow(final int i)
    {
        return destinationLowAt(record(i));
    }

    public static long destinationLowAt(final long record)
    {
        return UnsafeApi.getLong(record + DESTINATION_LOW);
    }

    public void destinationLow(final int i, final long low)
    {
        UnsafeApi.putLong(record(i) + DESTINATION_LOW, low);
    }

    public int sourcePort(final int i)
    {
        return sourcePortAt(record(i));
    }

    public static int sourcePortAt(final long record)
    {
        return UnsafeApi.getShort(record + SOURCE_PORT) & 0xFFFF;
    }

    public void sourcePort(final int i, final int port)
    {
        UnsafeApi.putShort(record(i) + SOURCE_PORT, (short)port);
    }

    public int destinationPort(final int i)
    {
        return destinationPortAt(record(i));
    }

    public static int destinationPortAt(final long record)
    {
        return UnsafeApi.getShort(record + DESTINATION_PORT) & 0xFFFF;
    }

    public void destinationPort(final int i, final int port)
    {
        UnsafeApi.putShort(record(i) + DESTINATION_PORT, (short)port);
    }

    public int tcpFlags(final int i)
    {
        return tcpFlagsAt(record(i));
    }

    public static int tcpFlagsAt(final long record)
    {
        return UnsafeApi.getByte(record + TCP_FLAGS) & 0xFF;
    }

    public void tcpFlags(final int i, final int flags)
    {
        UnsafeApi.putByte(record(i) + TCP_FLAGS, (byte)flags);
    }

    public int ttl(final int i)
    {
        return ttlAt(record(i));
    }

    public static int ttlAt(final long record)
    {
        return UnsafeApi.getByte(record + TTL) & 0xFF;
    }

    public void ttl(final int i, final int ttl)
    {
        UnsafeApi.putByte(record(i) + TTL, (byte)ttl);
    }

    public int fragment(final int i)
    {
        return fragmentAt(record(i));
    }

    public static int fragmentAt(final long record)
    {
        return UnsafeApi.getByte(record + FRAGMENT);
    }

    public void fragment(final int i, final int fragment)
    {
        UnsafeApi.putByte(record(i) + FRAGMENT, (byte)fragment);
    }

    public int fragmentId(final int i)
    {
        return UnsafeApi.getInt(record(i) + FRAGMENT_ID);
    }

    public void fragmentId(final int i, final int id)
    {
        UnsafeApi.putInt(record(i) + FRAGMENT_ID, id);
    }

    /** True when the upper-layer ports are present (TCP, UDP, SCTP, not a later fragment). */
    public boolean hasPorts(final int i)
    {
        return hasPortsAt(record(i));
    }

    public static boolean hasPortsAt(final long record)
    {
        return UnsafeApi.getByte(record + HAS_PORTS) != 0;
    }

    public void hasPorts(final int i, final boolean present)
    {
        UnsafeApi.putByte(record(i) + HAS_PORTS, (byte)(present ? 1 : 0));
    }

    public boolean isIpv6(final int i)
    {
        return kind(i) == KIND_IPV6;
    }

    /**
     * @return the IPv4 source address (IPv4 packets only).
     */
    public int sourceV4(final int i)
    {
        return (int)sourceLow(i);
    }

    /**
     * @return the IPv4 destination address (IPv4 packets only).
     */
    public int destinationV4(final int i)
    {
        return (int)destinationLow(i);
    }
}
