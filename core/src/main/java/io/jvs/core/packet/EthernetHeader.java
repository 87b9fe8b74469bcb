package io.jvs.core.packet;

/**
 * Ethernet II and its VLAN tags, at the start of a frame.
 * <pre>
 *   0        6        12     14
 *   | dst MAC | src MAC | type | payload        (untagged)
 *   | dst MAC | src MAC | 8100 | TCI | type | ... (802.1Q; 802.1ad uses 88a8, and tags may stack)
 * </pre>
 */
public final class EthernetHeader
{
    public static final int DESTINATION_OFFSET = 0;
    public static final int SOURCE_OFFSET = 6;
    public static final int TYPE_OFFSET = 12;
    public static final int LENGTH = 14;
    /** One VLAN tag: tag protocol identifier and tag control information. */
    public static final int TAG_LENGTH = 4;

    public static final int TYPE_IPV4 = 0x0800;
    public static final int TYPE_ARP = 0x0806;
    public static final int TYPE_IPV6 = 0x86DD;
    public static final int TYPE_VLAN = 0x8100;
    public static final int TYPE_QINQ = 0x88A8;
    /** The older, pre-standard QinQ tag some switches still send. */
    public static final int TYPE_QINQ_LEGACY = 0x9100;

    /** jvs parses at most this many stacked tags (802.1ad + 802.1Q + one spare). */
    public static final int MAX_TAGS = 3;

    private EthernetHeader()
    {
    }

    /**
     * @return the 48-bit destination MAC in the low bits of a long.
     */
    public static long destination(final long frame)
    {
        return ((long)Frames.u16(frame) << 32) | (Frames.i32(frame + 2) & 0xFFFF_FFFFL);
    }

    /**
     * @return the 48-bit source MAC in the low bits of a long.
     */
    public static long source(final long frame)
    {
        return ((long)Frames.u16(frame + SOURCE_OFFSET) << 32) | (Frames.i32(frame + SOURCE_OFFSET + 2) & 0xFFFF_FFFFL);
    }

    public static void destination(final long frame, final long mac)
    {
        Frames.putU16(frame, (int)(mac >>> 32));
        Frames.putI32(frame + 2, (int)mac);
    }

    public static void source(final long frame, final long mac)
    {
        Frames.putU16(frame + SOURCE_OFFSET, (int)(mac >>> 32));
        Frames.putI32(frame + SOURCE_OFFSET + 2, (int)mac);
    }

    /**
     * @param type an EtherType.
     * @return true for the tag types jvs steps over.
     */
    public static boolean isVlanTag(final int type)
    {
        return type == TYPE_VLAN || type == TYPE_QINQ || type == TYPE_QINQ_LEGACY;
    }

    /**
     * @param mac a MAC address in the low 48 bits.
     * @return it as {@code aa:bb:cc:dd:ee:ff}.
     */
    public static String macToString(final long mac)
    {
        final StringBuilder text = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            if (text.length() > 0)
            {
                text.append(':');
            }
            final int octet = (int)(mac >>> shift) & 0xFF;
            text.append(Character.forDigit(octet >>> 4, 16)).append(Character.forDigit(octet & 0xF, 16));
        }
        return text.toString();
    }

    /**
     * @param text {@code aa:bb:cc:dd:ee:ff} (or with dashes).
     * @return the MAC in the low 48 bits.
     * @throws IllegalArgumentException when it is not a MAC address.
     */
    public static long parseMac(final String text)
    {
        final String[] parts = text.trim().split("[:-]", -1);
        if (parts.length != 6)
        {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long mac = 0;
        for (final String part : parts)
        {
            if (part.isEmpty() || part.length() > 2)
            {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            try
            {
                mac = (mac << 8) | Integer.parseInt(part, 16);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("not a MAC address: " + text, ex);
            }
        }
        return mac;
    }
}
