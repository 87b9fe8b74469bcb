package io.jvs.forwarder.port;

import java.util.List;

/**
 * Layout of one port's counters in its {@link PortCounters} buffer: 64-bit counts at stable ids, the offset of id
 * {@code n} being {@code 8 * n}. A counters file or a status reader names a count by its id, so an id never changes
 * its meaning once released; a new count takes the next free id.
 * <pre>
 *  line 0 (the polling thread's)   0 rx-frames  1 rx-bytes  2 tx-frames  3 tx-bytes  4 tx-ring-full  5 tx-copied
 *                                  6 wakeups
 *  line 1 (the kernel's, copied    8 kernel-rx-dropped  9 kernel-fill-empty  10 kernel-invalid
 *          by refresh)             11 kernel-rx-ring-full
 *  line 2 (pcap ports only)        16 rx-too-long  17 rx-not-ethernet  18 rx-outgoing  19 tx-errors
 *  lines 3 and 4 (AF_PACKET only)  24 checksums-completed  25 checksums-not-completed  26 vlan-tags-restored
 *                                  27 truncated  28 tx-too-long  29 tx-kick-errors  30 blocks-by-timeout
 *                                  31 blocks-returned  32 kernel-rx-freezes  33 kernel-rx-packets
 * </pre>
 * The polling thread writes the port's own counts; {@link PortCounters#refresh} writes the kernel's (ids 8 to 11,
 * 32 and 33) from whichever thread reads the kernel's statistics. No count has two writers.
 */
public final class PortCountersDescriptor
{
    /** Frames received. */
    public static final int RX_FRAMES = 0;
    /** Their bytes, Ethernet header included. */
    public static final int RX_BYTES = 1;
    /** Frames queued for transmission. */
    public static final int TX_FRAMES = 2;
    /** Their bytes. */
    public static final int TX_BYTES = 3;
    /** Frames that could not be queued for transmission: the TX ring was full. */
    public static final int TX_RING_FULL = 4;
    /** Frames copied between memories on transmit (zero when every transmit is zero-copy). */
    public static final int TX_COPIED = 5;
    /** Wake-up system calls made (TX kicks, fill-ring wake-ups, polls). */
    public static final int WAKEUPS = 6;
    /** Kernel: frames dropped before this port saw them (XDP rx_dropped + rx_ring_full, PACKET drops). */
    public static final int KERNEL_RX_DROPPED = 8;
    /** Kernel: receive attempts that found no free buffer (XDP fill ring empty). */
    public static final int KERNEL_FILL_EMPTY = 9;
    /** Kernel: descriptors it rejected as invalid (XDP rx/tx_invalid_descs). */
    public static final int KERNEL_INVALID = 10;
    /**
     * Kernel: the part of {@link #KERNEL_RX_DROPPED} dropped because the receive ring was full (XDP rx_ring_full): the
     * polling thread was behind. The rest of it found the fill ring empty (no buffer to copy into, which copy mode's
     * __xsk_rcv() takes before it looks at the receive ring) or was longer than a chunk.
     */
    public static final int KERNEL_RX_RING_FULL = 11;
    /** Pcap: frames skipped on receive, longer than a buffer or cut short by the snapshot length. */
    public static final int RX_TOO_LONG = 16;
    /** Pcap: frames skipped on receive, a link layer other than Ethernet with no Ethernet form. */
    public static final int RX_NOT_ETHERNET = 17;
    /** Pcap: frames skipped on receive, a cooked capture's packets the capturing host sent itself. */
    public static final int RX_OUTGOING = 18;
    /** Pcap: frames not sent or written, a send or write failed. */
    public static final int TX_ERRORS = 19;
    /** AF_PACKET: CSUMNOTREADY frames whose TCP or UDP checksum was completed in software. */
    public static final int CHECKSUMS_COMPLETED = 24;
    /** AF_PACKET: CSUMNOTREADY frames that were not TCP or UDP over IPv4/IPv6 and were passed on unchanged. */
    public static final int CHECKSUMS_NOT_COMPLETED = 25;
    /** AF_PACKET: frames whose VLAN tag the device had stripped (TP_STATUS_VLAN_VALID) and the port put back. */
    public static final int VLAN_TAGS_RESTORED = 26;
    /** AF_PACKET: frames the ring held only in part (snaplen below the frame's length): dropped. */
    public static final int TRUNCATED = 27;
    /** AF_PACKET: frames longer than a transmit slot holds: dropped. */
    public static final int TX_TOO_LONG = 28;
    /** AF_PACKET: transmit kicks the kernel refused with something other than "try again". */
    public static final int TX_KICK_ERRORS = 29;
    /** AF_PACKET: receive blocks handed over by the retire timeout before they were full (low rates). */
    public static final int BLOCKS_RETIRED_BY_TIMEOUT = 30;
    /** AF_PACKET: receive blocks handed back to the kernel. */
    public static final int BLOCKS_RETURNED = 31;
    /** AF_PACKET, kernel: times the receive ring was full and the queue froze (tp_freeze_q_cnt). */
    public static final int KERNEL_RX_FREEZES = 32;
    /** AF_PACKET, kernel: frames offered to the receive ring, those it dropped included (tp_packets). */
    public static final int KERNEL_RX_PACKETS = 33;
    /** How many ids there are, free ones included. */
    public static final int IDS = 34;
    /** Bytes per line. */
    public static final int LINE_LENGTH = 64;
    /** The buffer's length: every id, in whole lines. */
    public static final int LENGTH = (IDS * Long.BYTES + LINE_LENGTH - 1) / LINE_LENGTH * LINE_LENGTH;

    private static final List<String> NAMES = List.of("rx-frames", "rx-bytes", "tx-frames", "tx-bytes",
        "tx-ring-full", "tx-copied", "wakeups", "", "kernel-rx-dropped", "kernel-fill-empty", "kernel-invalid",
        "kernel-rx-ring-full", "", "", "", "", "rx-too-long", "rx-not-ethernet", "rx-outgoing", "tx-errors", "", "",
        "", "",
        "checksums-completed", "checksums-not-completed", "vlan-tags-restored", "truncated", "tx-too-long",
        "tx-kick-errors", "blocks-by-timeout", "blocks-returned", "kernel-rx-freezes", "kernel-rx-packets");

    private PortCountersDescriptor()
    {
    }

    /**
     * @param id a count's id.
     * @return its byte offset in the buffer.
     */
    public static int offset(final int id)
    {
        return id * Long.BYTES;
    }

    /**
     * @param id a count's id.
     * @return its name as status lines give it ("rx-frames", …), or null for a free id.
     */
    public static String name(final int id)
    {
        final String name = id >= 0 && id < NAMES.size() ? NAMES.get(id) : "";
        return name.isEmpty() ? null : name;
    }
}
